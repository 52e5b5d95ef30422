/*
 * bench_swap.c - bench:pageout and bench:swapin: the two halves of
 * swapping a large folio out and in (mm/swap.h).
 *  pageout  one MADV_PAGEOUT of populated memory: every folio unmapped
 *           (runs of mm_caps.pageout: Linux's folio_unmap_pte_batch(),
 *           6.15), copied to the RAM swap device and freed;
 *  swapin   after an untimed MADV_PAGEOUT, one read of each page: each
 *           fault reads a folio of up to mm_caps.swapin pages back and maps
 *           it with one set_ptes() (Linux 6.12's mTHP swap-in).
 * The swap device is RAM, so the copy is a memcpy, not I/O: what the caps
 * change is the page-table side, which is what these measure.
 */
#include "bench.h"
#include "kernel.h"
#include "madvise.h"
#include "mm.h"

static int op_pageout(struct mm *mm, unsigned long addr, unsigned long size)
{
	return mm_madvise(mm, addr, size, MADV_PAGEOUT) ? -1 : 0;
}

static int op_swapin(struct mm *mm, unsigned long addr, unsigned long size)
{
	return mm_touch(mm, addr, size, false) ? -1 : 0;
}

static int rep_pageout(const struct folio_size *fs, const struct bench_rep *r,
		       const struct bench_params *p)
{
	(void)r;
	return bench_rep_populated(fs, p, NULL, op_pageout);
}

static int rep_swapin(const struct folio_size *fs, const struct bench_rep *r,
		      const struct bench_params *p)
{
	(void)r;
	return bench_rep_populated(fs, p, op_pageout, op_swapin);
}

const struct bench bench_pageout = { .default_folios = "4K,16K,64K,2M-pte,2M-pmd",
				     .variants = variants_batching,
				     .rep = rep_pageout,
				     .what = "MADV_PAGEOUT of populated memory to the RAM swap" };

const struct bench bench_swapin = { .default_folios = "4K,16K,64K,2M-pte",
				    .variants = variants_batching,
				    .rep = rep_swapin,
				    .what = "read faults on swapped-out memory (swap-in)" };
