/*
 * test_reclaim.c - reclaim under memory pressure (mm/lru.h, mm/vmscan.h):
 * the LRU order (new folios at the inactive head, MADV_COLD to the tail),
 * the watermark that makes a fault reclaim, referenced folios kept,
 * lazyfree ones discarded without swap, swapped data intact after the
 * swap-in, the same final state at caps 1 and max, gup-fast's grab seen
 * by the unmap, and an isolation on another CPU that must skip a folio
 * whose last reference is gone (lru.h's grab). The invariant checker
 * (which also walks the LRU lists) runs after each step.
 */
#include "folio_walk.h"
#include "lru.h"
#include "madvise.h"
#include "smp.h"
#include "spinlock.h"
#include "swap.h"
#include "swapops.h"
#include "test_gup_cases.h"
#include "reclaim_cases.h"
#include "vmscan.h"
#include "young.h"

/* Bit i: folio i (of @order) of [a, ...) is swapped out (64 at most). */
static uint64_t swapped_mask(struct mm *mm, unsigned long a, unsigned long n, unsigned order)
{
	uint64_t m = 0;

	for (unsigned long i = 0; i < n && i < 64; i++)
		m |= (uint64_t)(swapped(mm, a + (i << order << PAGE_SHIFT), PAGE_SIZE) != 0) << i;
	return m;
}

/* New folios enter the inactive head in fault order; MADV_COLD moves one
 * to the tail, and reclaim takes it first. */
TEST(lru_order_new_inactive_cold_to_tail)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 4 * 16 * PAGE_SIZE, RW | VM_NOHUGEPMD, ORDERS(4));
	struct folio *f[4], *list[8];
	int nid;

	CHECK_EQ(stamp_range(mm, a, 4 * 16 * PAGE_SIZE, 1), 0);
	for (int i = 0; i < 4; i++)
		f[i] = folio_at(mm, a + i * 16 * PAGE_SIZE);
	nid = node_of(mm, a);
	CHECK_EQ(lru_snapshot(nid, LRU_INACTIVE, list, 8), 4);
	for (int i = 0; i < 4; i++)
		CHECK(list[i] == f[3 - i]); /* newest at the head */
	CHECK_EQ(lru_pages(nid, LRU_INACTIVE), 64);
	CHECK_EQ(lru_pages(nid, LRU_ACTIVE), 0);
	CHECK_MM_OK();
	CHECK_EQ(mm_madvise(mm, a + 2 * 16 * PAGE_SIZE, 16 * PAGE_SIZE, MADV_COLD), 0);
	CHECK_EQ(lru_snapshot(nid, LRU_INACTIVE, list, 8), 4);
	CHECK(list[3] == f[2]);
	CHECK(list[0] == f[3] && list[1] == f[1] && list[2] == f[0]);
	CHECK_MM_OK();
	CHECK_EQ(reclaim(mm, nid, 16), 16); /* the cold one: its young bits are clear */
	CHECK_EQ(swapped_mask(mm, a, 4, 4), 1u << 2);
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(mm, a, 4 * 16 * PAGE_SIZE, 1), 0);
	CHECK_MM_OK();
	end(mm);
}

/* Below the watermark a fault reclaims before it allocates: the node's
 * free pages stay at it (less the page tables, which do not reclaim);
 * with the default (0) nothing reclaims. */
TEST(watermark_makes_the_fault_reclaim)
{
	struct mm *mm = begin();
	unsigned long len = 2ul << 20, a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(0));
	struct mm_counters c0 = mm_counters_read();
	unsigned long low;
	int nid;

	CHECK_EQ(stamp_range(mm, a, len / 2, 3), 0);
	CHECK_EQ(counters_since(&c0).reclaim_stalls, 0);
	CHECK_EQ(counters_since(&c0).pgscan, 0);
	nid = node_of(mm, a);
	low = node_free_pages(nid) - 128;
	reclaim_set_low(nid, low);
	CHECK_EQ(stamp_range(mm, a + len / 2, len / 2, 3), 0);
	CHECK(counters_since(&c0).reclaim_stalls > 0);
	CHECK(counters_since(&c0).pgsteal >= 256 - 128);
	CHECK_EQ(counters_since(&c0).pgsteal, counters_since(&c0).pswpout);
	CHECK(node_free_pages(nid) + 8 >= low);
	CHECK_MM_OK();
	reclaim_set_low(nid, 0);
	CHECK_EQ(stamp_mismatches(mm, a, len, 3), 0);
	CHECK_EQ(swapped(mm, a, len), 0);
	CHECK_MM_OK();
	end(mm);
}

/* One pass over four 64K folios, two of them (1 and 3) used since their
 * young bits were cleared, asked for 32 pages: isolation takes 0 and 1
 * (32 pages), then 2 (the 16 still wanted); 0 and 2 go to swap, 1 to
 * the active list, 3 is not looked at (it stays on the inactive list). */
TEST(referenced_folios_are_kept)
{
	struct mm *mm = begin();
	unsigned long fs = 16 * PAGE_SIZE, a = test_mmap(mm, 4 * fs, RW | VM_NOHUGEPMD, ORDERS(4));
	struct mm_counters c0;
	uint64_t x;
	int nid;

	CHECK_EQ(stamp_range(mm, a, 4 * fs, 5), 0);
	nid = node_of(mm, a);
	CHECK(mm_clear_young(mm, a, a + 4 * fs, true) > 0);
	CHECK_EQ(mm_access(mm, a + 1 * fs, &x, 8, false), 0);
	CHECK_EQ(mm_access(mm, a + 3 * fs, &x, 8, false), 0);
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(mm, nid, 32), 32);
	CHECK_EQ(swapped_mask(mm, a, 4, 4), 0x5);
	CHECK(page_flags(&folio_at(mm, a + 1 * fs)->page) & PG_active);
	CHECK_EQ(page_flags(&folio_at(mm, a + 3 * fs)->page) & (PG_lru | PG_active), PG_lru);
	CHECK_EQ(counters_since(&c0).pgactivate, 16);
	CHECK_EQ(counters_since(&c0).pgsteal, 32);
	CHECK_EQ(counters_since(&c0).pgscan, 48); /* isolation stops at the want */
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(mm, a, 4 * fs, 5), 0);
	CHECK_MM_OK();
	end(mm);
}

/* MADV_FREE-d clean folios are discarded without swap (they read back as
 * zeros); one written after MADV_FREE is not lazyfree any more and goes
 * to swap, its data kept. */
TEST(lazyfree_folios_are_discarded)
{
	struct mm *mm = begin();
	unsigned long fs = 16 * PAGE_SIZE, a = test_mmap(mm, 4 * fs, RW | VM_NOHUGEPMD, ORDERS(4));
	uint64_t x = 77, y = 0;
	struct mm_counters c0;

	CHECK_EQ(stamp_range(mm, a, 4 * fs, 7), 0);
	CHECK_EQ(mm_madvise(mm, a, 4 * fs, MADV_FREE), 0);
	CHECK_EQ(mm_access(mm, a + fs, &x, 8, true), 0);
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(mm, node_of(mm, a), ~0ul), 64);
	CHECK_EQ(counters_since(&c0).lazyfree_discarded, 3);
	CHECK_EQ(counters_since(&c0).lazyfree_redirtied, 1);
	CHECK_EQ(counters_since(&c0).pswpout, 16);
	CHECK_EQ(swap_slots_used(), 16);
	CHECK_MM_OK();
	CHECK_EQ(mm_access(mm, a, &y, 8, false), 0);
	CHECK_EQ(y, 0);
	CHECK_EQ(mm_access(mm, a + fs, &y, 8, false), 0);
	CHECK_EQ(y, 77);
	CHECK_EQ(mm_access(mm, a + fs + PAGE_SIZE, &y, 8, false), 0);
	CHECK_EQ(y, stamp(a + fs + PAGE_SIZE, 7));
	CHECK_MM_OK();
	end(mm);
}

/* Every size goes to swap whole and comes back intact, as one folio (a
 * PMD-mapped one split to PTEs first, read back PTE-mapped). */
TEST(swapped_data_intact_after_swapin)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = begin();
		unsigned long len, a = gup_region(mm, g, &len, 9), n = len >> PAGE_SHIFT;
		struct mm_counters c0 = mm_counters_read();
		unsigned long got;

		WHERE("%s", g->label);
		got = reclaim(mm, node_of(mm, a), ~0ul);
		W_CHECK_EQ(got, n);
		W_CHECK_EQ(swapped(mm, a, len), n);
		W_CHECK_EQ(counters_since(&c0).reclaim_pmd_splits, g->pmd ? n / PTRS_PER_TABLE : 0);
		W_CHECK_MM_OK();
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 9), 0);
		W_CHECK_EQ(folio_order(folio_at(mm, a)), g->order);
		W_CHECK_EQ(swapped(mm, a, len), 0);
		W_CHECK_MM_OK();
		end(mm);
	}
}

/* What one scenario leaves: which folios were swapped, the counts that
 * do not depend on the caps, and whether the data came back. */
struct outcome {
	uint64_t mask, child_mask;
	uint64_t pgscan, pgsteal, pgactivate, pgdeactivate, pswpout, pswpin;
	unsigned long bad, active, inactive;
};

static struct outcome scenario(unsigned cap, unsigned order, bool pmd, bool shared)
{
	struct mm *mm = begin(), *c = NULL;
	unsigned long fs = PAGE_SIZE << order,
		      a = test_mmap(mm, 8 * fs, RW | (pmd ? 0 : VM_NOHUGEPMD), ORDERS(order));
	struct outcome o = { 0 };
	struct mm_counters c0, d;
	uint64_t x;
	int nid;

	CHECK_EQ(stamp_range(mm, a, 8 * fs, 11), 0);
	nid = node_of(mm, a);
	if (shared) { /* a fork child maps every folio too: reclaim_shared() */
		c = mm_fork(mm, NULL);
		CHECK(c != NULL);
		mm_clear_young(c, a, a + 8 * fs, true);
	}
	mm_clear_young(mm, a, a + 8 * fs, true); /* at young=max: see docs/swap.md on arm64 */
	for (int i = 0; i < 8; i += 3)
		CHECK_EQ(mm_access(mm, a + i * fs + 5 * PAGE_SIZE, &x, 8, false), 0);
	mm_caps.pageout = mm_caps.young = mm_caps.swapin = cap;
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(mm, nid, 4ul << order), 4ul << order);
	CHECK_MM_OK();
	o.mask = swapped_mask(mm, a, 8, order);
	o.child_mask = c ? swapped_mask(c, a, 8, order) : o.mask;
	o.active = lru_pages(nid, LRU_ACTIVE);
	o.inactive = lru_pages(nid, LRU_INACTIVE);
	o.bad = stamp_mismatches(mm, a, 8 * fs, 11) + (c ? stamp_mismatches(c, a, 8 * fs, 11) : 0);
	CHECK_MM_OK();
	d = counters_since(&c0);
	o.pgscan = d.pgscan, o.pgsteal = d.pgsteal, o.pgactivate = d.pgactivate;
	o.pgdeactivate = d.pgdeactivate, o.pswpout = d.pswpout, o.pswpin = d.pswpin;
	printf("    %s%s cap %s: swapped %#llx, pgscan %llu pgsteal %llu pgactivate %llu pswpin "
	       "%llu; "
	       "pageout_clears %llu young_runs %llu swapin_folios %llu\n",
	       pmd ? "2M-pmd" : "64K", shared ? " shared" : "", cap == 1 ? "1" : "max",
	       (unsigned long long)o.mask, (unsigned long long)d.pgscan,
	       (unsigned long long)d.pgsteal, (unsigned long long)d.pgactivate,
	       (unsigned long long)d.pswpin, (unsigned long long)d.pageout_clears,
	       (unsigned long long)d.young_runs, (unsigned long long)d.swapin_folios);
	if (c)
		mm_put(c);
	end(mm);
	return o;
}

/* The differential rule: caps 1 (one PTE per clear and per young test,
 * 4 KiB swap-in) and max reach the same state and the same counts of
 * what reclaim decided, for 64K folios and for PMD-mapped ones (split
 * by reclaim, then one run of 512 entries or 512 runs of one), mapped
 * by one mm or shared with a fork child. */
TEST(caps_one_and_max_reach_the_same_state)
{
	for (int i = 0; i < 4; i++) {
		bool pmd = i & 1, shared = i & 2;
		unsigned order = pmd ? PMD_ORDER : 4;
		struct outcome one = scenario(1, order, pmd, shared),
			       max = scenario(CAP_MAX, order, pmd, shared);

		WHERE("%s%s", pmd ? "2M-pmd" : "64K", shared ? ", shared" : "");
		W_CHECK_EQ(one.mask, max.mask);
		W_CHECK_EQ(one.child_mask, one.mask);
		W_CHECK_EQ(max.child_mask, max.mask);
		W_CHECK_EQ(one.mask, 0x36); /* used 0, 3, 6 kept; 7 past the want */
		W_CHECK_EQ(one.pgscan, max.pgscan);
		W_CHECK_EQ(one.pgsteal, max.pgsteal);
		W_CHECK_EQ(one.pgactivate, max.pgactivate);
		W_CHECK_EQ(one.pgdeactivate, max.pgdeactivate);
		W_CHECK_EQ(one.pswpout, max.pswpout);
		W_CHECK_EQ(one.pswpin, max.pswpin);
		W_CHECK_EQ(one.active, max.active);
		W_CHECK_EQ(one.inactive, max.inactive);
		W_CHECK_EQ(one.bad, 0);
		W_CHECK_EQ(max.bad, 0);
	}
}

/* mremap moves a folio's entries, and its LRU record (the reverse map)
 * follows: the moved folios are reclaimed at their new address, whole
 * PMDs and PTE tables moved by their PMD entry included. */
TEST(mremap_moved_folios_are_reclaimed)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = begin();
		unsigned long len, a = gup_region(mm, g, &len, 12), n = len >> PAGE_SHIFT;
		long b;
		int nid = node_of(mm, a);

		WHERE("%s", g->label);
		b = mm_mremap(mm, a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, a + 4 * len);
		W_CHECK_EQ(b, (long)(a + 4 * len));
		mm_clear_young(mm, (unsigned long)b, (unsigned long)b + len, true);
		W_CHECK_EQ(reclaim(mm, nid, ~0ul), n);
		W_CHECK_EQ(swapped(mm, (unsigned long)b, len), n);
		W_CHECK_MM_OK();
		for (unsigned long i = 0; i < n; i++) {
			uint64_t x = 0;

			W_CHECK_EQ(mm_access(mm, (unsigned long)b + i * PAGE_SIZE, &x, 8, false),
				   0);
			W_CHECK_EQ(x, stamp(a + i * PAGE_SIZE, 12));
		}
		W_CHECK_MM_OK();
		end(mm);
	}
}

static struct page *window_page;

static void pin_in_window(struct mm *mm, unsigned long addr)
{
	if (!window_page && pin_user_pages_fast(mm, addr, 1, FOLL_FAST_ONLY, &window_page) != 1)
		window_page = NULL;
}

/* A gup-fast pin taken after reclaim's look and before its clear (no lock
 * keeps it out): the look after the clear and flush sees it, the entries
 * come back and the folio goes to the active list, pinned where it was. */
TEST(reclaim_sees_a_pin_taken_before_the_clear)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = begin();
		unsigned long len, a = gup_region(mm, g, &len, 1);
		struct folio *f = folio_at(mm, a);

		WHERE("%s", g->label);
		mm_clear_young(mm, a, a + len, true);
		window_page = NULL;
		reclaim_window_hook = pin_in_window;
		reclaim(mm, node_of(mm, a), 1);
		reclaim_window_hook = NULL;
		W_CHECK(window_page != NULL);
		W_CHECK_EQ(swapped(mm, a, PAGE_SIZE << g->order), 0);
		W_CHECK(folio_at(mm, a) == f && page_folio(window_page) == f);
		W_CHECK(page_flags(&f->page) & PG_active);
		W_CHECK_MM_OK();
		if (window_page)
			unpin_user_pages(&window_page, 1);
		end(mm);
	}
}

/* The leaf of the first of two PMD-mapped folios at @a (2 MiB each). */
static pmd_t leaf_at(struct mm *mm, unsigned long a)
{
	pmd_t *pmdp = mm_find_pmd(mm, a, false);

	return pmdp ? pmdp_get(pmdp) : (pmd_t){ 0 };
}

/* Two PMD-mapped folios. With no room in swap for 512 slots both stay
 * whole (not split); with room, reclaim first finds both leaves young
 * (accessed since): it clears them and activates both, then, on its next
 * look, splits the older and writes it as one run of 512 consecutive
 * slots. A lazyfree one is split and discarded. Guards reclaim_pmd(): the
 * young test first, the slots taken before the split. */
TEST(pmd_folio_is_split_and_written_as_one_run)
{
	struct mm *mm = begin();
	unsigned long len = 4ul << 20, a = test_mmap(mm, len, RW, ORDERS(PMD_ORDER));
	struct mm_counters c0;
	uint64_t x = 0;
	pte_t e, e1;
	int nid;

	CHECK_EQ(stamp_range(mm, a, len, 3), 0);
	nid = node_of(mm, a);
	CHECK(pmd_leaf(leaf_at(mm, a)) && pmd_leaf(leaf_at(mm, a + PMD_SIZE)));
	/* no room for 512 slots: kept whole */
	CHECK_EQ(swap_set_slots(PTRS_PER_TABLE - 1), 0);
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(mm, nid, PTRS_PER_TABLE), 0);
	CHECK(counters_since(&c0).reclaim_nospace > 0);
	CHECK_EQ(counters_since(&c0).reclaim_pmd_splits, 0);
	CHECK(pmd_leaf(leaf_at(mm, a)) && pmd_leaf(leaf_at(mm, a + PMD_SIZE)));
	CHECK_EQ(swap_slots_used(), 0);
	CHECK_EQ(swap_set_slots(SWAP_SLOTS), 0);
	CHECK_MM_OK();
	/* both used again: young, activated first; then one split and written */
	CHECK_EQ(mm_access(mm, a, &x, 8, false), 0);
	CHECK_EQ(mm_access(mm, a + PMD_SIZE, &x, 8, false), 0);
	CHECK(pmd_young(leaf_at(mm, a)) && pmd_young(leaf_at(mm, a + PMD_SIZE)));
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(mm, nid, PTRS_PER_TABLE), PTRS_PER_TABLE);
	CHECK_EQ(counters_since(&c0).young_cleared, 2);
	CHECK_EQ(counters_since(&c0).reclaim_pmd_splits, 1);
	CHECK_EQ(counters_since(&c0).pswpout, PTRS_PER_TABLE);
	CHECK_EQ(counters_since(&c0).swpout_fallback, 0);
	CHECK_EQ(swapped(mm, a, PMD_SIZE) + swapped(mm, a + PMD_SIZE, PMD_SIZE), PTRS_PER_TABLE);
	{
		unsigned long s = swapped(mm, a, PMD_SIZE) ? a : a + PMD_SIZE;

		CHECK(swap_entry_at(mm, s, &e) && swap_entry_at(mm, s + PMD_SIZE - PAGE_SIZE, &e1));
		CHECK_EQ(swap_entry_offset(e1) - swap_entry_offset(e), PTRS_PER_TABLE - 1);
		CHECK(pmd_leaf(leaf_at(mm, s == a ? a + PMD_SIZE : a)));
	}
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(mm, a, len, 3), 0);
	CHECK_MM_OK();
	/* lazyfree: split and discarded without swap, reads back as zeros */
	CHECK_EQ(mm_munmap(mm, a, len), 0);
	a = test_mmap(mm, PMD_SIZE, RW, ORDERS(PMD_ORDER));
	CHECK_EQ(stamp_range(mm, a, PMD_SIZE, 4), 0);
	CHECK(pmd_leaf(leaf_at(mm, a)));
	CHECK_EQ(mm_madvise(mm, a, PMD_SIZE, MADV_FREE), 0);
	mm_clear_young(mm, a, a + PMD_SIZE, true);
	c0 = mm_counters_read();
	CHECK_EQ(reclaim(mm, nid, PTRS_PER_TABLE), PTRS_PER_TABLE);
	CHECK_EQ(counters_since(&c0).lazyfree_discarded, 1);
	CHECK_EQ(counters_since(&c0).reclaim_pmd_splits, 1);
	CHECK_EQ(counters_since(&c0).pswpout, 0);
	x = 1;
	CHECK_EQ(mm_access(mm, a + 5 * PAGE_SIZE, &x, 8, false), 0);
	CHECK_EQ(x, 0);
	CHECK_MM_OK();
	end(mm);
}

/* ---- SMP ------------------------------------------------------------------ */

struct free_race {
	struct mm *mm;
	unsigned long a;
	int nid;
	struct folio *folio;
	unsigned go, done, fired;
	unsigned isolated;
	struct lru_isolated iso[RECLAIM_BATCH];
};

static struct free_race *free_race_now;

/* CPU 0 inside folio_free() of the folio, its count 0, PG_lru still set:
 * CPU 1 isolates now. */
static void isolate_in_free_window(struct folio *f)
{
	struct free_race *r = free_race_now;

	if (f != r->folio || r->fired++)
		return;
	flag_set(&r->go);
	flag_wait(&r->done);
}

static void free_race_cpu(unsigned cpu, void *arg)
{
	struct free_race *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		r->isolated = lru_isolate(r->nid, r->mm, r->iso, RECLAIM_BATCH, ~0ul);
		flag_set(&r->done);
		return;
	}
	CHECK_EQ(mm_munmap(r->mm, r->a, PAGE_SIZE), 0);
}

/* CPU 0's munmap drops the last reference of a folio on the LRU; inside
 * folio_free(), before it takes the lru lock, CPU 1 isolates from the
 * inactive tail. The isolation must skip the folio (its grab fails at a
 * count of 0) and folio_free() take it off: guards folio_try_grab() in
 * lru_isolate(); with a plain folio_get() there CPU 1 takes a reference
 * on a free folio (folio_get: folio is free). */
TEST(isolate_skips_a_folio_being_freed_smp)
{
	struct free_race r = { 0 };

	r.mm = begin();
	r.a = test_mmap(r.mm, PAGE_SIZE, RW, ORDERS(0));
	CHECK_EQ(stamp_range(r.mm, r.a, PAGE_SIZE, 1), 0);
	r.folio = folio_at(r.mm, r.a);
	r.nid = node_of(r.mm, r.a);
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: munmap, then isolate\n");
		CHECK_EQ(mm_munmap(r.mm, r.a, PAGE_SIZE), 0);
		r.isolated = lru_isolate(r.nid, r.mm, r.iso, RECLAIM_BATCH, ~0ul);
	} else {
		free_race_now = &r;
		lru_free_window_hook = isolate_in_free_window;
		smp_run(2, free_race_cpu, &r);
		lru_free_window_hook = NULL;
		CHECK_EQ(r.fired, 1);
		printf("    isolation inside folio_free(): took %u folio(s)\n", r.isolated);
	}
	CHECK_EQ(r.isolated, 0);
	CHECK_EQ(lru_check(false), 0);
	CHECK_EQ(lru_pages(r.nid, LRU_INACTIVE), 0);
	end(r.mm);
}

struct split_race {
	struct mm *mm;
	unsigned long a;
	unsigned go, faulted, fired, saw_waiter;
	int ret;
	uint64_t seen;
};

static struct split_race *split_now;

/* Reclaim's split has cleared the leaf: CPU 1 reads the 2 MiB now; wait
 * until its read is through or it waits for the page_table_lock. */
static void fault_in_split_window(struct mm *mm, unsigned long addr)
{
	struct split_race *r = split_now;

	if (mm != r->mm || addr != r->a || r->fired++)
		return;
	r->saw_waiter = go_until_through_or_waiting(&r->go, &r->faulted, &mm->page_table_lock);
}

static void split_race_cpu(unsigned cpu, void *arg)
{
	struct split_race *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		r->ret = mm_access(r->mm, r->a + 7 * PAGE_SIZE, &r->seen, 8, false);
		flag_set(&r->faulted);
		switch_mm(NULL);
		return;
	}
	CHECK_EQ(reclaim(r->mm, node_of(r->mm, r->a), PTRS_PER_TABLE), PTRS_PER_TABLE);
}

/* Reclaim splits a PMD-mapped folio under the page_table_lock while the
 * leaf is none; CPU 1 reads the 2 MiB in that window: its fault must wait
 * for the lock and then find the table (and, once the folio is written,
 * its swap entry), never the empty pmd, where it would map a new zeroed
 * 2 MiB folio that the table then overwrites. Guards the page_table_lock
 * around reclaim_pmd(). */
TEST(pmd_reclaim_split_holds_off_a_fault_smp)
{
	struct split_race r = { 0 };

	r.mm = begin();
	r.a = test_mmap(r.mm, PMD_SIZE, RW, ORDERS(PMD_ORDER));
	CHECK_EQ(stamp_range(r.mm, r.a, PMD_SIZE, 6), 0);
	CHECK(pmd_leaf(leaf_at(r.mm, r.a)));
	mm_clear_young(r.mm, r.a, r.a + PMD_SIZE, true);
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: reclaim, then read\n");
		split_race_cpu(0, &r);
		r.ret = mm_access(r.mm, r.a + 7 * PAGE_SIZE, &r.seen, 8, false);
	} else {
		split_now = &r;
		split_pmd_window_hook = fault_in_split_window;
		smp_run(2, split_race_cpu, &r);
		split_pmd_window_hook = NULL;
		printf("    a read in reclaim's split window %s\n",
		       r.saw_waiter ? "waited for the page_table_lock" : "went through");
		CHECK_EQ(r.fired, 1);
		CHECK(r.saw_waiter);
	}
	CHECK_EQ(r.ret, 0);
	CHECK_EQ(r.seen, stamp(r.a + 7 * PAGE_SIZE, 6));
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(r.mm, r.a, PMD_SIZE, 6), 0);
	CHECK_MM_OK();
	end(r.mm);
}

struct move_race {
	struct mm *mm;
	unsigned long a;
	int nid;
	struct folio *folio;
	unsigned go, freed, fired, saw_waiter;
};

static struct move_race *move_now;

/* CPU 1's aging has taken the folio off the active list and not yet put
 * it on the inactive one: CPU 0 drops its last reference now; wait until
 * that free is through or waits for the lru lock. */
static void free_in_move_window(struct folio *f, struct spinlock *lock)
{
	struct move_race *r = move_now;

	if (f != r->folio || r->fired++)
		return;
	r->saw_waiter = go_until_through_or_waiting(&r->go, &r->freed, lock);
}

static void move_race_cpu(unsigned cpu, void *arg)
{
	struct move_race *r = arg;

	if (cpu == 1) {
		lru_balance(r->nid);
		flag_set(&r->go); /* CPU 0 goes on even if the move was not seen */
		return;
	}
	flag_wait(&r->go);
	CHECK_EQ(mm_munmap(r->mm, r->a, 16 * PAGE_SIZE), 0);
	flag_set(&r->freed);
	switch_mm(NULL);
}

/* The aging (lru_balance(), which holds no reference) moves a folio from
 * the active to the inactive list while CPU 0's munmap drops the folio's
 * last reference: folio_free()'s unlocked test of PG_lru must see it
 * listed and wait for the lru lock, or the folio is freed and the move
 * puts a free folio on the inactive list. Guards lru_move() keeping
 * PG_lru set (an unlink and a link clear it for a moment; with them
 * lru_check() finds the free folio listed). */
TEST(aging_move_meets_the_last_put_smp)
{
	struct move_race r = { 0 };

	r.mm = begin();
	r.a = test_mmap(r.mm, 16 * PAGE_SIZE, RW | VM_NOHUGEPMD, ORDERS(4));
	CHECK_EQ(stamp_range(r.mm, r.a, 16 * PAGE_SIZE, 2), 0);
	r.nid = node_of(r.mm, r.a);
	r.folio = folio_at(r.mm, r.a);
	{
		struct lru_isolated iso[1];

		CHECK_EQ(lru_isolate(r.nid, r.mm, iso, 1, 16), 1);
		CHECK(iso[0].folio == r.folio);
		lru_putback(&iso[0], LRU_ACTIVE);
	}
	CHECK(page_flags(&r.folio->page) & PG_active);
	CHECK_EQ(lru_pages(r.nid, LRU_INACTIVE), 0);
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: age, then unmap\n");
		lru_balance(r.nid);
		CHECK_EQ(mm_munmap(r.mm, r.a, 16 * PAGE_SIZE), 0);
	} else {
		move_now = &r;
		lru_move_window_hook = free_in_move_window;
		smp_run(2, move_race_cpu, &r);
		lru_move_window_hook = NULL;
		printf("    the last put inside the aging's move %s\n",
		       r.saw_waiter ? "waited for the lru lock" : "went through");
		CHECK_EQ(r.fired, 1);
		CHECK(r.saw_waiter);
	}
	CHECK_EQ(lru_check(false), 0);
	CHECK_EQ(lru_pages(r.nid, LRU_INACTIVE) + lru_pages(r.nid, LRU_ACTIVE), 0);
	CHECK_MM_OK();
	end(r.mm);
}

#define LOOP_ROUNDS 6

struct loop {
	struct mm *a, *b;
	unsigned long ra, len;
	unsigned stop;
	long pins;
};

/* CPU 1 beside the reclaimer: gup-fast pins of its pages (no lock), and
 * another mm's folios entering and leaving the same node's lists. */
static void loop_other(struct loop *l)
{
	for (unsigned long i = 0; !__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE); i++) {
		unsigned long va = l->ra + (i * 17 % (l->len >> PAGE_SHIFT)) * PAGE_SIZE;
		struct page *p;
		long b;

		if (pin_user_pages_fast(l->a, va, 1, FOLL_FAST_ONLY, &p) == 1) {
			l->pins++;
			unpin_user_pages(&p, 1);
		}
		b = mm_mmap(l->b, 0, 64 * PAGE_SIZE, RW | VM_NOHUGEPMD, 0, ORDERS(4));
		if (b > 0) {
			mm_touch(l->b, (unsigned long)b, 64 * PAGE_SIZE, true);
			mm_munmap(l->b, (unsigned long)b, 64 * PAGE_SIZE);
		}
	}
	switch_mm(NULL); /* mm_touch() made l->b live here */
}

static void loop_cpu(unsigned cpu, void *arg)
{
	struct loop *l = arg;

	if (cpu == 1) {
		loop_other(l);
		return;
	}
	for (unsigned r = 1; r <= LOOP_ROUNDS; r++)
		CHECK_EQ(stamp_range(l->a, l->ra, l->len, r), 0);
	flag_set(&l->stop);
}

/* Free-running: CPU 0 writes a range whose faults reclaim (the watermark
 * is half the range below the free pages), round after round (each
 * round faults the swapped half back, reclaiming the other), CPU 1 pins its
 * pages with gup-fast and maps, touches and unmaps another mm's folios on
 * the same lists. The data is the last round's, the lists and counts
 * agree (lru_check() in mm_check()), every page comes back. */
TEST(reclaim_against_gup_fast_and_another_mm_smp)
{
	struct loop l = { 0 };
	struct mm_counters c0;
	int nid;

	l.a = begin();
	l.b = mm_create();
	l.len = 2ul << 20;
	l.ra = test_mmap(l.a, l.len, RW | VM_NOHUGEPMD, ORDERS(4));
	CHECK_EQ(stamp_range(l.a, l.ra, PAGE_SIZE, 0), 0);
	nid = node_of(l.a, l.ra);
	reclaim_set_low(nid, node_free_pages(nid) - (l.len >> PAGE_SHIFT) / 2);
	c0 = mm_counters_read();
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: the rounds alone\n");
		loop_cpu(0, &l);
	} else {
		smp_run(2, loop_cpu, &l);
	}
	reclaim_set_low(nid, 0);
	printf("    %llu pages reclaimed, %llu read back, %ld gup-fast pins beside\n",
	       (unsigned long long)counters_since(&c0).pgsteal,
	       (unsigned long long)counters_since(&c0).pswpin, l.pins);
	CHECK(counters_since(&c0).pgsteal > 0);
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(l.a, l.ra, l.len, LOOP_ROUNDS), 0);
	mm_put(l.b);
	end(l.a);
}

TEST_SUITE(reclaim, lru_order_new_inactive_cold_to_tail, watermark_makes_the_fault_reclaim,
	   referenced_folios_are_kept, lazyfree_folios_are_discarded,
	   swapped_data_intact_after_swapin, caps_one_and_max_reach_the_same_state,
	   mremap_moved_folios_are_reclaimed, reclaim_sees_a_pin_taken_before_the_clear,
	   pmd_folio_is_split_and_written_as_one_run, isolate_skips_a_folio_being_freed_smp,
	   pmd_reclaim_split_holds_off_a_fault_smp, aging_move_meets_the_last_put_smp,
	   reclaim_against_gup_fast_and_another_mm_smp);
