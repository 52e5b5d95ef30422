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

/* What FEAT_HAFDBS hardware writes on a store through a writable (DBM)
 * entry: AP[2] cleared, no software dirty bit. */
static inline pte_t pte_mkdirty_hw(pte_t pte)
{
	if (pte.val & PTE_WRITE)
		pte.val &= ~PTE_RDONLY;
	return pte;
}
#define pte_mkdirty_hw pte_mkdirty_hw

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
#define pte_cont pte_cont

/* Valid for the MMU (PROT_NONE entries are present for mm/ but not valid). */
static inline bool pte_valid(pte_t pte)
{
	return pte.val & PTE_VALID;
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

#define pte_mknoncont pte_mknoncont
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

/* The MMU never sets dirtiness (TCR_EL1.HD clear): a write to a clean
 * writable entry faults and the fault handler makes it dirty. It sets the
 * access flag itself where the CPU has FEAT_HAFDBS (arch/arm64/mmu.c sets
 * TCR_EL1.HA); without it an access to an old entry faults too. Either
 * way young and dirty are not both the MMU's: false. */
static inline bool arch_has_hw_ad(void)
{
	return false;
}
#define arch_has_hw_ad arch_has_hw_ad

/* ---- contpte: blocks of CONT_PTES entries (arch/arm64/contpte.c) ---------- */

/*
 * A contiguous block is CONT_PTES entries, 64 KiB aligned in VA and PA,
 * mapping consecutive pages with identical attributes and PTE_CONT set in
 * each, which the TLB may cache as one entry. The MMU may record access
 * and dirtiness in any one entry of a block, so the block's state is the
 * OR over its entries. Any other change to part of a block must first
 * unfold it (break-before-make: clear all entries, flush, rewrite them
 * without PTE_CONT). So this arch overrides every hook that reads or
 * writes user entries; mm/ itself never sees PTE_CONT except as an
 * attribute bit that pte_modify() and pte_advance_pfn() keep.
 */
#define CONT_PTE_SIZE (CONT_PTES * 4096ul)
#define CONT_PTE_MASK (~(CONT_PTE_SIZE - 1))

/* The raw accessors of mm/pgtable.h, defined here so the hooks below
 * can use them: single-copy atomic, the store a release (see
 * pgtable_hooks.h). */
static inline pte_t __ptep_get(pte_t *ptep)
{
	arch_sched_point(SCHED_PTE_READ);
	return (pte_t){ __atomic_load_n(&ptep->val, __ATOMIC_RELAXED) };
}
#define __ptep_get __ptep_get

static inline void set_pte(pte_t *ptep, pte_t pte)
{
	arch_sched_point(SCHED_PTE_WRITE);
	__atomic_store_n(&ptep->val, pte.val, __ATOMIC_RELEASE);
}
#define set_pte set_pte

/* @orig (the entry at @ptep, in a block) with the block's young and dirty. */
pte_t contpte_ptep_get(pte_t *ptep, pte_t orig);

static inline pte_t ptep_get(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	count_event(ptep_gets, 1);
	return pte_cont(pte) ? contpte_ptep_get(ptep, pte) : pte;
}
#define ptep_get ptep_get

/* A block is CONT_PTES entries: order 4. */
static inline unsigned arch_pte_block_order(void)
{
	return (unsigned)__builtin_ctz(CONT_PTES);
}
#define arch_pte_block_order arch_pte_block_order

/* Inside a block, the rest of the block is known to be uniform. */
static inline unsigned pte_batch_hint(pte_t *ptep, pte_t pte)
{
	if (!pte_cont(pte))
		return 1;
	return CONT_PTES - (unsigned)(((uintptr_t)ptep / sizeof(pte_t)) & (CONT_PTES - 1));
}
#define pte_batch_hint pte_batch_hint

/*
 * The hooks below have the contracts of mm/pgtable_hooks.h. Their
 * one-entry cases are inline, as Linux's arm64 wrappers: for one entry
 * the edges of the run are the entry itself, so "unfold the blocks the
 * run covers partly" is one test of PTE_CONT on it, and a fold is only
 * possible when the entry is the last of its block with the last frame
 * of an aligned block (two masked tests before the out-of-line checks).
 * Runs, unfolds and folds are in arch/arm64/contpte.c.
 */
void contpte_unfold(struct mm *mm, unsigned long addr, pte_t *ptep); /* entry in a block */
void contpte_try_fold(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte);
void contpte_set_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte, unsigned nr);
pte_t contpte_clear_full_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr,
			      int full);
void contpte_wrprotect_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr);

/* Split the block holding the entry at @ptep (for @addr), if any. */
static inline void contpte_try_unfold(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	if (pte_cont(__ptep_get(ptep)))
		contpte_unfold(mm, addr, ptep);
}

static inline void set_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte, unsigned nr)
{
	if (nr != 1) {
		contpte_set_ptes(mm, addr, ptep, pte, nr);
		return;
	}
	pte = pte_mknoncont(pte);
	contpte_try_unfold(mm, addr, ptep);
	set_pte(ptep, pte);
	if ((((uintptr_t)ptep / sizeof(pte_t)) & (CONT_PTES - 1)) == CONT_PTES - 1 &&
	    (pte_pfn(pte) & (CONT_PTES - 1)) == CONT_PTES - 1)
		contpte_try_fold(mm, addr, ptep, pte);
}
#define set_ptes set_ptes
bool contpte_needs_break(unsigned long addr, pte_t *ptep, pte_t pte, unsigned nr);

/* Only a run that can hold a whole block may fold (checked inline: most
 * runs of small folios cannot). */
static inline bool set_ptes_needs_break(unsigned long addr, pte_t *ptep, pte_t pte, unsigned nr)
{
	return nr >= CONT_PTES && contpte_needs_break(addr, ptep, pte, nr);
}
#define set_ptes_needs_break set_ptes_needs_break
/*
 * SMP: ptep_get_and_clear(), clear_full_ptes() and wrprotect_ptes() read
 * an entry and then write it, where x86 needs one atomic operation. Every
 * software writer of a user entry holds the table's PTE lock, and the MMU
 * writes one bit only: the access flag (TCR_EL1.HA, arch/arm64/mmu.c),
 * never dirtiness (TCR_EL1.HD clear: a clean writable entry is read-only
 * to the MMU, and write faults track dirtiness). So the most a
 * read-then-write can lose is an access flag the MMU set in between: the
 * page looks old once more (reclaim's and young's hint), never a lost
 * dirty bit, permission or mapping. Hardware dirtiness (HD) would break
 * that: these would need an exchange and a compare-and-exchange loop (as
 * Linux's arm64 hooks have).
 */
static inline pte_t ptep_get_and_clear(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	pte_t pte;

	contpte_try_unfold(mm, addr, ptep);
	pte = __ptep_get(ptep);
	set_pte(ptep, (pte_t){ 0 });
	return pte;
}
#define ptep_get_and_clear ptep_get_and_clear

/* One entry: a full teardown does not unfold (contpte.c says why), and
 * the entry's own young and dirty are the value returned. */
static inline pte_t clear_full_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr,
				    int full)
{
	pte_t pte;

	if (nr != 1)
		return contpte_clear_full_ptes(mm, addr, ptep, nr, full);
	if (!full)
		contpte_try_unfold(mm, addr, ptep);
	pte = __ptep_get(ptep);
	set_pte(ptep, (pte_t){ 0 });
	return pte_mknoncont(pte);
}
#define clear_full_ptes clear_full_ptes

static inline void wrprotect_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	pte_t pte;

	if (nr != 1) {
		contpte_wrprotect_ptes(mm, addr, ptep, nr);
		return;
	}
	pte = __ptep_get(ptep);

	if (pte_cont(pte)) {
		contpte_unfold(mm, addr, ptep);
		pte = __ptep_get(ptep);
	}
	set_pte(ptep, pte_wrprotect(pte));
}
#define wrprotect_ptes wrprotect_ptes
bool contpte_clear_young_dirty_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr,
				    unsigned flags);

/*
 * Young and dirty are a block's state, not an entry's: a run that starts
 * or ends inside a block is widened to the whole block, which stays
 * folded (contpte.c). Nothing but software writes an entry here (see
 * above), so a read and a write under the PTE lock are enough.
 */
static inline bool clear_young_dirty_ptes(struct mm *mm, unsigned long addr, pte_t *ptep,
					  unsigned nr, unsigned flags)
{
	pte_t pte, old;

	if (nr != 1 || pte_cont(__ptep_get(ptep)))
		return contpte_clear_young_dirty_ptes(mm, addr, ptep, nr, flags);
	old = pte = __ptep_get(ptep);
	if (flags & CYDP_CLEAR_YOUNG)
		pte = pte_mkold(pte);
	if (flags & CYDP_CLEAR_DIRTY)
		pte = pte_mkclean(pte);
	if (pte_same(pte, old))
		return false;
	set_pte(ptep, pte);
	return true;
}
#define clear_young_dirty_ptes clear_young_dirty_ptes
bool ptep_set_access_flags(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t entry);
#define ptep_set_access_flags ptep_set_access_flags
int arch_check_pte_table(pte_t *table, const char **why);
#define arch_check_pte_table arch_check_pte_table

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
