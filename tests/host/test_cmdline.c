/*
 * test_cmdline.c - the guest command-line grammar (cmdline/): the parser,
 * the rows of ptelab/cmdline_keys.h as the checker and the help read
 * them, and the rows of ptelab/cmdline_cmds.h as the run= check reads
 * them.
 */
#include <stdlib.h>
#include <string.h>

#include "ptelab/cmdline.h"
#include "test.h"

static struct cmdline cl;
static char err[160];

/* run= splits into commands with optional :ARG, other words into keys. */
TEST(run_list_and_keys)
{
	CHECK_EQ(cmdline_parse("  run=hello,exit:3,selftest:boot  fork=16 flag ", &cl, err,
			       sizeof(err)),
		 0);
	CHECK_EQ(cl.nr_run, 3);
	CHECK_STR(cl.run[0].name, "hello");
	CHECK_EQ(cl.run[0].has_arg, 0);
	CHECK_STR(cl.run[1].name, "exit");
	CHECK_STR(cl.run[1].arg, "3");
	CHECK_STR(cl.run[2].arg, "boot");
	CHECK_STR(cmdline_get(&cl, "fork"), "16");
	CHECK_STR(cmdline_get(&cl, "flag"), "");
	CHECK(cmdline_get(&cl, "nope") == NULL);
}

/* A run item's argument may be as long as a value (a selftest filter
 * list); a longer run= value is refused as a whole. */
TEST(long_run_argument)
{
	char line[CMDLINE_VAL_MAX + 16], want[CMDLINE_VAL_MAX];
	size_t n = sizeof(want) - 1 - strlen("selftest:");

	memset(want, 'a', n);
	want[n] = 0;
	snprintf(line, sizeof(line), "run=selftest:%s", want);
	CHECK_EQ(cmdline_parse(line, &cl, err, sizeof(err)), 0);
	CHECK_STR(cl.run[0].arg, want);
	snprintf(line, sizeof(line), "run=selftest:%sa", want);
	CHECK_EQ(cmdline_parse(line, &cl, err, sizeof(err)), -1);
}

/* Empty input parses to nothing and is not an error. */
TEST(empty_is_empty)
{
	CHECK_EQ(cmdline_parse("", &cl, err, sizeof(err)), 0);
	CHECK_EQ(cl.nr_words, 0);
	CHECK_EQ(cl.nr_run, 0);
}

/* Each malformed input is refused with a reason. */
TEST(malformed_words_are_refused)
{
	static const char *const bad[] = {
		"=5",	    "run=",
		"run=a,,b", "run=,a",
		"run=a,",   "ke$y=1",
		"a=1 a=2",  "x= ",
		"run=:3",   "run=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		CHECK_EQ(cmdline_parse(bad[i], &cl, err, sizeof(err)), -1);
		CHECK(err[0] != 0);
	}
}

/* More words than fit is an error, not an overflow. */
TEST(too_many_words)
{
	char buf[CMDLINE_MAX_WORDS * 8 + 16] = "";

	for (int i = 0; i <= CMDLINE_MAX_WORDS; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "k%d=1 ", i);
	CHECK_EQ(cmdline_parse(buf, &cl, err, sizeof(err)), -1);
	CHECK_HAS(err, "more than");
}

/* Unknown keys are named. */
TEST(unknown_key_is_named)
{
	CHECK_EQ(cmdline_parse("run=hello fork=2 forc=3", &cl, err, sizeof(err)), 0);
	CHECK_EQ(cmdline_check(&cl, "x86_64", err, sizeof(err)), -1);
	CHECK_HAS(err, "unknown option 'forc'");
}

TEST(uint_parsing)
{
	CHECK_EQ(cmdline_uint("0"), 0);
	CHECK_EQ(cmdline_uint("255"), 255);
	CHECK_EQ(cmdline_uint("2147483647"), 2147483647);
	CHECK_EQ(cmdline_uint("2147483648"), -1);
	CHECK_EQ(cmdline_uint("-1"), -1);
	CHECK_EQ(cmdline_uint("1x"), -1);
	CHECK_EQ(cmdline_uint(""), -1);
	CHECK_EQ(cmdline_uint(NULL), -1);
}

/* The line of cmdline_print_keys()'s @text that names @key, or NULL. */
static const char *help_line(const char *text, const char *key, char *line, size_t size)
{
	char want[48];
	const char *p;

	snprintf(want, sizeof(want), "\n  %s ", key);
	p = strstr(text, want);
	if (!p)
		return NULL;
	snprintf(line, size, "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
	return line;
}

/* The help lists every key of the table a user may give (all but
 * ptelab.*), each with its range, its default and who reads it. */
TEST(help_lists_every_key_with_range_and_default)
{
	char *text = NULL, line[512], want[64];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fputc('\n', f);
	cmdline_print_keys(f);
	fclose(f);
	for (int k = 0; k < NR_CMDLINE_KEYS; k++) {
		const struct cmdline_key *r = &cmdline_keys[k];

		if (!strncmp(r->name, "ptelab.", 7)) {
			CHECK(!help_line(text, r->name, line, sizeof(line)));
			continue;
		}
		if (!help_line(text, r->name, line, sizeof(line))) {
			CHECK_STR("a help line", r->name);
			continue;
		}
		snprintf(want, sizeof(want), "(default %s)", r->dflt);
		if (r->dflt[0])
			CHECK_HAS(line, want);
		snprintf(want, sizeof(want), "%u..%u", r->lo, r->hi);
		if (r->kind == CMDLINE_NUM || r->kind == CMDLINE_EVEN)
			CHECK_HAS(line, want);
		if (r->kind == CMDLINE_CAP || r->kind == CMDLINE_BATCH)
			CHECK_HAS(line, "N (1..1048576) or max");
		if (r->kind == CMDLINE_CHOICE || r->kind == CMDLINE_CHOICES)
			CHECK_HAS(line, r->what);
		if (r->takers)
			CHECK_HAS(line, r->takers);
		if (r->arch)
			CHECK_HAS(line, r->arch);
	}
	free(text);
}

/* Every default a row names is a value its own check accepts (a range
 * that moves past its default fails here). */
TEST(every_default_is_a_value)
{
	for (int k = 0; k < NR_CMDLINE_KEYS; k++) {
		const struct cmdline_key *r = &cmdline_keys[k];

		if (!r->dflt[0])
			continue;
		err[0] = 0;
		CHECK_EQ(cmdline_value_check(r, r->dflt, err, sizeof(err)), 0);
		CHECK_STR(err, ""); /* names the row whose default is out */
	}
}

/* The getters: the value given, else the row's default. */
TEST(value_or_default)
{
	CHECK_EQ(cmdline_parse("run=bench:gup gup_nr=7 gup_keep=ranges", &cl, err, sizeof(err)), 0);
	CHECK_EQ(cmdline_check(&cl, "x86_64", err, sizeof(err)), 0);
	CHECK_EQ(cmdline_num(&cl, CMDLINE_KEY_gup_nr), 7);
	CHECK_EQ(cmdline_num(&cl, CMDLINE_KEY_reps), 5);
	CHECK_EQ(cmdline_choice(&cl, CMDLINE_KEY_gup_keep), 1);
	CHECK_EQ(cmdline_choice(&cl, CMDLINE_KEY_gup_op), 2); /* longterm */
	CHECK(cmdline_on(&cl, CMDLINE_KEY_gup_write));
	CHECK(!cmdline_on(&cl, CMDLINE_KEY_ptelab_quiet));
	CHECK(cmdline_value(&cl, CMDLINE_KEY_folios) == NULL);
	CHECK_STR(cmdline_value(&cl, CMDLINE_KEY_advice), "free");
}

/* The check, from the rows: arch, range and takers, one line each. */
TEST(rows_drive_the_check)
{
	static const struct {
		const char *line, *arch, *want;
	} cases[] = {
		{ "run=hello contpte=off", "x86_64",
		  "contpte exists on arm64 only, not on x86_64" },
		{ "run=hello contpte=off", "host-arm64", NULL },
		{ "run=bench:zap gup_op=pin", "arm64", "run=bench:zap does not read it" },
		{ "run=bench:gup gup_op=pin,get", "arm64", "want one of get,pin,longterm" },
		{ "run=bench cpus=9", "x86_64", "cpus=9: want a number 1..8" },
		{ "run=bench cpus=8", "x86_64", NULL },
		{ "run=exit:1 batch=1", "x86_64", NULL },
		{ "batch=1 size=4", "x86_64", NULL }, /* no run=: the guest says so */
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = 0;
		CHECK_EQ(cmdline_parse(cases[i].line, &cl, err, sizeof(err)), 0);
		CHECK_EQ(cmdline_check(&cl, cases[i].arch, err, sizeof(err)),
			 cases[i].want ? -1 : 0);
		if (cases[i].want)
			CHECK_HAS(err, cases[i].want);
	}
}

/* Is @name a knob row of @kind (CMDLINE_CAP, CMDLINE_SWITCH)? */
static bool knob_of_kind(const char *name, enum cmdline_kind kind)
{
	const struct cmdline_key *r = cmdline_key_find(name);

	return r && r->kind == kind;
}

/* A benchmark's keys are knobs of the key table: a cap key that is no
 * cap, or a companion that is no knob, would be a key no check reads. A
 * group's choice is a word of advice=. */
TEST(bench_rows_name_knobs)
{
	const char *advice = cmdline_keys[CMDLINE_KEY_advice].what;

	for (int i = 0; i < NR_CMDLINE_BENCHES; i++) {
		const struct cmdline_bench *b = &cmdline_benches[i];
		char list[64];

		CHECK_STR(cmdline_bench_find(b->name)->name, b->name);
		CHECK(!b->cap_key || knob_of_kind(b->cap_key, CMDLINE_CAP));
		CHECK(b->cap_key || !b->companions);
		snprintf(list, sizeof(list), "%s", b->companions ? b->companions : "");
		for (char *k = strtok(list, ","); k; k = strtok(NULL, ","))
			CHECK(knob_of_kind(k, CMDLINE_CAP) || knob_of_kind(k, CMDLINE_SWITCH));
		CHECK(!b->group || cmdline_word_index(advice, b->choice, strlen(b->choice)) >= 0);
	}
	for (int c = 0; c < NR_CMDLINE_CMDS; c++) {
		const struct cmdline_cmd *r = &cmdline_cmds[c];

		CHECK((r->form == CMDLINE_FORM_WORD) == (r->words != NULL));
		CHECK(r->form == CMDLINE_FORM_TEXT || r->what);
		CHECK(r->lo <= r->hi);
	}
}

/* The run= check, from the rows: each error of one line, and the items
 * it must let through. */
TEST(run_rows_drive_the_check)
{
	static const struct {
		const char *line;
		bool host;
		const char *want;
	} cases[] = {
		{ "run=exit:255", false, NULL },
		{ "run=exit:256", false, "exit:N needs N in 0..255, not '256'" },
		{ "run=exit:x", false, "exit:N needs N in 0..255, not 'x'" },
		{ "run=selftest:any+thing,selftest", false, NULL },
		{ "run=exec:/bin/x", false, NULL },
		{ "run=exec:bin/x", false, "exec:bin/x: PATH must be absolute" },
		{ "run=stress:mm", false, NULL },
		{ "run=ptdump,ptdump:gup folios=1M", false, NULL },
		{ "run=ptdump:gup folios=2M-pmd", false, "ptdump:gup takes one size of 4K..1M" },
		{ "run=ptdump:fork,ptdump:x", false, "ptdump:x: the operation is one of munmap, " },
		{ "run=bench", true, NULL },
		{ "run=bench caps=1,2", false, NULL }, /* the benches without a cap skip it */
		{ "run=bench:madvise advice=free,dontneed caps=1,2", false, NULL },
		{ "run=bench:madvise_populate", false, NULL },
		{ "run=bench:gup cpus=2 gup_walk=off", false, NULL },
		{ "run=bench:gup gup_walk=off caps=1,2", false,
		  "give caps= or the gup_walk= knob" },
		{ "run=bench:reclaim young=4 caps=1,2", false, "give caps= or the young= knob" },
		{ "run=bench caps=1,2 batch=4", false, "bench zap: give caps= or the batch= knob" },
		{ "run=bench active=1", false, NULL }, /* the benches without it skip it */
		{ "run=bench:young active=1", false, NULL },
		{ "run=bench:pageout active=1", false, "bench pageout: active= does not apply" },
		{ "run=bench:zap,selftest", true, "selftest needs a booted guest" },
		{ "run=help,list,numa_maps", true, NULL },
		{ "reps=2", false, "nothing to run" },
		/* the longest message: every benchmark, the last one included */
		{ "run=bench:x", false, "pageout swapin reclaim reclaim_shared young)" },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[CMDLINE_ERR_MAX] = "";

		CHECK_EQ(cmdline_parse(cases[i].line, &cl, why, sizeof(why)), 0);
		CHECK_EQ(cmdline_check_run(&cl, cases[i].host, why, sizeof(why)),
			 cases[i].want ? -1 : 0);
		if (cases[i].want)
			CHECK_HAS(why, cases[i].want);
		else
			CHECK_STR(why, ""); /* names what was refused */
	}
}

TEST_SUITE(cmdline, run_list_and_keys, long_run_argument, empty_is_empty,
	   malformed_words_are_refused, too_many_words, unknown_key_is_named, uint_parsing,
	   help_lists_every_key_with_range_and_default, every_default_is_a_value, value_or_default,
	   rows_drive_the_check, bench_rows_name_knobs, run_rows_drive_the_check)
