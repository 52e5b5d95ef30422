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
 *
 * What every <asm/pgtable.h> must define (arch/x86_64 and arch/arm64 do,
 * and tests/mm/test_pgtable.c checks that they behave alike):
 *   PTE values:  pfn_pte pte_pfn pte_pgprot pte_present pte_user
 *                pte_user_writable pte_write pte_dirty pte_young pte_exec
 *                pte_mkwrite pte_wrprotect pte_mkdirty pte_mkclean
 *                pte_mkyoung pte_mkold pte_modify
 *   protections: PAGE_USER_NONE _RO _RX _RW _RWX (see vm_get_page_prot)
 *   tables:      {pgd,pud,pmd}_mktable(pfn) _none _present _table_pfn,
 *                pud_leaf
 *   PMD leaves:  pfn_pmd pmd_pfn pmd_leaf pmd_modify, and pmd_pte/pte_pmd
 *                (leaf bits have the PTE layout, so pmd_write, pmd_mkdirty,
 *                ... below are generic)
 * pte_present() is true for PROT_NONE entries too (mapped, but the MMU
 * faults on them). pte_user() and pte_user_writable() are the MMU's view
 * (may user mode read / write through it now); pte_write() and pte_dirty()
 * are mm's (may the page be written / was it). They differ where the
 * format tracks dirtiness by faults: a clean writable arm64 entry is
 * pte_write() but not pte_user_writable().
 *
 * An arch whose MMU caches runs of entries as one (arm64 contpte) defines
 * pte_cont() and overrides every hook that reads or writes user entries
 * (ptep_get, set_ptes, ptep_get_and_clear, clear_full_ptes,
 * wrprotect_ptes, ptep_set_access_flags, pte_batch_hint) plus
 * set_ptes_needs_break() (when a rewrite may fold) and
 * arch_check_pte_table() for the invariant checker; see the comment on
 * raw and hooked access below.
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
#define PUD_MASK (~(PUD_SIZE - 1))
#define PGDIR_MASK (~(PGDIR_SIZE - 1))

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

static inline unsigned long pud_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long b = (addr + PUD_SIZE) & PUD_MASK;

	return b - 1 < end - 1 ? b : end;
}

static inline unsigned long pgd_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long b = (addr + PGDIR_SIZE) & PGDIR_MASK;

	return b - 1 < end - 1 ? b : end;
}

static inline bool pte_none(pte_t p)
{
	return p.val == 0;
}

static inline bool pte_same(pte_t a, pte_t b)
{
	return a.val == b.val;
}

#include <asm/pgtable.h> /* the arch's bit format and hook overrides */

/* ---- PMD leaves: the PTE bit layout, so the PTE operations apply -------- */

static inline bool pmd_write(pmd_t pmd)
{
	return pte_write(pmd_pte(pmd));
}
static inline bool pmd_dirty(pmd_t pmd)
{
	return pte_dirty(pmd_pte(pmd));
}
static inline bool pmd_young(pmd_t pmd)
{
	return pte_young(pmd_pte(pmd));
}
static inline bool pmd_user(pmd_t pmd)
{
	return pte_user(pmd_pte(pmd));
}
static inline pmd_t pmd_mkwrite(pmd_t pmd)
{
	return pte_pmd(pte_mkwrite(pmd_pte(pmd)));
}
static inline pmd_t pmd_wrprotect(pmd_t pmd)
{
	return pte_pmd(pte_wrprotect(pmd_pte(pmd)));
}
static inline pmd_t pmd_mkdirty(pmd_t pmd)
{
	return pte_pmd(pte_mkdirty(pmd_pte(pmd)));
}
static inline pmd_t pmd_mkclean(pmd_t pmd)
{
	return pte_pmd(pte_mkclean(pmd_pte(pmd)));
}
static inline pmd_t pmd_mkyoung(pmd_t pmd)
{
	return pte_pmd(pte_mkyoung(pmd_pte(pmd)));
}
static inline pmd_t pmd_mkold(pmd_t pmd)
{
	return pte_pmd(pte_mkold(pmd_pte(pmd)));
}

/*
 * vm_get_page_prot - the user protection for VMA flags @vm_flags (VM_READ,
 * VM_WRITE, VM_EXEC; other flags are ignored). Writable entries only for
 * VM_WRITE; write or exec imply read (no format here can do without);
 * none of the three gives PAGE_USER_NONE. Entries start young (no
 * access-flag fault) and clean.
 */
pgprot_t vm_get_page_prot(unsigned vm_flags);

/* ---- optional arch hooks, generic defaults ------------------------------ */

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
 * When false, an access through an old entry and a write through a clean
 * writable one fault, and handle_mm_fault() must set the bits with
 * ptep_set_access_flags(). The host's software MMU follows this too.
 */
static inline bool arch_has_hw_ad(void)
{
	return true;
}
#endif

#ifndef __ptep_get
/* Read one entry as the hardware sees it (raw, not counted). */
static inline pte_t __ptep_get(pte_t *ptep)
{
	return *(volatile pte_t *)ptep;
}
#endif

#ifndef set_pte
/* Write one entry (raw: see above). */
static inline void set_pte(pte_t *ptep, pte_t pte)
{
	*(volatile pte_t *)ptep = pte;
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
 * none, except for @nr == 1, which may replace a present entry.
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
 * Clear the entry at @ptep and return what it was. A read, then a write:
 * correct on one CPU only. With a second CPU whose MMU sets young or
 * dirty (x86), a bit set between the two is lost; an SMP port must make
 * it one atomic exchange, as Linux's ptep_get_and_clear() is.
 */
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

#ifndef wrprotect_ptes
/* Write-protect @nr entries mapping one folio. Each is read, then
 * written: one CPU only, for the reason given at ptep_get_and_clear()
 * (a dirty bit set between them would be lost; Linux clears the write
 * bit atomically). */
static inline void wrprotect_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	(void)mm, (void)addr;
	for (; nr; nr--, ptep++)
		set_pte(ptep, pte_wrprotect(__ptep_get(ptep)));
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

/* The required MMU hooks (arch_flush_tlb_range, ...) are in arch_mmu.h. */

/* ---- tables, walkers, locks (mm/pgtable.c) ------------------------------ */

/* flush_tlb_range - TLB flush of [start, end) in @mm: one tlb_flushes,
 * tlb_pages by the pages the range covers, then the arch's flush. */
void flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end);

/*
 * pt_alloc - a zeroed page-table page below the pgd: an order-0 folio
 * flagged PG_pgtable with its PTE lock initialised. Counts pt_allocs and
 * @mm->nr_pt_pages (@mm may be NULL for tables no mm owns).
 * Return: the page, or NULL when memory ran out.
 */
struct page *pt_alloc(struct mm *mm);
/* pt_free - give back a table from pt_alloc(); panics if its lock is held. */
void pt_free(struct mm *mm, struct page *pt);

/*
 * pgd_alloc - a zeroed top-level table for @mm with the kernel half filled
 * in by arch_pgd_init(). Counts pt_allocs but not nr_pt_pages (which
 * counts the tables below the pgd). Return: the table or NULL.
 * pgd_free - give it back; panics if a user-half entry is still set.
 */
pgd_t *pgd_alloc(struct mm *mm);
void pgd_free(struct mm *mm, pgd_t *pgd);

/*
 * free_pgtables - free the PTE, PMD and PUD tables under [start, end),
 * rounded out to whole tables, that have no entry left (the caller zapped
 * the range first), and clear the entries that pointed at them. One TLB
 * flush (of a page inside [start, end) per freed table, which drops the
 * MMU's cached upper-level entries for its span) before the pages go
 * back. Tables with entries are kept whatever the range says.
 * Context: no PTE lock held; user half only.
 */
void free_pgtables(struct mm *mm, unsigned long start, unsigned long end);

/* Table behind a present non-leaf entry, as a kernel pointer (panics on a
 * none or leaf entry). */
pud_t *pgd_table(pgd_t e);
pmd_t *pud_table(pud_t e);
pte_t *pmd_table(pmd_t e);

/* Entry pointers for @addr, one level down (no counters, no locks). */
static inline pgd_t *pgd_offset_pgd(pgd_t *pgd, unsigned long addr)
{
	return pgd + pgd_index(addr);
}
static inline pud_t *pud_offset(pgd_t *pgdp, unsigned long addr)
{
	return pgd_table(*pgdp) + pud_index(addr);
}
static inline pmd_t *pmd_offset(pud_t *pudp, unsigned long addr)
{
	return pud_table(*pudp) + pmd_index(addr);
}
static inline pte_t *pte_offset_kernel(pmd_t *pmdp, unsigned long addr)
{
	return pmd_table(*pmdp) + pte_index(addr);
}

/*
 * mm_find_pmd - walk from the top level to the pmd entry for @addr (one
 * pt_descent per call). With @alloc, missing PUD and PMD tables are
 * allocated (the PTE table is the caller's business). The entry returned
 * may be none, a table or a PMD leaf; the walk never goes below it.
 * Return: NULL when a level is missing without @alloc, allocation failed,
 * or a PUD leaf covers @addr.
 */
pmd_t *mm_find_pmd(struct mm *mm, unsigned long addr, bool alloc);

/* The PTE table page behind a pmd table entry (it holds the lock). */
struct page *pmd_pt_page(pmd_t pmd);

/*
 * pte_offset_map_lock - lock the PTE table behind @pmdp and return the
 * entry for @addr, with *@ptl set to the lock taken (one ptl_take).
 * Return: NULL (nothing locked) when @pmdp is not a table (none or leaf).
 */
pte_t *pte_offset_map_lock(struct mm *mm, pmd_t *pmdp, unsigned long addr, struct spinlock **ptl);
/* Release @ptl; @ptep may point anywhere in (or just past) the run. */
void pte_unmap_unlock(pte_t *ptep, struct spinlock *ptl);

/* Uniprocessor locks: spin_lock panics with the lock's name if it is
 * already held (a deadlock on one CPU), spin_unlock if it is not held. */
void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);

/* ---- the page-table walker (mm/pgtable.c) ------------------------------- */

/*
 * struct pt_walk_ops - what walk_page_range() calls. Any callback may be
 * NULL (that kind of entry is skipped); ranges with no table at some
 * level are skipped too. Return 0 to go on, anything else to stop the
 * walk, which then returns that value.
 * @pmd_leaf: a PMD leaf covering [addr, end) (a clipped part when the range
 *	starts or ends inside it). No lock held.
 * @pte_range: the entries of one PTE table for [addr, end): @ptep is the
 *	entry for @addr, and the run goes to the end of the table or of the
 *	range, so a batching callback sees the whole run at once. The
 *	table's lock is held (taken once for the run).
 */
struct pt_walk_ops {
	int (*pmd_leaf)(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			void *priv);
	int (*pte_range)(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			 unsigned long end, void *priv);
};

/*
 * walk_page_range - visit the tables of @mm under [start, end) (page
 * aligned, start < end) in address order, nothing allocated. One
 * pt_descent for the whole walk: it goes down each level once instead of
 * restarting from the top per PMD. PUD leaves (kernel half only) are not
 * visited. Return: 0, or the first callback value that stopped the walk.
 * Context: no PTE lock held on entry; pte_range runs under one.
 */
int walk_page_range(struct mm *mm, unsigned long start, unsigned long end,
		    const struct pt_walk_ops *ops, void *priv);

/* ---- folio_pte_batch ---------------------------------------------------- */

#define FPB_IGNORE_DIRTY (1u << 0) /* differing dirty bits do not end a run */
#define FPB_IGNORE_YOUNG (1u << 1) /* differing young bits do not end a run */
#define FPB_MERGE_WRITE (1u << 2)  /* differing write bits do not end a run; report if any */

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
	return pte;
}

/* The entries a run from @ptep may cover (folio end, table end, @max_nr);
 * checks the contract. In mm/pte_batch.c: once per run, not inlined. */
unsigned folio_pte_batch_limit(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			       unsigned max_nr);

static inline __attribute__((always_inline)) unsigned
folio_pte_batch(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte, unsigned max_nr,
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

#endif
