/*
 * test_explore.c - the schedule explorer's cases (suite "explore/"): each
 * runs B schedules of one mix (explore_mix.h, explore_profiles.c), seeds
 * base, base + 1, ..., and on a failure prints the command that replays
 * that one schedule. Host runner only (the explorer is arch/host's).
 *
 * The cases run only when asked, by MM_EXPLORE_SCHEDULES or
 * MM_EXPLORE_SEED (tests/mm/explore.sh, make stress, a replay); the mm
 * stage (tests/mm/run.sh) skips them. Environment:
 *   MM_EXPLORE_SEED=N       run only schedule N (a replay)
 *   MM_EXPLORE_SCHEDULES=B  schedules per case
 *   MM_EXPLORE_BASE=N       the first seed (default 1)
 *   MM_EXPLORE_MODE=pct|random  the explorer's strategy (default pct)
 *   MM_EXPLORE_CPUS=N       CPUs a schedule uses at most (2..4, and at
 *                           most MM_TEST_CPUS); each takes 2..N by seed
 * A panic or a sanitizer report ends the runner: the replay command is
 * printed first (from a SIGABRT handler and the sanitizers' death
 * callback).
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "explore.h"
#include "explore_mix.h"

void __sanitizer_set_death_callback(void (*callback)(void));

static char replay_line[256];

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *e = getenv(name);

	return e && *e ? strtoull(e, NULL, 0) : dflt;
}

static int env_mode(void)
{
	const char *e = getenv("MM_EXPLORE_MODE");

	return e && !strcmp(e, "random") ? EXPLORE_RANDOM : EXPLORE_PCT;
}

static unsigned max_cpus(void)
{
	unsigned n = (unsigned)env_u64("MM_EXPLORE_CPUS", MIX_CPUS);

	if (n > MIX_CPUS)
		n = MIX_CPUS;
	return n < smp_nr_cpus() ? n : smp_nr_cpus();
}

static void set_replay(const struct mix_profile *p, uint64_t seed)
{
	snprintf(replay_line, sizeof(replay_line),
		 "replay: MM_TEST_CPUS=%u MM_EXPLORE_CPUS=%u MM_EXPLORE_SEED=%llu "
		 "MM_EXPLORE_MODE=%s build/mm-tests-%s explore/%s\n",
		 smp_nr_cpus(), max_cpus(), (unsigned long long)seed,
		 env_mode() == EXPLORE_RANDOM ? "random" : "pct", HOST_PTE_FORMAT, p->name);
}

/* A dying runner says which schedule killed it (async-signal-safe). */
static void say_replay(void)
{
	if (write(STDERR_FILENO, replay_line, strlen(replay_line)) < 0)
		return;
}

static void on_abort(int sig)
{
	say_replay();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* UBSan's reports end the runner by abort(), so on_abort() names the
 * schedule too (its default exit skips the death callback). The
 * environment's UBSAN_OPTIONS still wins. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "abort_on_error=1";
}

__attribute__((constructor)) static void explore_death_hooks(void)
{
	signal(SIGABRT, on_abort);
	__sanitizer_set_death_callback(say_replay);
	explore_on_panic(say_replay); /* explore_set() makes explore_report() the callback */
}

/* One schedule; its replay command when it fails. */
static int one_schedule(const struct mix_profile *p, uint64_t seed)
{
	bool was = lock_virt;
	int bad;

	set_replay(p, seed);
	lock_set_virt(p->lock_virt);
	bad = mix_run_schedule(p, seed, max_cpus(), env_mode());
	lock_set_virt(was);
	if (bad)
		printf("    %d problem(s) in schedule %llu: %s", bad, (unsigned long long)seed,
		       replay_line);
	replay_line[0] = '\0';
	return bad;
}

/* Each round of a mix runs under the explorer (mode EXPLORE_PCT or
 * EXPLORE_RANDOM), seeded by the round. */
static void explore_round(uint64_t seed, int mode)
{
	struct explore_cfg cfg = { (enum explore_mode)mode, seed, 3, 0 };

	explore_set(&cfg);
}

/* What the schedules of @p reached, for the mixes whose operations may
 * find nothing to act on (a range already freed, a folio shared): the
 * counts of what they did, and, over 20 schedules or more, that they did
 * something. */
static void report_reach(const struct mix_profile *p, uint64_t n, const struct mm_counters *d)
{
	if (p->lru) {
		printf("    %s: reclaim freed %llu pages (%llu written, %llu lazyfree folios), "
		       "split %llu PMD-mapped folios; %llu folios unmapped through the family walk "
		       "(%llu kept), %llu found the family lock taken\n",
		       p->name, (unsigned long long)d->pgsteal, (unsigned long long)d->pswpout,
		       (unsigned long long)d->lazyfree_discarded,
		       (unsigned long long)d->reclaim_pmd_splits,
		       (unsigned long long)d->reclaim_shared,
		       (unsigned long long)d->reclaim_shared_busy,
		       (unsigned long long)d->reclaim_family_busy);
		CHECK(n < 20 || d->pgsteal > 0);
		CHECK(n < 20 || strcmp(p->name, "shared_reclaim") || d->reclaim_shared > 0);
	} else if (!strcmp(p->name, "madvise")) {
		printf("    %s: MADV_FREE cleared %llu runs (%llu skipped); the lazyfree reclaim "
		       "discarded %llu folios (%llu written since); MADV_PAGEOUT wrote %llu folios "
		       "(%llu left)\n",
		       p->name, (unsigned long long)d->madv_free_runs,
		       (unsigned long long)d->madv_free_skipped,
		       (unsigned long long)d->lazyfree_discarded,
		       (unsigned long long)d->lazyfree_redirtied,
		       (unsigned long long)d->pageout_folios,
		       (unsigned long long)d->pageout_skipped);
		CHECK(n < 20 || (d->madv_free_runs && d->lazyfree_discarded && d->pageout_folios));
	}
}

/* The case of mix @name: B schedules, or the one MM_EXPLORE_SEED names. */
static void explore_case(const char *name)
{
	const struct mix_profile *p = NULL;
	uint64_t base = env_u64("MM_EXPLORE_BASE", 1), n = env_u64("MM_EXPLORE_SCHEDULES", 0);
	uint64_t failed = 0;
	struct explore_cfg saved;
	struct mm_counters c0, d;

	for (unsigned i = 0; i < mix_nr_profiles; i++)
		if (!strcmp(mix_profiles[i].name, name))
			p = &mix_profiles[i];
	if (!getenv("MM_EXPLORE_SCHEDULES") && !getenv("MM_EXPLORE_SEED"))
		SKIP_CASE("the explorer's stage runs it (tests/mm/explore.sh)");
	if (max_cpus() < 2)
		SKIP_CASE("needs two CPUs (MM_TEST_CPUS=4)");
	if (nr_pglists < 2)
		SKIP_CASE("needs two nodes");
	if (getenv("MM_EXPLORE_SEED")) {
		base = env_u64("MM_EXPLORE_SEED", 1);
		n = 1;
	}
	explore_get(&saved);
	c0 = mm_counters_read();
	mix_schedule_hook = explore_round;
	for (uint64_t s = base; s < base + n; s++)
		failed += one_schedule(p, s) != 0;
	mix_schedule_hook = NULL;
	explore_set(&saved);
	d = counters_since(&c0);
	printf("    %s: %llu schedule(s) from seed %llu, %llu failed\n", name,
	       (unsigned long long)n, (unsigned long long)base, (unsigned long long)failed);
	CHECK_EQ(failed, 0);
	report_reach(p, n, &d);
}

/* Everything the issue lists. */
TEST(mix)
{
	explore_case("mix");
}

/* gup-fast pins against migrations. */
TEST(pin_migrate)
{
	explore_case("pin_migrate");
}

/* COW write faults against migrations. */
TEST(cow_migrate)
{
	explore_case("cow_migrate");
}

/* Slow-path pins of PMD-mapped THPs against migrations. */
TEST(pmd_pin_migrate)
{
	explore_case("pmd_pin_migrate");
}

/* Pins of several pages against fork. */
TEST(pin_fork)
{
	explore_case("pin_fork");
}

/* mix, with locks taken out of turn (lock_virt, x86 on KVM). */
TEST(mix_virt)
{
	explore_case("mix_virt");
}

/* MADV_PAGEOUT and swap-in against fork, munmap, pins and migrations. */
TEST(swap)
{
	explore_case("swap");
}

/* mremap moves against accesses, pins, fork and migrations. */
TEST(mremap)
{
	explore_case("mremap");
}

/* MADV_DONTNEED, FREE (and the lazyfree reclaim), PAGEOUT, COLD and
 * POPULATE against writes, pins and fork. */
TEST(madvise)
{
	explore_case("madvise");
}

/* The NUMA hinting scan against hinting faults that migrate. */
TEST(numa_hint)
{
	explore_case("numa_hint");
}

/* Direct reclaim from the LRU against accesses, fork, exit, munmap and
 * mremap, pins and migrations. */
TEST(lru_reclaim)
{
	explore_case("lru_reclaim");
}

/* Direct reclaim of PMD-mapped folios against accesses that fault on the
 * 2 MiB meanwhile, pins, COW and migrations. */
TEST(pmd_reclaim)
{
	explore_case("pmd_reclaim");
}

/* The LRU's aging against the last puts of munmap, DONTNEED and exit. */
TEST(lru_free)
{
	explore_case("lru_free");
}

TEST(shared_reclaim)
{
	explore_case("shared_reclaim");
}

/*
 * The schedules make stress found failing, replayed (pct, 4 CPUs) on both
 * formats whatever format found them: each fails with its fix reverted.
 * docs/smp.md tells each one's story.
 */
static const struct found_schedule {
	const char *mix;
	uint64_t seed;
} found_schedules[] = {
	{ "mix", 1001944 },	  /* folio_try_grab: size read before the grab */
	{ "mix", 1003951 },	  /* unshare reuse against a MOVE_ALL migration */
	{ "mix", 1008150 },	  /* host MMU: a fault's entry gone again (THP split) */
	{ "mix", 1011691 },	  /* the same */
	{ "mix", 1011960 },	  /* the same */
	{ "mremap", 10 },	  /* migration of a folio mremap moved in a fork's parent */
	{ "madvise", 1000047 },	  /* a child's MADV_FREE of a clean swapped-in folio */
	{ "numa_hint", 1000797 }, /* GUP's fault bound: a hinting fault, two migrations */
	{ "shared_reclaim", 39 }, /* a child's MADV_FREE of the parent's clean unshare copy */
};

TEST(found)
{
	struct explore_cfg saved;
	unsigned failed = 0;

	if (!getenv("MM_EXPLORE_SCHEDULES"))
		SKIP_CASE("the explorer's stage runs it (tests/mm/explore.sh)");
	if (max_cpus() < 4 || env_mode() != EXPLORE_PCT)
		SKIP_CASE("the schedules are pct ones on 4 CPUs (MM_TEST_CPUS=4)");
	if (nr_pglists < 2)
		SKIP_CASE("needs two nodes");
	explore_get(&saved);
	mix_schedule_hook = explore_round;
	for (unsigned i = 0; i < (sizeof(found_schedules) / sizeof(found_schedules[0])); i++) {
		const struct found_schedule *f = &found_schedules[i];
		const struct mix_profile *p = NULL;

		for (unsigned j = 0; j < mix_nr_profiles; j++)
			if (!strcmp(mix_profiles[j].name, f->mix))
				p = &mix_profiles[j];
		CHECK(p != NULL);
		if (p)
			failed += one_schedule(p, f->seed) != 0;
	}
	mix_schedule_hook = NULL;
	explore_set(&saved);
	printf("    %u found schedule(s) replayed, %u failed\n",
	       (unsigned)(sizeof(found_schedules) / sizeof(found_schedules[0])), failed);
	CHECK_EQ(failed, 0);
}

TEST_SUITE(explore, mix, pin_migrate, cow_migrate, pmd_pin_migrate, pin_fork, mix_virt, swap,
	   mremap, madvise, numa_hint, lru_reclaim, pmd_reclaim, lru_free, shared_reclaim, found)
