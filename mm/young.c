/*
 * young.c - mm_clear_young(): test and clear the young (accessed) bit of
 * the entries of a range, as reclaim's aging does (Linux's
 * folio_referenced_one() with clear_flush_young_ptes(), 7.0, and MGLRU's
 * test_and_clear_young_ptes(), 7.1): per run of entries mapping one folio
 * (folio_pte_batch(), at most mm_caps.young), one clear_young_dirty_ptes()
 * and, when an entry of the run was young, one flush of the run, so that
 * a later access sets the bit again (clear_refs asks for no flush, as
 * Linux's clear_refs_pte_range() does none). Unbatched (young=1) that is a flush
 * per young page, which is what the batching saves: on arm64 a TLBI per
 * page against one per 64 KiB folio.
 */
#include <errno.h>

#include "kernel.h"
#include "mm_internal.h"
#include "pte_batch.h"
#include "young.h"

struct young_walk {
	unsigned long young; /* pages of the runs that had a young entry */
	bool flush;	     /* flush each young run (aging), or not (clear_refs) */
};

/*
 * Flush the run [@addr, + @nr pages) of @folio that had a young entry.
 * Where the arch keeps one young state a block (arm64 contpte) and the
 * folio can hold blocks, clearing a run cleared its whole block, so the
 * flush covers the block: a page of it left in a TLB would not set the
 * bit again when accessed.
 */
static void young_flush(struct mm *mm, struct folio *folio, unsigned long addr, unsigned nr)
{
	unsigned long start = addr, end = addr + (unsigned long)nr * PAGE_SIZE;
	unsigned b = arch_pte_block_order();

	if (b && folio_order(folio) >= b) {
		unsigned long blk = PAGE_SIZE << b;

		start &= ~(blk - 1);
		end = (end + blk - 1) & ~(blk - 1);
	}
	flush_tlb_range(mm, start, end);
}

/*
 * The run from @ptep (value @pte, at most @left entries): its young bits
 * cleared and, with @w->flush, the run flushed if one was set.
 * Return: its length; *@young: whether an entry of it was young.
 * Context: the PTE table lock is held.
 */
static inline __attribute__((always_inline)) unsigned young_ptes(struct young_walk *w,
								 struct mm *mm, unsigned long addr,
								 pte_t *ptep, pte_t pte,
								 unsigned long left, bool *young)
{
	struct folio *folio = page_folio(pfn_to_page(pte_pfn(pte)));
	unsigned nr = 1;

	if (folio_test_large(folio))
		nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(mm_caps.young, left),
				     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, NULL);
	*young = clear_young_dirty_ptes(mm, addr, ptep, nr, CYDP_CLEAR_YOUNG);
	if (*young && w->flush)
		young_flush(mm, folio, addr, nr);
	return nr;
}

/*
 * A table's tallies in one word, 16 bits each (a table has at most 512
 * entries): runs tested, runs that had a young entry, and their pages.
 * They are added to the walk and the counters once a table: a
 * count_event() a run is a per-CPU load, add and store (8 instructions
 * on arm64), more than a 4K page's own test and clear. One word, because
 * the loop's calls leave it too few callee-saved registers for three:
 * the compiler keeps two of three separate tallies on the stack, a load
 * and a store each a run.
 */
#define YOUNG_TALLY_RUN (1ull << 0)
#define YOUNG_TALLY_CLEARED (1ull << 16)
#define YOUNG_TALLY_PAGE (1ull << 32)
_Static_assert(PTRS_PER_TABLE < (1 << 16), "a table's tallies fit 16 bits");

static inline unsigned long young_tally_field(uint64_t tally, uint64_t unit)
{
	return (unsigned long)(tally / unit) & 0xffff;
}

/*
 * The entries [@addr, @end) of one table from @ptep, each read raw (@raw)
 * or with ptep_get(). Always inlined, with @raw a constant: one loop for
 * each. Context: the table's lock is held.
 */
static inline __attribute__((always_inline)) void young_table(struct young_walk *w, struct mm *mm,
							      pte_t *ptep, unsigned long addr,
							      unsigned long end, bool raw)
{
	uint64_t tally = 0;

	while (addr < end) {
		pte_t pte = raw ? __ptep_get(ptep) : ptep_get(ptep);
		unsigned nr = 1;
		bool young;

		if (pte_present(pte)) {
			nr = young_ptes(w, mm, addr, ptep, pte, (end - addr) >> PAGE_SHIFT, &young);
			tally += YOUNG_TALLY_RUN;
			if (young)
				tally += YOUNG_TALLY_CLEARED + nr * YOUNG_TALLY_PAGE;
		} else if (pte_none(pte)) {
			nr = pte_none_span(ptep, addr, end);
		}
		ptep += nr;
		addr += nr * PAGE_SIZE;
	}
	w->young += young_tally_field(tally, YOUNG_TALLY_PAGE);
	count_event(young_runs, young_tally_field(tally, YOUNG_TALLY_RUN));
	count_event(young_cleared, young_tally_field(tally, YOUNG_TALLY_CLEARED));
}

/*
 * The walker's pte_range. Batched, each entry is read raw: a run needs
 * only its presence and frame (folio_pte_batch() ignores young and
 * dirty, and clear_young_dirty_ptes() reads the entries it clears),
 * where ptep_get() would count each read and on arm64 first OR a
 * block's 16 entries. At young=1 each entry is read with ptep_get(), as
 * a walk a PTE at a time does. Holes are skipped raw (pte_none_span()).
 * Context: the table's lock is held.
 */
static int young_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			   unsigned long end, void *priv)
{
	(void)pmdp;
	if (mm_caps.young > 1)
		young_table(priv, mm, ptep, addr, end, true);
	else
		young_table(priv, mm, ptep, addr, end, false);
	return 0;
}

/* The walker's pmd_leaf: one entry, tested and cleared under the
 * page_table_lock (every change of a leaf is made under it). */
static int young_huge_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			  void *priv)
{
	struct young_walk *w = priv;
	unsigned long base = addr & PMD_MASK;

	(void)end;
	count_event(young_runs, 1);
	spin_lock(&mm->page_table_lock);
	if (pmd_leaf(pmdp_get(pmdp)) && pmdp_test_and_clear_young(pmdp)) {
		if (w->flush)
			flush_tlb_range(mm, base, base + PMD_SIZE);
		count_event(young_cleared, 1);
		w->young += PMD_SIZE >> PAGE_SHIFT;
	}
	spin_unlock(&mm->page_table_lock);
	return 0;
}

static const struct pt_walk_ops young_ops = { .pmd_leaf = young_huge_pmd,
					      .pte_range = young_pte_range };

long mm_clear_young(struct mm *mm, unsigned long start, unsigned long end, bool flush)
{
	struct young_walk w = { .flush = flush };

	if (start >= end || ((start | end) & (PAGE_SIZE - 1)))
		return -EINVAL;
	read_lock(&mm->mmap_lock);
	for (struct vma *v = find_vma_from(mm, start); v && v->start < end; v = v->next) {
		unsigned long s = v->start > start ? v->start : start;
		unsigned long e = v->end < end ? v->end : end;

		walk_page_range(mm, s, e, &young_ops, &w);
	}
	read_unlock(&mm->mmap_lock);
	return (long)w.young;
}
