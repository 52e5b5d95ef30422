/*
 * pgtable.h (arm64) - the VMSAv8-64 descriptor format for a 4 KiB granule
 * and 48-bit VAs (levels 0-3 = pgd, pud, pmd, pte) as pure C, so the host
 * runner can compile it too (the MMU instructions are in <asm/mmu.h>).
 * Included by mm/pgtable.h after pte_t and friends exist; never include
 * it directly. The constants above the C part may be used from assembly.
 *
 * Hardware bits: valid (0), table/page (1), AttrIndx (2-4), AP[1] = EL0
 * access (6), AP[2] = read-only (7), SH (8-9), AF (10), nG (11), output
 * address (12-47), DBM (51), Contiguous (52), PXN (53), UXN (54).
 *
 * Software bits, as Linux defines them: PTE_WRITE lives in the DBM bit and
 * says the page may be written; PTE_DIRTY (55) records dirtiness that the
 * hardware bits do not show; PTE_PROT_NONE (58) marks an invalid entry
 * that mm/ still treats as a mapping. Write permission in hardware is
 * AP[2] clear, so:
 *   writable clean  = PTE_WRITE | PTE_RDONLY  (first write faults, or with
 *                     FEAT_HAFDBS the MMU clears PTE_RDONLY itself)
 *   writable dirty  = PTE_WRITE, PTE_RDONLY clear (hardware dirty)
 *   read-only dirty = PTE_RDONLY | PTE_DIRTY  (dirtiness parked in software)
 * pte_write() and pte_dirty() therefore mean what they mean on x86.
 *
 * The attribute indexes below fix the MAIR_EL1 layout: Attr0 = Normal
 * write-back (0xff), Attr1 = Device-nGnRE (0x04). Boot code must program
 * MAIR_EL1 with MAIR_EL1_VALUE; arch_mm_init() checks it.
 */
#ifndef ASM_PGTABLE_H
#define ASM_PGTABLE_H

#define MT_NORMAL 0
#define MT_DEVICE_nGnRE 1
#define MAIR_ATTR_NORMAL 0xff
#define MAIR_ATTR_DEVICE_nGnRE 0x04
#define MAIR_EL1_VALUE                                                                             \
	((MAIR_ATTR_DEVICE_nGnRE << (8 * MT_DEVICE_nGnRE)) | (MAIR_ATTR_NORMAL << (8 * MT_NORMAL)))

#define CONT_PTES 16 /* entries in a contiguous (contpte) block: 64 KiB */

#ifndef __ASSEMBLER__

#include <stdbool.h>
#include <stdint.h>

#define PTE_VALID (1ull << 0)
#define PTE_TABLE_BIT (1ull << 1) /* levels 0-2: table; level 3: must be set (page) */
#define PTE_TYPE_MASK (3ull << 0)
#define PTE_TYPE_TABLE (3ull << 0)
#define PTE_TYPE_BLOCK (1ull << 0)
#define PTE_TYPE_PAGE (3ull << 0)
#define PTE_ATTRINDX(i) ((uint64_t)(i) << 2)
#define PTE_ATTRINDX_MASK (7ull << 2)
#define PTE_USER (1ull << 6)   /* AP[1] */
#define PTE_RDONLY (1ull << 7) /* AP[2] */
#define PTE_SHARED (3ull << 8) /* SH: inner shareable */
#define PTE_AF (1ull << 10)
#define PTE_NG (1ull << 11)
#define PTE_DBM (1ull << 51)
#define PTE_CONT (1ull << 52)
#define PTE_PXN (1ull << 53)
#define PTE_UXN (1ull << 54)
#define PTE_WRITE PTE_DBM	   /* software: may be written */
#define PTE_DIRTY (1ull << 55)	   /* software: dirty */
#define PTE_PROT_NONE (1ull << 58) /* software: mapped but inaccessible (valid clear) */

#define PTE_ADDR_MASK 0x0000fffffffff000ull /* bits 12..47 */
#define PMD_ADDR_MASK 0x0000ffffffe00000ull /* bits 21..47 */
#define PUD_ADDR_MASK 0x0000ffffc0000000ull /* bits 30..47 */
#define PTE_PFN_SHIFT 12

/* Bits pte_modify() takes from the new protection. */
#define PTE_PROT_MASK                                                                              \
	(PTE_VALID | PTE_TYPE_MASK | PTE_ATTRINDX_MASK | PTE_USER | PTE_RDONLY | PTE_SHARED |      \
	 PTE_NG | PTE_WRITE | PTE_PXN | PTE_UXN | PTE_PROT_NONE)

/* User protections for vm_get_page_prot(). AF is set so a new mapping
 * takes no access-flag fault; writable ones start clean (PTE_RDONLY). */
#define _PAGE_USER_BASE                                                                            \
	(PTE_TYPE_PAGE | PTE_AF | PTE_SHARED | PTE_ATTRINDX(MT_NORMAL) | PTE_USER | PTE_NG |       \
	 PTE_RDONLY | PTE_PXN)
#define PAGE_USER_NONE                                                                             \
	((pgprot_t){ ((_PAGE_USER_BASE & ~(PTE_VALID | PTE_USER)) | PTE_PROT_NONE | PTE_UXN) })
#define PAGE_USER_RO ((pgprot_t){ _PAGE_USER_BASE | PTE_UXN })
#define PAGE_USER_RX ((pgprot_t){ _PAGE_USER_BASE })
#define PAGE_USER_RW ((pgprot_t){ _PAGE_USER_BASE | PTE_UXN | PTE_WRITE })
#define PAGE_USER_RWX ((pgprot_t){ _PAGE_USER_BASE | PTE_WRITE })

/* ---- PTE values ---------------------------------------------------------- */

static inline pte_t pfn_pte(uint64_t pfn, pgprot_t prot)
{
	return (pte_t){ ((pfn << PTE_PFN_SHIFT) & PTE_ADDR_MASK) | (prot.val & ~PTE_ADDR_MASK) };
}

static inline uint64_t pte_pfn(pte_t pte)
{
	return (pte.val & PTE_ADDR_MASK) >> PTE_PFN_SHIFT;
}

static inline pgprot_t pte_pgprot(pte_t pte)
{
	return (pgprot_t){ pte.val & ~PTE_ADDR_MASK };
}

static inline bool pte_present(pte_t pte)
{
	return pte.val & (PTE_VALID | PTE_PROT_NONE);
}

/* May EL0 access the page at all (the MMU's view)? */
static inline bool pte_user(pte_t pte)
{
	return (pte.val & (PTE_VALID | PTE_USER)) == (PTE_VALID | PTE_USER);
}

/* May EL0 write through it right now (AP[2] clear)? */
static inline bool pte_user_writable(pte_t pte)
{
	return pte_user(pte) && !(pte.val & PTE_RDONLY);
}

static inline bool pte_write(pte_t pte)
{
	return pte.val & PTE_WRITE;
}

/* Writable in hardware right now: the MMU (or a fault) made it dirty. */
static inline bool pte_hw_dirty(pte_t pte)
{
	return (pte.val & (PTE_WRITE | PTE_RDONLY)) == PTE_WRITE;
}

static inline bool pte_dirty(pte_t pte)
{
	return (pte.val & PTE_DIRTY) || pte_hw_dirty(pte);
}

static inline bool pte_young(pte_t pte)
{
	return pte.val & PTE_AF;
}

static inline bool pte_exec(pte_t pte)
{
	return !(pte.val & PTE_UXN);
}

static inline bool pte_cont(pte_t pte)
{
	return pte.val & PTE_CONT;
}

/* Writable; hardware-writable at once if already dirty. */
static inline pte_t pte_mkwrite(pte_t pte)
{
	pte.val |= PTE_WRITE;
	if (pte.val & PTE_DIRTY)
		pte.val &= ~PTE_RDONLY;
	return pte;
}

/* Read-only; hardware dirtiness is kept as the software dirty bit. */
static inline pte_t pte_wrprotect(pte_t pte)
{
	if (pte_hw_dirty(pte))
		pte.val |= PTE_DIRTY;
	pte.val &= ~PTE_WRITE;
	pte.val |= PTE_RDONLY;
	return pte;
}

static inline pte_t pte_mkdirty(pte_t pte)
{
	pte.val |= PTE_DIRTY;
	if (pte.val & PTE_WRITE)
		pte.val &= ~PTE_RDONLY;
	return pte;
}

/* Clean: the next write faults again (or sets hardware dirty). */
static inline pte_t pte_mkclean(pte_t pte)
{
	pte.val &= ~PTE_DIRTY;
	pte.val |= PTE_RDONLY;
	return pte;
}

static inline pte_t pte_mkyoung(pte_t pte)
{
	return (pte_t){ pte.val | PTE_AF };
}

static inline pte_t pte_mkold(pte_t pte)
{
	return (pte_t){ pte.val & ~PTE_AF };
}

static inline pte_t pte_mkcont(pte_t pte)
{
	return (pte_t){ pte.val | PTE_CONT };
}

static inline pte_t pte_mknoncont(pte_t pte)
{
	return (pte_t){ pte.val & ~PTE_CONT };
}

/* @pte with @prot's permissions; frame, dirty and young stay. */
static inline pte_t pte_modify(pte_t pte, pgprot_t prot)
{
	if (pte_hw_dirty(pte))
		pte.val |= PTE_DIRTY;
	pte.val = (pte.val & ~PTE_PROT_MASK) | (prot.val & PTE_PROT_MASK);
	return (pte.val & PTE_DIRTY) ? pte_mkdirty(pte) : pte;
}

/* Cheaper than the generic pfn_pte(pte_pfn() + nr, ...): one add. */
static inline pte_t pte_advance_pfn(pte_t pte, unsigned long nr)
{
	return (pte_t){ (pte.val & ~PTE_ADDR_MASK) |
			((pte.val + ((uint64_t)nr << PTE_PFN_SHIFT)) & PTE_ADDR_MASK) };
}
#define pte_advance_pfn pte_advance_pfn

/* Without FEAT_HAFDBS enabled the MMU sets neither AF nor dirty: an access
 * to an old entry and a write to a clean writable one fault, and the fault
 * handler sets the bits. arch_mm_init() leaves TCR_EL1.HA/HD off so every
 * arm64 machine (QEMU TCG has no HAFDBS before 8.2) behaves the same. */
static inline bool arch_has_hw_ad(void)
{
	return false;
}
#define arch_has_hw_ad arch_has_hw_ad

/* ---- table entries (pgd, pud, pmd pointing at the next level) ------------ */

#define ARM64_TABLE_OPS(lvl)                                                                       \
	static inline lvl##_t lvl##_mktable(uint64_t pfn)                                          \
	{                                                                                          \
		return (lvl##_t){ ((pfn << PTE_PFN_SHIFT) & PTE_ADDR_MASK) | PTE_TYPE_TABLE };     \
	}                                                                                          \
	static inline bool lvl##_none(lvl##_t e)                                                   \
	{                                                                                          \
		return e.val == 0;                                                                 \
	}                                                                                          \
	static inline bool lvl##_present(lvl##_t e)                                                \
	{                                                                                          \
		return e.val & (PTE_VALID | PTE_PROT_NONE);                                        \
	}                                                                                          \
	static inline uint64_t lvl##_table_pfn(lvl##_t e)                                          \
	{                                                                                          \
		return (e.val & PTE_ADDR_MASK) >> PTE_PFN_SHIFT;                                   \
	}

ARM64_TABLE_OPS(pgd)
ARM64_TABLE_OPS(pud)
ARM64_TABLE_OPS(pmd)
#undef ARM64_TABLE_OPS

/* Level 0 has no blocks; a level-1 block (1 GiB) only in the kernel half. */
static inline bool pud_leaf(pud_t pud)
{
	return pud_present(pud) && !(pud.val & PTE_TABLE_BIT);
}

/* ---- PMD leaves (level-2 blocks, 2 MiB) ------------------------------------ */

static inline pte_t pmd_pte(pmd_t pmd)
{
	return (pte_t){ pmd.val };
}

static inline pmd_t pte_pmd(pte_t pte)
{
	return (pmd_t){ pte.val };
}

/* A 2 MiB block mapping the naturally aligned frames from @pfn with the
 * (page-level) protection @prot. */
static inline pmd_t pfn_pmd(uint64_t pfn, pgprot_t prot)
{
	return (pmd_t){ ((pfn << PTE_PFN_SHIFT) & PMD_ADDR_MASK) |
			(prot.val & ~(PTE_ADDR_MASK | PTE_TABLE_BIT)) };
}

static inline uint64_t pmd_pfn(pmd_t pmd)
{
	return (pmd.val & PMD_ADDR_MASK) >> PTE_PFN_SHIFT;
}

static inline bool pmd_leaf(pmd_t pmd)
{
	return pmd_present(pmd) && !(pmd.val & PTE_TABLE_BIT);
}

static inline pmd_t pmd_modify(pmd_t pmd, pgprot_t prot)
{
	prot.val &= ~PTE_TABLE_BIT;
	return pte_pmd(pte_modify(pmd_pte(pmd), prot));
}

#endif /* __ASSEMBLER__ */
#endif
