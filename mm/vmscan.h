/*
 * vmscan.h - reclaim under memory pressure (Linux's direct reclaim, with
 * no kswapd): a watermark per node, and a fault that finds a node's free
 * pages below it reclaims from that node's inactive tail (lru.h) before
 * it allocates.
 *
 * Each folio taken off the tail is looked at where its record says it is
 * mapped (the reverse map, lru.h): its young bits are tested and cleared
 * per run of mm_caps.young entries with one flush per young run (young.c's
 * batched aging: Linux's folio_referenced_one() with
 * clear_flush_young_ptes()); a referenced folio goes to the active head.
 * An unreferenced one is unmapped as MADV_PAGEOUT unmaps (one clear per
 * mm_caps.pageout entries, one flush of the run, then the check that
 * nothing but the mappings holds it: Linux's try_to_unmap_one() with
 * folio_unmap_pte_batch()), written to swap whole (a large folio to a run
 * of consecutive slots) and freed; a clean lazyfree (MADV_FREE) one is
 * discarded without swap; a PMD-mapped one is split first, and one other
 * mms of the fork family map too goes to reclaim_shared(). A folio that
 * cannot go (mapped elsewhere or in part, pinned, held by GUP, its record
 * stale) goes to the active head; one for which swap has no run of slots
 * stays on the inactive one.
 */
#ifndef MM_VMSCAN_H
#define MM_VMSCAN_H

#include <stdbool.h>

#include "counters.h"
#include "knobs.h"
#include "lru.h"
#include "pgtable.h"

struct mm;
struct vma;

/* Pages reclaim tries to free at least, once it runs (Linux's
 * SWAP_CLUSTER_MAX): a fault below the watermark does not stall each
 * time. Also the isolation batch. */
#define RECLAIM_BATCH 32

/*
 * reclaim_set_low - node @nid's watermark in pages (0: no reclaim, the
 * default, so that nothing reclaims unless asked); @nid -1 sets every
 * node. reclaim_low() reads it.
 */
void reclaim_set_low(int nid, unsigned long pages);
unsigned long reclaim_low(int nid);
/* Does any node have a watermark? */
bool reclaim_watermark_set(void);
extern bool reclaim_watermarks;

/*
 * reclaim_before_fault - the allocator's direct reclaim, for a fault in
 * @vma: every node whose free pages are below its watermark plus the
 * largest folio the fault may take is reclaimed from until they are not
 * (at least RECLAIM_BATCH pages), from folios of @vma's mm.
 * Context: @vma's mm's mmap_lock held (read or write); no other lock.
 */
void __reclaim_before_fault(struct vma *vma);
static inline void reclaim_before_fault(struct vma *vma)
{
	if (__atomic_load_n(&reclaim_watermarks, __ATOMIC_RELAXED))
		__reclaim_before_fault(vma);
}

/*
 * reclaim_node - reclaim up to @want pages (rounded up to a folio) of
 * @mm's folios from node @nid (tests, and reclaim_before_fault()).
 * Return: the pages freed.
 * Context: @mm's mmap_lock held (read or write); no other lock.
 */
unsigned long reclaim_node(struct mm *mm, int nid, unsigned long want);

/*
 * folio_referenced_ptes - test and clear the young bits of the @nr
 * entries from @ptep (one folio's run at @addr) in runs of mm_caps.young,
 * one flush per run that had one (young.c's batching). Return: was any
 * young? Context: the PTE lock held.
 */
bool folio_referenced_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr);

/* Tests: called with each isolated folio after its checks passed, under
 * its PTE lock, before the unmap (a gup-fast grab lands here). */
extern void (*reclaim_window_hook)(struct mm *mm, unsigned long addr);

/* ---- for vmscan.c and reclaim_shared.c ------------------------------------ */

struct swap_dest;

enum reclaim_result {
	RECLAIM_KEEP,	  /* back to the inactive head */
	RECLAIM_ACTIVATE, /* to the active head */
	RECLAIM_FREED,	  /* unmapped; the isolation's reference is the last */
	RECLAIM_SHARED,	  /* other mms map it too: reclaim_shared() decides */
};

/*
 * reclaim_shared - the isolated @iso, mapped by one or more mms of @fam
 * (a fork's parent and children), each at the record's address with one
 * whole run or one PMD leaf (split first): referenced (activated), kept,
 * or unmapped from all of them at once and written to swap (slots from
 * @d, each counted once per mm) or, clean lazyfree, discarded
 * (reclaim_shared.c has the steps). A folio mapped elsewhere or in part,
 * pinned or held is activated (reclaim_shared_busy).
 * Context: @fam's lock held for write; no other lock but an mmap_lock
 * for read; the isolation's reference held.
 */
struct anon_family;
enum reclaim_result reclaim_shared(struct anon_family *fam, struct lru_isolated *iso,
				   struct swap_dest *d);

/* Tests only (NULL otherwise): called by reclaim_shared() with no lock
 * held but the family's, after the look (SHARED_LOOKED: a COW fault lands
 * here) and with every run unmapped, before the count is looked at
 * (SHARED_UNMAPPED: a reference, or a fault on the migration entries). */
enum shared_window { SHARED_LOOKED, SHARED_UNMAPPED };
extern void (*reclaim_shared_window_hook)(enum shared_window where, struct folio *folio);

/*
 * pageout_clear - clear the @nr entries from @ptep (of one folio) in runs
 * of mm_caps.pageout, without a flush (MADV_PAGEOUT's and reclaim's
 * unmap). Return: the first entry with the dirty and young bits of all.
 * Context: the table's lock is held. Inline: MADV_PAGEOUT's 4K cell
 * costs 23 instructions a page more with a call.
 */
static inline pte_t pageout_clear(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	pte_t first = { 0 };
	bool dirty = false, young = false;

	for (unsigned done = 0; done < nr;) {
		unsigned n = cap_nr(mm_caps.pageout, nr - done);
		pte_t p = clear_full_ptes(mm, addr + done * PAGE_SIZE, ptep + done, n, 0);

		if (!done)
			first = p;
		dirty |= pte_dirty(p);
		young |= pte_young(p);
		done += n;
		count_event(pageout_clears, 1);
	}
	first = dirty ? pte_mkdirty(first) : first;
	return young ? pte_mkyoung(first) : first;
}

#endif
