/*
 * pte_batch.h - folio_pte_batch(): the run of PTEs that map consecutive
 * pages of one folio with the same bits, which every batched path (zap,
 * mprotect, fork, GUP, migration) works on at once.
 */
#ifndef MM_PTE_BATCH_H
#define MM_PTE_BATCH_H

#include "pgtable.h"
#include "trace.h"

#define FPB_IGNORE_DIRTY (1u << 0) /* differing dirty bits do not end a run */
#define FPB_IGNORE_YOUNG (1u << 1) /* differing young bits do not end a run */
#define FPB_MERGE_WRITE (1u << 2)  /* differing write bits do not end a run; report if any */
#define FPB_IGNORE_BLOCK                                                                           \
	(1u << 3) /* an arch block (arm64 contpte) next to none does not end a run */

/*
 * folio_pte_batch - how many consecutive entries from @ptep, starting with
 * @pte (a present entry mapping a page of @folio, read by the caller), map
 * consecutive pages of @folio with identical bits after the masking that
 * @flags asks for. Bounded by the folio's end, the PTE table and @max_nr
 * (the caller passes the VMA/range bound and its batch cap).
 * @any_writable: if not NULL, set to whether any entry of the run was
 * writable (for FPB_MERGE_WRITE).
 * Works on a copy of @pte; reads each further entry once with ptep_get()
 * (fewer where pte_batch_hint() says a block of entries is uniform). The
 * comparison is of values with the ignored bits cleared and dirtiness in
 * one canonical form, so two entries that differ only in how the format
 * records "dirty" still batch. Panics when @pte does not map a page of
 * @folio, @max_nr is 0, or @addr is not the address of @ptep's slot.
 * Context: the PTE table lock is held.
 * Return: the run length, 1..@max_nr.
 *
 * Always inlined, as Linux does: every caller passes constant @flags, so
 * the masking folds away and the scan costs a few instructions an entry;
 * a call per run with run-time @flags costs more than the per-PTE work
 * that batching a 16 KiB folio saves.
 */
static inline __attribute__((always_inline)) pte_t fpb_key(pte_t pte, unsigned flags)
{
	if (flags & FPB_MERGE_WRITE)
		pte = pte_wrprotect(pte); /* before mkclean: may move dirtiness */
	if (flags & FPB_IGNORE_DIRTY)
		pte = pte_mkclean(pte);
	else if (pte_dirty(pte))
		pte = pte_mkdirty(pte);
	if (flags & FPB_IGNORE_YOUNG)
		pte = pte_mkold(pte);
	if (flags & FPB_IGNORE_BLOCK)
		pte = pte_mknoncont(pte);
	return pte;
}

/*
 * pte_none_span - how many consecutive entries from @ptep, the entry for
 * @addr, are none, stopping at the one for @end (in the same table, past
 * @addr). Read raw: an empty entry is empty in every format, inside an
 * arch block or not, so the scan needs no block state and costs a few
 * instructions an entry (a sparse table's holes are most of what fork and
 * exit walk). Counted in addresses, not entries: the callers' loops over
 * present entries compute their own count, and one from here would be
 * hoisted onto their path. Context: the PTE table lock is held.
 */
static inline unsigned pte_none_span(pte_t *ptep, unsigned long addr, unsigned long end)
{
	unsigned long a = addr;

	while (a < end && pte_none(__ptep_get(ptep)))
		a += PAGE_SIZE, ptep++;
	return (unsigned)((a - addr) >> PAGE_SHIFT);
}

/* The slot of @ptep in its (page-aligned) table. */
static inline unsigned pte_slot(const pte_t *ptep)
{
	return (unsigned)(((uintptr_t)ptep / sizeof(pte_t)) % PTRS_PER_TABLE);
}

/* Panic unless @pte maps a page of @folio, @max_nr > 0 and @addr is
 * @ptep's slot (mm/pte_batch.c; out of line, under mm_debug_vm). */
void folio_pte_batch_check(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			   unsigned max_nr);

/*
 * The entries a run from @ptep may cover: folio end, table end, @max_nr.
 * A folio is a naturally aligned run of pfns, so its end follows from the
 * pfn alone; the contract check (which needs page_to_pfn) runs under
 * mm_debug_vm. Inline: a call with the check's register saves was 41
 * instructions a run, more than a 16 KiB folio's run saves in mprotect.
 */
static inline __attribute__((always_inline)) unsigned folio_pte_batch_limit(struct folio *folio,
									    unsigned long addr,
									    pte_t *ptep, pte_t pte,
									    unsigned max_nr)
{
	unsigned long nr_pages = folio_nr_pages(folio);
	unsigned long in_folio = nr_pages - (pte_pfn(pte) & (nr_pages - 1));
	unsigned in_table = PTRS_PER_TABLE - pte_slot(ptep);

	if (mm_debug_vm)
		folio_pte_batch_check(folio, addr, ptep, pte, max_nr);
	if (in_folio < max_nr)
		max_nr = (unsigned)in_folio;
	return in_table < max_nr ? in_table : max_nr;
}

static inline __attribute__((always_inline)) unsigned
__folio_pte_batch(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte, unsigned max_nr,
		  unsigned flags, bool *any_writable)
{
	unsigned limit = folio_pte_batch_limit(folio, addr, ptep, pte, max_nr);
	unsigned nr = pte_batch_hint(ptep, pte);
	pte_t expected = pte_advance_pfn(fpb_key(pte, flags), nr);
	bool writable = pte_write(pte);

	while (nr < limit) {
		pte_t next = ptep_get(ptep + nr);
		unsigned step;

		if (!pte_same(fpb_key(next, flags), expected))
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

/* Trace the run of @nr entries folio_pte_batch() found (mm/pte_batch.c). */
void folio_pte_batch_trace(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			   unsigned max_nr, unsigned nr);

/* The run, traced under trace=on. In an image without the trace the
 * TRACE() folds away before the register allocation, so the callers'
 * code is what it is without it. */
static inline __attribute__((always_inline)) unsigned
folio_pte_batch(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte, unsigned max_nr,
		unsigned flags, bool *any_writable)
{
	unsigned nr;

	TRACE(trace_run_begin());
	nr = __folio_pte_batch(folio, addr, ptep, pte, max_nr, flags, any_writable);
	TRACE(folio_pte_batch_trace(folio, addr, ptep, pte, max_nr, nr));
	return nr;
}

#endif
