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
 */
#include "kernel.h"
#include "pgtable.h"

/* @pte as the comparison sees it: ignored bits cleared, dirtiness in one
 * form (a format may record "dirty" more than one way, as arm64 does). */
static pte_t batch_key(pte_t pte, unsigned flags)
{
	if (flags & FPB_MERGE_WRITE)
		pte = pte_wrprotect(pte); /* before mkclean: may move dirtiness */
	if (flags & FPB_IGNORE_DIRTY)
		pte = pte_mkclean(pte);
	else if (pte_dirty(pte))
		pte = pte_mkdirty(pte);
	if (flags & FPB_IGNORE_YOUNG)
		pte = pte_mkold(pte);
	return pte;
}

/* The slot of @ptep in its (page-aligned) table. */
static unsigned pte_slot(const pte_t *ptep)
{
	return (unsigned)(((uintptr_t)ptep / sizeof(pte_t)) % PTRS_PER_TABLE);
}

/* Entries the run may cover: folio end, table end, @max_nr. Panics on
 * arguments that break the contract. */
static unsigned batch_limit(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			    unsigned max_nr)
{
	uint64_t pfn = pte_pfn(pte), first = folio_pfn(folio);
	uint64_t in_folio = first + folio_nr_pages(folio) - pfn;
	unsigned in_table = PTRS_PER_TABLE - pte_slot(ptep);

	if (!pte_present(pte) || pfn < first || pfn - first >= folio_nr_pages(folio))
		panic("folio_pte_batch: pte %#llx does not map a page of the folio at pfn %#llx "
		      "(order %u)",
		      (unsigned long long)pte.val, (unsigned long long)first, folio_order(folio));
	if (max_nr == 0)
		panic("folio_pte_batch: max_nr is 0 at %#lx", addr);
	if (pte_index(addr) != pte_slot(ptep))
		panic("folio_pte_batch: %#lx is slot %u, but the entry is slot %u", addr,
		      pte_index(addr), pte_slot(ptep));
	if (in_folio < max_nr)
		max_nr = (unsigned)in_folio;
	return in_table < max_nr ? in_table : max_nr;
}

unsigned folio_pte_batch(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			 unsigned max_nr, unsigned flags, bool *any_writable)
{
	unsigned limit = batch_limit(folio, addr, ptep, pte, max_nr);
	unsigned nr = pte_batch_hint(ptep, pte);
	pte_t expected = pte_advance_pfn(batch_key(pte, flags), nr);
	bool writable = pte_write(pte);

	while (nr < limit) {
		pte_t next = ptep_get(ptep + nr);
		unsigned step;

		if (!pte_same(batch_key(next, flags), expected))
			break;
		writable |= pte_write(next);
		step = pte_batch_hint(ptep + nr, next);
		expected = pte_advance_pfn(expected, step);
		nr += step;
	}
	if (any_writable)
		*any_writable = writable;
	return nr < limit ? nr : limit;
}
