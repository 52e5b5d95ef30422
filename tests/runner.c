/*
 * runner.c - the one test runner, shared by the host runners (tests/host/
 * main.c) and the guest (run=selftest, tests/guest/selftest.c): suites register
 * themselves from constructors (TEST_SUITE in test.h); each case prints
 * one line, the run ends with "N passed, N failed" (", N skipped" when a
 * case skipped). A case that makes no check fails.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"

int test_checks;
static int case_failures;
static const char *case_skip; /* the running case's reason to skip, or NULL */
static struct test_suite *suites;

void test_register(struct test_suite *s)
{
	struct test_suite **p = &suites;

	while (*p)
		p = &(*p)->next;
	*p = s;
}

void test_skip(const char *reason)
{
	case_skip = reason;
}

void test_check_failed(const char *file, int line, const char *expr, const char *detail)
{
	case_failures++;
	printf("    %s:%d: check failed: %s%s%s\n", file, line, expr, detail ? ": " : "",
	       detail ? detail : "");
}

/* Run one case; return 1 when it passed, 0 when it failed, 2 skipped. */
static int run_case(const struct test_suite *s, const struct test_case *c,
		    uint64_t (*clock_ns)(void))
{
	uint64_t t0 = clock_ns();

	test_checks = 0;
	case_failures = 0;
	case_skip = NULL;
	c->fn();
	fflush(stdout);
	if (case_skip && !case_failures) {
		printf("SKIP %s/%s: %s\n", s->name, c->name, case_skip);
		return 2;
	}
	if (test_checks == 0) {
		printf("FAIL %s/%s: made no checks\n", s->name, c->name);
		return 0;
	}
	printf("%s %s/%s (%d checks, %llu us)\n", case_failures ? "FAIL" : "ok  ", s->name, c->name,
	       test_checks, (unsigned long long)((clock_ns() - t0) / 1000));
	return case_failures == 0;
}

int test_filter_match(const char *full, const char *filter)
{
	char part[128];
	int any_include = 0, included = 0;

	if (!filter)
		return 1;
	while (*filter) {
		size_t n = strcspn(filter, ",+");

		if (n && n < sizeof(part)) {
			memcpy(part, filter, n);
			part[n] = '\0';
			if (part[0] == '-') {
				if (part[1] && strstr(full, part + 1))
					return 0;
			} else {
				any_include = 1;
				included |= strstr(full, part) != NULL;
			}
		}
		filter += n + (filter[n] != '\0');
	}
	return included || !any_include;
}

int test_run_all(const char *filter, uint64_t (*clock_ns)(void), int *failed, int *skipped)
{
	int passed = 0;
	char full[256];

	*failed = *skipped = 0;
	for (struct test_suite *s = suites; s; s = s->next)
		for (int i = 0; i < s->nr_cases; i++) {
			snprintf(full, sizeof(full), "%s/%s", s->name, s->cases[i].name);
			if (!test_filter_match(full, filter))
				continue;
			switch (run_case(s, &s->cases[i], clock_ns)) {
			case 1:
				passed++;
				break;
			case 2:
				(*skipped)++;
				break;
			default:
				(*failed)++;
			}
		}
	if (*skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, *failed, *skipped);
	else
		printf("%d passed, %d failed\n", passed, *failed);
	return passed;
}

int test_list_all(const char *filter)
{
	char full[256];
	int n = 0;

	for (struct test_suite *s = suites; s; s = s->next)
		for (int i = 0; i < s->nr_cases; i++) {
			snprintf(full, sizeof(full), "%s/%s", s->name, s->cases[i].name);
			if (!test_filter_match(full, filter))
				continue;
			printf("%s\n", full);
			n++;
		}
	return n;
}
