/*
 * huge.c - 2 MiB folios mapped by one PMD leaf: the anonymous fault that
 * creates them and the split into a PTE table when a range covers only
 * part of one.
 *
 * A PMD mapping holds one folio reference and counts in entire_mapcount.
 * Every page of a PMD-mapped anon folio carries AnonExclusive, so a split
 * keeps the per-page state as it is.
 */
#include <errno.h>

#include "kernel.h"
#include "mm_internal.h"

/* PMD value mapping the whole of @folio in @vma. */
pmd_t vma_mk_pmd(struct vma *vma, struct folio *folio, bool write)
{
	pmd_t pmd = pfn_pmd(folio_pfn(folio), vm_get_page_prot(vma->flags));

	pmd = pmd_mkyoung(pmd);
	if (write)
		pmd = pmd_mkdirty(pmd);
	if (!(vma->flags & VM_WRITE))
		pmd = pmd_wrprotect(pmd);
	return pmd;
}

static void folio_set_anon_exclusive(struct folio *folio)
{
	unsigned long n = folio_nr_pages(folio);

	folio->page.flags |= PG_anon;
	for (unsigned long i = 0; i < n; i++)
		folio_page(folio, i)->flags |= PG_anon_exclusive;
}

/*
 * do_huge_pmd_anonymous_page - fault in a 2 MiB folio at the empty pmd
 * @pmdp. Return: 0, or -ENOMEM when no 2 MiB block is free (the caller
 * falls back to PTEs).
 */
int do_huge_pmd_anonymous_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, bool write)
{
	struct folio *folio = folio_alloc(vma->nid, PMD_ORDER, ALLOC_ZERO | ALLOC_ANY_NODE);

	if (!folio)
		return -ENOMEM;
	folio_set_anon_exclusive(folio);
	folio_add_rmap_pmd(folio);
	*pmdp = vma_mk_pmd(vma, folio, write);
	(void)addr;
	return 0;
}

/* Prepare the anon state of a newly allocated folio of any order. */
void folio_prepare_anon(struct folio *folio)
{
	folio_set_anon_exclusive(folio);
}

int split_huge_pmd(struct vma *vma, pmd_t *pmdp, unsigned long addr)
{
	struct mm *mm = vma->mm;
	pmd_t pmd = *pmdp;
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmd)));
	struct page *pt = pt_alloc(mm);
	pte_t pte, *ptes;

	if (!pt)
		return -ENOMEM;
	addr &= PMD_MASK;
	pte = vma_mk_pte(vma, folio_pfn(folio));
	pte = pmd_write(pmd) ? pte_mkwrite(pte) : pte_wrprotect(pte);
	if (pmd_dirty(pmd))
		pte = pte_mkdirty(pte);
	if (!pmd_young(pmd))
		pte = pte_mkold(pte);
	ptes = page_address(pt);
	set_ptes(mm, addr, ptes, pte, PTRS_PER_TABLE);
	folio_ref_add(folio, PTRS_PER_TABLE - 1);
	folio_add_rmap_ptes(folio, &folio->page, PTRS_PER_TABLE);
	folio_remove_rmap_pmd(folio);
	*pmdp = pmd_mktable(page_to_pfn(pt));
	flush_tlb_range(mm, addr, addr + PMD_SIZE);
	return 0;
}

/* Split the PMD leaf around @addr if [start, end) covers it only partly. */
static int split_if_partial(struct mm *mm, unsigned long addr, unsigned long start,
			    unsigned long end)
{
	unsigned long base = addr & PMD_MASK;
	pmd_t *pmdp = mm_find_pmd(mm, addr, false);

	if (!pmdp || !pmd_leaf(*pmdp))
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
