/*
 * selftest.c - the in-guest test runner (run=selftest[:FILTER]).
 *
 * The same runner as the host's (tests/runner.c): test files register their
 * suites from constructors, which kmain runs through .init_array.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "kernel.h"
#include "ptelab/abi.h"
#include "test.h"

int selftest_run(const char *filter)
{
	int failed, skipped, passed = test_run_all(filter, time_ns, &failed, &skipped);

	if (passed + failed + skipped == 0) {
		printf("guest: no test matches '%s'\n", filter ? filter : "");
		return PTELAB_EXIT_USAGE;
	}
	return failed ? PTELAB_EXIT_FAIL : PTELAB_EXIT_OK;
}

int selftest_list(void)
{
	printf("%d cases\n", test_list_all(NULL));
	return PTELAB_EXIT_OK;
}

extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

/* Run the constructors (test-suite registration) once at boot. */
void run_constructors(void)
{
	for (void (**f)(void) = __init_array_start; f < __init_array_end; f++)
		(*f)();
}
