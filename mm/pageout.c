/*
 * pageout.c - MADV_PAGEOUT: write the folios of a range to swap now
 * (Linux's madvise_pageout() with reclaim_pages() and try_to_unmap_one()
 * on one mm), leaving swap entries in their PTEs.
 *
 * A candidate is a folio whose every mapping is one run of this mm and
 * that nothing else holds (Linux skips folios that may be mapped by
 * another process: "do not interfere with other mappings"). The run may
 * be part of the folio when the rest is mapped nowhere (a MADV_DONTNEED
 * of most of it): those pages go to swap and the whole folio is freed,
 * which is what Linux's split of such a folio and its reclaim come to. A PMD-mapped one is split to
 * PTEs first, as Linux's reclaim splits the PMD and swaps the folio whole.
 * Its run is unmapped with one clear per mm_caps.pageout entries (Linux's
 * folio_unmap_pte_batch(); cap 1 clears one PTE at a time, as before it),
 * flushed, and only then checked, as reclaim_lazyfree.c checks: a
 * reference besides the mappings (a pin, a GUP reference that gup-fast
 * took before the clear) puts the entries back. Otherwise each page is
 * copied to its slot, the entries become swap entries (AnonExclusive
 * kept in the entry), and the folio is freed.
 *
 * The run ignores arch blocks: a folio whose first contpte block an
 * mprotect of one page unfolded (and that nothing refolded: a fold is
 * tried on a block's last entry) still goes whole, as Linux's split and
 * reclaim of it would. A folio that finds no run of free slots goes to
 * scattered ones (swap.h's struct swap_dest). A folio only partly in the
 * range, or with fewer free slots than pages, is left as it is: counted
 * in pageout_skipped.
 */
#include "kernel.h"
#include "madvise.h"
#include "mm_internal.h"
#include "pte_batch.h"
#include "swap.h"
#include "swapops.h"
#include "vmscan.h"

void (*pageout_window_hook)(struct mm *mm, unsigned long addr);

/* After the clear and flush: is the folio held by nothing but the @nr
 * mappings just cleared? */
static bool pageout_ok(struct folio *folio, unsigned nr)
{
	mm_full_barrier();
	return folio_ref_count(folio) == (int)nr;
}

/*
 * pageout_ptes - the run from @ptep (value @pte, at most @left entries):
 * write its folio to swap if it is mapped whole here and nowhere else.
 * Return: the entries handled (at least 1).
 * Context: the PTE table lock is held.
 */
static unsigned pageout_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte,
			     unsigned long left)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio = page_folio(page);
	unsigned nr = 1;
	struct swap_dest d;

	if (folio_test_large(folio))
		nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(CAP_MAX, left),
				     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG | FPB_IGNORE_BLOCK, NULL);
	if (!pte_user(pte) || folio_mapcount(folio) != (int)nr ||
	    folio_ref_count(folio) != (int)nr) {
		count_event(pageout_skipped, 1);
		return nr;
	}
	arch_sched_point(SCHED_WINDOW); /* counts looked at, not yet cleared */
	if (pageout_window_hook)
		pageout_window_hook(mm, addr); /* tests: a gup-fast grab here */
	if (swap_alloc_folio(&d, nr)) {
		count_event(pageout_skipped, 1);
		return nr;
	}
	pte = pageout_clear(mm, addr, ptep, nr);
	flush_tlb_range(mm, addr, addr + nr * PAGE_SIZE); /* no write may land after the copy */
	if (!pageout_ok(folio, nr)) {
		set_ptes(mm, addr, ptep, pte_mknoncont(pte), nr); /* set_ptes() folds afresh */
		swap_dest_free(&d);
		count_event(pageout_skipped, 1);
		return nr;
	}
	for (unsigned i = 0; i < nr; i++) {
		swap_write_page(swap_dest_slot(&d, i), page_address(page + i));
		set_pte(ptep + i,
			make_swap_entry(swap_dest_slot(&d, i), PageAnonExclusive(page + i)));
	}
	folio_remove_rmap_ptes(folio, page, (int)nr);
	folio_put_refs(folio, (int)nr);
	count_event(pswpout, nr);
	count_event(pageout_folios, 1);
	return nr;
}

/* The walker's pte_range. Context: the table's lock is held. */
static int pageout_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			     unsigned long end, void *priv)
{
	(void)pmdp, (void)priv;
	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = pageout_ptes(mm, addr, ptep, pte, (end - addr) >> PAGE_SHIFT);
		ptep += nr;
		addr += nr * PAGE_SIZE;
	}
	return 0;
}

static const struct pt_walk_ops pte_ops = { .pte_range = pageout_pte_range };

/* The walker's pmd_leaf: a leaf the range covers whole and nothing else
 * maps or holds is split, then its PTEs are paged out. Context: mmap_lock
 * held for write. */
static int pageout_huge_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			    void *priv)
{
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmdp_get(pmdp))));

	if (end - addr != PMD_SIZE || folio_mapcount(folio) != 1 || folio_ref_count(folio) != 1 ||
	    split_huge_pmd(find_vma(mm, addr), pmdp, addr)) {
		count_event(pageout_skipped, 1);
		return 0;
	}
	return walk_page_range(mm, addr, end, &pte_ops, priv);
}

static const struct pt_walk_ops pageout_ops = { .pmd_leaf = pageout_huge_pmd,
						.pte_range = pageout_pte_range };

void madvise_pageout_vma(struct vma *v, unsigned long s, unsigned long e)
{
	walk_page_range(v->mm, s, e, &pageout_ops, NULL);
}
