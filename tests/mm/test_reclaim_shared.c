/*
 * test_reclaim_shared.c - reclaim of folios a fork shares (mm/reclaim_shared.c):
 * written to swap once with each slot counted for every mm, reached from
 * any member of the family, a clean lazyfree one discarded everywhere;
 * kept when the family lock is taken, when a reference or a COW fault
 * comes between the look and the count; a fault on the migration entries
 * waits and then reads the data back.
 */
#include "lru.h"
#include "madvise.h"
#include "reclaim_cases.h"
#include "smp.h"
#include "spinlock.h"
#include "young.h"

/* A region of size @g stamped with @seed, a child forked from @mm, and
 * the young bits of both cleared (so the first look takes the folios). */
static struct mm *shared_region(struct mm *mm, const struct gsize *g, unsigned long *a,
				unsigned long *len, unsigned seed)
{
	struct mm *c;

	*a = gup_region(mm, g, len, seed);
	c = mm_fork(mm, NULL);
	CHECK(c != NULL);
	mm_clear_young(mm, *a, *a + *len, true);
	mm_clear_young(c, *a, *a + *len, true);
	return c;
}

/* Reclaimed from the parent or from the child: every folio written once,
 * every slot named by both, and both read their data back; a PMD-mapped
 * one is split in both mms first. */
TEST(shared_folios_are_written_once_for_both_mms)
{
	for (int from_child = 0; from_child < 2; from_child++)
		for (int s = 0; s < NR_GSIZES; s++) {
			const struct gsize *g = &gsizes[s];
			struct mm *mm = begin(), *c;
			unsigned long a, len, n;
			struct mm_counters c0;
			pte_t e;

			WHERE("%s, reclaimed from the %s", g->label,
			      from_child ? "child" : "parent");
			c = shared_region(mm, g, &a, &len, 3);
			n = len >> PAGE_SHIFT;
			c0 = mm_counters_read();
			W_CHECK_EQ(reclaim(from_child ? c : mm, node_of(mm, a), ~0ul), n);
			W_CHECK_EQ(swapped(mm, a, len), n);
			W_CHECK_EQ(swapped(c, a, len), n);
			W_CHECK_EQ(counters_since(&c0).pswpout, n);
			W_CHECK_EQ(counters_since(&c0).reclaim_shared, n >> g->order);
			W_CHECK_EQ(counters_since(&c0).reclaim_shared_busy, 0);
			W_CHECK_EQ(counters_since(&c0).reclaim_pmd_splits,
				   g->pmd ? 2 * (n >> 9) : 0);
			W_CHECK(swap_entry_at(c, a + len - PAGE_SIZE, &e));
			W_CHECK_EQ(swap_count(swap_entry_offset(e)), 2);
			W_CHECK(!swap_entry_excl(e));
			W_CHECK_MM_OK();
			W_CHECK_EQ(stamp_mismatches(c, a, len, 3), 0);
			W_CHECK_EQ(swap_count(swap_entry_offset(e)), 1);
			W_CHECK_EQ(stamp_mismatches(mm, a, len, 3), 0);
			W_CHECK_EQ(swap_slots_used(), 0);
			W_CHECK_MM_OK();
			mm_put(c);
			end(mm);
		}
}

/* A PMD-mapped folio young in one mm only is activated whole, split in
 * neither; an old one is split in both and written. */
TEST(shared_pmd_folio_young_in_one_mm_stays_whole)
{
	const struct gsize *g = &gsizes[NR_GSIZES - 1]; /* 2M-pmd */
	struct mm *mm = begin(), *c;
	unsigned long a, len;
	struct mm_counters c0;
	uint64_t x;

	CHECK(g->pmd);
	c = shared_region(mm, g, &a, &len, 11);
	CHECK_EQ(mm_access(c, a + 5 * PAGE_SIZE, &x, 8, false), 0); /* the child's leaf young */
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(mm, node_of(mm, a), PTRS_PER_TABLE), PTRS_PER_TABLE);
	CHECK_EQ(counters_since(&c0).reclaim_pmd_splits, 2);
	CHECK_EQ(counters_since(&c0).pgactivate, PTRS_PER_TABLE);
	CHECK(folio_entire_mapcount(folio_at(mm, a)) == 2);
	CHECK_EQ(swapped(mm, a, PMD_SIZE) + swapped(c, a, PMD_SIZE), 0);
	CHECK_EQ(swapped(mm, a + PMD_SIZE, PMD_SIZE), PTRS_PER_TABLE);
	CHECK_EQ(swapped(c, a + PMD_SIZE, PMD_SIZE), PTRS_PER_TABLE);
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(c, a, len, 11), 0);
	CHECK_EQ(stamp_mismatches(mm, a, len, 11), 0);
	CHECK_MM_OK();
	mm_put(c);
	end(mm);
}

/* MADV_FREE, then a write to one folio, then the fork: the three clean
 * folios are discarded in both mms (both read zero); the written one is
 * no longer lazyfree and goes to swap on the next look instead. */
TEST(shared_lazyfree_folios_are_discarded_in_every_mm)
{
	const struct gsize *g = &gsizes[2]; /* 64K */
	struct mm *mm = begin(), *c;
	unsigned long len, a = gup_region(mm, g, &len, 4), fs = 16 * PAGE_SIZE;
	struct mm_counters c0;
	uint64_t x = 0x1234;

	CHECK_EQ(mm_madvise(mm, a, len, MADV_FREE), 0);
	CHECK_EQ(mm_access(mm, a + fs, &x, 8, true), 0);
	c = mm_fork(mm, NULL);
	CHECK(c != NULL);
	mm_clear_young(mm, a, a + len, true);
	mm_clear_young(c, a, a + len, true);
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(mm, node_of(mm, a), len >> PAGE_SHIFT), len >> PAGE_SHIFT);
	CHECK_EQ(counters_since(&c0).lazyfree_discarded, 3);
	CHECK_EQ(counters_since(&c0).lazyfree_redirtied, 1);
	CHECK_EQ(counters_since(&c0).reclaim_shared, 4);
	CHECK_EQ(counters_since(&c0).pswpout, 16);
	CHECK_EQ(swap_slots_used(), 16);
	CHECK_MM_OK();
	for (int i = 0; i < 4; i++) {
		uint64_t want = i == 1 ? 0x1234 : 0;

		CHECK_EQ(mm_access(mm, a + i * fs, &x, 8, false), 0);
		CHECK_EQ(x, want);
		CHECK_EQ(mm_access(c, a + i * fs, &x, 8, false), 0);
		CHECK_EQ(x, want);
	}
	CHECK_EQ(stamp_mismatches(c, a + fs + PAGE_SIZE, fs - PAGE_SIZE, 4), 0);
	CHECK_MM_OK();
	mm_put(c);
	end(mm);
}

/* The records name the family, not the mm: a child reclaims what its
 * parent faulted after the parent is gone, and a parent reclaims what
 * only its child maps (a region the child mapped after the fork). */
TEST(records_outlive_the_mm_that_faulted_them)
{
	const struct gsize *g = &gsizes[2]; /* 64K */
	struct mm *mm = begin(), *c;
	unsigned long len, a = gup_region(mm, g, &len, 9), b, n = len >> PAGE_SHIFT;
	struct mm_counters c0;
	int nid = node_of(mm, a);

	c = mm_fork(mm, NULL);
	CHECK(c != NULL);
	b = gup_region(c, g, &(unsigned long){ 0 }, 10); /* the child's own */
	mm_clear_young(c, b, b + len, true);
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(mm, nid, n), n); /* the shared ones are young: activated */
	CHECK_EQ(swapped(c, b, len), n);
	CHECK_EQ(swapped(c, a, len) + swapped(mm, a, len), 0);
	CHECK_EQ(counters_since(&c0).reclaim_shared, n >> g->order);
	CHECK_EQ(counters_since(&c0).pgactivate, n);
	CHECK_MM_OK();
	mm_put(mm); /* the parent exits: its folios are the child's alone */
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(c, nid, n), n);
	CHECK_EQ(swapped(c, a, len), n);
	CHECK_EQ(counters_since(&c0).reclaim_shared, 0); /* the child's own path */
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(c, a, len, 9), 0);
	CHECK_EQ(stamp_mismatches(c, b, len, 10), 0);
	end(c);
}

/* With the family lock taken (as a member's munmap holds it), reclaim
 * takes what its mm maps alone only: the shared ones are activated, mapped in
 * both as they were. */
TEST(family_lock_taken_keeps_shared_folios)
{
	struct mm *mm = begin(), *c;
	unsigned long a, len;
	struct mm_counters c0;

	c = shared_region(mm, &gsizes[2], &a, &len, 5);
	c0 = mm_counters_read();
	read_lock(&mm->family->lock);
	CHECK_EQ(reclaim(mm, node_of(mm, a), ~0ul), 0);
	read_unlock(&mm->family->lock);
	/* every folio looked at twice: reclaim's budget, the aging between */
	CHECK_EQ(counters_since(&c0).reclaim_family_busy, 2 * (len >> PAGE_SHIFT >> 4));
	CHECK_EQ(counters_since(&c0).reclaim_shared, 0);
	CHECK_EQ(counters_since(&c0).pgactivate, 2 * (len >> PAGE_SHIFT));
	CHECK_EQ(swapped(mm, a, len) + swapped(c, a, len), 0);
	CHECK(folio_at(mm, a) == folio_at(c, a));
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(c, a, len, 5), 0);
	mm_put(c);
	end(mm);
}

static struct folio *held;

static void hold_in_window(enum shared_window where, struct folio *f)
{
	if (where == SHARED_UNMAPPED && !held) {
		folio_get(f); /* a grab that came before the clears */
		held = f;
	}
}

/* A reference the mappings do not explain, found after the unmap: every
 * run goes back as it was, in both mms, and the slots are given back. */
TEST(shared_reclaim_puts_back_a_held_folio)
{
	struct mm *mm = begin(), *c;
	unsigned long a, len;
	struct mm_counters c0;
	struct folio *f;

	c = shared_region(mm, &gsizes[2], &a, &len, 6);
	f = folio_at(mm, a);
	c0 = mm_counters_read();
	held = NULL;
	reclaim_shared_window_hook = hold_in_window;
	CHECK_EQ(reclaim(mm, node_of(mm, a), 16), 16); /* the next folio went */
	reclaim_shared_window_hook = NULL;
	CHECK(held == f);
	CHECK_EQ(counters_since(&c0).reclaim_shared_busy, 1);
	CHECK(folio_at(mm, a) == f && folio_at(c, a) == f);
	CHECK_EQ(folio_mapcount(f), 32);
	CHECK(page_flags(&f->page) & PG_active);
	CHECK_EQ(swapped(mm, a, 16 * PAGE_SIZE) + swapped(c, a, 16 * PAGE_SIZE), 0);
	CHECK_EQ(swap_slots_used(), 16);
	folio_put(held);
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(mm, a, len, 6), 0);
	CHECK_EQ(stamp_mismatches(c, a, len, 6), 0);
	mm_put(c);
	end(mm);
}

struct shared_race {
	struct mm *mm, *other;
	unsigned long a;
	enum shared_window where;
	bool write;
	unsigned go, done, fired;
	uint64_t waits0;
	int ret;
	uint64_t val;
};

static struct shared_race *race_now;

static uint64_t migration_waits_now(void)
{
	struct mm_counters z = { 0 };

	return counters_since(&z).migration_waits;
}

/* CPU 1 goes in the window: wait until its access is through or (at
 * SHARED_UNMAPPED) waits on a migration entry. */
static void access_in_window(enum shared_window where, struct folio *f)
{
	struct shared_race *r = race_now;

	(void)f;
	if (where != r->where || r->fired++) /* the first folio only */
		return;
	r->waits0 = migration_waits_now();
	flag_set(&r->go);
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && migration_waits_now() == r->waits0)
		arch_cpu_relax();
}

static void shared_race_cpu(unsigned cpu, void *arg)
{
	struct shared_race *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		r->ret = mm_access(r->other, r->a + 3 * PAGE_SIZE, &r->val, 8, r->write);
		flag_set(&r->done);
		switch_mm(NULL);
		return;
	}
	reclaim(r->mm, node_of(r->mm, r->a), 16);
}

static void shared_race(struct shared_race *r)
{
	race_now = r;
	reclaim_shared_window_hook = access_in_window;
	smp_run(2, shared_race_cpu, r);
	reclaim_shared_window_hook = NULL;
	CHECK(r->fired >= 1);
	CHECK_EQ(r->ret, 0);
}

/* The parent writes a page of the folio after the look (COW: its run is
 * no longer whole): the unmap finds it so, and the child's run, unmapped
 * first (the newest member comes first), is put back. */
TEST(cow_after_the_look_keeps_the_folio_smp)
{
	struct shared_race r = { .where = SHARED_LOOKED, .write = true, .val = 77 };
	struct mm_counters c0;
	unsigned long len;
	struct folio *f;
	struct mm *child;

	if (smp_nr_cpus() < 2)
		SKIP_CASE("one CPU online");
	r.mm = begin();
	child = shared_region(r.mm, &gsizes[2], &r.a, &len, 7);
	r.other = r.mm; /* the parent writes, the parent reclaims */
	f = folio_at(r.mm, r.a);
	c0 = mm_counters_read();
	shared_race(&r);
	CHECK_EQ(counters_since(&c0).reclaim_shared_busy, 1);
	CHECK(folio_at(r.mm, r.a + 3 * PAGE_SIZE) != f);
	CHECK(folio_at(child, r.a) == f);
	CHECK_EQ(folio_mapcount(f), 16 + 15);
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(child, r.a, len, 7), 0);
	CHECK_EQ(stamp_mismatches(r.mm, r.a + 4 * PAGE_SIZE, len - 4 * PAGE_SIZE, 7), 0);
	mm_put(child);
	end(r.mm);
}

/* The child reads the folio with every run unmapped: its fault waits on
 * the migration entry, then finds the swap entry and reads the data. */
TEST(fault_on_the_unmapped_runs_waits_smp)
{
	struct shared_race r = { .where = SHARED_UNMAPPED };
	struct mm_counters c0;
	unsigned long len;

	if (smp_nr_cpus() < 2)
		SKIP_CASE("one CPU online");
	r.mm = begin();
	r.other = shared_region(r.mm, &gsizes[2], &r.a, &len, 8);
	c0 = mm_counters_read();
	shared_race(&r);
	printf("    the child's read %s\n", counters_since(&c0).migration_waits
						    ? "waited on the migration entry"
						    : "went through");
	CHECK(counters_since(&c0).migration_waits > 0);
	CHECK_EQ(counters_since(&c0).reclaim_shared, 1);
	CHECK_EQ(r.val, stamp(r.a + 3 * PAGE_SIZE, 8));
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(r.other, r.a, len, 8), 0);
	CHECK_EQ(stamp_mismatches(r.mm, r.a, len, 8), 0);
	mm_put(r.other);
	end(r.mm);
}

#define SHARED_ROUNDS 16

struct shared_loop {
	struct mm *mm, *child;
	unsigned long r, len;
	unsigned first, stop;
	unsigned long reads, bad, gets, forks;
};

/* CPU 1 in the child: reads of the shared region (each page's stamp,
 * through swap-in when reclaim took it), gup-fast gets of its pages, and
 * a fork and exit of a grandchild now and then (the family lock taken:
 * the reclaimer's trylock fails meanwhile). */
static void shared_loop_child(struct shared_loop *l)
{
	flag_wait(&l->first);
	for (unsigned long i = 0; !__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE); i++) {
		unsigned long va = l->r + (i * 17 % (l->len >> PAGE_SHIFT)) * PAGE_SIZE;
		struct page *p;
		uint64_t x = 0;

		l->reads++;
		if (mm_access(l->child, va, &x, 8, false) || x != stamp(va, 1))
			l->bad++;
		if (get_user_pages_fast(l->child, va, 1, 0, &p) == 1) {
			l->gets++;
			put_user_pages(&p, 1);
		}
		if (i % 16 == 15) {
			struct mm *g = mm_fork(l->child, NULL);

			l->forks += g != NULL;
			if (g)
				mm_put(g);
		}
	}
	switch_mm(NULL);
}

static void shared_loop_cpu(unsigned cpu, void *arg)
{
	struct shared_loop *l = arg;

	if (cpu == 1) {
		shared_loop_child(l);
		return;
	}
	for (unsigned r = 2; r < 2 + SHARED_ROUNDS; r++) {
		unsigned long w = test_mmap(l->mm, l->len, RW | VM_NOHUGEPMD, ORDERS(4));

		CHECK_EQ(stamp_range(l->mm, w, l->len, r), 0);
		CHECK_EQ(stamp_mismatches(l->mm, w, l->len, r), 0);
		CHECK_EQ(mm_munmap(l->mm, w, l->len), 0);
		flag_set(&l->first);
	}
	flag_set(&l->stop);
}

/* Free-running: the parent maps, writes and unmaps a region of its own
 * round after round past the watermark (its faults reclaim: the shared
 * region's folios from both mms, then the copies the child's reads
 * brought back, the child's alone, through the same family walk) while
 * CPU 1 reads the shared region in the child, takes gup-fast references
 * to it and forks. CPU 1 starts after the first round, which reclaims
 * shared folios whatever the timing (beside the reads, the young bits
 * and the forks' family lock may keep every later one: on a nested KVM
 * none went). Every read sees the data, the lists and counts agree, and
 * both mms read it all back. */
TEST(shared_reclaim_against_reads_gets_and_forks_smp)
{
	struct shared_loop l = { 0 };
	struct mm_counters c0;
	int nid;

	l.mm = begin();
	l.len = 2ul << 20;
	l.child = shared_region(l.mm, &gsizes[2], &l.r, &l.len, 1);
	nid = node_of(l.mm, l.r);
	reclaim_set_low(nid, node_free_pages(nid) - (l.len >> PAGE_SHIFT) / 2);
	c0 = mm_counters_read();
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: the rounds alone\n");
		shared_loop_cpu(0, &l);
	} else {
		smp_run(2, shared_loop_cpu, &l);
	}
	reclaim_set_low(nid, 0);
	printf("    %llu folios unmapped through the family walk (%llu kept, %llu family lock "
	       "taken); the child read %lu times, took %lu gets, forked %lu times\n",
	       (unsigned long long)counters_since(&c0).reclaim_shared,
	       (unsigned long long)counters_since(&c0).reclaim_shared_busy,
	       (unsigned long long)counters_since(&c0).reclaim_family_busy, l.reads, l.gets,
	       l.forks);
	CHECK_EQ(l.bad, 0);
	CHECK(counters_since(&c0).reclaim_shared > 0);
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(l.mm, l.r, l.len, 1), 0);
	CHECK_EQ(stamp_mismatches(l.child, l.r, l.len, 1), 0);
	CHECK_MM_OK();
	mm_put(l.child);
	end(l.mm);
}

TEST_SUITE(reclaim_shared, shared_folios_are_written_once_for_both_mms,
	   shared_pmd_folio_young_in_one_mm_stays_whole,
	   shared_lazyfree_folios_are_discarded_in_every_mm,
	   records_outlive_the_mm_that_faulted_them, family_lock_taken_keeps_shared_folios,
	   shared_reclaim_puts_back_a_held_folio, cow_after_the_look_keeps_the_folio_smp,
	   fault_on_the_unmapped_runs_waits_smp, shared_reclaim_against_reads_gets_and_forks_smp);
