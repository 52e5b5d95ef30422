/*
 * test_young.c - mm_clear_young() (mm/young.h): every young entry of the
 * range old afterwards, the pages counted by run, the entries touched
 * since young again; one flush per young run (one per folio batched, one
 * per page at young=1, one per contpte block on arm64); a PMD leaf one
 * entry.
 */
#include "test_gup_cases.h"
#include "young.h"

static uint64_t free_before;

/* Entries of [a, a + len) that are young (a PMD leaf's pages all count). */
static unsigned long young_pages(struct mm *mm, unsigned long a, unsigned long len)
{
	unsigned long n = 0;

	for (unsigned long va = a; va < a + len; va += PAGE_SIZE) {
		bool by_pmd;
		pte_t pte;

		n += page_at(mm, va, &by_pmd, &pte) && pte_young(pte);
	}
	return n;
}

TEST(clears_every_young_entry_one_flush_a_run)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		for (int batched = 0; batched < 2; batched++) {
			const struct gsize *g = &gsizes[s];
			struct mm *mm = mm_case_begin(&free_before);
			unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;
			/* At young=1 the first entry of an arm64 contpte block clears the
			 * block's young bit (one state for the block): one run a block. */
			unsigned b = arch_pte_block_order();
			unsigned long blk = b && g->order >= b ? 1ul << b : 1;
			unsigned long runs = g->pmd    ? n >> PMD_ORDER
					     : batched ? n >> g->order
						       : n / blk;
			unsigned long young = g->pmd || batched ? n : n / blk;
			/* Runs tested: one a folio batched, one an entry at young=1. */
			unsigned long tested = g->pmd	 ? n >> PMD_ORDER
					       : batched ? n >> g->order
							 : n;
			struct mm_counters c0;

			WHERE("%s %s", g->label, batched ? "batched" : "young=1");
			mm_caps.young = batched ? CAP_MAX : 1;
			W_CHECK_EQ(young_pages(mm, a, len), n);
			c0 = mm_counters_read();
			W_CHECK_EQ(mm_clear_young(mm, a, a + len, true), young);
			W_CHECK_EQ(young_pages(mm, a, len), 0);
			W_CHECK_EQ(counters_since(&c0).young_runs, tested);
			W_CHECK_EQ(counters_since(&c0).young_cleared, runs);
			W_CHECK_EQ(counters_since(&c0).tlb_flushes, runs);
			W_CHECK_EQ(mm_clear_young(mm, a, a + len, true),
				   0); /* nothing young: no flush */
			W_CHECK_EQ(counters_since(&c0).young_runs, 2 * tested);
			W_CHECK_EQ(counters_since(&c0).young_cleared, runs);
			W_CHECK_EQ(counters_since(&c0).tlb_flushes, runs);
			/* An access makes its entry young again, the last page too
			 * (at young=1 on arm64 its block was cleared by the block's
			 * first run, so that run's flush must cover the block). */
			W_CHECK_EQ(stamp_mismatches(mm, a, PAGE_SIZE, 1), 0);
			W_CHECK(young_pages(mm, a, PAGE_SIZE) == 1);
			W_CHECK_EQ(stamp_mismatches(mm, a + len - PAGE_SIZE, PAGE_SIZE, 1), 0);
			W_CHECK(young_pages(mm, a + len - PAGE_SIZE, PAGE_SIZE) == 1);
			W_CHECK_EQ(stamp_mismatches(mm, a, len, 1), 0);
			W_CHECK_MM_OK();
			mm_caps.young = CAP_MAX;
			mm_case_end(mm, free_before);
		}
	}
}

/* clear_refs' pass (no flush): every young entry old, no flush sent. */
TEST(clear_refs_clears_without_a_flush)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = mm_case_begin(&free_before);
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;
		struct mm_counters c0 = mm_counters_read();

		WHERE("%s", g->label);
		W_CHECK_EQ(young_pages(mm, a, len), n);
		W_CHECK_EQ(mm_clear_young(mm, a, a + len, false), n);
		W_CHECK_EQ(young_pages(mm, a, len), 0);
		W_CHECK_EQ(counters_since(&c0).tlb_flushes, 0);
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 1), 0);
		W_CHECK_MM_OK();
		mm_case_end(mm, free_before);
	}
}

TEST(bad_ranges_are_einval)
{
	struct mm *mm = mm_case_begin(&free_before);

	CHECK_EQ(mm_clear_young(mm, 0x10001, 0x20000, true), -EINVAL);
	CHECK_EQ(mm_clear_young(mm, 0x20000, 0x10000, true), -EINVAL);
	CHECK_EQ(mm_clear_young(mm, 0x10000, 0x20000, true), 0); /* no VMA: nothing */
	mm_case_end(mm, free_before);
}

TEST_SUITE(young, clears_every_young_entry_one_flush_a_run, clear_refs_clears_without_a_flush,
	   bad_ranges_are_einval);
