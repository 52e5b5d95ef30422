/*
 * madvise.h - mm_madvise(): Linux's madvise(2) on an mm's anonymous
 * private memory, with Linux's advice numbers and errnos, and the
 * minimal reclaim that makes MADV_FREE's promise observable.
 */
#ifndef MM_MADVISE_H
#define MM_MADVISE_H

#include "mm.h"

/* Linux's advice numbers (include/uapi/asm-generic/mman-common.h). */
#define MADV_DONTNEED 4
#define MADV_FREE 8
#define MADV_DONTFORK 10
#define MADV_DOFORK 11
#define MADV_HUGEPAGE 14
#define MADV_NOHUGEPAGE 15
#define MADV_COLD 20
#define MADV_PAGEOUT 21
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#define MADV_DONTNEED_LOCKED 24

/*
 * mm_madvise - advise @mm about [@start, @start + @len) (@len rounded up
 * to pages), as Linux's madvise(2):
 *  MADV_DONTNEED, MADV_DONTNEED_LOCKED: unmap the range's pages through
 *	the zap path (batched as zap, mm_caps.zap); the VMAs stay, a later
 *	access faults in zeroed memory.
 *  MADV_FREE: the range's folios may be dropped while clean: young and
 *	dirty are cleared per run of one folio (mm_caps.madvise) and the
 *	folio is marked lazyfree; a write before reclaim keeps it, and
 *	mm_reclaim_lazyfree() discards a clean one (it then reads zero).
 *	A folio only partly in the range is left as it is (Linux splits
 *	it; ptelab has no folio split).
 *  MADV_POPULATE_READ / _WRITE: fault the range in (for write: break COW).
 *  MADV_COLD: each folio mapped only in the range: young bits cleared,
 *	folio to its node's inactive tail (madvise_cold.c, lru.h).
 *  MADV_PAGEOUT: write each folio mapped whole here and nowhere else to
 *	swap now (pageout.c, swap.h); its PTEs become swap entries, and a
 *	later fault reads it back (swapin.c). MADV_FREE and DONTNEED drop
 *	swap entries too.
 *  MADV_HUGEPAGE / MADV_NOHUGEPAGE: order-9 folios by a PMD or by PTEs
 *	(VM_NOHUGEPMD); MADV_DONTFORK / MADV_DOFORK: VM_DONTCOPY.
 * Return: 0; -EINVAL (unknown advice,
 * @start unaligned, the range wraps, POPULATE_WRITE on a VMA without
 * VM_WRITE); -ENOMEM (part of the range is unmapped: DONTNEED, FREE and
 * COLD still act on the mapped parts, POPULATE stops at the hole; or a
 * split or fault ran out of memory). @len 0 returns 0.
 * Context: takes @mm's mmap_lock (for write, except POPULATE: read).
 */
int mm_madvise(struct mm *mm, unsigned long start, unsigned long len, int advice);

/*
 * mm_reclaim_lazyfree - discard every clean lazyfree folio of @mm through
 * the zap path, as Linux's reclaim does with a MADV_FREE-d folio: mapped
 * only by @mm and in one run here, no extra reference (a pin), every
 * entry clean and the folio not PG_dirty. A folio written since
 * MADV_FREE stops being lazyfree. Not a reclaim path: no LRU, no
 * watermark; a folio also mapped by another mm (fork) is kept.
 * Return: the number of folios discarded.
 * Context: takes @mm's mmap_lock for write.
 */
unsigned long mm_reclaim_lazyfree(struct mm *mm);

/* Tests only (NULL otherwise): called by MADV_PAGEOUT after it found a
 * folio mapped only by the run at @addr and before it clears the run, so
 * that a test can take a reference there (gup-fast holds no lock). */
extern void (*pageout_window_hook)(struct mm *mm, unsigned long addr);

#endif
