/*
 * cow.c - write faults on read-only anonymous pages (and unshare faults
 * from GUP): reuse the page when this mapping owns it, else copy it.
 *
 * A page is reused when it is AnonExclusive, or when it is a small folio
 * whose only reference and mapping are this PTE (Linux's
 * wp_can_reuse_anon_folio for order-0). Everything else gets a copy of the
 * one 4 KiB page in a new order-0 folio, as Linux does for PTE-mapped large
 * folios. A PMD-mapped folio that is not exclusive is split first.
 */
#include <errno.h>
#include <string.h>

#include "kernel.h"
#include "mm_internal.h"

int split_huge_pmd(struct vma *vma, pmd_t *pmdp, unsigned long addr);

static bool can_reuse(struct folio *folio, struct page *page)
{
	if (page->flags & PG_anon_exclusive)
		return true;
	return !folio_test_large(folio) && folio_ref_count(folio) == 1 && page->mapcount == 1;
}

/* Make the PTE at @ptep writable (for a write) and exclusive in place. */
static void wp_reuse(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t pte,
		     struct page *page, unsigned flags)
{
	page->flags |= PG_anon_exclusive;
	if (flags & FAULT_WRITE)
		pte = pte_mkdirty(pte_mkwrite(pte_mkyoung(pte)));
	if (ptep_set_access_flags(vma, addr, ptep, pte))
		flush_tlb_range(vma->mm, addr, addr + PAGE_SIZE);
}

/* Replace the mapping of @page at @ptep by a private copy. Return 0/-ENOMEM. */
static int wp_copy(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t old,
		   struct page *page, unsigned flags)
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
	if (flags & FAULT_WRITE)
		pte = pte_mkdirty(pte);
	else if (!pte_write(old))
		pte = pte_wrprotect(pte);
	ptep_get_and_clear(vma->mm, addr, ptep);
	flush_tlb_range(vma->mm, addr, addr + PAGE_SIZE);
	set_pte(ptep, pte);
	folio_remove_rmap_ptes(src, page, 1);
	folio_put(src);
	return 0;
}

void folio_prepare_anon(struct folio *folio);

/*
 * do_wp_page - resolve a write (or unshare) fault on the present PTE for
 * @addr. Return: 0 or -ENOMEM.
 * Context: takes the PTE lock.
 */
int do_wp_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags)
{
	struct spinlock *ptl;
	pte_t *ptep;
	pte_t pte;
	struct page *page;
	int err = 0;

	addr &= ~(PAGE_SIZE - 1);
	ptep = pte_offset_map_lock(vma->mm, pmdp, addr, &ptl);
	pte = ptep_get(ptep);
	page = pfn_to_page(pte_pfn(pte));
	if (can_reuse(page_folio(page), page))
		wp_reuse(vma, addr, ptep, pte, page, flags);
	else
		err = wp_copy(vma, addr, ptep, pte, page, flags);
	pte_unmap_unlock(ptep, ptl);
	return err;
}

/* do_huge_pmd_wp_page - the same for a PMD-mapped folio. */
int do_huge_pmd_wp_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags)
{
	pmd_t pmd = *pmdp;
	struct page *head = pfn_to_page(pmd_pfn(pmd));
	int err;

	if (head->flags & PG_anon_exclusive) {
		if (flags & FAULT_WRITE)
			*pmdp = pmd_mkdirty(pmd_mkwrite(pmd));
		flush_tlb_range(vma->mm, addr & PMD_MASK, (addr & PMD_MASK) + PMD_SIZE);
		return 0;
	}
	err = split_huge_pmd(vma, pmdp, addr);
	return err ? err : do_wp_page(vma, pmdp, addr, flags);
}
