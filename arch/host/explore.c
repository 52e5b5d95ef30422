/*
 * explore.c - the host runner's schedule explorer (explore.h).
 *
 * One CPU thread runs at a time; the others block on their own semaphore.
 * At a switch point the running thread takes a step, asks pick_next() who
 * runs next, and if that is another CPU posts its semaphore and waits on
 * its own. The scheduler's state below is touched only by the running
 * thread: the semaphore post/wait pair that hands over is the barrier
 * that orders one holder's writes before the next holder's reads.
 *
 * PCT (Burckhardt et al., ASPLOS 2010): every CPU gets a distinct random
 * priority >= d; d-1 change points are drawn from [1, steps_hint]; when
 * the running CPU takes the step of a change point its priority drops
 * below every priority given so far (PCT's i-th change point gives i, below
 * every initial one; here spins lower priorities too, see below, and a
 * change point must go below those, or a round's first barrier, where
 * every CPU but one spins, would leave no change point able to let
 * another CPU run). The highest-priority runnable CPU runs. RANDOM runs a uniformly random runnable CPU at every step.
 *
 * Spins: a CPU that spins (arch_cpu_relax(), smp_wait(), lock waits) is
 * not runnable until another CPU takes a step that is not a spin: what it
 * waits for can only come from such a step. Under PCT a spin also drops
 * the spinner's priority below every other (a yield, as PCT
 * implementations treat it): one step of the others per spin is not
 * enough when the CPU waited for needs thousands (a fork while three
 * higher-priority writers each spin once per round of 64 writes), and
 * the spinner should only look again when the others are stuck or done.
 * So a high-priority spinner cannot starve the low-priority lock holder.
 * When every live CPU spins, all are
 * made runnable again (a plain store between switch points may be what
 * they wait for); DEADLOCK_SPINS such steps in a row with no other step
 * in between is a deadlock, reported by a panic with the seed.
 *
 * Windows (SCHED_WINDOW): a CPU between a decision and the act on it
 * (pageout between its look at a folio's references and its clear).
 * PCT's d-1 change points are blind: they land on one step among
 * thousands, so a window of three steps is almost never the one, and a
 * gup-fast pin taken inside it went unfound in 300 schedules. So under
 * PCT a window drops the running CPU's priority as a change point does,
 * with probability 1/2 (one draw from the schedule's PRNG: a replay takes
 * the same ones). A schedule that reaches no window draws nothing more:
 * the schedules of mixes without windows stay what they were. RANDOM
 * treats a window as any other step.
 *
 * Time: a CPU that waits for a while (a test's window) must see the same
 * time in every replay, so while a run is explored time_ns() is a
 * virtual clock, STEP_NS per switch point from the real time at the
 * start of the run (explore_clock_ns()).
 */
#include <errno.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "kernel.h"
#include "sched_point.h"
#include "smp.h"

#define DEFAULT_DEPTH 3
#define DEFAULT_STEPS_HINT 1000
#define DEADLOCK_SPINS 100000 /* spins by every CPU in a row, no other step */
#define STEP_NS 1000	      /* the clock of an explored run: 1 us per switch point */
#define NO_CPU (~0u)

struct explore_cpu {
	sem_t go;      /* posted when this CPU is to run */
	int64_t prio;  /* PCT priority: the highest runnable runs */
	bool done;     /* its fn returned */
	bool spinning; /* spun since another CPU's last step */
};

unsigned explore_running; /* arch.h: an explored smp_run() runs */

static struct explore_cfg cfg;
static uint64_t rng;
static void (*panic_fn)(void);

/* One run. Context: touched by the running CPU only (see the top). */
static struct explore_cpu cpus[NR_CPUS];
static unsigned nr_cpus, cur;
static uint64_t steps, trace_hash, idle_spins, start_ns;
static uint64_t change_at[EXPLORE_MAX_DEPTH];
static unsigned nr_changes, next_change;
static int64_t lowest; /* PCT: the lowest priority given so far */

/* splitmix64: one 64-bit state, a full-period stream per seed. */
static uint64_t rng_next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A number in [0, n), n > 0 (the modulo bias is far below what matters). */
static uint64_t rng_below(uint64_t n)
{
	return rng_next() % n;
}

static unsigned cfg_depth(void)
{
	unsigned d = cfg.depth ? cfg.depth : DEFAULT_DEPTH;

	return d < EXPLORE_MAX_DEPTH ? d : EXPLORE_MAX_DEPTH;
}

static uint64_t cfg_steps_hint(void)
{
	return cfg.steps_hint ? cfg.steps_hint : DEFAULT_STEPS_HINT;
}

void explore_set(const struct explore_cfg *c)
{
	extern void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

	cfg = *c;
	rng = c->seed;
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(cfg.mode == EXPLORE_OFF ? NULL : explore_report);
}

void explore_get(struct explore_cfg *c)
{
	*c = cfg;
}

uint64_t explore_steps(void)
{
	return steps;
}

uint64_t explore_trace_hash(void)
{
	return trace_hash;
}

static const char *mode_name(enum explore_mode m)
{
	return m == EXPLORE_PCT ? "pct" : m == EXPLORE_RANDOM ? "random" : "off";
}

int explore_parse(const char *s, struct explore_cfg *c)
{
	struct explore_cfg n = { .mode = EXPLORE_OFF };
	unsigned long long seed = 0, hint = 0;
	unsigned depth = 0;
	int got;

	if (strcmp(s, "off") == 0) {
		*c = n;
		return 0;
	}
	if (strncmp(s, "pct:", 4) == 0) {
		n.mode = EXPLORE_PCT;
		got = sscanf(s + 4, "%llu:%u:%llu", &seed, &depth, &hint);
	} else if (strncmp(s, "random:", 7) == 0) {
		n.mode = EXPLORE_RANDOM;
		got = sscanf(s + 7, "%llu", &seed);
	} else {
		return -1;
	}
	if (got < 1)
		return -1;
	n.seed = seed;
	n.depth = depth;
	n.steps_hint = hint;
	*c = n;
	return 0;
}

void explore_on_panic(void (*fn)(void))
{
	panic_fn = fn;
}

void explore_report(void)
{
	if (cfg.mode == EXPLORE_OFF)
		return;
	fprintf(stderr, "explore: failing schedule: mode=%s seed=%llu depth=%u steps_hint=%llu\n",
		mode_name(cfg.mode), (unsigned long long)cfg.seed, cfg_depth(),
		(unsigned long long)cfg_steps_hint());
	if (panic_fn)
		panic_fn();
	fflush(stderr);
}

/* ---- one run --------------------------------------------------------------- */

/* PCT: distinct priorities d .. d+n-1 in a random order (Fisher-Yates),
 * and the d-1 change points, sorted. */
static void pct_setup(unsigned n)
{
	unsigned d = cfg_depth();

	for (unsigned i = 0; i < n; i++)
		cpus[i].prio = d + i;
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)rng_below(i);
		int64_t t = cpus[i - 1].prio;

		cpus[i - 1].prio = cpus[j].prio;
		cpus[j].prio = t;
	}
	nr_changes = d - 1;
	next_change = 0;
	lowest = 1;
	for (unsigned i = 0; i < nr_changes; i++) {
		uint64_t v = 1 + rng_below(cfg_steps_hint()), *p = &change_at[i];

		for (; p > change_at && p[-1] > v; p--)
			p[0] = p[-1];
		*p = v;
	}
}

/* May @c run? */
static bool runnable(unsigned c, bool spinners_too)
{
	return !cpus[c].done && (spinners_too || !cpus[c].spinning);
}

/* The runnable CPU the mode picks, NO_CPU when none is. */
static unsigned pick_among(bool spinners_too)
{
	unsigned best = NO_CPU, count = 0, nth;

	if (cfg.mode == EXPLORE_PCT) {
		for (unsigned c = 0; c < nr_cpus; c++)
			if (runnable(c, spinners_too) &&
			    (best == NO_CPU || cpus[c].prio > cpus[best].prio))
				best = c;
		return best;
	}
	for (unsigned c = 0; c < nr_cpus; c++)
		count += runnable(c, spinners_too);
	if (!count)
		return NO_CPU;
	nth = (unsigned)rng_below(count);
	for (unsigned c = 0;; c++)
		if (runnable(c, spinners_too) && nth-- == 0)
			return c;
}

/* Who runs next; panics when every live CPU has spun too long. */
static unsigned pick_next(void)
{
	unsigned next = pick_among(false);

	if (next != NO_CPU)
		return next;
	if (++idle_spins >= DEADLOCK_SPINS)
		panic("explore: deadlock: every CPU spun %u times in a row (step %llu)",
		      DEADLOCK_SPINS, (unsigned long long)steps);
	for (unsigned c = 0; c < nr_cpus; c++)
		cpus[c].spinning = false;
	return pick_among(true);
}

/* The running CPU @me took a step that was not a spin: spinners may look again. */
static void progress(void)
{
	for (unsigned c = 0; c < nr_cpus; c++)
		cpus[c].spinning = false;
	idle_spins = 0;
}

static void sem_wait_intr(sem_t *s)
{
	while (sem_wait(s) != 0)
		if (errno != EINTR)
			panic("explore: sem_wait: %s", strerror(errno));
}

/* Record that @next runs after this step and hand over to it. */
static void hand_over(unsigned me, unsigned next, unsigned kind)
{
	trace_hash = (trace_hash ^ (next | (uint64_t)kind << 8)) * 0x100000001b3ull;
	trace_hash ^= trace_hash >> 29;
	if (next == me)
		return;
	cur = next;
	sem_post(&cpus[next].go);
	sem_wait_intr(&cpus[me].go);
}

void explore_point(unsigned kind)
{
	unsigned me = cur;

	steps++;
	if (kind == SCHED_SPIN) {
		cpus[me].spinning = true;
		if (cfg.mode == EXPLORE_PCT)
			cpus[me].prio = --lowest;
	} else {
		progress();
	}
	if (kind == SCHED_WINDOW && cfg.mode == EXPLORE_PCT && rng_below(2))
		cpus[me].prio = --lowest; /* a change point aimed at the window */
	while (next_change < nr_changes && steps == change_at[next_change]) {
		next_change++;
		cpus[me].prio = --lowest; /* below every spinner's yield too */
	}
	hand_over(me, pick_next(), kind);
}

uint64_t explore_clock_ns(void)
{
	return start_ns + steps * STEP_NS;
}

void explore_spin(void)
{
	explore_point(SCHED_SPIN);
}

bool explore_begin(unsigned ncpus)
{
	if (cfg.mode == EXPLORE_OFF)
		return false;
	start_ns = time_ns();
	nr_cpus = ncpus;
	steps = 0;
	trace_hash = 0xcbf29ce484222325ull;
	idle_spins = 0;
	nr_changes = next_change = 0;
	for (unsigned c = 0; c < ncpus; c++) {
		cpus[c].done = cpus[c].spinning = false;
		if (sem_init(&cpus[c].go, 0, 0))
			panic("explore_begin: sem_init: %s", strerror(errno));
	}
	if (cfg.mode == EXPLORE_PCT)
		pct_setup(ncpus);
	cur = pick_among(false);
	__atomic_store_n(&explore_running, 1, __ATOMIC_RELAXED);
	return true;
}

void explore_cpu_enter(unsigned cpu)
{
	if (!explore_running)
		return;
	if (cpu != 0)
		sem_wait_intr(&cpus[cpu].go);
	else if (cur != 0)
		hand_over(0, cur, NR_SCHED_POINT_KINDS);
}

void explore_cpu_exit(unsigned cpu)
{
	unsigned next;

	if (!explore_running)
		return;
	cpus[cpu].done = true;
	progress();
	next = pick_among(false);
	if (next == NO_CPU) {
		if (cpu != 0)
			sem_post(&cpus[0].go); /* CPU 0 waits in here for the last one */
		return;
	}
	cur = next;
	sem_post(&cpus[next].go);
	if (cpu == 0)
		sem_wait_intr(&cpus[0].go);
}

void explore_end(void)
{
	if (!explore_running)
		return;
	__atomic_store_n(&explore_running, 0, __ATOMIC_RELAXED);
	for (unsigned c = 0; c < nr_cpus; c++)
		sem_destroy(&cpus[c].go);
}
