/*
 * pgtable_hooks.h - the optional arch hooks on page-table entries and their
 * generic defaults: `#ifndef hook` + default here, and an arch that does
 * better defines its own in <asm/pgtable.h> plus `#define hook hook`.
 * Included by pgtable.h after the entry types; include pgtable.h, not this.
 */
#ifndef MM_PGTABLE_HOOKS_H
#define MM_PGTABLE_HOOKS_H

/*
 * Two levels of access to entries. The raw ones, __ptep_get() and
 * set_pte(), read or write one entry as the MMU sees it and know nothing
 * of blocks of entries that the arch may treat as one (arm64 contpte);
 * they are for the hardware-like walkers (arch/host's software MMU, the
 * invariant checker, ptdump) and for tables no mm uses yet. Everything
 * else in mm/ goes through the hooks below, which an arch with blocks
 * overrides to keep its blocks valid: ptep_get() returns the block's
 * access and dirty state, and every write splits ("unfolds") a block it
 * covers only partly.
 */

#ifndef arch_has_hw_ad
/*
 * Does the MMU set young and dirty in the entries itself (x86 always)?
 * When false, a write through a clean writable entry faults, and so does
 * an access through an old one unless the MMU sets the access flag alone
 * (arm64 with FEAT_HAFDBS: arch/arm64/mmu.c); handle_mm_fault() sets the
 * bits with ptep_set_access_flags(). The host's software MMU follows this
 * too, as a CPU that sets neither.
 */
static inline bool arch_has_hw_ad(void)
{
	return true;
}
#endif

/*
 * SMP: an entry is one 64-bit word that other CPUs' MMUs read, and on an
 * arch whose MMU sets young and dirty (x86) also write, at any time; the
 * PTE table lock orders only the software writers. So the raw accessors
 * are single-copy atomic (a relaxed load, a release store: whatever was
 * written to the page or table before the entry points at it is visible
 * to the CPU that reads the entry), and a read-modify-write of a live
 * entry must be one atomic operation where the MMU may write it.
 */

#ifndef __ptep_get
/* Read one entry as the hardware sees it (raw, not counted). */
static inline pte_t __ptep_get(pte_t *ptep)
{
	arch_sched_point(SCHED_PTE_READ);
	return (pte_t){ __atomic_load_n(&ptep->val, __ATOMIC_RELAXED) };
}
#endif

#ifndef set_pte
/* Write one entry (raw: see above). */
static inline void set_pte(pte_t *ptep, pte_t pte)
{
	arch_sched_point(SCHED_PTE_WRITE);
	__atomic_store_n(&ptep->val, pte.val, __ATOMIC_RELEASE);
}
#endif

#ifndef ptep_get
/* ptep_get - read a PTE for mm/ (one ptep_gets). An arch with blocks
 * ORs the access and dirty bits of the whole block into the value. */
static inline pte_t ptep_get(pte_t *ptep)
{
	count_event(ptep_gets, 1);
	return __ptep_get(ptep);
}
#endif

/* Does the arch fold runs of entries into blocks (it defines pte_cont)? */
#ifdef pte_cont
#define arch_has_pte_blocks() true
#else
#define arch_has_pte_blocks() false
#endif

#ifndef pte_cont
/* Is @pte part of an arch block of entries (arm64 contpte)? For display
 * and checks only; mm/ never needs to know. */
static inline bool pte_cont(pte_t pte)
{
	(void)pte;
	return false;
}
#endif

#ifndef pte_mknoncont
/* @pte out of any arch block (the formats without blocks: itself). */
static inline pte_t pte_mknoncont(pte_t pte)
{
	return pte;
}
#endif

#ifndef pte_advance_pfn
/* @pte with its pfn moved on by @nr pages, other bits unchanged. */
static inline pte_t pte_advance_pfn(pte_t pte, unsigned long nr)
{
	return pfn_pte(pte_pfn(pte) + nr, pte_pgprot(pte));
}
#endif

#ifndef set_ptes
/*
 * set_ptes - map @nr consecutive pages of one folio, starting with @pte,
 * at @ptep (the entry for @addr), all in one PTE table. The entries were
 * not present: none, or non-present entries the caller replaces (the
 * migration remap writes over its own migration entries), so no TLB can
 * hold them and no flush is owed; only @nr == 1 may replace a present
 * entry (the caller then does what that change needs).
 * Context: the PTE table lock is held (or no mm uses the table yet).
 */
static inline void set_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte, unsigned nr)
{
	(void)mm, (void)addr;
	for (;;) {
		set_pte(ptep, pte);
		if (--nr == 0)
			break;
		ptep++;
		pte = pte_advance_pfn(pte, 1);
	}
}
#endif

#ifndef set_ptes_needs_break
/*
 * set_ptes_needs_break - the @nr live entries at @ptep (for @addr) are
 * about to be cleared without a flush and written back by set_ptes() with
 * @pte (its protection, from the first page on): would that turn them
 * into an arch block they are not now (arm64 folds aligned runs into
 * contpte blocks)? Then the cleared run must be flushed before set_ptes():
 * a valid entry must not become part of a block while the TLB may still
 * hold it (break-before-make). Entries that stay what they were only
 * change permissions, which needs no break. Called before the clear.
 */
static inline bool set_ptes_needs_break(unsigned long addr, pte_t *ptep, pte_t pte, unsigned nr)
{
	(void)addr, (void)ptep, (void)pte, (void)nr;
	return false;
}
#endif

#ifndef pte_mkdirty_hw
/* @pte as the MMU leaves it after a write where it tracks dirtiness
 * (x86: the D bit, as pte_mkdirty()); for tests of the code that reads
 * what the MMU wrote. */
static inline pte_t pte_mkdirty_hw(pte_t pte)
{
	return pte_mkdirty(pte);
}
#endif

#ifndef arch_pte_block_order
/* The order of an arch block of entries (arm64 contpte: 4, 16 entries),
 * 0 when the arch has none: a folio of a smaller order is never in one. */
static inline unsigned arch_pte_block_order(void)
{
	return 0;
}
#endif

#ifndef pte_batch_hint
/* How many entries from @ptep the arch knows to be one block (1 = no hint). */
static inline unsigned pte_batch_hint(pte_t *ptep, pte_t pte)
{
	(void)ptep, (void)pte;
	return 1;
}
#endif

#ifndef ptep_get_and_clear
/*
 * Clear the entry at @ptep and return what it was: one atomic exchange,
 * as Linux's, so a young or dirty bit another CPU's MMU sets up to the
 * moment of the clear is in the value returned (a read and then a write
 * would lose one set in between). Context: the PTE table lock is held.
 */
static inline pte_t ptep_get_and_clear(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm, (void)addr;
	arch_sched_point(SCHED_PTE_WRITE);
	return (pte_t){ __atomic_exchange_n(&ptep->val, 0, __ATOMIC_ACQ_REL) };
}
#endif

#ifndef clear_full_ptes
/*
 * clear_full_ptes - clear @nr entries mapping one folio and return the
 * first entry with the dirty and young bits of all of them OR-ed in.
 * @full: the whole mm is being torn down (an arch may skip per-entry work).
 */
static inline pte_t clear_full_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr,
				    int full)
{
	pte_t pte = ptep_get_and_clear(mm, addr, ptep), t;

	(void)full;
	while (--nr) {
		ptep++, addr += 4096;
		t = ptep_get_and_clear(mm, addr, ptep);
		if (pte_dirty(t))
			pte = pte_mkdirty(pte);
		if (pte_young(t))
			pte = pte_mkyoung(pte);
	}
	return pte;
}
#endif

#ifndef wrprotect_ptes
/*
 * Write-protect @nr entries mapping one folio, each with a compare and
 * exchange (retried when the MMU set young or dirty in between), so no
 * bit another CPU's MMU sets is lost. An arch with an atomic AND (x86)
 * does better. Context: the PTE table lock is held.
 */
static inline void wrprotect_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	(void)mm, (void)addr;
	for (; nr; nr--, ptep++) {
		uint64_t old;

		arch_sched_point(SCHED_PTE_WRITE);
		old = __atomic_load_n(&ptep->val, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&ptep->val, &old,
						    pte_wrprotect((pte_t){ old }).val, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
}
#endif

#ifndef clear_young_dirty_ptes
/*
 * clear_young_dirty_ptes - clear young and/or dirty (@flags: CYDP_*) in
 * @nr present entries mapping one folio, from @ptep (the entry for @addr),
 * each with a compare and exchange (retried when the MMU set a bit in
 * between, as wrprotect_ptes()). An entry with none of the bits to clear
 * is not written. The caller flushes the TLB before it relies on the
 * change: a cached dirty entry lets a write through without setting the
 * bit again (MADV_FREE would then discard written data).
 * Return: whether any entry had a bit to clear.
 * Context: the PTE table lock is held.
 */
static inline bool clear_young_dirty_ptes(struct mm *mm, unsigned long addr, pte_t *ptep,
					  unsigned nr, unsigned flags)
{
	bool changed = false;

	(void)mm, (void)addr;
	for (; nr; nr--, ptep++) {
		uint64_t old = __atomic_load_n(&ptep->val, __ATOMIC_RELAXED), new;

		do {
			pte_t pte = (pte_t){ old };

			if (flags & CYDP_CLEAR_YOUNG)
				pte = pte_mkold(pte);
			if (flags & CYDP_CLEAR_DIRTY)
				pte = pte_mkclean(pte);
			new = pte.val;
			if (new == old)
				break;
			arch_sched_point(SCHED_PTE_WRITE);
		} while (!__atomic_compare_exchange_n(&ptep->val, &old, new, false,
						      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
		changed |= new != old;
	}
	return changed;
}
#endif

#ifndef ptep_set_wrprotect
static inline void ptep_set_wrprotect(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	wrprotect_ptes(mm, addr, ptep, 1);
}
#endif

#ifndef ptep_set_access_flags
/*
 * ptep_set_access_flags - relax the entry at @ptep to @entry (same pfn;
 * only write/dirty/young may be added) and flush what the change leaves
 * stale: the page of @addr (an arch with blocks: every page of the
 * block it changed). The flush is the writer's job because a TLB that
 * does not re-walk on a permission fault (arm64) would otherwise fault
 * on the old entry for ever: the spurious fault finds nothing to change.
 * Return: true when the entry changed. Defined in mm/pgtable.c.
 */
bool ptep_set_access_flags(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t entry);
#endif

#ifndef arch_check_pte_table
/*
 * arch_check_pte_table - do the entries of the PTE table @table obey the
 * arch's rules beyond single entries (arm64: contpte blocks)? Return: -1,
 * or the first bad slot with the reason in *@why. Used by mm_check().
 */
static inline int arch_check_pte_table(pte_t *table, const char **why)
{
	(void)table, (void)why;
	return -1;
}
#endif

#endif
