/*
 * huge.c - 2 MiB folios mapped by one PMD leaf: the anonymous fault that
 * creates them and the split into a PTE table when a range covers only
 * part of one.
 *
 * A PMD mapping holds one folio reference and counts in entire_mapcount.
 * AnonExclusive of a PMD-mapped folio is its head page's (Linux's rule):
 * whoever reads it through a PMD reads the head, fork clears the head
 * only, and the tails' bits mean nothing until split_huge_pmd() copies
 * the head's to every page. (Every writer that sets the head's bit sets
 * all pages', so a set head never has a clear tail; a clear head may.)
 */
#include <errno.h>

#include "kernel.h"
#include "lru.h"
#include "mm_internal.h"

void (*split_pmd_window_hook)(struct mm *mm, unsigned long addr);

pmd_t vma_mk_pmd(struct vma *vma, struct folio *folio, bool dirty)
{
	pmd_t pmd = pmd_mkyoung(pfn_pmd(folio_pfn(folio), vm_get_page_prot(vma->flags)));

	return dirty ? pmd_mkdirty(pmd) : pmd;
}

void folio_prepare_anon(struct folio *folio)
{
	unsigned long n = folio_nr_pages(folio);

	page_set_flags(&folio->page, PG_anon);
	for (unsigned long i = 0; i < n; i++)
		SetPageAnonExclusive(folio_page(folio, i));
}

/* The PMD of @folio is going away: each page takes the head's
 * AnonExclusive (see the top). Context: the leaf is cleared and flushed,
 * so no CPU reads the bits through it meanwhile. */
static void folio_split_exclusive(struct folio *folio)
{
	bool excl = PageAnonExclusive(&folio->page);

	for (unsigned long i = 1; i < folio_nr_pages(folio); i++)
		if (PageAnonExclusive(folio_page(folio, i)) != excl) {
			if (excl)
				SetPageAnonExclusive(folio_page(folio, i));
			else
				ClearPageAnonExclusive(folio_page(folio, i));
		}
}

/* Return: 0, or -ENOMEM when no 2 MiB block is free (the caller falls
 * back to PTEs). */
int do_huge_pmd_anonymous_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, bool write)
{
	struct folio *folio = vma_alloc_folio(vma, addr & PMD_MASK, PMD_ORDER, ALLOC_ZERO);

	if (!folio)
		return -ENOMEM;
	folio_prepare_anon(folio);
	folio_add_rmap_pmd(folio);
	set_pmd(pmdp, vma_mk_pmd(vma, folio, write));
	folio_add_lru(folio, vma->mm, addr & PMD_MASK);
	return 0;
}

/* The PTE for the first page of the leaf @pmd: the VMA's protection with
 * the leaf's write, dirty and young state. */
static pte_t pmd_split_pte(struct vma *vma, pmd_t pmd)
{
	pte_t pte = vma_mk_pte(vma, pmd_pfn(pmd));

	pte = pmd_write(pmd) ? pte_mkwrite(pte) : pte_wrprotect(pte);
	if (pmd_dirty(pmd))
		pte = pte_mkdirty(pte);
	return pmd_young(pmd) ? pte : pte_mkold(pte);
}

/*
 * pmdp_invalidate - clear the leaf at @pmdp (for the block at @addr) and
 * flush it: the "break" that must come before the entry becomes a table.
 * A block replaced by a table with no invalid entry and flush between
 * may leave the TLB holding both (arm64: a TLB conflict abort; x86: the
 * page-size change AMD erratum 383 is about). Return: the leaf.
 */
static pmd_t pmdp_invalidate(struct mm *mm, unsigned long addr, pmd_t *pmdp)
{
	pmd_t pmd = pmdp_get_and_clear(pmdp);

	flush_tlb_range(mm, addr, addr + PMD_SIZE);
	return pmd;
}

/*
 * split_huge_pmd - one PTE per page instead of the leaf: 512 mappings and
 * 512 references where the PMD held one of each. The leaf is invalidated
 * and flushed first (one flush), the table installed after. No fault
 * sees the empty pmd meanwhile: the caller holds the page_table_lock,
 * under which a fault decides on a pmd, or the mmap_lock for write. A
 * walk under the mmap_lock for read that reads the pmd without the
 * page_table_lock may see it none and skip the 2 MiB (aging; gup-fast
 * falls back to the slow path): such walks are best effort, as they are
 * against a write fault's split. So Linux's present-but-invalid marker
 * is not needed.
 * Context: the page_table_lock or the mmap_lock for write; no PTE lock
 * (the new table is not reachable yet).
 */
int split_huge_pmd(struct vma *vma, pmd_t *pmdp, unsigned long addr)
{
	struct mm *mm = vma->mm;
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmdp_get(pmdp))));
	struct page *pt = pt_alloc(mm);
	pmd_t pmd;

	if (!pt)
		return -ENOMEM;
	addr &= PMD_MASK;
	pmd = pmdp_invalidate(mm, addr, pmdp);
	if (split_pmd_window_hook)
		split_pmd_window_hook(mm, addr); /* tests: another CPU's fault here */
	folio_split_exclusive(folio);
	set_ptes(mm, addr, page_address(pt), pmd_split_pte(vma, pmd), PTRS_PER_TABLE);
	folio_ref_add(folio, PTRS_PER_TABLE - 1);
	folio_add_rmap_ptes(folio, &folio->page, PTRS_PER_TABLE);
	folio_remove_rmap_pmd(folio);
	set_pmd(pmdp, pmd_mktable(page_to_pfn(pt)));
	return 0;
}

/* Split the PMD leaf around @addr if [start, end) covers it only partly. */
static int split_if_partial(struct mm *mm, unsigned long addr, unsigned long start,
			    unsigned long end)
{
	unsigned long base = addr & PMD_MASK;
	pmd_t *pmdp = mm_find_pmd(mm, addr, false);

	if (!pmdp || !pmd_leaf(pmdp_get(pmdp)))
		return 0;
	if (start <= base && base + PMD_SIZE <= end)
		return 0;
	return split_huge_pmd(find_vma(mm, addr), pmdp, addr);
}

int prepare_range(struct mm *mm, unsigned long start, unsigned long end)
{
	int err = split_if_partial(mm, start, start, end);

	return err ? err : split_if_partial(mm, end - 1, start, end);
}
