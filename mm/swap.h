/*
 * swap.h - ptelab's swap device, and what mm/ does with it: MADV_PAGEOUT
 * (pageout.c) writes a folio mapped only by the caller to swap and leaves
 * swap entries in its PTEs; a fault on one (swapin.c) reads it back,
 * a whole large folio at a time where the entries allow it (Linux 6.12's
 * mTHP swap-in for devices without a swap cache path).
 *
 * The device is RAM: SWAP_SLOTS slots of one page, each backed by a page
 * of the allocator while in use (Linux's zram without compression). What
 * ptelab teaches is the page-table side: the entries, their batching and
 * the counts, not I/O. There is no swap cache: a folio read in is a fresh
 * one, so it is the mm's own (AnonExclusive), as Linux's do_swap_page()
 * treats a folio it allocated without the swap cache.
 *
 * A slot's count is the number of swap entries that name it (fork copies
 * an entry: +1; zap, MADV_FREE and swap-in drop theirs: -1); it is freed
 * at 0.
 */
#ifndef MM_SWAP_H
#define MM_SWAP_H

#include <stdbool.h>
#include <stdint.h>

#include "page.h"

#define SWAP_SLOTS (1ul << 16) /* 256 MiB of swap */

/*
 * swap_alloc - @nr free slots, consecutive and aligned to @nr rounded up
 * to a power of two (a large folio's entries then run like its pages), each with
 * count 1 and a backing page. Return: the first slot's offset, or -1 (no
 * such run free, or no memory for the backing pages).
 * Context: any; takes the swap lock, allocates outside it.
 */
long swap_alloc(unsigned nr);

/* One more entry names each of the @nr slots from @offset (fork). */
void swap_dup(unsigned long offset, unsigned nr);

/* One entry less names each of the @nr slots from @offset; a slot at 0 is
 * freed with its backing page. */
void swap_free_nr(unsigned long offset, unsigned nr);

/* The number of entries that name slot @offset (0: free). */
int swap_count(unsigned long offset);

/* A page's contents into slot @offset, or slot @offset's into @dst. */
void swap_write_page(unsigned long offset, const void *src);
void swap_read_page(unsigned long offset, void *dst);

/* Slots in use (tests, the checker). */
unsigned long swap_slots_used(void);

/*
 * swap_reserve - set @pages pages aside for the device (swap_pool.c), so
 * that writing a page to swap takes no free page. Return: the pages set
 * aside (fewer when memory ran out). swap_unreserve() gives back those
 * no slot holds; swap_pool_free() counts them.
 */
long swap_reserve(unsigned long pages);
void swap_unreserve(void);
unsigned long swap_pool_free(void);

/* A backing page for a slot: the pool's, or the allocator's. And back. */
struct folio *swap_page_get(void);
void swap_page_put(struct folio *f);

#endif
