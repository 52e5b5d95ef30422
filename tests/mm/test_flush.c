/*
 * test_flush.c - TLB flushes and break-before-make where mm/ rewrites a
 * mapping the MMU may have cached: the three sequences a TLB that caches
 * what it walks (docs/mm-core.md, "The strict TLB model") found wrong.
 * Each case first makes the MMU cache the old entries (by accessing
 * them), then does the operation, then uses the memory. On the host
 * runner the strict TLB fails the case on a stale entry, a fault that
 * cannot make progress or a break-before-make violation; in the guest the
 * data and the flush counters are checked (QEMU's TLB re-walks and does
 * not tell).
 */
#include "mm_cases.h"

static uint64_t free_before;

static struct mm *begin(void)
{
	return mm_case_begin(&free_before);
}

static void end(struct mm *mm)
{
	mm_case_end(mm, free_before);
}

/* Read @len bytes at @a in @mm and check each page holds its own index
 * in its first byte (what mm_touch() writes). */
static void check_touched(struct mm *mm, unsigned long a, unsigned long len)
{
	int bad = 0;

	for (unsigned long p = a; p < a + len; p += PAGE_SIZE) {
		unsigned char b = 0;

		bad += mm_access(mm, p, &b, 1, false) != 0 || b != (unsigned char)(p >> PAGE_SHIFT);
	}
	CHECK_EQ(bad, 0);
}

/*
 * Bug 1. A write fault on a clean contpte block dirties all 16 entries
 * (the block's dirtiness is one state), which makes all of them writable
 * to the MMU: the flush must cover the block. A flush of the faulting
 * page alone leaves the other pages cached read-only where the TLB holds
 * the block page by page; their writes fault, find nothing to change,
 * flush nothing, and fault again for ever.
 */
TEST(contpte_write_fault_flushes_the_block)
{
	bool has = arch_has_pte_blocks();
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	struct mm_counters c0;

	CHECK_EQ(mm_touch(mm, a, 64 << 10, false), 0); /* mapped clean, every page cached */
	CHECK_EQ(pte_cont(pte_at(mm, a)), has);
	c0 = mm_counters_read();
	CHECK_EQ(mm_touch(mm, a, 64 << 10, true), 0);
	CHECK_EQ(counters_since(&c0).faults, arch_has_hw_ad() ? 0 : 1); /* one for the block */
	CHECK_EQ(counters_since(&c0).tlb_pages, has ? 16 : 0);
	CHECK(pte_dirty(pte_at(mm, a + 0xf000)));
	check_touched(mm, a, 64 << 10);
	end(mm);
}

/*
 * Bug 2. Splitting a PMD leaf the MMU has cached turns a valid block entry
 * into a table: the leaf must be invalidated and flushed before the table
 * goes in (arm64 break-before-make; on x86 the page-size change of AMD
 * erratum 383), still one flush.
 */
TEST(split_huge_pmd_breaks_before_make)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER));
	struct mm_counters c0;
	bool by_pmd;
	pte_t pte;

	CHECK_EQ(mm_touch(mm, a, 2 << 20, true), 0);
	CHECK(page_at(mm, a, &by_pmd, &pte) && by_pmd);
	c0 = mm_counters_read();
	CHECK_EQ(mm_mprotect(mm, a, 1 << 20, VM_READ), 0); /* half: splits */
	CHECK(page_at(mm, a, &by_pmd, &pte) && !by_pmd && !pte_write(pte));
	CHECK_EQ(counters_since(&c0).tlb_flushes, 2); /* the split's, mprotect's */
	check_touched(mm, a, 2 << 20);
	CHECK_EQ(mm_touch(mm, a + (1 << 20), 1 << 20, true), 0);
	end(mm);
}

/*
 * Bug 3. An unbatched fork write-protects the parent entry by entry,
 * which unfolds its blocks. A batched mprotect then takes each run out
 * with clear_full_ptes() and puts it back with one set_ptes(), which folds
 * it into a block again: valid entries become valid contiguous ones, so
 * the cleared run must be flushed before set_ptes() (break-before-make).
 */
TEST(batched_mprotect_breaks_before_folding)
{
	bool has = arch_has_pte_blocks();
	struct mm *mm = begin(), *child;
	unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	struct mm_counters c0, d;

	CHECK_EQ(mm_touch(mm, a, 64 << 10, true), 0);
	caps_set_all(false);
	child = mm_fork(mm, NULL);
	CHECK(child != NULL);
	caps_set_all(true);
	CHECK(!pte_cont(pte_at(mm, a)));
	check_touched(mm, a, 64 << 10); /* the parent's 16 entries cached */
	c0 = mm_counters_read();
	CHECK_EQ(mm_mprotect(mm, a, 64 << 10, VM_READ), 0);
	d = counters_since(&c0);
	CHECK_EQ(d.cont_folds, has);
	CHECK_EQ(d.tlb_flushes, has ? 2 : 1); /* the break's, mprotect's */
	CHECK_EQ(pte_cont(pte_at(mm, a)), has);
	check_touched(mm, a, 64 << 10);
	check_touched(child, a, 64 << 10);
	if (child)
		mm_put(child);
	end(mm);
}

TEST_SUITE(flush, contpte_write_fault_flushes_the_block, split_huge_pmd_breaks_before_make,
	   batched_mprotect_breaks_before_folding);
