/*
 * mprotect.c - changing the protection of mapped entries.
 *
 * Batched as Linux's change_pte_range() with PTE batching: a run of PTEs
 * mapping consecutive pages of one large folio is taken out with one
 * clear_full_ptes() (which gathers the run's dirty and young bits) and put
 * back with one set_ptes() in the new protection. Making entries writable
 * is only allowed for AnonExclusive pages, a per-page property: the run is
 * cut where AnonExclusive changes, so every page still gets its own answer
 * (the batched result equals the per-page one). caps.mprotect bounds the
 * run; 1 is the per-PTE code from before batching.
 */
#include "kernel.h"
#include "mm_internal.h"

/* Length of the prefix of the @nr pages from @page with the same
 * AnonExclusive state as @page. */
static unsigned same_exclusive_prefix(struct page *page, unsigned nr)
{
	uint32_t want = page->flags & PG_anon_exclusive;
	unsigned i = 1;

	while (i < nr && (page[i].flags & PG_anon_exclusive) == want)
		i++;
	return i;
}

/*
 * change_present_ptes - re-protect the run starting at @ptep.
 * Return: entries handled (at least 1). Context: PTE lock held.
 */
static unsigned change_present_ptes(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t pte,
				    unsigned long left, pgprot_t prot, bool writable)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio = page_folio(page);
	unsigned nr = 1;

	if (folio_test_large(folio) && caps.mprotect > 1)
		nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(caps.mprotect, left),
				     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG | FPB_MERGE_WRITE, NULL);
	if (writable && nr > 1)
		nr = same_exclusive_prefix(page, nr);
	pte = clear_full_ptes(vma->mm, addr, ptep, nr, 0);
	pte = pte_modify(pte, prot);
	if (writable && (page->flags & PG_anon_exclusive))
		pte = pte_mkwrite(pte);
	else
		pte = pte_wrprotect(pte);
	set_ptes(vma->mm, addr, ptep, pte, nr);
	return nr;
}

static void change_pte_range(struct vma *vma, pmd_t *pmdp, unsigned long addr,
			     unsigned long end, pgprot_t prot, bool writable)
{
	struct spinlock *ptl;
	pte_t *ptep = pte_offset_map_lock(vma->mm, pmdp, addr, &ptl);

	if (!ptep)
		return;
	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = change_present_ptes(vma, addr, ptep, pte, (end - addr) >> PAGE_SHIFT,
						 prot, writable);
		ptep += nr;
		addr += nr * PAGE_SIZE;
	}
	pte_unmap_unlock(ptep, ptl);
}

static void change_huge_pmd(pmd_t *pmdp, bool writable)
{
	pmd_t pmd = *pmdp;
	struct page *head = pfn_to_page(pmd_pfn(pmd));

	*pmdp = writable && (head->flags & PG_anon_exclusive) ? pmd_mkwrite(pmd) :
								 pmd_wrprotect(pmd);
}

void change_protection(struct vma *vma, unsigned long start, unsigned long end,
		       unsigned newflags)
{
	pgprot_t prot = vm_get_page_prot(newflags);
	bool writable = newflags & VM_WRITE;

	for (unsigned long addr = start, next; addr < end; addr = next) {
		pmd_t *pmdp = mm_find_pmd(vma->mm, addr, false);

		next = pmd_addr_end(addr, end);
		if (!pmdp || pmd_none(*pmdp))
			continue;
		if (pmd_leaf(*pmdp))
			change_huge_pmd(pmdp, writable);
		else
			change_pte_range(vma, pmdp, addr, next, prot, writable);
	}
	flush_tlb_range(vma->mm, start, end);
}
