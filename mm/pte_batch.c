/*
 * pte_batch.c - folio_pte_batch(): find the run of PTEs that map
 * consecutive pages of one large folio with the same bits, so fork, zap,
 * mprotect, GUP and migration can treat the run as one unit (one refcount
 * change, one mapcount change, one wrprotect_ptes(), ...).
 *
 * The scan compares each entry with the one it expects: the first entry
 * moved on by the pages seen so far, both with the ignored bits cleared.
 * It stops at the first entry that differs (another folio, a pfn gap, a
 * none entry, other permission or state bits) and never looks past the
 * folio's last page, the end of the PTE table or the caller's max_nr.
 *
 * The scan itself is inline in pte_batch.h (constant flags fold away in
 * each caller); this file has the once-per-run bound and its checks.
 */
#include "kernel.h"
#include "pgtable.h"
#include "pte_batch.h"

/* The slot of @ptep in its (page-aligned) table. */
static unsigned pte_slot(const pte_t *ptep)
{
	return (unsigned)(((uintptr_t)ptep / sizeof(pte_t)) % PTRS_PER_TABLE);
}

/* Panic unless @pte maps a page of @folio, @max_nr > 0 and @addr is the
 * address of @ptep's slot. */
static void batch_check(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			unsigned max_nr)
{
	uint64_t pfn = pte_pfn(pte), first = folio_pfn(folio);

	if (!pte_present(pte) || pfn < first || pfn - first >= folio_nr_pages(folio))
		panic("folio_pte_batch: pte %#llx does not map a page of the folio at pfn %#llx "
		      "(order %u)",
		      (unsigned long long)pte.val, (unsigned long long)first, folio_order(folio));
	if (max_nr == 0)
		panic("folio_pte_batch: max_nr is 0 at %#lx", addr);
	if (pte_index(addr) != pte_slot(ptep))
		panic("folio_pte_batch: %#lx is slot %u, but the entry is slot %u", addr,
		      pte_index(addr), pte_slot(ptep));
}

/*
 * Entries the run may cover: folio end, table end, @max_nr. A folio is a
 * naturally aligned run of pfns, so its end follows from the pfn alone;
 * the contract check (which needs page_to_pfn) runs under mm_debug_vm.
 */
unsigned folio_pte_batch_limit(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			       unsigned max_nr)
{
	unsigned long nr_pages = folio_nr_pages(folio);
	unsigned long in_folio = nr_pages - (pte_pfn(pte) & (nr_pages - 1));
	unsigned in_table = PTRS_PER_TABLE - pte_slot(ptep);

	if (mm_debug_vm)
		batch_check(folio, addr, ptep, pte, max_nr);
	if (in_folio < max_nr)
		max_nr = (unsigned)in_folio;
	return in_table < max_nr ? in_table : max_nr;
}
