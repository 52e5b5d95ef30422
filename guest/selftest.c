/*
 * selftest.c - the in-guest test runner (run=selftest[:FILTER]).
 *
 * The same harness as the host runner (tests/test.h): test files register
 * their suites from constructors, which kmain runs through .init_array.
 * Each case prints one line; the run ends with "N passed, N failed". A
 * case that makes no check fails.
 */
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "ptelab_abi.h"
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

static int run_case(const struct test_suite *s, const struct test_case *c)
{
	uint64_t t0 = time_ns();

	test_checks = 0;
	case_failures = 0;
	c->fn();
	if (test_checks == 0) {
		printf("FAIL %s/%s: made no checks\n", s->name, c->name);
		return 0;
	}
	printf("%s %s/%s (%d checks, %llu us)\n", case_failures ? "FAIL" : "ok  ", s->name, c->name,
	       test_checks, (unsigned long long)((time_ns() - t0) / 1000));
	return case_failures == 0;
}

int selftest_run(const char *filter)
{
	int passed = 0, failed = 0;
	char full[128];

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
	if (passed + failed == 0) {
		printf("guest: no test matches '%s'\n", filter ? filter : "");
		return PTELAB_EXIT_USAGE;
	}
	return failed ? PTELAB_EXIT_FAIL : PTELAB_EXIT_OK;
}

extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

/* Run the constructors (test-suite registration) once at boot. */
void run_constructors(void)
{
	for (void (**f)(void) = __init_array_start; f < __init_array_end; f++)
		(*f)();
}
