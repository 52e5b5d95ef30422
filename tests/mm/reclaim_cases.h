/*
 * reclaim_cases.h - what the reclaim cases share: a case with a swap pool
 * reserved (begin(), end()), reclaim_node() as a fault calls it, the
 * count of swap entries over a range and the node of a folio.
 */
#ifndef TESTS_MM_RECLAIM_CASES_H
#define TESTS_MM_RECLAIM_CASES_H

#include "folio_walk.h"
#include "swap.h"
#include "swapops.h"
#include "test_gup_cases.h"
#include "vmscan.h"

#define POOL 2048 /* pages set aside for swap: reclaim then frees what it unmaps */

static uint64_t free_before; /* the case's free pages at its start */

static inline struct mm *begin(void)
{
	struct mm *mm = mm_case_begin(&free_before);

	CHECK_EQ(swap_reserve(POOL), POOL);
	return mm;
}

/* mm_case_end() with the pool given back first, and no watermark left. */
static inline void end(struct mm *mm)
{
	reclaim_set_low(-1, 0);
	CHECK_MM_OK();
	mm_put(mm);
	CHECK_EQ(swap_slots_used(), 0);
	swap_unreserve();
	CHECK_MM_OK();
	CHECK_EQ(total_free_pages(), free_before);
	caps_set_all(true);
}

/* reclaim_node() as a fault calls it: under the mmap_lock. */
static inline unsigned long reclaim(struct mm *mm, int nid, unsigned long want)
{
	unsigned long n;

	read_lock(&mm->mmap_lock);
	n = reclaim_node(mm, nid, want);
	read_unlock(&mm->mmap_lock);
	return n;
}

static inline unsigned long swapped(struct mm *mm, unsigned long a, unsigned long len)
{
	unsigned long n = 0;
	pte_t e;

	for (unsigned long va = a; va < a + len; va += PAGE_SIZE)
		n += swap_entry_at(mm, va, &e);
	return n;
}

/* The node of the folio mapped at @a. */
static inline int node_of(struct mm *mm, unsigned long a)
{
	return folio_at(mm, a)->page.node;
}

#endif
