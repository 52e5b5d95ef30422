/*
 * bench_reclaim.c - bench:reclaim: reclaim under memory pressure and the
 * swap-in after it (mm/vmscan.h). Each repetition sets size/4 pages aside
 * for swap, puts every node's watermark half the range below its free
 * pages (or at reclaim_low= when given), and times a write of every page
 * of an unpopulated range (the faults of the second half find their node
 * below the watermark and reclaim from the inactive tail: young bits
 * tested and cleared per run of mm_caps.young, unreferenced folios unmapped
 * per run of mm_caps.pageout and written to swap whole, a PMD-mapped one
 * split to PTEs first) and then a read of
 * every page (swap-in faults of up to mm_caps.swapin pages). The variants
 * set young= and swapin= with pageout= (unless given): unbatched is all
 * three at 1, batched all three at max.
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

/* Every node's watermark: reclaim_low= as given, else half the range
 * below the node's free pages now. */
static void set_watermarks(unsigned long pages)
{
	unsigned long given = cmdline_num(&cmdline, CMDLINE_KEY_reclaim_low);

	for (int nid = 0; nid < nr_pglists; nid++) {
		unsigned long free = node_free_pages(nid);

		reclaim_set_low(nid, given ? given : free > pages / 2 ? free - pages / 2 : 1);
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
		set_watermarks(pages);
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
