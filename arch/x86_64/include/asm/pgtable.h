/*
 * pgtable.h (x86_64) - the 4-level page-table entry format as pure C, so
 * the host runner can compile it too (the MMU instructions are in
 * <asm/mmu.h>). Included by mm/pgtable.h after pte_t and friends exist;
 * never include it directly.
 *
 * Every level has the same layout: P, RW, US, PWT, PCD, A, D, PS (a leaf
 * at the PMD and PUD levels), G, the frame address in bits 12..51 and NX
 * in bit 63 (EFER.NXE must be on: arch_mm_init() checks it). The MMU sets
 * A on every access and D on every write, so young and dirty need no
 * software help. A PROT_NONE entry keeps P clear and marks itself with
 * the G bit (which means nothing without P), as Linux does: present to
 * mm/, faulting to the MMU.
 */
#ifndef ASM_PGTABLE_H
#define ASM_PGTABLE_H

#include <stdbool.h>
#include <stdint.h>

#define _PAGE_PRESENT (1ull << 0)
#define _PAGE_RW (1ull << 1)
#define _PAGE_USER (1ull << 2)
#define _PAGE_PWT (1ull << 3)
#define _PAGE_PCD (1ull << 4)
#define _PAGE_ACCESSED (1ull << 5)
#define _PAGE_DIRTY (1ull << 6)
#define _PAGE_PSE (1ull << 7)	    /* PMD/PUD: this entry is a leaf (2 MiB / 1 GiB) */
#define _PAGE_GLOBAL (1ull << 8)    /* kernel mappings only: kept across CR3 loads */
#define _PAGE_PROTNONE _PAGE_GLOBAL /* only meaningful while P is clear */
#define _PAGE_NX (1ull << 63)

#define _PAGE_PFN_MASK 0x000ffffffffff000ull	 /* 4 KiB frame: bits 12..51 */
#define _PAGE_PMD_PFN_MASK 0x000fffffffe00000ull /* 2 MiB frame: bits 21..51 */
#define _PAGE_PUD_PFN_MASK 0x000fffffc0000000ull /* 1 GiB frame: bits 30..51 */
#define _PAGE_PFN_SHIFT 12

/* Bits pte_modify() keeps from the old entry: frame, accessed, dirty. */
#define _PAGE_CHG_MASK (_PAGE_PFN_MASK | _PAGE_ACCESSED | _PAGE_DIRTY)

/* Upper-level table entries are permissive; the leaf decides. */
#define _PAGE_TABLE (_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED)

/* User protections for vm_get_page_prot() (mm/pgtable.c picks one). */
#define _PAGE_USER_BASE (_PAGE_PRESENT | _PAGE_USER | _PAGE_ACCESSED)
#define PAGE_USER_NONE ((pgprot_t){ _PAGE_PROTNONE | _PAGE_ACCESSED | _PAGE_NX })
#define PAGE_USER_RO ((pgprot_t){ _PAGE_USER_BASE | _PAGE_NX })
#define PAGE_USER_RX ((pgprot_t){ _PAGE_USER_BASE })
#define PAGE_USER_RW ((pgprot_t){ _PAGE_USER_BASE | _PAGE_RW | _PAGE_NX })
#define PAGE_USER_RWX ((pgprot_t){ _PAGE_USER_BASE | _PAGE_RW })

/* ---- PTE values ---------------------------------------------------------- */

static inline pte_t pfn_pte(uint64_t pfn, pgprot_t prot)
{
	return (pte_t){ ((pfn << _PAGE_PFN_SHIFT) & _PAGE_PFN_MASK) |
			(prot.val & ~_PAGE_PFN_MASK) };
}

static inline uint64_t pte_pfn(pte_t pte)
{
	return (pte.val & _PAGE_PFN_MASK) >> _PAGE_PFN_SHIFT;
}

static inline pgprot_t pte_pgprot(pte_t pte)
{
	return (pgprot_t){ pte.val & ~_PAGE_PFN_MASK };
}

static inline bool pte_present(pte_t pte)
{
	return pte.val & (_PAGE_PRESENT | _PAGE_PROTNONE);
}

/* May user mode access the page at all (the MMU's view)? */
static inline bool pte_user(pte_t pte)
{
	return (pte.val & (_PAGE_PRESENT | _PAGE_USER)) == (_PAGE_PRESENT | _PAGE_USER);
}

/* May user mode write through it right now? */
static inline bool pte_user_writable(pte_t pte)
{
	return pte_user(pte) && (pte.val & _PAGE_RW);
}

static inline bool pte_write(pte_t pte)
{
	return pte.val & _PAGE_RW;
}

static inline bool pte_dirty(pte_t pte)
{
	return pte.val & _PAGE_DIRTY;
}

static inline bool pte_young(pte_t pte)
{
	return pte.val & _PAGE_ACCESSED;
}

static inline bool pte_exec(pte_t pte)
{
	return !(pte.val & _PAGE_NX);
}

static inline pte_t pte_mkwrite(pte_t pte)
{
	return (pte_t){ pte.val | _PAGE_RW };
}

static inline pte_t pte_wrprotect(pte_t pte)
{
	return (pte_t){ pte.val & ~_PAGE_RW };
}

static inline pte_t pte_mkdirty(pte_t pte)
{
	return (pte_t){ pte.val | _PAGE_DIRTY };
}

static inline pte_t pte_mkclean(pte_t pte)
{
	return (pte_t){ pte.val & ~_PAGE_DIRTY };
}

static inline pte_t pte_mkyoung(pte_t pte)
{
	return (pte_t){ pte.val | _PAGE_ACCESSED };
}

static inline pte_t pte_mkold(pte_t pte)
{
	return (pte_t){ pte.val & ~_PAGE_ACCESSED };
}

/* @pte with @prot's permissions; frame, dirty and young stay. */
static inline pte_t pte_modify(pte_t pte, pgprot_t prot)
{
	return (pte_t){ (pte.val & _PAGE_CHG_MASK) | (prot.val & ~_PAGE_CHG_MASK) };
}

/* Cheaper than the generic pfn_pte(pte_pfn() + nr, ...): one add, as
 * Linux's x86 does. Callers stay inside one folio, so the pfn never
 * carries out of its field into the bits above (NX). */
static inline pte_t pte_advance_pfn(pte_t pte, unsigned long nr)
{
	return (pte_t){ pte.val + ((uint64_t)nr << _PAGE_PFN_SHIFT) };
}
#define pte_advance_pfn pte_advance_pfn

/* ---- table entries (pgd, pud, pmd pointing at the next level) ------------ */

#define X86_TABLE_OPS(lvl)                                                                         \
	static inline lvl##_t lvl##_mktable(uint64_t pfn)                                          \
	{                                                                                          \
		return (lvl##_t){ ((pfn << _PAGE_PFN_SHIFT) & _PAGE_PFN_MASK) | _PAGE_TABLE };     \
	}                                                                                          \
	static inline bool lvl##_none(lvl##_t e)                                                   \
	{                                                                                          \
		return e.val == 0;                                                                 \
	}                                                                                          \
	static inline bool lvl##_present(lvl##_t e)                                                \
	{                                                                                          \
		return e.val & (_PAGE_PRESENT | _PAGE_PROTNONE);                                   \
	}                                                                                          \
	static inline uint64_t lvl##_table_pfn(lvl##_t e)                                          \
	{                                                                                          \
		return (e.val & _PAGE_PFN_MASK) >> _PAGE_PFN_SHIFT;                                \
	}

X86_TABLE_OPS(pgd)
X86_TABLE_OPS(pud)
X86_TABLE_OPS(pmd)
#undef X86_TABLE_OPS

/* A pgd entry is never a leaf; a pud leaf (1 GiB) only in the kernel half. */
static inline bool pud_leaf(pud_t pud)
{
	return pud_present(pud) && (pud.val & _PAGE_PSE);
}

/* ---- PMD leaves (2 MiB) ---------------------------------------------------- */

static inline pte_t pmd_pte(pmd_t pmd)
{
	return (pte_t){ pmd.val };
}

static inline pmd_t pte_pmd(pte_t pte)
{
	return (pmd_t){ pte.val };
}

/* A 2 MiB leaf mapping the naturally aligned frames from @pfn with the
 * (PTE-level) protection @prot. */
static inline pmd_t pfn_pmd(uint64_t pfn, pgprot_t prot)
{
	return (pmd_t){ ((pfn << _PAGE_PFN_SHIFT) & _PAGE_PMD_PFN_MASK) |
			(prot.val & ~_PAGE_PFN_MASK) | _PAGE_PSE };
}

static inline uint64_t pmd_pfn(pmd_t pmd)
{
	return (pmd.val & _PAGE_PMD_PFN_MASK) >> _PAGE_PFN_SHIFT;
}

static inline bool pmd_leaf(pmd_t pmd)
{
	return pmd_present(pmd) && (pmd.val & _PAGE_PSE);
}

static inline pmd_t pmd_modify(pmd_t pmd, pgprot_t prot)
{
	uint64_t keep = _PAGE_PMD_PFN_MASK | _PAGE_ACCESSED | _PAGE_DIRTY | _PAGE_PSE;

	return (pmd_t){ (pmd.val & keep) | (prot.val & ~(_PAGE_PFN_MASK | keep)) };
}

/*
 * wrprotect_ptes - clear the write bit of @nr entries with one atomic AND
 * each (LOCK AND), as Linux's ptep_set_wrprotect(): another CPU's MMU may
 * set accessed or dirty in the entry at any moment, and a read followed
 * by a write of the entry would lose a bit set in between. A dirty bit
 * set before the AND stays; a write after it faults (once the caller's
 * flush has removed the writable TLB entries). Context: PTE lock held.
 */
static inline void wrprotect_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	(void)mm, (void)addr;
	for (; nr; nr--, ptep++) {
		arch_sched_point(SCHED_PTE_WRITE);
		__atomic_fetch_and(&ptep->val, ~_PAGE_RW, __ATOMIC_RELAXED);
	}
}
#define wrprotect_ptes wrprotect_ptes

#endif
