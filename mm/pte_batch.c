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
 * each caller); this file has the contract check of the run's bound.
 */
#include "kernel.h"
#include "pgtable.h"
#include "pte_batch.h"

/* Panic unless @pte maps a page of @folio, @max_nr > 0 and @addr is the
 * address of @ptep's slot. */
void folio_pte_batch_check(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
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

void folio_pte_batch_trace(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			   unsigned max_nr, unsigned nr)
{
	unsigned long nr_pages = folio_nr_pages(folio);
	unsigned long in_folio = nr_pages - (pte_pfn(pte) & (nr_pages - 1));
	unsigned in_table = PTRS_PER_TABLE - pte_slot(ptep);
	unsigned limit = max_nr;

	if (in_folio < limit)
		limit = (unsigned)in_folio;
	if (in_table < limit)
		limit = in_table;
	trace_run(addr, nr, limit, in_folio, in_table, max_nr);
}
