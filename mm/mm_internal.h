/*
 * mm_internal.h - what the files of mm/ share with each other and with the
 * tests, but not with the rest of the kernel.
 */
#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

#include <asm/mmu.h>

#include "knobs.h"
#include "mm.h"

struct vma *find_vma_from(struct mm *mm, unsigned long addr);
void vma_free_all(struct mm *mm);

/*
 * mmu_gather - folio references to drop once the TLB no longer maps them.
 * Zap clears entries, gathers (folio, refs) and only puts the references
 * after flushing the TLB for the range it cleared, so no CPU can reach a
 * freed page through a stale TLB entry.
 */
#define GATHER_MAX 512
struct mmu_gather {
	struct mm *mm;
	unsigned long start, end; /* range cleared since the last flush */
	bool full; /* tearing down the whole mm */
	int nr;
	struct {
		struct folio *folio;
		int refs;
	} item[GATHER_MAX];
};

void tlb_gather_init(struct mmu_gather *tlb, struct mm *mm, bool full);
void tlb_gather_folio(struct mmu_gather *tlb, struct folio *f, int refs, unsigned long addr,
		      unsigned long end);
void tlb_finish(struct mmu_gather *tlb);

/* Unmap [start, end) of @vma: clear entries, drop mapcounts and refs.
 * @full: the mm is being torn down. Context: no PTE lock held. */
void zap_vma_range(struct vma *vma, unsigned long start, unsigned long end, bool full);

/* Free page tables that no VMA overlaps inside [start, end) rounded out. */
void free_pgtables(struct mm *mm, unsigned long start, unsigned long end);

/* Apply @newflags' protection to the entries of [start, end) in @vma. */
void change_protection(struct vma *vma, unsigned long start, unsigned long end,
		       unsigned newflags);

/* Split PMD leaves that [start, end) covers only partly, so later steps
 * work on PTEs. Return: 0 or -ENOMEM (nothing observable changed). */
int prepare_range(struct mm *mm, unsigned long start, unsigned long end);

/* Replace the PMD leaf at @pmdp (mapping @addr's 2 MiB) by a PTE table
 * mapping the same pages. Return: 0 or -ENOMEM. */
int split_huge_pmd(struct vma *vma, pmd_t *pmdp, unsigned long addr);

/* The PMD value mapping all of @folio in @vma (young; dirty if @dirty). */
pmd_t vma_mk_pmd(struct vma *vma, struct folio *folio, bool dirty);

/* The PTE value for page @pfn in @vma, before dirty/young/write tweaks. */
pte_t vma_mk_pte(struct vma *vma, uint64_t pfn);

/* Pins (mm/pin.c): @refs FOLL_PIN references on @f, and their release. */
void folio_pin_refs(struct folio *f, int refs);
void folio_unpin_refs(struct folio *f, int refs);
void mm_set_has_pinned(struct mm *mm);

#endif
