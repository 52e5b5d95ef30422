/*
 * pgtable.h - the generic page-table layer: entry types, indexes, the
 * optional arch hooks with their generic defaults, walkers and the split
 * PTE lock.
 *
 * Four levels on every arch (4 KiB pages, 48-bit VA): pgd (x86 PML4, arm64
 * L0), pud, pmd (2 MiB leaves for THP), pte. The arch's <asm/pgtable.h>
 * supplies the bit format (pfn_pte, pte_write, ...). Optional hooks follow
 * the Linux pattern: this file has `#ifndef set_ptes` with a default, and
 * an arch that does better defines its own plus `#define set_ptes set_ptes`.
 *
 * Naming: pte_*() work on values, ptep_*() on an entry in a table, *_ptes()
 * on a run of entries.
 */
#ifndef MM_PGTABLE_H
#define MM_PGTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "page.h"

typedef struct {
	uint64_t val;
} pte_t;
typedef struct {
	uint64_t val;
} pmd_t;
typedef struct {
	uint64_t val;
} pud_t;
typedef struct {
	uint64_t val;
} pgd_t;
typedef struct {
	uint64_t val;
} pgprot_t;

struct mm;
struct vma;

#define PTRS_PER_TABLE 512
#define PMD_SHIFT 21
#define PUD_SHIFT 30
#define PGDIR_SHIFT 39
#define PMD_SIZE (1ul << PMD_SHIFT)
#define PUD_SIZE (1ul << PUD_SHIFT)
#define PGDIR_SIZE (1ul << PGDIR_SHIFT)
#define PMD_MASK (~(PMD_SIZE - 1))

static inline unsigned pgd_index(unsigned long a)
{
	return (a >> PGDIR_SHIFT) & 511;
}
static inline unsigned pud_index(unsigned long a)
{
	return (a >> PUD_SHIFT) & 511;
}
static inline unsigned pmd_index(unsigned long a)
{
	return (a >> PMD_SHIFT) & 511;
}
static inline unsigned pte_index(unsigned long a)
{
	return (a >> 12) & 511;
}

/* End of the PMD (2 MiB) region containing @addr, clamped to @end. */
static inline unsigned long pmd_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long b = (addr + PMD_SIZE) & PMD_MASK;

	return b - 1 < end - 1 ? b : end;
}

static inline bool pte_none(pte_t p)
{
	return p.val == 0;
}

#include <asm/pgtable.h> /* the arch's bit format and hook overrides */

/* ---- optional arch hooks, generic defaults ------------------------------ */

#ifndef __ptep_get
/* Read one entry as the hardware sees it. */
static inline pte_t __ptep_get(pte_t *ptep)
{
	return *(volatile pte_t *)ptep;
}
#endif

/* ptep_get - read a PTE (counted). Arches with contiguous blocks make
 * __ptep_get gather the block's access and dirty bits. */
static inline pte_t ptep_get(pte_t *ptep)
{
	count_event(ptep_gets, 1);
	return __ptep_get(ptep);
}

#ifndef set_pte
static inline void set_pte(pte_t *ptep, pte_t pte)
{
	*(volatile pte_t *)ptep = pte;
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
/* Map @nr consecutive pages starting with @pte at @ptep (for @addr). */
static inline void set_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte,
			    unsigned nr)
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

#ifndef pte_batch_hint
/* How many entries from @ptep the arch knows to be one block (1 = no hint). */
static inline unsigned pte_batch_hint(pte_t *ptep, pte_t pte)
{
	(void)ptep, (void)pte;
	return 1;
}
#endif

#ifndef ptep_get_and_clear
static inline pte_t ptep_get_and_clear(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	pte_t old = __ptep_get(ptep);

	(void)mm, (void)addr;
	set_pte(ptep, (pte_t){ 0 });
	return old;
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

#ifndef ptep_set_wrprotect
static inline void ptep_set_wrprotect(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm, (void)addr;
	set_pte(ptep, pte_wrprotect(__ptep_get(ptep)));
}
#endif

#ifndef wrprotect_ptes
/* Write-protect @nr entries mapping one folio. */
static inline void wrprotect_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	for (; nr; nr--, ptep++, addr += 4096)
		ptep_set_wrprotect(mm, addr, ptep);
}
#endif

#ifndef ptep_set_access_flags
/*
 * ptep_set_access_flags - relax the entry at @ptep to @entry (same pfn;
 * only write/dirty/young may be added). Return: true when it changed, so
 * the caller knows a TLB flush of @addr is due.
 */
static inline bool ptep_set_access_flags(struct vma *vma, unsigned long addr, pte_t *ptep,
					 pte_t entry)
{
	(void)vma, (void)addr;
	if (__ptep_get(ptep).val == entry.val)
		return false;
	set_pte(ptep, entry);
	return true;
}
#endif

/* ---- tables, walkers, locks (mm/pgtable.c) ------------------------------ */

/* TLB flush of [start, end) in @mm: counted, then the arch's flush. */
void flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end);

/* Allocate a zeroed page-table page (PG_pgtable, lock initialised), or NULL. */
struct page *pt_alloc(struct mm *mm);
void pt_free(struct mm *mm, struct page *pt);

/* Table behind a non-leaf entry, as a kernel pointer. */
pud_t *pgd_table(pgd_t e);
pmd_t *pud_table(pud_t e);
pte_t *pmd_table(pmd_t e);

/*
 * Walk from the top level to the pmd entry for @addr (one pt_descent).
 * With @alloc, missing tables are allocated; return NULL when a level is
 * missing (or allocation failed).
 */
pmd_t *mm_find_pmd(struct mm *mm, unsigned long addr, bool alloc);

/* The PTE table page behind a pmd table entry, and its lock. */
struct page *pmd_pt_page(pmd_t pmd);

/*
 * pte_offset_map_lock - lock the PTE table behind @pmdp and return the
 * entry for @addr, with *@ptl set to the lock taken (one ptl_take).
 * Return: NULL when @pmdp is not a table (none or a leaf).
 */
pte_t *pte_offset_map_lock(struct mm *mm, pmd_t *pmdp, unsigned long addr,
			   struct spinlock **ptl);
void pte_unmap_unlock(pte_t *ptep, struct spinlock *ptl);

void spin_lock(struct spinlock *l); /* panics if already held: one CPU */
void spin_unlock(struct spinlock *l);

/* ---- folio_pte_batch (mm/pte_batch.c) ----------------------------------- */

#define FPB_IGNORE_DIRTY (1u << 0) /* differing dirty bits do not end a run */
#define FPB_IGNORE_YOUNG (1u << 1) /* differing young bits do not end a run */
#define FPB_MERGE_WRITE (1u << 2) /* differing write bits do not end a run; report if any */

/*
 * folio_pte_batch - how many consecutive entries from @ptep, starting with
 * @pte (a present entry mapping a page of @folio, read by the caller), map
 * consecutive pages of @folio with identical bits after the masking that
 * @flags asks for. Bounded by the folio's end, the PTE table and @max_nr
 * (the caller passes the VMA/range bound and its batch cap).
 * @any_writable: if not NULL, set to whether any entry of the run was
 * writable (for FPB_MERGE_WRITE).
 * Works on a copy of @pte; reads each further entry once with ptep_get().
 * Return: the run length, at least 1.
 */
unsigned folio_pte_batch(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			 unsigned max_nr, unsigned flags, bool *any_writable);

#endif
