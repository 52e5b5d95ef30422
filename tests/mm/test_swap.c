/*
 * test_swap.c - MADV_PAGEOUT and swap-in (mm/swap.h): a folio mapped only
 * here goes to swap whole and comes back with its contents, a large one
 * as one folio (mm_caps.swapin) and through one set_ptes; the unmap clears
 * runs of mm_caps.pageout; fork shares the slots, zap, MADV_DONTNEED and
 * MADV_FREE drop them, mremap moves the entries; pinned and shared
 * folios stay. Each case runs on every folio size of test_gup_cases.h
 * where it matters and checks the invariants (mm_check also counts each
 * slot's entries) and that every slot and page is back at the end.
 */
#include "folio_walk.h"
#include "madvise.h"
#include "swap.h"
#include "swapops.h"
#include "test_gup_cases.h"

static struct page *pages[GUP_MAX_PAGES];
static uint64_t free_before;

/* The swap entry at @addr, or none. */
static pte_t swp_at(struct mm *mm, unsigned long addr)
{
	pte_t e;

	return swap_entry_at(mm, addr, &e) ? e : (pte_t){ 0 };
}

/* Pages of [a, a + len) whose entry is a swap entry. */
static unsigned long swapped(struct mm *mm, unsigned long a, unsigned long len)
{
	unsigned long n = 0;

	for (unsigned long va = a; va < a + len; va += PAGE_SIZE)
		n += is_swap_entry(swp_at(mm, va));
	return n;
}

static void end(struct mm *mm)
{
	mm_case_end(mm, free_before);
	CHECK_EQ(swap_slots_used(), 0);
}

/* Out and back: every page swapped, contents kept, the folio size kept
 * (the entries of a folio are consecutive slots), one set_ptes a folio. */
TEST(pageout_then_fault_back_whole_folios)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = mm_case_begin(&free_before);
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;
		unsigned long folios = n >> g->order;
		struct mm_counters c0 = mm_counters_read();

		WHERE("%s", g->label);
		W_CHECK_EQ(mm_madvise(mm, a, len, MADV_PAGEOUT), 0);
		W_CHECK_EQ(swapped(mm, a, len), n);
		W_CHECK_EQ(counters_since(&c0).pswpout, n);
		W_CHECK_EQ(counters_since(&c0).pageout_folios, folios);
		W_CHECK_EQ(swap_slots_used(), n);
		W_CHECK_MM_OK();
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 1), 0);
		W_CHECK_EQ(swapped(mm, a, len), 0);
		W_CHECK_EQ(counters_since(&c0).pswpin, n);
		W_CHECK_EQ(counters_since(&c0).swapin_folios, folios);
		W_CHECK_EQ(folio_order(folio_at(mm, a)), g->order);
		W_CHECK_EQ(page_bits(mm, a, 32, true), 0xffffffffu); /* the mm's own */
		W_CHECK_EQ(swap_slots_used(), 0);
		W_CHECK_MM_OK();
		end(mm);
	}
}

/* swapin=1: every page comes back as a 4 KiB folio; pageout=1: one
 * clear per PTE (batched: one per folio). */
TEST(caps_of_one_unmap_and_read_page_by_page)
{
	for (int batched = 0; batched < 2; batched++) {
		const struct gsize *g = &gsizes[2]; /* 64K */
		struct mm *mm = mm_case_begin(&free_before);
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;
		struct mm_counters c0 = mm_counters_read();

		WHERE("%s", batched ? "batched" : "cap 1");
		mm_caps.pageout = mm_caps.swapin = batched ? CAP_MAX : 1;
		W_CHECK_EQ(mm_madvise(mm, a, len, MADV_PAGEOUT), 0);
		W_CHECK_EQ(counters_since(&c0).pageout_clears, batched ? n >> g->order : n);
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 1), 0);
		W_CHECK_EQ(counters_since(&c0).swapin_folios, batched ? n >> g->order : n);
		W_CHECK_EQ(folio_order(folio_at(mm, a)), batched ? g->order : 0);
		W_CHECK_MM_OK();
		mm_caps.pageout = mm_caps.swapin = CAP_MAX;
		end(mm);
	}
}

/* After fork both share the slots; each side reads its own copy back,
 * a write of one does not reach the other. */
TEST(fork_shares_slots_and_each_side_reads_back)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = mm_case_begin(&free_before), *c;
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;

		WHERE("%s", g->label);
		W_CHECK_EQ(mm_madvise(mm, a, len, MADV_PAGEOUT), 0);
		c = mm_fork(mm, NULL);
		W_CHECK(c != NULL);
		W_CHECK_EQ(swapped(c, a, len), n);
		W_CHECK_EQ(swap_count(swap_entry_offset(swp_at(mm, a))), 2);
		W_CHECK(!swap_entry_excl(swp_at(mm, a)) && !swap_entry_excl(swp_at(c, a)));
		W_CHECK_MM_OK();
		W_CHECK_EQ(stamp_range(c, a, len, 2), 0);
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 1), 0);
		W_CHECK_EQ(stamp_mismatches(c, a, len, 2), 0);
		W_CHECK_EQ(swap_slots_used(), 0);
		W_CHECK_MM_OK();
		mm_put(c);
		end(mm);
	}
}

/* munmap, MADV_DONTNEED and MADV_FREE drop the entries and free the slots. */
TEST(zap_dontneed_and_free_drop_slots)
{
	static const int advice[] = { -1, MADV_DONTNEED, MADV_FREE };

	for (int i = 0; i < 3; i++) {
		const struct gsize *g = &gsizes[2];
		struct mm *mm = mm_case_begin(&free_before);
		unsigned long len, a = gup_region(mm, g, &len, 1);

		WHERE("advice %d", advice[i]);
		W_CHECK_EQ(mm_madvise(mm, a, len, MADV_PAGEOUT), 0);
		W_CHECK(swap_slots_used() > 0);
		if (advice[i] < 0)
			W_CHECK_EQ(mm_munmap(mm, a, len), 0);
		else
			W_CHECK_EQ(mm_madvise(mm, a, len, advice[i]), 0);
		W_CHECK_EQ(swap_slots_used(), 0);
		W_CHECK_MM_OK();
		if (advice[i] >= 0) /* the range reads zero again */
			W_CHECK_EQ(stamp_mismatches(mm, a, len, 1), len >> PAGE_SHIFT);
		end(mm);
	}
}

/*
 * A folio read back from swap holds the only copy of its data (the slots
 * are freed): it is dirty, as Linux's folio_free_swap() makes it. So a
 * fork child's MADV_FREE of the shared folio leaves it alone, and the
 * parent's reclaim, once the child is gone, keeps the parent's data
 * (explore/madvise seed 1000047 read zero there).
 */
TEST(free_in_a_child_keeps_what_the_parent_swapped_in)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = mm_case_begin(&free_before), *child;
		unsigned long len, a = gup_region(mm, g, &len, 1);
		int err;

		WHERE("%s", g->label);
		W_CHECK_EQ(mm_madvise(mm, a, len, MADV_PAGEOUT), 0);
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 1), 0); /* read faults bring it back */
		child = mm_fork(mm, &err);
		W_CHECK(child != NULL);
		if (child) {
			W_CHECK_EQ(mm_madvise(child, a, len, MADV_FREE), 0);
			mm_put(child);
		}
		mm_reclaim_lazyfree(mm);
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 1), 0);
		W_CHECK_MM_OK();
		end(mm);
	}
}

/*
 * The same with an unshare's copy: a R/O long-term pin of pages a fork
 * child shares copies them (clean entries over the only copy of the
 * data); once that child is gone a second child shares the copies, its
 * MADV_FREE must leave them alone, and the parent's lazyfree reclaim
 * keeps its data (explore/shared_reclaim pct seed 272 read zero there).
 */
TEST(free_in_a_child_keeps_what_the_parent_unshared)
{
	for (int s = 0; s < 3; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = mm_case_begin(&free_before), *child;
		unsigned long len, a = gup_region(mm, g, &len, 2), n = len >> PAGE_SHIFT;
		struct mm_counters c0;

		WHERE("%s", g->label);
		child = mm_fork(mm, NULL);
		W_CHECK(child != NULL);
		c0 = mm_counters_read();
		W_CHECK_EQ(pin_user_pages(mm, a, n, FOLL_LONGTERM, pages), n);
		W_CHECK(counters_since(&c0).cow_copies > 0);
		unpin_user_pages(pages, n);
		mm_put(child);
		child = mm_fork(mm, NULL);
		W_CHECK(child != NULL);
		W_CHECK_EQ(mm_madvise(child, a, len, MADV_FREE), 0);
		mm_put(child);
		mm_reclaim_lazyfree(mm);
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 2), 0);
		W_CHECK_MM_OK();
		end(mm);
	}
}

/* Pinned folios and folios shared with a fork child stay mapped. */
TEST(pinned_and_shared_folios_stay)
{
	for (int shared = 0; shared < 2; shared++) {
		const struct gsize *g = &gsizes[2];
		struct mm *mm = mm_case_begin(&free_before), *c = NULL;
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;
		struct mm_counters c0 = mm_counters_read();

		WHERE("%s", shared ? "shared" : "pinned");
		if (shared)
			c = mm_fork(mm, NULL);
		else
			W_CHECK_EQ(pin_user_pages(mm, a, n, FOLL_LONGTERM, pages), n);
		W_CHECK_EQ(mm_madvise(mm, a, len, MADV_PAGEOUT), 0);
		W_CHECK_EQ(swapped(mm, a, len), 0);
		W_CHECK_EQ(counters_since(&c0).pageout_skipped, n >> g->order);
		W_CHECK_MM_OK();
		if (shared)
			mm_put(c);
		else
			unpin_user_pages(pages, n);
		end(mm);
	}
}

/* mremap moves swap entries as they are; they fault back in at the new
 * address with the old contents. GUP faults them in too. */
TEST(mremap_moves_entries_and_gup_faults_them_in)
{
	const struct gsize *g = &gsizes[0];
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;
	long b;

	CHECK_EQ(mm_madvise(mm, a, len, MADV_PAGEOUT), 0);
	b = mm_mremap(mm, a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, a + 8 * len);
	CHECK_EQ(b, (long)(a + 8 * len));
	CHECK_EQ(swapped(mm, (unsigned long)b, len), n);
	CHECK_MM_OK();
	CHECK_EQ(get_user_pages(mm, (unsigned long)b, n, 0, pages), n);
	CHECK_EQ(pinned_mismatches(pages, n, a, 1), 0); /* stamped for the old address */
	put_user_pages(pages, n);
	CHECK_EQ(swapped(mm, (unsigned long)b, len), 0);
	CHECK_MM_OK();
	end(mm);
}

/* cow.c's "swapped-out, PTE-mapped THP": one page made read-only and
 * writable again (the VMAs merge back, a contpte block unfolds) before
 * MADV_PAGEOUT: the folio still goes whole. */
TEST(pageout_after_mprotect_of_one_page_and_back)
{
	for (int s = 1; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = mm_case_begin(&free_before);
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;

		WHERE("%s", g->label);
		W_CHECK_EQ(mm_mprotect(mm, a + PAGE_SIZE, PAGE_SIZE, VM_READ), 0);
		W_CHECK_EQ(mm_mprotect(mm, a + PAGE_SIZE, PAGE_SIZE, RW), 0);
		W_CHECK_EQ(mm_madvise(mm, a, len, MADV_PAGEOUT), 0);
		W_CHECK_EQ(swapped(mm, a, len), n);
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 1), 0);
		W_CHECK_MM_OK();
		end(mm);
	}
}

/* cow.c's "single PTE of swapped-out THP": all but one page of a large
 * folio dropped by MADV_DONTNEED; the one left goes to swap and the
 * folio is freed whole. */
TEST(pageout_of_a_folio_mapped_in_part)
{
	for (int s = 1; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = mm_case_begin(&free_before);
		unsigned long len, a = gup_region(mm, g, &len, 1);
		unsigned long fl = PAGE_SIZE << g->order;

		WHERE("%s", g->label);
		W_CHECK_EQ(mm_madvise(mm, a + PAGE_SIZE, fl - PAGE_SIZE, MADV_DONTNEED), 0);
		W_CHECK_EQ(mm_madvise(mm, a, PAGE_SIZE, MADV_PAGEOUT), 0);
		W_CHECK_EQ(swapped(mm, a, len), 1);
		W_CHECK_EQ(swap_slots_used(), 1);
		W_CHECK_MM_OK();
		W_CHECK_EQ(stamp_mismatches(mm, a, PAGE_SIZE, 1), 0);
		W_CHECK_EQ(stamp_mismatches(mm, a + fl, len - fl, 1), 0);
		end(mm);
	}
}

static struct page *window_page;

static void pin_in_window(struct mm *mm, unsigned long addr)
{
	if (!window_page && pin_user_pages_fast(mm, addr, 1, FOLL_FAST_ONLY, &window_page) != 1)
		window_page = NULL;
}

/* A gup-fast pin taken after MADV_PAGEOUT's first look and before its
 * clear (no lock keeps it out): the look after the clear sees it and the
 * folio stays mapped, the pin on the mm's page. */
TEST(pageout_sees_a_pin_taken_before_the_clear)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = mm_case_begin(&free_before);
		unsigned long len, a = gup_region(mm, g, &len, 1);

		WHERE("%s", g->label);
		window_page = NULL;
		pageout_window_hook = pin_in_window;
		W_CHECK_EQ(mm_madvise(mm, a, PAGE_SIZE << g->order, MADV_PAGEOUT), 0);
		pageout_window_hook = NULL;
		W_CHECK(window_page != NULL);
		W_CHECK_EQ(swapped(mm, a, len), 0);
		W_CHECK(folio_at(mm, a) == page_folio(window_page));
		W_CHECK_MM_OK();
		if (window_page)
			unpin_user_pages(&window_page, 1);
		end(mm);
	}
}

/* A device of 64 slots, full, then every other slot freed: no run of 2
 * is free. A 64K folio then goes to 16 scattered slots (swpout_fallback;
 * Linux would split it), comes back a page at a time with its contents;
 * the second likewise; the third finds no 16 free slots and stays. */
TEST(large_folio_without_a_free_run_goes_to_scattered_slots)
{
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long la, a = gup_region(mm, &gsizes[0], &la, 1); /* 64 pages of 4K */
	unsigned long lb, b = gup_region(mm, &gsizes[2], &lb, 2); /* 4 folios of 64K */
	unsigned long f = PAGE_SIZE << gsizes[2].order;
	struct mm_counters c0;

	CHECK_EQ(swap_set_slots(la >> PAGE_SHIFT), 0);
	CHECK_EQ(mm_madvise(mm, a, la, MADV_PAGEOUT), 0);
	CHECK_EQ(swap_slots_used(), la >> PAGE_SHIFT);
	for (unsigned long va = a + PAGE_SIZE; va < a + la; va += 2 * PAGE_SIZE)
		CHECK_EQ(stamp_mismatches(mm, va, PAGE_SIZE, 1), 0); /* frees the odd slots */
	c0 = mm_counters_read();
	CHECK_EQ(mm_madvise(mm, b, 3 * f, MADV_PAGEOUT), 0);
	CHECK_EQ(swapped(mm, b, lb), 2 * f >> PAGE_SHIFT);
	CHECK_EQ(counters_since(&c0).swpout_fallback, 2);
	CHECK_EQ(counters_since(&c0).pageout_folios, 2);
	CHECK_EQ(counters_since(&c0).pageout_skipped, 1);
	CHECK_MM_OK();
	CHECK_EQ(stamp_mismatches(mm, b, lb, 2), 0);
	CHECK_EQ(counters_since(&c0).swapin_folios, 2 * f >> PAGE_SHIFT); /* a page each */
	CHECK_EQ(folio_order(folio_at(mm, b)), 0);
	CHECK_EQ(stamp_mismatches(mm, a, la, 1), 0);
	CHECK_MM_OK();
	end(mm);
	CHECK_EQ(swap_set_slots(SWAP_SLOTS), 0);
}

TEST_SUITE(swap, pageout_sees_a_pin_taken_before_the_clear,
	   large_folio_without_a_free_run_goes_to_scattered_slots,
	   free_in_a_child_keeps_what_the_parent_swapped_in,
	   free_in_a_child_keeps_what_the_parent_unshared,
	   pageout_after_mprotect_of_one_page_and_back, pageout_of_a_folio_mapped_in_part,
	   pageout_then_fault_back_whole_folios, caps_of_one_unmap_and_read_page_by_page,
	   fork_shares_slots_and_each_side_reads_back, zap_dontneed_and_free_drop_slots,
	   pinned_and_shared_folios_stay, mremap_moves_entries_and_gup_faults_them_in);
