/*
 * fault.c - resolving page faults in anonymous private memory.
 *
 * The hardware MMU raises the fault (on the host runner, the software MMU
 * in arch/host does); handle_mm_fault() finds the VMA, checks the access
 * against its protection and then:
 *  - an empty pmd with the PMD order allowed and the aligned 2 MiB inside
 *    the VMA: a PMD-mapped 2 MiB folio;
 *  - an empty PTE: the largest allowed order whose aligned range is inside
 *    the VMA and the PMD and has only empty PTEs, smaller orders when the
 *    allocator has no block of that order (like Linux's mTHP
 *    alloc_anon_folio);
 *  - a write to a read-only PTE or PMD of a writable VMA: wp_page (reuse
 *    an exclusive page, else copy it: COW).
 * Anonymous read faults allocate too (there is no shared zero page).
 */
#include <errno.h>

#include "kernel.h"
#include "mm_internal.h"

int do_huge_pmd_anonymous_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, bool write);
void folio_prepare_anon(struct folio *folio);
int do_wp_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags);
int do_huge_pmd_wp_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags);

pte_t vma_mk_pte(struct vma *vma, uint64_t pfn)
{
	return pte_mkyoung(pfn_pte(pfn, vm_get_page_prot(vma->flags)));
}

/* Are the @nr entries from @ptep all empty? */
static bool ptes_none(pte_t *ptep, unsigned long nr)
{
	for (unsigned long i = 0; i < nr; i++)
		if (!pte_none(ptep_get(ptep + i)))
			return false;
	return true;
}

/* Orders from @vma's allowed set that fit around @addr: aligned range
 * inside the VMA (PTE-mappable: at most PMD_ORDER). */
static unsigned long suitable_orders(struct vma *vma, unsigned long addr)
{
	unsigned long ok = 1;

	for (int o = 1; o <= PMD_ORDER; o++) {
		unsigned long size = PAGE_SIZE << o, base = addr & ~(size - 1);

		if ((vma->orders & (1ul << o)) && base >= vma->start && base + size <= vma->end)
			ok |= 1ul << o;
	}
	return ok;
}

/*
 * do_anonymous_page - map a new folio at the empty PTE for @addr.
 * Return: 0 or -ENOMEM.
 * Context: takes and releases the PTE lock of the table behind @pmdp.
 */
static int do_anonymous_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, bool write)
{
	unsigned long orders = suitable_orders(vma, addr);
	struct spinlock *ptl;
	pte_t *ptep = pte_offset_map_lock(vma->mm, pmdp, addr, &ptl), pte;
	struct folio *folio = NULL;
	unsigned long nr = 1, base = addr;

	for (int o = PMD_ORDER; o >= 0 && !folio; o--) {
		if (!(orders & (1ul << o)))
			continue;
		nr = 1ul << o;
		base = addr & ~((PAGE_SIZE << o) - 1);
		if (!ptes_none(ptep - ((addr - base) >> PAGE_SHIFT), nr))
			continue;
		folio = folio_alloc(vma->nid, (unsigned)o, ALLOC_ZERO | ALLOC_ANY_NODE);
	}
	if (!folio) {
		pte_unmap_unlock(ptep, ptl);
		return -ENOMEM;
	}
	ptep -= (addr - base) >> PAGE_SHIFT;
	folio_prepare_anon(folio);
	if (nr > 1)
		folio_ref_add(folio, (int)nr - 1);
	folio_add_rmap_ptes(folio, &folio->page, (int)nr);
	pte = vma_mk_pte(vma, folio_pfn(folio));
	if (write)
		pte = pte_mkdirty(pte);
	set_ptes(vma->mm, base, ptep, pte, (unsigned)nr);
	pte_unmap_unlock(ptep, ptl);
	return 0;
}

/* Check @flags against @vma's protection. */
static bool access_ok(struct vma *vma, unsigned flags)
{
	if ((flags & FAULT_WRITE) && !(vma->flags & VM_WRITE))
		return false;
	if ((flags & FAULT_EXEC) && !(vma->flags & VM_EXEC))
		return false;
	return vma->flags & VM_READ;
}

/* A fault on a present PTE: write-protect, unshare, or a stale TLB. */
static int do_present_pte(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags)
{
	struct spinlock *ptl;
	pte_t *ptep = pte_offset_map_lock(vma->mm, pmdp, addr, &ptl);
	pte_t pte = ptep_get(ptep);
	bool wp = (flags & FAULT_WRITE) && !pte_write(pte);
	struct page *page = pfn_to_page(pte_pfn(pte));
	bool unshare = (flags & FAULT_UNSHARE) && !(page->flags & PG_anon_exclusive);

	pte_unmap_unlock(ptep, ptl);
	if (wp || unshare)
		return do_wp_page(vma, pmdp, addr, flags);
	/* Spurious: the TLB held an older, stricter entry. */
	flush_tlb_range(vma->mm, addr & ~(PAGE_SIZE - 1), (addr & ~(PAGE_SIZE - 1)) + PAGE_SIZE);
	return 0;
}

/* A fault in a PMD-mapped folio. */
static int do_huge_pmd(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags)
{
	struct page *head = pfn_to_page(pmd_pfn(*pmdp));
	bool wp = (flags & FAULT_WRITE) && !pmd_write(*pmdp);
	bool unshare = (flags & FAULT_UNSHARE) && !(head->flags & PG_anon_exclusive);

	if (wp || unshare)
		return do_huge_pmd_wp_page(vma, pmdp, addr, flags);
	flush_tlb_range(vma->mm, addr & PMD_MASK, (addr & PMD_MASK) + PMD_SIZE);
	return 0;
}

/* May a fresh PMD-mapped 2 MiB folio serve @addr in @vma? */
static bool thp_pmd_suitable(struct vma *vma, unsigned long addr)
{
	unsigned long base = addr & PMD_MASK;

	return (vma->orders & (1ul << PMD_ORDER)) && !(vma->flags & VM_NOHUGEPMD) &&
	       base >= vma->start && base + PMD_SIZE <= vma->end;
}

int handle_mm_fault(struct mm *mm, unsigned long addr, unsigned flags)
{
	struct vma *vma = find_vma(mm, addr);
	pmd_t *pmdp;
	bool write = flags & FAULT_WRITE;

	if (!vma || !access_ok(vma, flags))
		return -EFAULT;
	count_event(faults, 1);
	pmdp = mm_find_pmd(mm, addr, true);
	if (!pmdp)
		return -ENOMEM;
	if (pmd_none(*pmdp) && thp_pmd_suitable(vma, addr) &&
	    do_huge_pmd_anonymous_page(vma, pmdp, addr, write) == 0)
		return 0;
	if (pmd_leaf(*pmdp))
		return do_huge_pmd(vma, pmdp, addr, flags);
	if (pmd_none(*pmdp)) {
		struct page *pt = pt_alloc(mm);

		if (!pt)
			return -ENOMEM;
		*pmdp = pmd_mktable(page_to_pfn(pt));
	}
	{
		struct spinlock *ptl;
		pte_t *ptep = pte_offset_map_lock(mm, pmdp, addr, &ptl);
		pte_t pte = ptep_get(ptep);

		pte_unmap_unlock(ptep, ptl);
		if (pte_none(pte))
			return do_anonymous_page(vma, pmdp, addr, write);
	}
	return do_present_pte(vma, pmdp, addr, flags);
}
