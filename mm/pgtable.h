/*
 * pgtable.h - the generic page-table layer: entry types, indexes, PMD
 * leaves, tables, walkers and the split PTE lock. The optional arch hooks
 * with their generic defaults are in pgtable_hooks.h (included here), and
 * folio_pte_batch() in pte_batch.h.
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
 * (may user mode read / write through it now; so each implies
 * pte_present()); pte_write() and pte_dirty()
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

/* clear_young_dirty_ptes()'s flags (pgtable_hooks.h; the arch may override it). */
#define CYDP_CLEAR_YOUNG (1u << 0)
#define CYDP_CLEAR_DIRTY (1u << 1)

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

/* Write-protect the live PMD leaf at @p (see pmdp_get_and_clear()). */
static inline void pmdp_set_wrprotect(pmd_t *p)
{
	uint64_t old;

	arch_sched_point(SCHED_PTE_WRITE);
	old = __atomic_load_n(&p->val, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&p->val, &old, pmd_wrprotect((pmd_t){ old }).val, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/*
 * vm_get_page_prot - the user protection for VMA flags @vm_flags (VM_READ,
 * VM_WRITE, VM_EXEC; other flags are ignored). Writable entries only for
 * VM_WRITE; write or exec imply read (no format here can do without);
 * none of the three gives PAGE_USER_NONE. Entries start young (no
 * access-flag fault) and clean.
 */
pgprot_t vm_get_page_prot(unsigned vm_flags);

/* The optional arch hooks with their generic defaults. */
#include "pgtable_hooks.h"

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

/*
 * Upper-level entries shared between CPUs: read with pmdp_get() & co.
 * where another CPU may change the entry, written with set_pmd() & co. (a
 * release store: the table or page it points at, zeroed or filled
 * before, is visible to any CPU, or MMU, that reads the new entry). The
 * read is an acquire load: the CPU's address dependency orders the reads
 * through the entry on real hardware, but the C memory model (and so
 * ThreadSanitizer, which caught a walker reading a PUD table another CPU
 * had just zeroed) needs the acquire. A plain load on x86_64, LDAR on
 * arm64.
 */
static inline pgd_t pgdp_get(pgd_t *p)
{
	arch_sched_point(SCHED_PTE_READ);
	return (pgd_t){ __atomic_load_n(&p->val, __ATOMIC_ACQUIRE) };
}
static inline pud_t pudp_get(pud_t *p)
{
	arch_sched_point(SCHED_PTE_READ);
	return (pud_t){ __atomic_load_n(&p->val, __ATOMIC_ACQUIRE) };
}
static inline pmd_t pmdp_get(pmd_t *p)
{
	arch_sched_point(SCHED_PTE_READ);
	return (pmd_t){ __atomic_load_n(&p->val, __ATOMIC_ACQUIRE) };
}
static inline void set_pgd(pgd_t *p, pgd_t v)
{
	arch_sched_point(SCHED_PTE_WRITE);
	__atomic_store_n(&p->val, v.val, __ATOMIC_RELEASE);
}
static inline void set_pud(pud_t *p, pud_t v)
{
	arch_sched_point(SCHED_PTE_WRITE);
	__atomic_store_n(&p->val, v.val, __ATOMIC_RELEASE);
}
static inline void set_pmd(pmd_t *p, pmd_t v)
{
	arch_sched_point(SCHED_PTE_WRITE);
	__atomic_store_n(&p->val, v.val, __ATOMIC_RELEASE);
}

/* A live PMD leaf, which an MMU that sets young and dirty (x86) may write
 * meanwhile: cleared with one exchange (its young and dirty as they were
 * at the clear), write-protected with a compare-and-exchange loop. */
static inline pmd_t pmdp_get_and_clear(pmd_t *p)
{
	arch_sched_point(SCHED_PTE_WRITE);
	return (pmd_t){ __atomic_exchange_n(&p->val, 0, __ATOMIC_ACQ_REL) };
}

/* Clear the young bit of the live PMD leaf at @p; was it set? The caller
 * flushes. Context: the page_table_lock held (every change of a leaf is
 * made under it). */
static inline bool pmdp_test_and_clear_young(pmd_t *p)
{
	pmd_t pmd = pmdp_get(p);

	if (!pmd_young(pmd))
		return false;
	pmd = pmdp_get_and_clear(p); /* one exchange: keeps a dirty bit set meanwhile */
	set_pmd(p, pmd_mkold(pmd));
	return true;
}

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
	return pgd_table(pgdp_get(pgdp)) + pud_index(addr);
}
static inline pmd_t *pmd_offset(pud_t *pudp, unsigned long addr)
{
	return pud_table(pudp_get(pudp)) + pmd_index(addr);
}
static inline pte_t *pte_offset_kernel(pmd_t *pmdp, unsigned long addr)
{
	return pmd_table(pmdp_get(pmdp)) + pte_index(addr);
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
/* The same for a second PTE table locked while the first is held (fork's
 * child table: @subclass 1, see spinlock.h). */
pte_t *pte_offset_map_lock_nested(struct mm *mm, pmd_t *pmdp, unsigned long addr,
				  struct spinlock **ptl, unsigned subclass);
/* Release @ptl; @ptep may point anywhere in (or just past) the run. */
void pte_unmap_unlock(pte_t *ptep, struct spinlock *ptl);

/* The locks themselves (spin_lock, ...) are in spinlock.h. */

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
 * restarting from the top per PMD. PMD migration entries (a folio being
 * moved: see folio_walk.h) are passed over. PUD leaves (kernel half only) are not
 * visited. Return: 0, or the first callback value that stopped the walk.
 * Context: no PTE lock held on entry; pte_range runs under one.
 */
int walk_page_range(struct mm *mm, unsigned long start, unsigned long end,
		    const struct pt_walk_ops *ops, void *priv);

#endif
