/*
 * zap.c - unmapping: clear the entries of a range, drop the folios'
 * mapcounts, and gather the references for mm/tlb.c to drop after one
 * TLB flush.
 *
 * Batched as Linux's zap_present_ptes(): a run of PTEs that map
 * consecutive pages of one large folio (folio_pte_batch, dirty and young
 * ignored) is cleared with one clear_full_ptes(), one mapcount update and
 * one gathered reference drop. The run length is capped by mm_caps.zap; with
 * a cap of 1 every PTE is its own run, which is the code before batching.
 * Order-0 folios never enter folio_pte_batch.
 */
#include "kernel.h"
#include "mm_internal.h"
#include "swapops.h"
#include "swap.h"
#include "pte_batch.h"
#include "trace.h"

/*
 * zap_present_ptes - clear the run of present PTEs starting at @ptep
 * (value @pte), at most @left entries.
 * Return: the number of entries cleared (at least 1).
 * Context: the PTE table lock is held.
 */
static unsigned zap_present_ptes(struct mmu_gather *tlb, unsigned long addr, pte_t *ptep, pte_t pte,
				 unsigned long left)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio;
	unsigned nr = 1;

	if (!page)
		panic("zap_present_ptes: pte %#llx at %#lx maps pfn %#llx outside RAM",
		      (unsigned long long)pte.val, addr, (unsigned long long)pte_pfn(pte));
	folio = page_folio(page);
	if (folio_test_large(folio) && mm_caps.zap > 1)
		nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(mm_caps.zap, left),
				     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, NULL);
	pte = clear_full_ptes(tlb->mm, addr, ptep, nr, tlb->full);
	if (pte_dirty(pte))
		page_set_flags(&folio->page, PG_dirty);
	folio_remove_rmap_ptes(folio, page, (int)nr);
	tlb_gather_folio(tlb, folio, (int)nr, addr, addr + nr * PAGE_SIZE);
	return nr;
}

unsigned zap_swap_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte,
		       unsigned long left)
{
	unsigned long off = swap_entry_offset(pte);
	unsigned nr = 1, max = cap_nr(mm_caps.zap, left);

	(void)mm, (void)addr;
	while (nr < max && is_swap_entry(ptep_get(ptep + nr)) &&
	       swap_entry_offset(ptep_get(ptep + nr)) == off + nr)
		nr++;
	for (unsigned i = 0; i < nr; i++)
		set_pte(ptep + i, (pte_t){ 0 });
	swap_free_nr(off, nr);
	count_event(swap_frees, 1);
	return nr;
}

/* A non-present entry: a run of swap entries, else a bug. Out of line,
 * so that the loop over present entries stays what it was. */
static __attribute__((noinline, cold)) unsigned
zap_nonpresent_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte, unsigned long left)
{
	if (!is_swap_entry(pte))
		panic("zap_pte_range: unexpected non-present pte %#llx at %#lx",
		      (unsigned long long)pte.val, addr);
	return zap_swap_ptes(mm, addr, ptep, pte, left);
}

/* A run of none entries: nothing to clear. Out of line, as above (inline,
 * the zap loop's present path costs two instructions more a run). */
static __attribute__((noinline)) unsigned zap_none_ptes(pte_t *ptep, unsigned long addr,
							unsigned long end)
{
	return pte_none_span(ptep, addr, end);
}

/* The walker's pte_range: zap [addr, end) of one table. Context: the
 * table's lock is held (taken once by the walker). */
static int zap_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			 unsigned long end, void *priv)
{
	struct mmu_gather *tlb = priv;

	(void)pmdp;
	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = zap_present_ptes(tlb, addr, ptep, pte, (end - addr) >> PAGE_SHIFT);
		else if (!pte_none(pte))
			nr = zap_nonpresent_ptes(mm, addr, ptep, pte, (end - addr) >> PAGE_SHIFT);
		else
			nr = zap_none_ptes(ptep, addr, end);
		ptep += nr;
		addr += nr * PAGE_SIZE;
	}
	return 0;
}

/* The walker's pmd_leaf: a whole PMD leaf is one mapping, one reference
 * (prepare_range() split any leaf the range covers only partly). */
static int zap_huge_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			void *priv)
{
	struct mmu_gather *tlb = priv;
	pmd_t pmd = pmdp_get(pmdp);
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmd)));

	(void)mm;
	if (addr & ~PMD_MASK || end - addr != PMD_SIZE)
		panic("zap_vma_range: partial PMD leaf at %#lx", addr);
	TRACE(trace_pmd(addr, "cleared"));
	pmd = pmdp_get_and_clear(pmdp); /* with the dirty bit as it was at the clear */
	if (pmd_dirty(pmd))
		page_set_flags(&folio->page, PG_dirty);
	folio_remove_rmap_pmd(folio);
	tlb_gather_folio(tlb, folio, 1, addr, addr + PMD_SIZE);
	return 0;
}

static const struct pt_walk_ops zap_ops = { .pmd_leaf = zap_huge_pmd, .pte_range = zap_pte_range };

void zap_vma_range(struct mmu_gather *tlb, struct vma *vma, unsigned long start, unsigned long end)
{
	walk_page_range(vma->mm, start, end, &zap_ops, tlb);
}
