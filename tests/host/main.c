/*
 * The host test runner: every suite registered with TEST_SUITE, one line
 * per case, then "N passed, N failed". Usage: host-tests [SUBSTRING] runs
 * only the cases whose "suite/case" name contains SUBSTRING.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "test.h"

static uint64_t host_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int failed, skipped;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_run_all(argc > 1 ? argv[1] : NULL, host_ns, &failed, &skipped);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
