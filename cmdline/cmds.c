/*
 * cmds.c - the rows of ptelab/cmdline_cmds.h as data, and the check of
 * every run= item against them: what ptelab runs before it boots and the
 * guest before it runs anything, so both refuse the same items with the
 * same one-line message.
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/cmdline.h"

/* clang-format off: the lists expand to entries with their commas */
const struct cmdline_cmd cmdline_cmds[NR_CMDLINE_CMDS] = {
#define CMDLINE_CMD_ROW(id, arg, form, words, what, lo, hi, needs_machine, help)                   \
	[CMDLINE_CMD_##id] = {                                                                     \
		#id, CMDLINE_ARG_##arg, CMDLINE_FORM_##form, words, what, lo, hi, needs_machine,   \
		help                                                                               \
	},
	CMDLINE_CMDS(CMDLINE_CMD_ROW)
#undef CMDLINE_CMD_ROW
};

const struct cmdline_bench cmdline_benches[NR_CMDLINE_BENCHES] = {
#define CMDLINE_BENCH_ROW(id, group, choice, cap_key, companions, smp, takes_active, every_node)   \
	[CMDLINE_BENCH_##                                                                          \
		id] = { #id, group, choice, cap_key, companions, smp, takes_active, every_node },
	CMDLINE_BENCHES(CMDLINE_BENCH_ROW)
#undef CMDLINE_BENCH_ROW
};
/* clang-format on */

const struct cmdline_cmd *cmdline_cmd_find(const char *name)
{
	for (int c = 0; c < NR_CMDLINE_CMDS; c++)
		if (!strcmp(cmdline_cmds[c].name, name))
			return &cmdline_cmds[c];
	return NULL;
}

const struct cmdline_bench *cmdline_bench_find(const char *name)
{
	for (int b = 0; b < NR_CMDLINE_BENCHES; b++)
		if (!strcmp(cmdline_benches[b].name, name) ||
		    (cmdline_benches[b].group && !strcmp(cmdline_benches[b].group, name)))
			return &cmdline_benches[b];
	return NULL;
}

bool cmdline_bench_selected(const struct cmdline *cl, const struct cmdline_bench *b,
			    const char *arg)
{
	const char *list = cmdline_value(cl, CMDLINE_KEY_advice);

	if (arg && !strcmp(arg, b->name))
		return true;
	if (arg && (!b->group || strcmp(arg, b->group)))
		return false;
	return !b->group || cmdline_word_index(list, b->choice, strlen(b->choice)) >= 0;
}

/* The key of @cl's word whose key is [k, k+n); NULL if none. */
static const char *key_given(const struct cmdline *cl, const char *k, size_t n)
{
	for (int i = 0; i < cl->nr_words; i++)
		if (strlen(cl->word[i].key) == n && !strncmp(cl->word[i].key, k, n))
			return cl->word[i].key;
	return NULL;
}

const char *cmdline_bench_knob_given(const struct cmdline *cl, const struct cmdline_bench *b)
{
	const char *given;
	size_t n;

	if (!b->cap_key)
		return NULL;
	if (cmdline_get(cl, b->cap_key))
		return b->cap_key;
	if (cmdline_get(cl, "batch"))
		return "batch";
	for (const char *k = b->companions; k && *k; k += n + (k[n] == ',')) {
		n = strcspn(k, ",");
		if ((given = key_given(cl, k, n)))
			return given;
	}
	return NULL;
}

/* Append @s to @err (of @errlen, holding a string), cut at its end. */
static void err_add(char *err, size_t errlen, const char *s)
{
	size_t len = strlen(err);

	if (len < errlen)
		snprintf(err + len, errlen - len, "%s", s);
}

/* Append the comma-separated @words to @err as a ", "-separated list. */
static void err_add_words(char *err, size_t errlen, const char *words)
{
	size_t len = strlen(err);

	for (const char *w = words; *w && len + 3 <= errlen; w++) {
		err[len++] = *w;
		if (*w == ',')
			err[len++] = ' ';
		err[len] = 0;
	}
}

/* In @err: @head, then the name of every bench with (@smp ? smp :
 * takes_active), ", "-separated, then @tail. Return: -1. */
static int bench_list_err(char *err, size_t errlen, const char *head, bool smp, const char *tail)
{
	const char *sep = "";

	snprintf(err, errlen, "%s", head);
	for (int i = 0; i < NR_CMDLINE_BENCHES; i++) {
		const struct cmdline_bench *b = &cmdline_benches[i];

		if (smp ? b->smp : b->takes_active) {
			err_add(err, errlen, sep);
			err_add(err, errlen, b->name);
			sep = ", ";
		}
	}
	err_add(err, errlen, tail);
	return -1;
}

/* run=bench:@arg names a benchmark (or a group). */
static int check_bench_name(const char *arg, char *err, size_t errlen)
{
	if (cmdline_bench_find(arg))
		return 0;
	snprintf(err, errlen, "no benchmark '%s' (have:", arg);
	for (int i = 0; i < NR_CMDLINE_BENCHES; i++) {
		err_add(err, errlen, " ");
		err_add(err, errlen, cmdline_benches[i].name);
	}
	err_add(err, errlen, ")");
	return -1;
}

/* cpus= and active= against @b, run by its name (@named) or as one of
 * run=bench (which skips the benches a key does not apply to). */
static int check_bench_smp(const struct cmdline *cl, const struct cmdline_bench *b, bool named,
			   char *err, size_t errlen)
{
	char head[96];

	if (named && cmdline_get(cl, "cpus") && !b->smp) {
		snprintf(head, sizeof(head),
			 "bench %s: cpus= does not apply (it runs on CPU 0; cpus= "
			 "is for bench ",
			 b->name);
		return bench_list_err(err, errlen, head, true, ")");
	}
	if (named && cmdline_num(cl, CMDLINE_KEY_active) && !b->takes_active) {
		snprintf(head, sizeof(head), "bench %s: active= does not apply (it is for bench ",
			 b->name);
		return bench_list_err(err, errlen, head, false, ")");
	}
	return 0;
}

/* caps= against @b: only where its timed operation has a cap (run=bench
 * skips the others), and not beside a knob that sets that cap. */
static int check_bench_caps(const struct cmdline *cl, const struct cmdline_bench *b, bool named,
			    char *err, size_t errlen)
{
	const char *knob = cmdline_bench_knob_given(cl, b);

	if (!cmdline_get(cl, "caps"))
		return 0;
	if (named && !b->cap_key)
		return snprintf(err, errlen,
				"bench %s: caps= does not apply (its timed operation has no "
				"batching cap)",
				b->name),
		       -1;
	if (knob)
		return snprintf(err, errlen,
				"bench %s: give caps= or the %s= knob, not both (caps= sweeps %s)",
				b->name, knob, b->cap_key),
		       -1;
	return 0;
}

/* run=bench[:@arg] (@arg NULL: every benchmark) under @cl's keys. */
static int check_bench(const struct cmdline *cl, const char *arg, char *err, size_t errlen)
{
	if (arg && check_bench_name(arg, err, errlen))
		return -1;
	for (int i = 0; i < NR_CMDLINE_BENCHES; i++) {
		const struct cmdline_bench *b = &cmdline_benches[i];

		if (cmdline_bench_selected(cl, b, arg) &&
		    (check_bench_smp(cl, b, arg != NULL, err, errlen) ||
		     check_bench_caps(cl, b, arg != NULL, err, errlen)))
			return -1;
	}
	return 0;
}

/* ptdump:OP pictures folios of folios='s first size: one of 4K..1M, the
 * PTE-mapped sizes below 2M (order 8 is 1M). */
static int check_ptdump_folios(const struct cmdline *cl, const struct run_item *it, char *err,
			       size_t errlen)
{
	const char *v = cmdline_get(cl, "folios");
	const struct folio_size *fs = v ? folio_size_find(v, strcspn(v, ",")) : NULL;

	if (!v || (fs && !fs->pmd && fs->order <= 8))
		return 0;
	return snprintf(err, errlen, "folios=%s: ptdump:%s takes one size of 4K..1M", v, it->arg),
	       -1;
}

/* The argument of @it against the form of its command @c. */
static int check_arg(const struct cmdline *cl, const struct cmdline_cmd *c,
		     const struct run_item *it, char *err, size_t errlen)
{
	int n;

	switch (c->form) {
	case CMDLINE_FORM_TEXT:
		return 0;
	case CMDLINE_FORM_NUM:
		n = cmdline_uint(it->arg);
		if (n >= 0 && (unsigned)n >= c->lo && (unsigned)n <= c->hi)
			return 0;
		return snprintf(err, errlen, "%s:%s needs %s in %u..%u, not '%s'", c->name, c->what,
				c->what, c->lo, c->hi, it->arg),
		       -1;
	case CMDLINE_FORM_WORD:
		if (cmdline_word_index(c->words, it->arg, strlen(it->arg)) >= 0)
			return 0;
		if (!strchr(c->words, ','))
			return snprintf(err, errlen, "%s:%s: the one %s is %s:%s", c->name, it->arg,
					c->what, c->name, c->words),
			       -1;
		snprintf(err, errlen, "%s:%s: the %s is one of ", c->name, it->arg, c->what);
		err_add_words(err, errlen, c->words);
		return -1;
	case CMDLINE_FORM_PATH:
		if (it->arg[0] == '/')
			return 0;
		return snprintf(err, errlen, "%s:%s: %s must be absolute (e.g. %s:/bin/hello)",
				c->name, it->arg, c->what, c->name),
		       -1;
	case CMDLINE_FORM_BENCH:
		return check_bench(cl, it->has_arg ? it->arg : NULL, err, errlen);
	}
	return 0;
}

/* One run= item against its command's row. */
static int check_item(const struct cmdline *cl, const struct run_item *it, bool host_backend,
		      char *err, size_t errlen)
{
	const struct cmdline_cmd *c = cmdline_cmd_find(it->name);

	if (!c)
		return snprintf(err, errlen, "unknown command '%s' (run=list lists the commands)",
				it->name),
		       -1;
	if (c->arg == CMDLINE_ARG_NONE && it->has_arg)
		return snprintf(err, errlen, "%s takes no argument (got '%s:%s')", it->name,
				it->name, it->arg),
		       -1;
	if (c->arg == CMDLINE_ARG_REQUIRED && !it->has_arg)
		return snprintf(err, errlen, "%s needs an argument: %s", it->name, c->help), -1;
	if (host_backend && c->needs_machine)
		return snprintf(err, errlen,
				"%s needs a booted guest; --backend host runs only the mm "
				"commands",
				it->name),
		       -1;
	if ((it->has_arg || c->form == CMDLINE_FORM_BENCH) && check_arg(cl, c, it, err, errlen))
		return -1;
	if (!strcmp(c->name, "ptdump") && it->has_arg)
		return check_ptdump_folios(cl, it, err, errlen);
	return 0;
}

int cmdline_check_run(const struct cmdline *cl, bool host_backend, char *err, size_t errlen)
{
	if (cl->nr_run == 0)
		return snprintf(err, errlen,
				"nothing to run (give run=NAME; run=list lists the commands)"),
		       -1;
	for (int i = 0; i < cl->nr_run; i++)
		if (check_item(cl, &cl->run[i], host_backend, err, errlen))
			return -1;
	return 0;
}
