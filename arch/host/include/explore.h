/*
 * explore.h - the host runner's deterministic schedule explorer (CHESS's
 * PCT and a uniform random walk over interleavings; arch/host/explore.c).
 *
 * While a mode is set, smp_run() runs its CPU threads one at a time: each
 * runs until a switch point (core/include/sched_point.h), where the scheduler picks
 * the CPU that runs next from one PRNG seeded by cfg.seed. So the
 * interleaving is a function of the configuration and the program: a
 * failing schedule replays from its seed.
 */
#ifndef HOST_EXPLORE_H
#define HOST_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

enum explore_mode { EXPLORE_OFF, EXPLORE_PCT, EXPLORE_RANDOM };

struct explore_cfg {
	enum explore_mode mode;
	uint64_t seed;	     /* picks the schedule; same seed + same program => same interleaving */
	unsigned depth;	     /* PCT bug depth d: d-1 priority change points (0: 3) */
	uint64_t steps_hint; /* PCT: switch points a run is expected to take (0: 1000) */
};

/* The PCT depth a run can ask for at most (change points kept). */
#define EXPLORE_MAX_DEPTH 64

/* Applies to every following smp_run() until explore_set() with mode EXPLORE_OFF. */
void explore_set(const struct explore_cfg *cfg);
/* The configuration in force (mode EXPLORE_OFF when none). */
void explore_get(struct explore_cfg *cfg);

/* Switch points the last smp_run() took (to tune steps_hint); and a short
 * trace hash of its interleaving, equal for equal schedules. */
uint64_t explore_steps(void);
uint64_t explore_trace_hash(void);

/*
 * explore_parse - read "pct:SEED[:DEPTH[:STEPS_HINT]]", "random:SEED" or
 * "off" into @cfg (the runner's MM_EXPLORE). Return: 0, or -1 when @s is
 * none of these (@cfg untouched).
 */
int explore_parse(const char *s, struct explore_cfg *cfg);

/*
 * explore_report - print "explore: failing schedule: mode=... seed=N
 * depth=D steps_hint=K" to stderr when a mode is set, then call the
 * function explore_on_panic() registered (a driver adds its command
 * line). panic() calls it before it ends the runner, and so does a
 * sanitizer's death callback.
 */
void explore_report(void);
void explore_on_panic(void (*fn)(void));

/* smp_run()'s side (arch/host/smp.c). explore_begin: set up the
 * schedule of a run of @ncpus CPUs, return whether it is explored.
 * explore_cpu_enter: the CPU's thread waits for its first turn (CPU 0,
 * the caller, hands over to the CPU picked first). explore_cpu_exit:
 * its fn returned; hand over to a CPU still running (CPU 0 then waits
 * until every CPU's fn has returned). explore_end: after the joins. */
bool explore_begin(unsigned ncpus);
void explore_cpu_enter(unsigned cpu);
void explore_cpu_exit(unsigned cpu);
void explore_end(void);

/* time_ns() while a run is explored: a clock that advances by a fixed
 * time per switch point, so a wait bounded by time replays exactly. */
uint64_t explore_clock_ns(void);

/* Any spin under exploration: let another CPU run (arch_cpu_relax()). */
void explore_spin(void);

#endif
