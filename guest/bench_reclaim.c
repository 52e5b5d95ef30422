/*
 * bench_reclaim.c - bench:reclaim: reclaim under memory pressure and the
 * swap-in after it (mm/vmscan.h). Each repetition sets the range's pages
 * aside for swap, puts every node's watermark half the range below its free
 * pages (or at reclaim_low= when given), and times a write of every page
 * of an unpopulated range (the faults of the second half find their node
 * below the watermark and reclaim from the inactive tail: young bits
 * tested and cleared per run of mm_caps.young, unreferenced folios unmapped
 * per run of mm_caps.pageout and written to swap whole, a PMD-mapped one
 * split to PTEs first) and then a read of
 * every page (swap-in faults of up to mm_caps.swapin pages). The variants
 * set young= and swapin= with pageout= (unless given): unbatched is all
 * three at 1, batched all three at max.
 *
 * bench:reclaim_shared - the same reclaim of folios a fork shares
 * (mm/reclaim_shared.c): each repetition sets half the range's pages
 * aside for swap, writes the first half of the range (untimed), forks a
 * child that maps it too, and puts every node's watermark a quarter of
 * the range below its free pages. It then times a write of the second
 * half, whose faults past the watermark reclaim the first half's folios
 * (the oldest) from both mms at once: each mm's run tested for young,
 * cleared and flushed once per mm, the data written once. Same variants;
 * the swap-in is bench:reclaim's and bench:swapin's.
 */
#include "bench.h"
#include "commands.h"
#include "kernel.h"
#include "knobs.h"
#include "mm.h"
#include "page.h"
#include "ptelab/cmdline.h"
#include "swap.h"
#include "vmscan.h"

static int op_reclaim(struct mm *mm, unsigned long addr, unsigned long size)
{
	if (mm_touch(mm, addr, size, true))
		return -1;
	return mm_touch(mm, addr, size, false) ? -1 : 0;
}

/* Every node's watermark: reclaim_low= as given, else @below pages
 * below the node's free pages now. */
static void set_watermarks(unsigned long below)
{
	unsigned long given = cmdline_num(&cmdline, CMDLINE_KEY_reclaim_low);

	for (int nid = 0; nid < nr_pglists; nid++) {
		unsigned long free = node_free_pages(nid);

		reclaim_set_low(nid, given ? given : free > below ? free - below : 1);
	}
}

static int rep_reclaim(const struct folio_size *fs, const struct bench_rep *r,
		       const struct bench_params *p)
{
	unsigned long pages = p->size >> PAGE_SHIFT, a;
	struct mm *mm = mm_create();
	int err = -1;

	(void)r;
	if (!mm)
		return -1;
	if (swap_reserve(pages) == (long)pages && (a = bench_map(mm, fs, p->size, false))) {
		set_watermarks(pages / 2);
		err = bench_timed(mm, a, p, op_reclaim);
	}
	reclaim_set_low(-1, cmdline_num(&cmdline, CMDLINE_KEY_reclaim_low));
	mm_put(mm);
	swap_unreserve();
	return err ? -1 : 0;
}

/* young= and swapin= follow the variant's pageout= unless given. */
static void apply_reclaim(const char *variant)
{
	(void)variant;
	if (!cmdline_get(&cmdline, "young"))
		mm_caps.young = mm_caps.pageout;
	if (!cmdline_get(&cmdline, "swapin"))
		mm_caps.swapin = mm_caps.pageout;
}

const struct bench bench_reclaim = {
	.default_folios = "4K,16K,64K,2M-pte,2M-pmd",
	.variants = variants_batching,
	.rep = rep_reclaim,
	.what = "write a range past the watermark (direct reclaim to swap), read it back",
	.apply = apply_reclaim,
};

/* The timed part of bench:reclaim_shared: the second half written (the
 * first, shared with the child, is what its faults reclaim). */
static int op_reclaim_shared(struct mm *mm, unsigned long addr, unsigned long size)
{
	return mm_touch(mm, addr + size / 2, size / 2, true) ? -1 : 0;
}

static int rep_reclaim_shared(const struct folio_size *fs, const struct bench_rep *r,
			      const struct bench_params *p)
{
	unsigned long pages = p->size >> PAGE_SHIFT, a;
	struct mm *mm = mm_create(), *child = NULL;
	int err = -1;

	(void)r;
	if (!mm)
		return -1;
	a = bench_map(mm, fs, p->size, false);
	/* The pool first: the LRU lists are kept only while it is there. */
	if (a && swap_reserve(pages / 2) == (long)(pages / 2) &&
	    !mm_touch(mm, a, p->size / 2, true) && (child = mm_fork(mm, NULL))) {
		set_watermarks(pages / 4);
		err = bench_timed(mm, a, p, op_reclaim_shared);
	}
	reclaim_set_low(-1, cmdline_num(&cmdline, CMDLINE_KEY_reclaim_low));
	if (child)
		mm_put(child);
	mm_put(mm);
	swap_unreserve();
	return err ? -1 : 0;
}

const struct bench bench_reclaim_shared = {
	.default_folios = "4K,16K,64K,2M-pte,2M-pmd",
	.variants = variants_batching,
	.rep = rep_reclaim_shared,
	.what = "fork, then write past the watermark: reclaim of folios both mms map",
	.apply = apply_reclaim,
};
