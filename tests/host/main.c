/*
 * The host test runner: every suite registered with TEST_SUITE, one line
 * per case, then "N passed, N failed". Usage: host-tests [SUBSTRING] runs
 * only the cases whose "suite/case" name contains SUBSTRING.
 */
#include <stdlib.h>

#include "test.h"

int test_checks;
static int case_failures;
static struct test_suite *suites;

void test_register(struct test_suite *s)
{
	struct test_suite **p = &suites;

	while (*p)
		p = &(*p)->next;
	*p = s;
}

void test_check_failed(const char *file, int line, const char *expr, const char *detail)
{
	case_failures++;
	printf("    %s:%d: check failed: %s%s%s\n", file, line, expr, detail ? ": " : "",
	       detail ? detail : "");
}

/* Run one case; return 1 when it passed. */
static int run_case(const struct test_suite *s, const struct test_case *c)
{
	test_checks = 0;
	case_failures = 0;
	c->fn();
	fflush(stdout);
	if (test_checks == 0) {
		printf("FAIL %s/%s: made no checks\n", s->name, c->name);
		return 0;
	}
	printf("%s %s/%s (%d checks)\n", case_failures ? "FAIL" : "ok  ", s->name, c->name,
	       test_checks);
	return case_failures == 0;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0;
	char full[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (struct test_suite *s = suites; s; s = s->next) {
		for (int i = 0; i < s->nr_cases; i++) {
			snprintf(full, sizeof(full), "%s/%s", s->name, s->cases[i].name);
			if (filter && !strstr(full, filter))
				continue;
			if (run_case(s, &s->cases[i]))
				passed++;
			else
				failed++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
