/*
 * explore_stub.c - explore.h without an explorer: smp_run() keeps its
 * free-running threads, and every schedule reports no switch points.
 * The real explorer replaces this file.
 */
#include "explore.h"

void explore_set(const struct explore_cfg *cfg)
{
	(void)cfg;
}

uint64_t explore_steps(void)
{
	return 0;
}

uint64_t explore_trace_hash(void)
{
	return 0;
}
