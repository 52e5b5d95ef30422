/*
 * test_cmdline.c - the guest command-line parser (guest/cmdline/cmdline.c).
 */
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
	static const char *const known[] = { "run", "fork", NULL };

	CHECK_EQ(cmdline_parse("run=hello fork=2 forc=3", &cl, err, sizeof(err)), 0);
	CHECK_EQ(cmdline_check_keys(&cl, known, err, sizeof(err)), -1);
	CHECK_HAS(err, "'forc'");
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

TEST_SUITE(cmdline, run_list_and_keys, empty_is_empty, malformed_words_are_refused, too_many_words,
	   unknown_key_is_named, uint_parsing)
