/*
 * cow.c - write faults on read-only anonymous pages (and unshare faults
 * from GUP): reuse the page when this mapping owns it, else copy it.
 *
 * A page is reused when it is AnonExclusive, or when this PTE is its only
 * mapping and nothing but mappings holds references to its folio (no GUP
 * reference or pin anywhere in the folio), Linux's
 * wp_can_reuse_anon_folio() made per page, which the per-page mapcounts
 * here allow. Everything else gets a copy of the one 4 KiB page in a new
 * order-0 folio, as Linux does for PTE-mapped large folios. A PMD-mapped
 * folio is reused whole when the PMD is its only user, else split first.
 */
#include <errno.h>
#include <string.h>

#include "kernel.h"
#include "mm_internal.h"

/* May the mapping of @page by one PTE take the page over? */
static bool can_reuse(struct folio *folio, struct page *page)
{
	if (PageAnonExclusive(page))
		return true;
	return page->mapcount + folio_entire_mapcount(folio) == 1 &&
	       folio_ref_count(folio) == folio_mapcount(folio);
}

/* Make the PTE at @ptep exclusive in place, and writable for a write. */
static void wp_reuse(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t pte, struct page *page,
		     unsigned flags)
{
	SetPageAnonExclusive(page);
	if (!(flags & FAULT_WRITE))
		return;
	pte = pte_mkdirty(pte_mkwrite(pte_mkyoung(pte)));
	if (ptep_set_access_flags(vma, addr, ptep, pte))
		flush_tlb_range(vma->mm, addr, addr + PAGE_SIZE);
}

/*
 * wp_copy - replace the mapping of @page at @ptep by a private copy:
 * writable and dirty for a write, read-only (but exclusive) for an
 * unshare. Return: 0, or -ENOMEM with nothing changed.
 */
static int wp_copy(struct vma *vma, unsigned long addr, pte_t *ptep, struct page *page,
		   unsigned flags)
{
	struct folio *src = page_folio(page);
	struct folio *dst = folio_alloc(vma->nid, 0, ALLOC_ANY_NODE);
	pte_t pte;

	if (!dst)
		return -ENOMEM;
	memcpy(page_address(&dst->page), page_address(page), PAGE_SIZE);
	count_event(folio_copies, 1);
	folio_prepare_anon(dst);
	folio_add_rmap_ptes(dst, &dst->page, 1);
	pte = vma_mk_pte(vma, folio_pfn(dst));
	pte = flags & FAULT_WRITE ? pte_mkdirty(pte) : pte_wrprotect(pte);
	ptep_get_and_clear(vma->mm, addr, ptep);
	flush_tlb_range(vma->mm, addr, addr + PAGE_SIZE);
	set_ptes(vma->mm, addr, ptep, pte, 1);
	folio_remove_rmap_ptes(src, page, 1);
	folio_put(src);
	return 0;
}

int do_wp_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags)
{
	struct spinlock *ptl;
	pte_t *ptep, pte;
	struct page *page;
	int err = 0;

	addr &= ~(PAGE_SIZE - 1);
	ptep = pte_offset_map_lock(vma->mm, pmdp, addr, &ptl);
	pte = ptep_get(ptep);
	page = pfn_to_page(pte_pfn(pte));
	if (can_reuse(page_folio(page), page))
		wp_reuse(vma, addr, ptep, pte, page, flags);
	else
		err = wp_copy(vma, addr, ptep, page, flags);
	pte_unmap_unlock(ptep, ptl);
	return err;
}

/* Is the PMD mapping at @pmd the only user of its folio? Then make every
 * page exclusive again (the whole folio is reused). */
static bool huge_pmd_reuse(pmd_t pmd)
{
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmd)));

	if (PageAnonExclusive(&folio->page))
		return true;
	if (folio_ref_count(folio) != 1 || folio_mapcount(folio) != 1)
		return false;
	for (unsigned long i = 0; i < folio_nr_pages(folio); i++)
		SetPageAnonExclusive(folio_page(folio, i));
	return true;
}

int do_huge_pmd_wp_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags)
{
	unsigned long base = addr & PMD_MASK;
	int err;

	if (huge_pmd_reuse(*pmdp)) {
		if (flags & FAULT_WRITE) {
			*pmdp = pmd_mkdirty(pmd_mkwrite(pmd_mkyoung(*pmdp)));
			flush_tlb_range(vma->mm, base, base + PMD_SIZE);
		}
		return 0;
	}
	err = split_huge_pmd(vma, pmdp, addr);
	return err ? err : do_wp_page(vma, pmdp, addr, flags);
}
