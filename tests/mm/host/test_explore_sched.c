/*
 * test_explore_sched.c (host) - the schedule explorer's own cases
 * (explore.h): it finds a lost update that a switch point splits, under
 * PCT and under RANDOM, within a few seeds; the same program with the
 * update under a spin lock never fails over the same seeds (and a spin
 * never livelocks against a lower-priority lock holder); a seed replays
 * its interleaving exactly and other seeds give others; an ABBA deadlock
 * is reported with the seed, not hung; PCT aims change points at windows
 * (SCHED_WINDOW) that its blind ones miss. Host runner only (arch/host is
 * not in the guest).
 *
 * Each case saves the configuration in force (the runner's MM_EXPLORE)
 * and puts it back.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mm/mm_cases.h"

#include "explore.h"
#include "sched_point.h"
#include "smp.h"
#include "spinlock.h"

#define SEEDS 50 /* seeds a bug must be found within */
#define ROUNDS 3 /* increments per CPU */
#define RACERS 2 /* CPUs of the lost-update program */
#define SPEED_ROUNDS 2000

struct counter {
	struct spinlock lock;
	bool locked;	 /* the correct version: the update under lock */
	unsigned rounds; /* increments per CPU */
	unsigned n;
};

/* n++ as a load and a store with a switch point between them: two CPUs
 * that both load before either stores lose one increment. */
static void count_up(unsigned cpu, void *arg)
{
	struct counter *c = arg;

	(void)cpu;
	for (unsigned i = 0; i < c->rounds; i++) {
		unsigned v;

		if (c->locked)
			spin_lock(&c->lock);
		v = __atomic_load_n(&c->n, __ATOMIC_RELAXED);
		arch_sched_point(SCHED_ATOMIC);
		__atomic_store_n(&c->n, v + 1, __ATOMIC_RELAXED);
		if (c->locked)
			spin_unlock(&c->lock);
	}
}

/* Run the counter program under @mode with @seed; return the final count. */
static unsigned run_counter(enum explore_mode mode, uint64_t seed, bool locked, unsigned rounds)
{
	struct explore_cfg cfg = { .mode = mode, .seed = seed, .depth = 3, .steps_hint = 20 };
	struct counter c = { .locked = locked, .rounds = rounds };

	spin_lock_init(&c.lock, LOCK_LEAF, "explore test lock");
	explore_set(&cfg);
	smp_run(RACERS, count_up, &c);
	return c.n;
}

/* How many of seeds 1..SEEDS lose an update. */
static unsigned lost_updates(enum explore_mode mode, bool locked)
{
	struct explore_cfg saved;
	unsigned lost = 0, first = 0;

	explore_get(&saved);
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		if (run_counter(mode, seed, locked, ROUNDS) != RACERS * ROUNDS) {
			lost++;
			first = first ? first : (unsigned)seed;
		}
	explore_set(&saved);
	printf("    %s, %s: %u of %d seeds lose an update (first: %u)\n",
	       mode == EXPLORE_PCT ? "pct" : "random", locked ? "locked" : "unlocked", lost, SEEDS,
	       first);
	return lost;
}

static bool have_cpus(void)
{
	return smp_nr_cpus() >= RACERS;
}

/* PCT finds the lost update within SEEDS seeds. */
TEST(pct_finds_a_lost_update)
{
	if (!have_cpus())
		SKIP_CASE("needs 2 CPUs (MM_TEST_CPUS)");
	CHECK(lost_updates(EXPLORE_PCT, false) > 0);
}

/* So does a uniformly random schedule. */
TEST(random_finds_a_lost_update)
{
	if (!have_cpus())
		SKIP_CASE("needs 2 CPUs (MM_TEST_CPUS)");
	CHECK(lost_updates(EXPLORE_RANDOM, false) > 0);
}

/* A check and an act one switch point apart, after BUSY points of other
 * work on each CPU (pageout's look at a folio and its clear, in a round
 * of other ops): the point between is of kind @kind. */
#define BUSY 300

struct window_prog {
	unsigned kind;
	unsigned n;
	unsigned busy[RACERS];
};

static void check_then_act(unsigned cpu, void *arg)
{
	struct window_prog *w = arg;
	unsigned v;

	for (unsigned i = 0; i < BUSY; i++) {
		arch_sched_point(SCHED_ATOMIC);
		w->busy[cpu]++;
	}
	v = __atomic_load_n(&w->n, __ATOMIC_RELAXED);
	arch_sched_point(w->kind);
	__atomic_store_n(&w->n, v + 1, __ATOMIC_RELAXED);
}

/* Of seeds 1..SEEDS under PCT (depth 3, the default steps_hint), how
 * many lose the update when the point between is of kind @kind. */
static unsigned lost_in_window(unsigned kind)
{
	struct explore_cfg saved;
	unsigned lost = 0;

	explore_get(&saved);
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct explore_cfg cfg = { .mode = EXPLORE_PCT, .seed = seed, .depth = 3 };
		struct window_prog w = { .kind = kind };

		explore_set(&cfg);
		smp_run(RACERS, check_then_act, &w);
		lost += w.n != RACERS;
	}
	explore_set(&saved);
	printf("    pct, the point between a %s: %u of %d seeds lose the update\n",
	       kind == SCHED_WINDOW ? "window" : "plain atomic", lost, SEEDS);
	return lost;
}

/* PCT's blind change points seldom land on the one point between the
 * check and the act; marked as a window, the point is where PCT aims
 * one (half of the time), and the race is found within SEEDS seeds. */
TEST(pct_aims_at_windows)
{
	unsigned blind, aimed;

	if (!have_cpus())
		SKIP_CASE("needs 2 CPUs (MM_TEST_CPUS)");
	blind = lost_in_window(SCHED_ATOMIC);
	aimed = lost_in_window(SCHED_WINDOW);
	CHECK(aimed > 0);
	CHECK(aimed > blind);
}

/* Under the spin lock no seed loses an update, in either mode: every
 * schedule where a CPU spins on the lock (PCT runs the spinner, which
 * may have the higher priority, and must still let the holder go on)
 * ends, with the full count. */
TEST(locked_update_never_lost)
{
	if (!have_cpus())
		SKIP_CASE("needs 2 CPUs (MM_TEST_CPUS)");
	CHECK_EQ(lost_updates(EXPLORE_PCT, true), 0);
	CHECK_EQ(lost_updates(EXPLORE_RANDOM, true), 0);
}

/* The same seed gives the same interleaving (trace hash, step count and
 * result); 16 seeds give 16 different ones. */
TEST(same_seed_same_schedule)
{
	struct explore_cfg saved;
	uint64_t hash[16];
	unsigned distinct = 0;
	bool replayed = true;

	if (!have_cpus())
		SKIP_CASE("needs 2 CPUs (MM_TEST_CPUS)");
	explore_get(&saved);
	for (unsigned i = 0; i < 16; i++) {
		unsigned n = run_counter(EXPLORE_RANDOM, 100 + i, false, 8);
		uint64_t steps = explore_steps();

		hash[i] = explore_trace_hash();
		replayed &= run_counter(EXPLORE_RANDOM, 100 + i, false, 8) == n &&
			    explore_trace_hash() == hash[i] && explore_steps() == steps;
		distinct++;
		for (unsigned j = 0; j < i; j++)
			if (hash[j] == hash[i]) {
				distinct--;
				break;
			}
	}
	explore_set(&saved);
	CHECK(replayed);
	CHECK_EQ(distinct, 16);
}

/* ---- a deadlock is reported ------------------------------------------------- */

struct abba {
	struct spinlock a, b;
};

static void abba_cpu(unsigned cpu, void *arg)
{
	struct abba *x = arg;
	struct spinlock *first = cpu ? &x->b : &x->a, *second = cpu ? &x->a : &x->b;

	spin_lock(first);
	spin_lock(second);
	spin_unlock(second);
	spin_unlock(first);
}

/* The child: run the ABBA program under seeds 1..SEEDS until one
 * deadlocks (the explorer's panic aborts it); exit 0 if none does. */
static void abba_child(void)
{
	struct abba x;

	alarm(60);		/* a hang ends in SIGALRM, which the parent reports */
	mm_set_debug_vm(false); /* the order check would catch ABBA before it deadlocks */
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct explore_cfg cfg = { .mode = EXPLORE_RANDOM, .seed = seed };

		spin_lock_init(&x.a, LOCK_LEAF, "lock A");
		spin_lock_init(&x.b, LOCK_LEAF, "lock B");
		explore_set(&cfg);
		smp_run(2, abba_cpu, &x);
	}
	_exit(0);
}

/* Run abba_child() in a child process with its stderr in @out; return
 * its wait status. */
static int run_abba_child(char *out, size_t size)
{
	int fd[2], status = 0;
	size_t len = 0;
	ssize_t got;
	pid_t pid;

	if (pipe(fd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		abba_child();
	}
	close(fd[1]);
	while (len + 1 < size && (got = read(fd[0], out + len, size - 1 - len)) > 0)
		len += (size_t)got;
	out[len] = '\0';
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* Two CPUs take two locks in opposite orders: some seed deadlocks, and
 * the explorer panics with "deadlock" and the failing schedule's seed
 * instead of spinning for ever. */
TEST(abba_deadlock_is_reported)
{
	char out[4096];
	int status;

	if (!have_cpus())
		SKIP_CASE("needs 2 CPUs (MM_TEST_CPUS)");
	status = run_abba_child(out, sizeof(out));
	printf("    child: status %#x, stderr: %.300s", status, out);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	CHECK(strstr(out, "explore: failing schedule: mode=random seed=") != NULL);
	CHECK(strstr(out, "explore: deadlock") != NULL);
}

/* ---- speed -------------------------------------------------------------------- */

/* How fast the explorer hands over: RANDOM switches CPU at about every
 * other switch point of the counter program. Prints the rate; checks
 * only that the steps were taken. */
TEST(switch_rate)
{
	struct explore_cfg saved;
	uint64_t t0, ns, steps;

	if (!have_cpus())
		SKIP_CASE("needs 2 CPUs (MM_TEST_CPUS)");
	explore_get(&saved);
	t0 = time_ns();
	run_counter(EXPLORE_RANDOM, 1, true, SPEED_ROUNDS);
	ns = time_ns() - t0;
	steps = explore_steps();
	explore_set(&saved);
	printf("    %llu switch points in %llu us: %llu per second\n", (unsigned long long)steps,
	       (unsigned long long)(ns / 1000), (unsigned long long)(steps * 1000000000ull / ns));
	CHECK(steps >= (uint64_t)RACERS * SPEED_ROUNDS * 3);
}

TEST_SUITE(explore_sched, pct_finds_a_lost_update, random_finds_a_lost_update,
	   locked_update_never_lost, same_seed_same_schedule, abba_deadlock_is_reported,
	   switch_rate, pct_aims_at_windows)
