/*
 * explore.h - the schedule explorer of the host runners' smp_run(): one
 * CPU thread runs at a time, and at each switch point (a lock, an atomic,
 * a PTE access) a seeded strategy (PCT or a random walk) picks the next,
 * so a schedule is replayed exactly from its seed.
 */
#ifndef HOST_EXPLORE_H
#define HOST_EXPLORE_H

#include <stdint.h>

enum explore_mode { EXPLORE_OFF, EXPLORE_PCT, EXPLORE_RANDOM };

struct explore_cfg {
	enum explore_mode mode;
	uint64_t seed;
	unsigned depth;	     /* PCT: priority change points per run */
	uint64_t steps_hint; /* PCT: expected switch points per run */
};

/* Applies to the smp_run() calls that follow (EXPLORE_OFF: real threads). */
void explore_set(const struct explore_cfg *cfg);

/* The switch points the last smp_run() took. */
uint64_t explore_steps(void);

/* A hash of the last smp_run()'s interleaving: equal for equal ones. */
uint64_t explore_trace_hash(void);

#endif
