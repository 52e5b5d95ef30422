/*
 * swapops.h - non-present entries that still mean something: migration
 * entries, which stand in for a PTE or PMD leaf while its folio is being
 * copied to another node (mm/migrate.c), and swap entries, which name the
 * swap slot a page was written to (mm/swap.h; PTEs only).
 *
 * A migration entry keeps what the mapping needs to come back exactly as
 * it was: the pfn of the page it mapped and that entry's write, dirty and
 * young bits, plus the page's AnonExclusive flag (which the old page loses
 * when it is freed). The MMU faults on it like on an empty entry, and
 * handle_mm_fault() treats the fault as "wait for the migration to end,
 * then retry" (here the migration always ends before anything else runs).
 *
 * Encoding: a software value in bits 9..50 of the entry, which no format
 * here reads when the entry is not present (x86: P is bit 0 and the
 * PROT_NONE marker bit 8; arm64: VALID is bit 0, PROT_NONE bit 58 and
 * the contiguous bit 52, which the contpte hooks read on raw entries).
 * An arch whose present or block bits fall inside 9..50 defines its own
 * swp_entry_to_pte / pte_to_swp_val (and #defines them).
 */
#ifndef MM_SWAPOPS_H
#define MM_SWAPOPS_H

#include "pgtable.h"

#define SWP_SHIFT 9
#define SWP_BITS 42 /* bits 9..50 */

/* The software value: pfn in the low 36 bits, then the state bits and a
 * type that is never 0 (so the entry is never none). */
#define SWP_PFN_BITS 36
#define SWP_WRITE (1ull << 36)
#define SWP_DIRTY (1ull << 37)
#define SWP_YOUNG (1ull << 38)
#define SWP_EXCL (1ull << 39) /* the page was AnonExclusive */
#define SWP_TYPE_MIGRATION (1ull << 40)
#define SWP_TYPE_SWAP (2ull << 40) /* a page on the swap device: the pfn bits are its slot */
#define SWP_TYPE_MASK (3ull << 40)

#ifndef swp_entry_to_pte
static inline pte_t swp_entry_to_pte(uint64_t v)
{
	return (pte_t){ v << SWP_SHIFT };
}

/* The software value of a non-present, non-none entry. */
static inline uint64_t pte_to_swp_val(pte_t pte)
{
	return (pte.val >> SWP_SHIFT) & ((1ull << SWP_BITS) - 1);
}
#endif

/* Is @pte a migration entry (not present, not none, type migration)? */
static inline bool is_migration_entry(pte_t pte)
{
	return !pte_none(pte) && !pte_present(pte) &&
	       (pte_to_swp_val(pte) & SWP_TYPE_MASK) == SWP_TYPE_MIGRATION;
}

/* The migration entry for page @pfn, mapped by @pte (its write, dirty and
 * young bits kept), AnonExclusive if @excl. */
static inline pte_t make_migration_entry(uint64_t pfn, pte_t pte, bool excl)
{
	uint64_t v = pfn | SWP_TYPE_MIGRATION;

	if (pte_write(pte))
		v |= SWP_WRITE;
	if (pte_dirty(pte))
		v |= SWP_DIRTY;
	if (pte_young(pte))
		v |= SWP_YOUNG;
	if (excl)
		v |= SWP_EXCL;
	return swp_entry_to_pte(v);
}

static inline uint64_t migration_entry_pfn(pte_t pte)
{
	return pte_to_swp_val(pte) & ((1ull << SWP_PFN_BITS) - 1);
}

static inline bool migration_entry_excl(pte_t pte)
{
	return pte_to_swp_val(pte) & SWP_EXCL;
}

/* @pte (a present entry for the new page, in the VMA's protection) with
 * the write, dirty and young state the migration entry @m kept. */
static inline pte_t pte_restore_migration(pte_t pte, pte_t m)
{
	uint64_t v = pte_to_swp_val(m);

	pte = v & SWP_WRITE ? pte_mkwrite(pte) : pte_wrprotect(pte);
	pte = v & SWP_DIRTY ? pte_mkdirty(pte) : pte_mkclean(pte);
	return v & SWP_YOUNG ? pte_mkyoung(pte) : pte_mkold(pte);
}

/* Is @pte a swap entry? */
static inline bool is_swap_entry(pte_t pte)
{
	return !pte_none(pte) && !pte_present(pte) &&
	       (pte_to_swp_val(pte) & SWP_TYPE_MASK) == SWP_TYPE_SWAP;
}

/* The swap entry for slot @offset; @excl: the page was AnonExclusive
 * (Linux's pte_swp_exclusive). */
static inline pte_t make_swap_entry(unsigned long offset, bool excl)
{
	return swp_entry_to_pte(offset | SWP_TYPE_SWAP | (excl ? SWP_EXCL : 0));
}

static inline unsigned long swap_entry_offset(pte_t pte)
{
	return pte_to_swp_val(pte) & ((1ull << SWP_PFN_BITS) - 1);
}

static inline bool swap_entry_excl(pte_t pte)
{
	return pte_to_swp_val(pte) & SWP_EXCL;
}

/* PMD migration entries: the same value in a pmd (pmd_present() false,
 * so also not pmd_leaf()). Callers classify a PMD with pmd_state()
 * (folio_walk.h), which tests for them. */
static inline bool is_pmd_migration_entry(pmd_t pmd)
{
	return is_migration_entry(pmd_pte(pmd));
}

#endif
