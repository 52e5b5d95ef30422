/*
 * keys.c - the rows of ptelab/cmdline_keys.h as data, a key's value or its
 * default, and the check of every word against its row: what ptelab runs
 * before it boots and the guest before it runs anything, so both refuse
 * the same words with the same one-line message.
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/cmdline.h"

/* clang-format off: the list expands to entries with their commas */
const struct cmdline_key cmdline_keys[NR_CMDLINE_KEYS] = {
#define CMDLINE_ROW(id, name, kind, lo, hi, what, dflt, takers, arch, help)                        \
	[CMDLINE_KEY_##id] = { name, CMDLINE_##kind, lo, hi, what, #dflt, takers, arch, help },
	CMDLINE_KEYS(CMDLINE_ROW)
#undef CMDLINE_ROW
};
/* clang-format on */

/* The ranges the help states: the CPUs ptelab boots and the guest runs. */
_Static_assert(CMDLINE_CPUS_MAX == PTELAB_MAX_CPUS, "cpus= is not --cpus' limit");

const struct cmdline_key *cmdline_key_find(const char *name)
{
	for (int k = 0; k < NR_CMDLINE_KEYS; k++)
		if (!strcmp(cmdline_keys[k].name, name))
			return &cmdline_keys[k];
	return NULL;
}

const char *cmdline_value(const struct cmdline *cl, enum cmdline_key_id k)
{
	const char *v = cmdline_get(cl, cmdline_keys[k].name);

	if (v)
		return v;
	return cmdline_keys[k].dflt[0] ? cmdline_keys[k].dflt : NULL;
}

unsigned cmdline_num(const struct cmdline *cl, enum cmdline_key_id k)
{
	int n = cmdline_uint(cmdline_value(cl, k));

	return n < 0 ? 0 : (unsigned)n;
}

bool cmdline_on(const struct cmdline *cl, enum cmdline_key_id k)
{
	const char *v = cmdline_value(cl, k);

	return v && !strcmp(v, "on");
}

int cmdline_choice(const struct cmdline *cl, enum cmdline_key_id k)
{
	const char *v = cmdline_value(cl, k);

	return v ? cmdline_word_index(cmdline_keys[k].what, v, strlen(v)) : -1;
}

/* Is [s, s+n) the string @str? */
static bool span_is(const char *s, size_t n, const char *str)
{
	return strlen(str) == n && !strncmp(s, str, n);
}

/* Does the run= item @it run the taker [t, t+n): NAME takes every
 * NAME[:ARG], NAME:ARG takes that item and NAME alone (which runs every
 * ARG, as run=bench runs every benchmark)? */
static bool item_runs(const struct run_item *it, const char *t, size_t n)
{
	size_t name = strcspn(t, ":");

	if (name > n)
		name = n;
	if (!span_is(t, name, it->name))
		return false;
	return name == n || !it->has_arg || span_is(t + name + 1, n - name - 1, it->arg);
}

/* Does the run= item @it run one of the comma-separated @takers? */
static bool item_takes(const struct run_item *it, const char *takers)
{
	for (const char *t = takers;;) {
		size_t n = strcspn(t, ",");

		if (item_runs(it, t, n))
			return true;
		if (!t[n])
			return false;
		t += n + 1;
	}
}

/* Is the word @w of row @r read by a command of @cl's run= list? A line
 * without one runs nothing: the guest says so. */
static int check_takers(const struct cmdline *cl, const struct cmdline_key *r,
			const struct cmdline_word *w, char *err, size_t errlen)
{
	if (!r->takers || !cl->nr_run)
		return 0;
	for (int i = 0; i < cl->nr_run; i++)
		if (item_takes(&cl->run[i], r->takers))
			return 0;
	return snprintf(err, errlen, "%s=%s: run=%s does not read it (%s= is for %s)", w->key,
			w->val, cmdline_get(cl, "run"), w->key, r->takers),
	       -1;
}

/* Does row @r exist on @arch ("arm64" also on "host-arm64")? */
static int check_arch(const struct cmdline_key *r, const char *v, const char *arch, char *err,
		      size_t errlen)
{
	if (!r->arch || !strcmp(arch, r->arch) ||
	    (!strncmp(arch, "host-", 5) && !strcmp(arch + 5, r->arch)))
		return 0;
	return snprintf(err, errlen, "%s=%s: %s exists on %s only, not on %s", r->name, v, r->name,
			r->arch, arch),
	       -1;
}

int cmdline_check(const struct cmdline *cl, const char *arch, char *err, size_t errlen)
{
	for (int i = 0; i < cl->nr_words; i++) {
		const struct cmdline_word *w = &cl->word[i];
		const struct cmdline_key *r = cmdline_key_find(w->key);

		if (!r)
			return snprintf(err, errlen,
					"unknown option '%s' (run=help lists the options)", w->key),
			       -1;
		if (check_arch(r, w->val, arch, err, errlen) ||
		    cmdline_value_check(r, w->val, err, errlen) ||
		    check_takers(cl, r, w, err, errlen))
			return -1;
	}
	return 0;
}
