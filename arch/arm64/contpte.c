/*
 * contpte.c (arm64) - the PTE hooks that keep contiguous blocks valid
 * (see <asm/pgtable.h>), following the design of Linux's arm64 contpte
 * support (v6.9): blocks are formed transparently under set_ptes() and
 * split transparently by any change to part of one.
 *
 * Folding: set_ptes() of many entries writes each fully covered, 64 KiB
 * aligned chunk whose frame is aligned too as a block (the caller
 * guarantees one folio, consecutive pages, same attributes); set_ptes()
 * of one entry tries to fold when it writes the last entry of a block (the
 * order in which faults and per-PTE loops write), after checking all
 * CONT_PTES entries: one folio, consecutive frames, same attributes up to
 * young and dirty. mm_caps.contpte = off stops folding; blocks that exist
 * still unfold as they must. Unfolding: break-before-make over the whole
 * block, keeping the block's young and dirty in every entry.
 *
 * Counters: cont_folds per block made (directly or by conversion),
 * cont_unfolds per block split. Clearing whole blocks is neither.
 * Pure C, so the host runner compiles it for the arm64 PTE format.
 */
#include "kernel.h"
#include "knobs.h"
#include "mm.h"
#include "trace.h"

/* The first entry of the block that @ptep is in. */
static pte_t *cont_first(pte_t *ptep)
{
	return (pte_t *)((uintptr_t)ptep & ~(CONT_PTES * sizeof(pte_t) - 1));
}

/* @pte with the young and dirty state of @from added. */
static pte_t pte_gather_ad(pte_t pte, pte_t from)
{
	if (pte_dirty(from))
		pte = pte_mkdirty(pte);
	if (pte_young(from))
		pte = pte_mkyoung(pte);
	return pte;
}

/*
 * The block's young and dirty, folded into @orig (an entry of the block):
 * young if any entry has AF; dirty if any has the software dirty bit, or
 * is writable by the MMU (DBM with AP[2] clear). DBM is one of the
 * attributes every entry of a block shares, so the last is "the block is
 * DBM and not every entry is read-only": an OR and an AND of the raw
 * values instead of pte_dirty() and pte_young() of each, stopping at the
 * first entry from which both are known.
 */
pte_t contpte_ptep_get(pte_t *ptep, pte_t orig)
{
	uint64_t any = 0, all = ~0ull, dbm = orig.val & PTE_DBM;

	ptep = cont_first(ptep);
	for (int i = 0; i < CONT_PTES; i++) {
		uint64_t v = __ptep_get(ptep + i).val;

		any |= v;
		all &= v;
		/* Young and dirty both known: no later entry changes them
		 * (a written block's first entry usually says both). */
		if ((any & PTE_AF) && ((any & PTE_DIRTY) || (dbm && !(all & PTE_RDONLY))))
			break;
	}
	if (any & PTE_AF)
		orig = pte_mkyoung(orig);
	if ((any & PTE_DIRTY) || (dbm && !(all & PTE_RDONLY)))
		orig = pte_mkdirty(orig);
	return orig;
}

/* Write @nr entries from @pte (frames advancing), nothing else. */
static void set_run(pte_t *ptep, pte_t pte, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		set_pte(ptep + i, pte_advance_pfn(pte, i));
}

/*
 * contpte_convert - rewrite the block holding @ptep (the entry for
 * @addr, whose frame @pte gives) with @pte's attributes, with or without
 * PTE_CONT: clear all entries gathering young and dirty, flush the
 * block, write them back.
 */
static void contpte_convert(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	unsigned long start = addr & CONT_PTE_MASK;
	pte_t *first = cont_first(ptep);

	TRACE(trace_cont(start, pte_cont(pte)));
	pte = pfn_pte(pte_pfn(pte) - (unsigned long)(ptep - first), pte_pgprot(pte));
	for (int i = 0; i < CONT_PTES; i++) {
		pte = pte_gather_ad(pte, __ptep_get(first + i));
		set_pte(first + i, (pte_t){ 0 });
	}
	flush_tlb_range(mm, start, start + CONT_PTE_SIZE);
	set_run(first, pte, CONT_PTES);
	if (pte_cont(pte))
		count_event(cont_folds, 1);
	else
		count_event(cont_unfolds, 1);
}

/* Split the block holding the entry at @ptep (for @addr; it has PTE_CONT). */
void contpte_unfold(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	contpte_convert(mm, addr, ptep, pte_mknoncont(__ptep_get(ptep)));
}

/* Split the blocks that [addr, +nr pages) covers only partly. */
static void contpte_unfold_edges(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	unsigned long end = addr + (unsigned long)nr * PAGE_SIZE;

	if (addr & ~CONT_PTE_MASK)
		contpte_try_unfold(mm, addr, ptep);
	if (end & ~CONT_PTE_MASK)
		contpte_try_unfold(mm, end - PAGE_SIZE, ptep + nr - 1);
}

/* Does the folio of @pte's page cover the whole block of @addr? */
static bool folio_covers_block(pte_t pte, unsigned long addr)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio;
	unsigned long first;

	if (!page)
		return false;
	folio = page_folio(page);
	first = pte_pfn(pte) - ((addr & ~CONT_PTE_MASK) >> PAGE_SHIFT);
	return first >= folio_pfn(folio) &&
	       first + CONT_PTES <= folio_pfn(folio) + folio_nr_pages(folio);
}

/*
 * contpte_try_fold - after @pte was written at @ptep (for @addr): if it
 * is the last entry of its block and the block now maps one folio with
 * consecutive frames and the same attributes, make it a block.
 */
void contpte_try_fold(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	pte_t *first = cont_first(ptep), want;

	if (!mm_caps.contpte || !pte_valid(pte) || ptep != first + CONT_PTES - 1 ||
	    (pte_pfn(pte) & (CONT_PTES - 1)) != CONT_PTES - 1 || !folio_covers_block(pte, addr))
		return;
	want = pfn_pte(pte_pfn(pte) - (CONT_PTES - 1), pte_pgprot(pte_mkold(pte_mkclean(pte))));
	for (int i = 0; i < CONT_PTES; i++, want = pte_advance_pfn(want, 1))
		if (!pte_same(pte_mkold(pte_mkclean(__ptep_get(first + i))), want))
			return;
	contpte_convert(mm, addr, ptep, pte_mkcont(pte));
}

/*
 * A run shorter than a block whose two end entries are in no block: no
 * entry of it is (a block inside it would make it longer than a block),
 * so it needs no unfold, and no fold (a fold needs a whole block). Every
 * run of a folio below 64 KiB is such a run: the three batched hooks
 * below test it first, before the edge and block work.
 */
static bool run_plain(pte_t *ptep, unsigned nr)
{
	return nr < CONT_PTES && !pte_cont(__ptep_get(ptep)) &&
	       !pte_cont(__ptep_get(ptep + nr - 1));
}

/* @nr > 1: set_ptes() writes one entry (and tries its fold) inline. A
 * PROT_NONE run folds too, as Linux's does: the MMU ignores PTE_CONT in
 * an invalid entry, and a block that keeps it through mprotect to
 * PROT_NONE and back is never unfolded and refolded (no break, no
 * flush of its own). */
void contpte_set_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte, unsigned nr)
{
	pte = pte_mknoncont(pte);
	if (run_plain(ptep, nr)) {
		set_run(ptep, pte, nr);
		return;
	}
	contpte_unfold_edges(mm, addr, ptep, nr);
	while (nr) {
		unsigned long next = (addr & CONT_PTE_MASK) + CONT_PTE_SIZE;
		unsigned n = (next - addr) >> PAGE_SHIFT;
		bool fold;

		n = n < nr ? n : nr;
		fold = mm_caps.contpte && n == CONT_PTES && pte_present(pte) &&
		       !(pte_pfn(pte) & (CONT_PTES - 1));
		if (fold)
			TRACE(trace_cont(addr, true));
		set_run(ptep, fold ? pte_mkcont(pte) : pte, n);
		if (fold)
			count_event(cont_folds, 1);
		pte = pte_advance_pfn(pte, n);
		ptep += n, addr = next, nr -= n;
	}
}

/* set_ptes() folds each aligned block of the run when the frames are
 * aligned too (the same for every block of a run): a block it would fold
 * whose first entry is not a block yet (a block's entries all carry
 * PTE_CONT) needs the break. */
bool contpte_needs_break(unsigned long addr, pte_t *ptep, pte_t pte, unsigned nr)
{
	unsigned long end = addr + (unsigned long)nr * PAGE_SIZE;
	unsigned long a = (addr + CONT_PTE_SIZE - 1) & CONT_PTE_MASK;

	if (!mm_caps.contpte || !pte_valid(pte) ||
	    ((pte_pfn(pte) + ((a - addr) >> PAGE_SHIFT)) & (CONT_PTES - 1)))
		return false;
	for (; a + CONT_PTE_SIZE <= end; a += CONT_PTE_SIZE)
		if (!pte_cont(__ptep_get(ptep + ((a - addr) >> PAGE_SHIFT))))
			return true;
	return false;
}

/*
 * Whole blocks are cleared without unfolding: clearing is the "break" of
 * break-before-make, and the caller flushes before the pages are reused.
 * In a full teardown even partly covered blocks are not unfolded: no CPU
 * uses the mm any more and the rest of the block is cleared next. The
 * young and dirty of the run are gathered as two flags, the first entry
 * read once: pte_gather_ad()'s rebuild of the entry at each step cost
 * every batched clear about 4.5 instructions an entry (icount: mprotect
 * 2M-pte batched 583.0 -> 501.3 us, and MADV_PAGEOUT of 16K folios came
 * below its cap-1 cell).
 */
pte_t contpte_clear_full_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr, int full)
{
	bool dirty, young;
	pte_t pte;

	if (!full && !run_plain(ptep, nr))
		contpte_unfold_edges(mm, addr, ptep, nr);
	pte = __ptep_get(ptep);
	dirty = pte_dirty(pte), young = pte_young(pte);
	set_pte(ptep, (pte_t){ 0 });
	for (unsigned i = 1; i < nr; i++) {
		pte_t e = __ptep_get(ptep + i);

		dirty |= pte_dirty(e);
		young |= pte_young(e);
		set_pte(ptep + i, (pte_t){ 0 });
	}
	pte = dirty ? pte_mkdirty(pte) : pte;
	return pte_mknoncont(young ? pte_mkyoung(pte) : pte);
}

/* Whole blocks stay blocks: every entry changes alike, and the caller's
 * flush makes the change visible. */
void contpte_wrprotect_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	if (!run_plain(ptep, nr))
		contpte_unfold_edges(mm, addr, ptep, nr);
	for (unsigned i = 0; i < nr; i++)
		set_pte(ptep + i, pte_wrprotect(__ptep_get(ptep + i)));
}

/*
 * contpte_clear_young_dirty_ptes - the run [addr, +nr pages), widened at
 * each end that falls inside a block to the whole block: a block's young
 * and dirty are one state (the OR of its entries), so clearing them in
 * part of it would clear nothing. Blocks are not unfolded; the caller
 * flushes. Return: whether any entry changed.
 */
bool contpte_clear_young_dirty_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr,
				    unsigned flags)
{
	pte_t *end = ptep + nr;
	bool changed = false;

	(void)mm, (void)addr;
	if (pte_cont(__ptep_get(ptep)))
		ptep = cont_first(ptep);
	if (pte_cont(__ptep_get(end - 1)))
		end = cont_first(end - 1) + CONT_PTES;
	for (; ptep < end; ptep++) {
		pte_t old = __ptep_get(ptep), pte = old;

		if (flags & CYDP_CLEAR_YOUNG)
			pte = pte_mkold(pte);
		if (flags & CYDP_CLEAR_DIRTY)
			pte = pte_mkclean(pte);
		if (!pte_same(pte, old)) {
			set_pte(ptep, pte);
			changed = true;
		}
	}
	return changed;
}

/*
 * Add @entry's young and dirty to every entry of the block at @ptep (for
 * @addr); return whether any entry changed. A change is flushed over the
 * whole block: dirtying makes every entry writable to the MMU, and a
 * page of the block still cached read-only would fault for ever (the
 * TLB may hold the block as one entry per page).
 */
static bool contpte_set_ad(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t entry)
{
	unsigned long start = addr & CONT_PTE_MASK;
	pte_t *first = cont_first(ptep);
	bool changed = false;

	for (int i = 0; i < CONT_PTES; i++) {
		pte_t old = __ptep_get(first + i), new = pte_gather_ad(old, entry);

		changed |= !pte_same(old, new);
		set_pte(first + i, new);
	}
	if (changed)
		flush_tlb_range(mm, start, start + CONT_PTE_SIZE);
	return changed;
}

/* Young and dirty apply to the whole block; a change of the write
 * permission is a change to part of it, so the block is split first.
 * Flushes what changed (mm/pgtable_hooks.h). */
bool ptep_set_access_flags(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t entry)
{
	pte_t orig = __ptep_get(ptep);

	addr &= ~(PAGE_SIZE - 1);
	if (pte_cont(orig) && pte_write(orig) == pte_write(entry))
		return contpte_set_ad(vma->mm, addr, ptep, entry);
	contpte_try_unfold(vma->mm, addr, ptep);
	entry = pte_mknoncont(entry);
	if (pte_same(__ptep_get(ptep), entry))
		return false;
	set_pte(ptep, entry);
	flush_tlb_range(vma->mm, addr, addr + PAGE_SIZE);
	return true;
}

/* The rules of one block starting at @b (which has PTE_CONT somewhere).
 * A block is all valid or all PROT_NONE: the valid bit is one of the
 * attributes every entry must share. */
static const char *contpte_block_problem(pte_t *b)
{
	pte_t want = pfn_pte(pte_pfn(b[0]), pte_pgprot(pte_mkold(pte_mkclean(b[0]))));

	for (int i = 0; i < CONT_PTES; i++, want = pte_advance_pfn(want, 1)) {
		if (!pte_cont(b[i]) || !pte_present(b[i]))
			return "contpte block with an entry that is not present or lacks PTE_CONT";
		if (!pte_same(pte_mkold(pte_mkclean(b[i])), want))
			return "contpte block entries differ in frame or attributes";
	}
	if (pte_pfn(b[0]) & (CONT_PTES - 1))
		return "contpte block maps a misaligned physical range";
	if (!folio_covers_block(b[0], 0))
		return "contpte block is not inside one folio";
	return NULL;
}

int arch_check_pte_table(pte_t *table, const char **why)
{
	for (int b = 0; b < PTRS_PER_TABLE; b += CONT_PTES) {
		bool any = false;

		for (int i = 0; i < CONT_PTES; i++)
			any |= pte_cont(__ptep_get(table + b + i));
		if (any && (*why = contpte_block_problem(table + b)))
			return b;
	}
	return -1;
}
