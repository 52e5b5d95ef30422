/*
 * zap.c - unmapping: clear the entries of a range, drop the folios'
 * mapcounts and references, flush the TLB once per range, free pages.
 *
 * Batched as Linux's zap_present_ptes(): a run of PTEs that map
 * consecutive pages of one large folio (folio_pte_batch, dirty and young
 * ignored) is cleared with one clear_full_ptes(), one mapcount update and
 * one gathered reference drop. The run length is capped by caps.zap; with
 * a cap of 1 every PTE is its own run, which is the code before batching.
 * Order-0 folios never enter folio_pte_batch.
 */
#include "kernel.h"
#include "mm_internal.h"

void tlb_gather_init(struct mmu_gather *tlb, struct mm *mm, bool full)
{
	tlb->mm = mm;
	tlb->full = full;
	tlb->nr = 0;
	tlb->start = ~0ul;
	tlb->end = 0;
}

/* Flush what was cleared so far, then drop the gathered references. */
static void tlb_flush_release(struct mmu_gather *tlb)
{
	if (tlb->end > tlb->start)
		flush_tlb_range(tlb->mm, tlb->start, tlb->end);
	for (int i = 0; i < tlb->nr; i++)
		folio_put_refs(tlb->item[i].folio, tlb->item[i].refs);
	tlb->nr = 0;
	tlb->start = ~0ul;
	tlb->end = 0;
}

void tlb_gather_folio(struct mmu_gather *tlb, struct folio *f, int refs, unsigned long addr,
		      unsigned long end)
{
	if (tlb->nr == GATHER_MAX)
		tlb_flush_release(tlb);
	tlb->item[tlb->nr].folio = f;
	tlb->item[tlb->nr].refs = refs;
	tlb->nr++;
	if (addr < tlb->start)
		tlb->start = addr;
	if (end > tlb->end)
		tlb->end = end;
}

void tlb_finish(struct mmu_gather *tlb)
{
	tlb_flush_release(tlb);
}

/*
 * zap_present_ptes - clear the run of present PTEs starting at @ptep.
 * Return: the number of entries cleared (at least 1).
 * Context: the PTE table lock is held.
 */
static unsigned zap_present_ptes(struct mmu_gather *tlb, unsigned long addr, pte_t *ptep,
				 pte_t pte, unsigned long left)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio;
	unsigned nr = 1;

	if (!page)
		panic("zap_present_ptes: pte %#llx at %#lx maps pfn %#llx outside RAM",
		      (unsigned long long)pte.val, addr, (unsigned long long)pte_pfn(pte));
	folio = page_folio(page);
	if (folio_test_large(folio) && caps.zap > 1)
		nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(caps.zap, left),
				     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, NULL);
	pte = clear_full_ptes(tlb->mm, addr, ptep, nr, tlb->full);
	if (pte_dirty(pte))
		folio->page.flags |= PG_dirty;
	folio_remove_rmap_ptes(folio, page, (int)nr);
	tlb_gather_folio(tlb, folio, (int)nr, addr, addr + nr * PAGE_SIZE);
	return nr;
}

/* Zap the PTEs of one table in [addr, end). Context: takes the PTE lock. */
static void zap_pte_range(struct mmu_gather *tlb, pmd_t *pmdp, unsigned long addr,
			  unsigned long end)
{
	struct spinlock *ptl;
	pte_t *ptep = pte_offset_map_lock(tlb->mm, pmdp, addr, &ptl);

	if (!ptep)
		return;
	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = zap_present_ptes(tlb, addr, ptep, pte, (end - addr) >> PAGE_SHIFT);
		else if (!pte_none(pte))
			panic("zap_pte_range: unexpected non-present pte %#llx at %#lx",
			      (unsigned long long)pte.val, addr);
		ptep += nr;
		addr += nr * PAGE_SIZE;
	}
	pte_unmap_unlock(ptep, ptl);
}

/* Zap a whole PMD leaf (the range covers it: prepare_range split others). */
static void zap_huge_pmd(struct mmu_gather *tlb, pmd_t *pmdp, unsigned long addr)
{
	pmd_t pmd = *pmdp;
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmd)));

	*pmdp = (pmd_t){ 0 };
	if (pmd_dirty(pmd))
		folio->page.flags |= PG_dirty;
	folio_remove_rmap_pmd(folio);
	tlb_gather_folio(tlb, folio, 1, addr, addr + PMD_SIZE);
}

void zap_vma_range(struct vma *vma, unsigned long start, unsigned long end, bool full)
{
	struct mmu_gather tlb;

	tlb_gather_init(&tlb, vma->mm, full);
	for (unsigned long addr = start, next; addr < end; addr = next) {
		pmd_t *pmdp = mm_find_pmd(vma->mm, addr, false);

		next = pmd_addr_end(addr, end);
		if (!pmdp || pmd_none(*pmdp))
			continue;
		if (pmd_leaf(*pmdp)) {
			if (addr & ~PMD_MASK || next - addr != PMD_SIZE)
				panic("zap_vma_range: partial PMD leaf at %#lx", addr);
			zap_huge_pmd(&tlb, pmdp, addr);
			continue;
		}
		zap_pte_range(&tlb, pmdp, addr, next);
	}
	tlb_finish(&tlb);
}
