/*
 * reclaim_lazyfree.c - mm_reclaim_lazyfree() (see madvise.h): the part of
 * Linux's reclaim that drops a MADV_FREE-d folio (try_to_unmap_one() on
 * a folio without PG_swapbacked), minimal until ptelab has reclaim.
 *
 * A candidate is a lazyfree folio mapped whole by one run of this mm and
 * by nothing else. Its run is cleared first (one clear_full_ptes(),
 * which gathers the dirty bits up to the clear) and only then checked,
 * as Linux checks after its clear and flush: after a full barrier, a
 * reference that gup-fast took before the clear is in the refcount, and
 * one it tries after the clear sees the cleared entry and gives it back.
 * A dirty run (a write since MADV_FREE), a PG_dirty folio or an extra
 * reference puts the entries back; the dirty folio stops being lazyfree,
 * as Linux sets PG_swapbacked again. A clean one leaves through the zap
 * path: mapcount dropped, references gathered, freed after one flush.
 * The run is not capped: the batching of reclaim's unmap is a knob of its
 * own once reclaim exists (issue 27, item 3).
 */
#include "kernel.h"
#include "madvise.h"
#include "mm_internal.h"
#include "pte_batch.h"

/* One pass: the gather, and the folios it discarded. */
struct reclaim_walk {
	struct mmu_gather tlb;
	unsigned long discarded;
};

static bool folio_test_lazyfree(struct folio *folio)
{
	return page_flags(&folio->page) & PG_lazyfree;
}

/* After the clear of a run of @folio (@dirty: its gathered dirty bit):
 * may it go?
 * @maps: the references its mappings here hold. A dirty one is kept and
 * no longer lazyfree. */
static bool lazyfree_discardable(struct folio *folio, bool dirty, int maps)
{
	mm_full_barrier();
	if (dirty || (page_flags(&folio->page) & PG_dirty)) {
		page_clear_flags(&folio->page, PG_lazyfree);
		count_event(lazyfree_redirtied, 1);
		return false;
	}
	return folio_ref_count(folio) == maps;
}

/*
 * discard_ptes - the run from @ptep (value @pte, at most @left entries):
 * discard its folio if it is a clean lazyfree one mapped only here.
 * Return: the entries handled (at least 1).
 * Context: the PTE table lock is held.
 */
static unsigned discard_ptes(struct reclaim_walk *r, unsigned long addr, pte_t *ptep, pte_t pte,
			     unsigned long left)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio = page_folio(page);
	struct mmu_gather *tlb = &r->tlb;
	unsigned nr = 1;

	if (folio_test_large(folio))
		nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(CAP_MAX, left),
				     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, NULL);
	if (!folio_test_lazyfree(folio) || nr != folio_nr_pages(folio) ||
	    folio_mapcount(folio) != (int)nr)
		return nr;
	arch_sched_point(SCHED_WINDOW); /* a candidate, not yet cleared */
	pte = clear_full_ptes(tlb->mm, addr, ptep, nr, 0);
	if (!lazyfree_discardable(folio, pte_dirty(pte), (int)nr)) {
		/* the cleared entries may still be cached: flush before the
		 * rewrite, which may fold them (break-before-make) */
		flush_tlb_range(tlb->mm, addr, addr + (unsigned long)nr * PAGE_SIZE);
		set_ptes(tlb->mm, addr, ptep, pte, nr);
		return nr;
	}
	folio_remove_rmap_ptes(folio, page, (int)nr);
	tlb_gather_folio(tlb, folio, (int)nr, addr, addr + nr * PAGE_SIZE);
	count_event(lazyfree_discarded, 1);
	r->discarded++;
	return nr;
}

/* The walker's pte_range. Context: the table's lock is held. */
static int discard_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			     unsigned long end, void *priv)
{
	(void)mm, (void)pmdp;
	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = discard_ptes(priv, addr, ptep, pte, (end - addr) >> PAGE_SHIFT);
		ptep += nr;
		addr += nr * PAGE_SIZE;
	}
	return 0;
}

/* The walker's pmd_leaf: a whole leaf of a lazyfree folio no other
 * mapping shares. Context: mmap_lock held for write. */
static int discard_huge_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			    void *priv)
{
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmdp_get(pmdp))));
	struct reclaim_walk *r = priv;
	pmd_t pmd;

	(void)mm;
	if (!folio_test_lazyfree(folio) || end - addr != PMD_SIZE || folio_mapcount(folio) != 1)
		return 0;
	pmd = pmdp_get_and_clear(pmdp);
	if (!lazyfree_discardable(folio, pmd_dirty(pmd), 1)) {
		flush_tlb_range(mm, addr, end);
		set_pmd(pmdp, pmd);
		return 0;
	}
	folio_remove_rmap_pmd(folio);
	tlb_gather_folio(&r->tlb, folio, 1, addr, end);
	count_event(lazyfree_discarded, 1);
	r->discarded++;
	return 0;
}

static const struct pt_walk_ops discard_ops = { .pmd_leaf = discard_huge_pmd,
						.pte_range = discard_pte_range };

unsigned long mm_reclaim_lazyfree(struct mm *mm)
{
	struct reclaim_walk r = { .discarded = 0 };

	mmap_write_lock(mm);
	tlb_gather_init(&r.tlb, mm, false);
	for (struct vma *v = mm->vmas; v; v = v->next)
		walk_page_range(mm, v->start, v->end, &discard_ops, &r);
	tlb_finish(&r.tlb);
	mmap_write_unlock(mm);
	return r.discarded;
}
