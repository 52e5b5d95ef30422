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
 * The slots a folio's pages go to: one run of consecutive slots aligned to
 * the folio's size (a large folio's entries then run like its pages, and
 * swap-in maps it back whole), or, when no such run is free, single slots
 * wherever they are free. Linux splits a large folio that finds no run
 * (its swap cache holds folios whole) and writes the pieces; ptelab has no
 * swap cache, so it writes the one folio's pages to scattered slots, which
 * leaves the entries such a split leaves, and swap-in reads them back one
 * page at a time.
 */
struct swap_dest {
	long first; /* the run's first slot; -1: the slots are in slot[] */
	unsigned nr;
	uint16_t slot[1u << PMD_ORDER];
};

/*
 * swap_alloc_folio - @nr (at most a PMD folio's) free slots into @d, a run
 * if one is free, else scattered (counted in swpout_fallback), each with
 * count 1 and a backing page. Return: 0, or -1 with nothing taken (fewer
 * than @nr slots free, or no memory for the backing pages).
 * Context: any; takes the swap lock, allocates outside it.
 */
int swap_alloc_folio(struct swap_dest *d, unsigned nr);

/* The slot of @d for the folio's page @i. */
static inline unsigned long swap_dest_slot(const struct swap_dest *d, unsigned i)
{
	return d->first >= 0 ? (unsigned long)d->first + i : d->slot[i];
}

/* Give back every slot of @d (the write did not happen). */
void swap_dest_free(const struct swap_dest *d);

/*
 * swap_set_slots - the device's size: @nr slots (at most SWAP_SLOTS, the
 * default), as a smaller swap partition would be. Return: 0, or -EBUSY
 * while a slot is in use. For tests that fill the device.
 */
int swap_set_slots(unsigned long nr);

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
/* Pages reserved for the pool (lent ones included). */
unsigned long swap_pool_reserved(void);
unsigned long swap_pool_free(void);

/* A backing page for a slot: the pool's, or the allocator's. And back. */
struct folio *swap_page_get(void);
void swap_page_put(struct folio *f);

#endif
