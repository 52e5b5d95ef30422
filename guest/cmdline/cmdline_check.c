/*
 * cmdline_check.c - every key the guest command line may carry, what its
 * value must look like, and one line of help for it.
 *
 * Plain C, linked into the guest (which checks before it runs anything)
 * and into ptelab (which checks before it boots anything), so both reject
 * the same words with the same one-line message.
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/abi.h"
#include "ptelab/cmdline.h"

enum key_kind {
	K_RUN,
	K_SIZE,
	K_REPS,
	K_FOLIOS,
	K_CAPS,
	K_CAP,
	K_ONOFF,
	K_CHOICE,
	K_CHOICES,
	K_GUP_NR,
	K_ACTIVE,
	K_CPUS,
	K_SECONDS,
	K_CONTPTE,
	K_TEXT
};

struct key_rule {
	const char *key;
	enum key_kind kind;
	const char *help; /* for K_CHOICE: the choices, comma-separated, first */
};

static const struct key_rule rules[] = {
	{ "run", K_RUN, "NAME[:ARG][,NAME...]: the commands to run (run=list lists them)" },
	{ "size", K_SIZE, "benchmarks: MiB per repetition, even, 2..65536 (default 256 or less)" },
	{ "reps", K_REPS, "benchmarks: repetitions per variant, 1..64 (default 5)" },
	{ "folios", K_FOLIOS,
	  "benchmarks: folio sizes, of 4K 16K 32K 64K 128K 256K 512K 1M "
	  "2M-pte 2M-pmd" },
	{ "caps", K_CAPS, "benchmarks: a variant per cap of the timed operation, e.g. 1,4,max" },
	{ "batch", K_CAP, "every cap below at once (N or max; 1 = unbatched)" },
/* clang-format off: the list expands to entries with their commas */
#define CAP_RULE(key, help) { #key, K_CAP, help },
	CMDLINE_CAP_KEYS(CAP_RULE)
#undef CAP_RULE
	/* clang-format on */
	{ "gup_walk", K_ONOFF, "GUP walks every PTE of a table in one call: on or off" },
	{ "contpte", K_CONTPTE, "arm64 only: fold aligned 16-PTE runs into blocks: on or off" },
	{ "trace", K_ONOFF,
	  "one line per batch decision (runs, flushes, folds): on or off (default off; ptelab "
	  "boots guest-trace.elf for on)" },
	{ "active", K_ACTIVE,
	  "bench zap, mprotect, migrate: other CPUs in the mm while cpu0 times, 0..7 "
	  "(needs --cpus K+1; default 0)" },
	{ "cpus", K_CPUS,
	  "bench fault, gup, gup_put: CPUs doing the timed work at once, 1..8 (at most "
	  "--cpus; default 1); run=stress:mm: CPUs the mixes run on (default all)" },
	{ "seconds", K_SECONDS, "run=stress:mm: seconds of mixes, 1..86400 (default 10)" },
	{ "gup_nr", K_GUP_NR, "bench gup: pages per call, 0..16777216 (0 = all; default 65536)" },
	{ "gup_op", K_CHOICE, CMDLINE_GUP_OPS },
	{ "gup_write", K_ONOFF, "bench gup: FOLL_WRITE, on or off (default on)" },
	{ "gup_touch", K_ONOFF, "bench gup: FOLL_TOUCH, on or off (default on for get)" },
	{ "gup_keep", K_CHOICE, CMDLINE_GUP_KEEPS },
	{ "advice", K_CHOICES, CMDLINE_MADV_ADVICES },
	/* Set by ptelab itself: what the guest's clock is and who runs it. */
	{ "ptelab.clock", K_TEXT, "set by ptelab: the clock (icount, host, kvm, tcg)" },
	{ "ptelab.backend", K_TEXT, "set by ptelab: the backend" },
	{ "ptelab.version", K_TEXT, "set by ptelab: its version" },
	{ "ptelab.quiet", K_ONOFF, "set by ptelab --quiet: no progress lines" },
	{ "ptelab.verbose", K_ONOFF, "set by ptelab --verbose: the boot map (mm: lines)" },
};
#define NR_RULES (int)(sizeof(rules) / sizeof(rules[0]))

/* Is [s, s+len) one of the comma-separated @choices? */
static int choice_ok(const char *choices, const char *s, size_t len)
{
	for (const char *c = choices;;) {
		size_t n = strcspn(c, ",");

		if (n == len && !strncmp(c, s, n))
			return 1;
		if (!c[n])
			return 0;
		c += n + 1;
	}
}

/* Every comma-separated item of @v is one of @r's choices. */
static int choices_check(const struct key_rule *r, const char *v, char *err, size_t errlen)
{
	for (const char *s = v;; s++) {
		size_t n = strcspn(s, ",");

		if (!choice_ok(r->help, s, n))
			return snprintf(err, errlen, "%s=%s: want a list of %s", r->key, v,
					r->help),
			       -1;
		s += n;
		if (!*s)
			return 0;
	}
}

int cmdline_cap_value(const char *key, const char *v, unsigned *out, char *err, size_t errlen)
{
	int n = cmdline_uint(v);

	if (strcmp(v, "max") == 0) {
		*out = CMDLINE_CAP_MAX;
		return 0;
	}
	if (n < 1 || (unsigned)n > CMDLINE_CAP_LIMIT)
		return snprintf(err, errlen, "%s=%s: a cap is a number 1..%u or 'max'", key, v,
				CMDLINE_CAP_LIMIT),
		       -1;
	*out = (unsigned)n;
	return 0;
}

int cmdline_caps_list(const char *list, unsigned *out, int max, char *err, size_t errlen)
{
	char one[16];
	int n = 0;

	for (const char *s = list;;) {
		size_t len = strcspn(s, ",");

		if (len >= sizeof(one) || n == max) {
			snprintf(err, errlen, "caps=%s: at most %d values, each N or max", list,
				 max);
			return -1;
		}
		memcpy(one, s, len);
		one[len] = 0;
		if (cmdline_cap_value("caps", one, &out[n], err, errlen))
			return -1;
		for (int i = 0; i < n; i++)
			if (out[i] == out[n]) {
				snprintf(err, errlen, "caps=%s: '%s' is given twice", list, one);
				return -1;
			}
		n++;
		if (!s[len])
			return n;
		s += len + 1;
	}
}

/* Check the value @v of @r on @arch. Return: 0, or -1 with @err set. */
static int check_value(const struct key_rule *r, const char *v, const char *arch, char *err,
		       size_t errlen)
{
	unsigned scratch[CMDLINE_CAPS_MAX], cap;
	int n = cmdline_uint(v);

	switch (r->kind) {
	case K_SIZE:
		if (n >= 2 && n <= 65536 && n % 2 == 0)
			return 0;
		return snprintf(err, errlen, "size=%s: want an even number of MiB, 2..65536", v),
		       -1;
	case K_REPS:
		if (n >= 1 && n <= 64)
			return 0;
		return snprintf(err, errlen, "reps=%s: want a number 1..64", v), -1;
	case K_ACTIVE:
		if (n >= 0 && n < PTELAB_MAX_CPUS)
			return 0;
		return snprintf(err, errlen, "active=%s: want 0..%d other CPUs", v,
				PTELAB_MAX_CPUS - 1),
		       -1;
	case K_GUP_NR:
		if (n >= 0 && n <= (1 << 24))
			return 0;
		return snprintf(err, errlen, "gup_nr=%s: want 0..16777216 pages", v), -1;
	case K_CPUS:
		if (n >= 1 && n <= CMDLINE_CPUS_MAX)
			return 0;
		return snprintf(err, errlen, "cpus=%s: want a number 1..%d", v, CMDLINE_CPUS_MAX),
		       -1;
	case K_SECONDS:
		if (n >= 1 && n <= 86400)
			return 0;
		return snprintf(err, errlen, "seconds=%s: want a number 1..86400", v), -1;
	case K_FOLIOS:
		return folios_check(v, err, errlen);
	case K_CAPS:
		return cmdline_caps_list(v, scratch, CMDLINE_CAPS_MAX, err, errlen) < 0 ? -1 : 0;
	case K_CAP:
		return cmdline_cap_value(r->key, v, &cap, err, errlen);
	case K_CONTPTE:
		if (strcmp(arch, "arm64") && strcmp(arch, "host-arm64"))
			return snprintf(err, errlen,
					"contpte=%s: contpte exists on arm64 only, not on %s", v,
					arch),
			       -1;
		/* fall through */
	case K_ONOFF:
		if (!strcmp(v, "on") || !strcmp(v, "off"))
			return 0;
		return snprintf(err, errlen, "%s=%s: want on or off", r->key, v), -1;
	case K_CHOICE:
		if (choice_ok(r->help, v, strlen(v)))
			return 0;
		return snprintf(err, errlen, "%s=%s: want one of %s", r->key, v, r->help), -1;
	case K_CHOICES:
		return choices_check(r, v, err, errlen);
	case K_RUN:
	case K_TEXT:
		break;
	}
	return 0;
}

int cmdline_check(const struct cmdline *cl, const char *arch, char *err, size_t errlen)
{
	for (int i = 0; i < cl->nr_words; i++) {
		const struct cmdline_word *w = &cl->word[i];
		int k = 0;

		while (k < NR_RULES && strcmp(rules[k].key, w->key))
			k++;
		if (k == NR_RULES)
			return snprintf(err, errlen,
					"unknown option '%s' (run=help lists the options)", w->key),
			       -1;
		if (check_value(&rules[k], w->val, arch, err, errlen))
			return -1;
	}
	return 0;
}

uint64_t cmdline_bench_mem(unsigned size_mb, unsigned nodes, bool every_node)
{
	uint64_t one = (((uint64_t)size_mb + size_mb / 8) << 20) + (64ull << 20);
	uint64_t need = every_node ? one * nodes : one, unit = (2ull << 20) * nodes;

	return (need + unit - 1) / unit * unit;
}

bool cmdline_bench_every_node(const char *name)
{
	return !strcmp(name, "migrate") || !strcmp(name, "move_pages");
}

bool cmdline_run_every_node(const struct cmdline *cl)
{
	for (int i = 0; i < cl->nr_run; i++)
		if (!strcmp(cl->run[i].name, "bench") &&
		    (!cl->run[i].has_arg || cmdline_bench_every_node(cl->run[i].arg)))
			return true;
	return false;
}

int cmdline_check_machine(const struct cmdline *cl, unsigned nodes, unsigned cpus, char *err,
			  size_t errlen)
{
	const char *c = cmdline_get(cl, "cpus"), *a = cmdline_get(cl, "active");

	if (c && (unsigned)cmdline_uint(c) > cpus)
		return snprintf(err, errlen, "cpus=%s: the machine has %u CPU%s (ptelab --cpus %s)",
				c, cpus, cpus == 1 ? "" : "s", c),
		       -1;
	if (a && (unsigned)cmdline_uint(a) >= cpus)
		return snprintf(err, errlen,
				"active=%s needs %d CPUs, the machine has %u (ptelab --cpus %d)", a,
				cmdline_uint(a) + 1, cpus, cmdline_uint(a) + 1),
		       -1;
	for (int i = 0; i < cl->nr_run; i++)
		if (!strcmp(cl->run[i].name, "numa_maps") && nodes < 2)
			return snprintf(err, errlen,
					"run=numa_maps needs two nodes, the machine has %u "
					"(ptelab --nodes 2)",
					nodes),
			       -1;
	return 0;
}

/* The choice a K_CHOICE key takes when it is absent (cmdline.h). */
static const char *choice_default(const char *key)
{
	return !strcmp(key, "gup_op")	  ? CMDLINE_GUP_OP_DEFAULT
	       : !strcmp(key, "gup_keep") ? CMDLINE_GUP_KEEP_DEFAULT
					  : "-";
}

void cmdline_print_keys(FILE *out)
{
	for (int i = 0; i < NR_RULES; i++) {
		if (!strncmp(rules[i].key, "ptelab.", 7))
			continue;
		if (rules[i].kind == K_CHOICE)
			fprintf(out, "  %-10s bench gup: one of %s (default %s)\n", rules[i].key,
				rules[i].help, choice_default(rules[i].key));
		else if (rules[i].kind == K_CHOICES)
			fprintf(out, "  %-10s bench madvise: a list of %s (default %s)\n",
				rules[i].key, rules[i].help, CMDLINE_MADV_ADVICE_DEFAULT);
		else
			fprintf(out, "  %-10s %s\n", rules[i].key, rules[i].help);
	}
}
