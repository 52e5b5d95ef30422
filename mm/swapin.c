/*
 * swapin.c - do_swap_page(): a fault on a swap entry reads the page back
 * (swap.h), as Linux 6.12 does for a device without a swap cache path:
 * a fresh folio, the mm's own (every page AnonExclusive), mapped
 * writable where the VMA is (dirty on a write fault), the slots freed.
 * With its slots gone the folio holds the only copy of the data, so it
 * is PG_dirty whatever the fault (Linux's folio_free_swap() sets it): a
 * MADV_FREE of it from a fork child that shares it leaves it alone, and
 * no reclaim discards it as clean.
 *
 * Batching (Linux 6.12's mTHP swap-in, alloc_swap_folio() and the
 * set_ptes() of do_swap_page()): the largest order the VMA's folio orders
 * allow, at most mm_caps.swapin pages, whose naturally aligned range lies in
 * the VMA and the table and holds swap entries of consecutive slots,
 * aligned as the range is, is read into one folio and mapped with one
 * set_ptes() and one swap_free_nr(). Without such a range (or with
 * swapin=1) one page is read into a 4 KiB folio.
 */
#include <errno.h>

#include "kernel.h"
#include "lru.h"
#include "mempolicy.h"
#include "mm_internal.h"
#include "swap.h"
#include "swapops.h"
#include "thp_policy.h"

/* Do the @nr entries from @ptep (at @base) hold swap entries of the slots
 * @off .. @off + @nr - 1, @off aligned to @nr? */
static bool swap_run_ok(pte_t *ptep, unsigned long off, unsigned long nr)
{
	if (off & (nr - 1))
		return false;
	for (unsigned long i = 0; i < nr; i++) {
		pte_t e = ptep_get(ptep + i);

		if (!is_swap_entry(e) || swap_entry_offset(e) != off + i)
			return false;
	}
	return true;
}

/* The order to read at @addr (entry @ptep, slot @off): see the top. */
static unsigned swapin_order(struct vma *vma, unsigned long addr, pte_t *ptep, unsigned long off)
{
	unsigned long orders = vma_fault_orders(vma);

	for (int o = PMD_ORDER; o > 0; o--) {
		unsigned long nr = 1ul << o, base = addr & ~(nr * PAGE_SIZE - 1);
		unsigned long idx = (addr - base) >> PAGE_SHIFT;

		if (!(orders & (1ul << o)) || nr > mm_caps.swapin || base < vma->start ||
		    base + nr * PAGE_SIZE > vma->end)
			continue;
		if (swap_run_ok(ptep - idx, off - idx, nr))
			return (unsigned)o;
	}
	return 0;
}

int do_swap_page(struct vma *vma, pte_t *ptep, unsigned long addr, pte_t entry, bool write)
{
	unsigned long off = swap_entry_offset(entry);
	unsigned order = swapin_order(vma, addr, ptep, off), nr = 1u << order;
	unsigned long base = addr & ~((unsigned long)nr * PAGE_SIZE - 1);
	unsigned long idx = (addr - base) >> PAGE_SHIFT;
	struct folio *folio = vma_alloc_folio(vma, base, order, 0);
	pte_t pte;

	if (!folio && order) {
		order = 0, nr = 1, base = addr & ~(PAGE_SIZE - 1), idx = 0;
		folio = vma_alloc_folio(vma, base, 0, 0);
	}
	if (!folio)
		return -ENOMEM;
	ptep -= idx;
	off -= idx;
	for (unsigned i = 0; i < nr; i++)
		swap_read_page(off + i, page_address(folio_page(folio, i)));
	folio_prepare_anon(folio);
	page_set_flags(&folio->page, PG_dirty); /* the slots go below */
	if (nr > 1)
		folio_ref_add(folio, (int)nr - 1);
	folio_add_rmap_ptes(folio, &folio->page, (int)nr);
	pte = vma_mk_pte(vma, folio_pfn(folio));
	if (vma->flags & VM_WRITE)
		pte = pte_mkwrite(pte); /* a fresh folio is the mm's own */
	if (write)
		pte = pte_mkdirty(pte);
	set_ptes(vma->mm, base, ptep, pte, nr);
	folio_add_lru(folio, vma->mm, base);
	swap_free_nr(off, nr);
	count_event(pswpin, nr);
	count_event(swapin_folios, 1);
	count_event(swap_frees, 1);
	return 0;
}
