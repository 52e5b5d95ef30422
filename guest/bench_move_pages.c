/*
 * bench_move_pages.c - run=bench:move_pages: move_pages() of every page of
 * populated anon memory to node 1, then back to node 0, one call each way
 * (`make compare` times Linux's move_pages(2) the same way, docs/linux.md).
 *
 * Variants: unbatched (migrate_unmap=1 migrate_flush=1: per-PTE unmap and
 * remap, a flush per folio) and batched (both max). move_pages() looks
 * each page up itself, so the queue cap (migrate=) does not apply; caps=
 * sweeps migrate_unmap with migrate_flush as the command line gives it.
 * Needs a second node (--nodes 2) with room for @size.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "kernel.h"
#include "knobs.h"
#include "mempolicy.h"
#include "mm.h"

/* A default variant sets the flush cap with the unmap cap; a cap=N one
 * keeps the command line's. */
static void apply_move_variant(const char *variant)
{
	if (strncmp(variant, "cap=", 4) != 0)
		mm_caps.migrate_flush = mm_caps.migrate_unmap;
}

/* move_pages() of all @n pages from @a to @node. Return: 0 or -1. */
static int move_all(struct mm *mm, unsigned long a, unsigned long n, int node, unsigned long *addrs,
		    int *nodes, int *status)
{
	for (unsigned long i = 0; i < n; i++) {
		addrs[i] = a + i * PAGE_SIZE;
		nodes[i] = node;
	}
	if (move_pages(mm, n, addrs, nodes, status, MPOL_MF_MOVE))
		return -1;
	for (unsigned long i = 0; i < n; i++)
		if (status[i] != node)
			return -1;
	return 0;
}

/* One repetition: populate on node 0 (untimed), then the round trip. */
static int rep_move_pages(const struct folio_size *fs, const struct bench_rep *r,
			  const struct bench_params *p)
{
	unsigned long n = p->size >> PAGE_SHIFT, a;
	unsigned long *addrs = malloc(n * sizeof(*addrs));
	int *nodes = malloc(n * sizeof(*nodes)), *status = malloc(n * sizeof(*status));
	struct mm *mm = addrs && nodes && status ? mm_create() : NULL;
	int err = -1;

	(void)r;
	a = mm ? bench_map(mm, fs, p->size, true) : 0;
	if (a) {
		bench_start();
		err = move_all(mm, a, n, 1, addrs, nodes, status);
		if (!err)
			err = move_all(mm, a, n, 0, addrs, nodes, status);
		bench_stop();
	}
	if (mm)
		mm_put(mm);
	free(addrs);
	free(nodes);
	free(status);
	return err;
}

const struct bench bench_move_pages = { .default_folios = "4K,16K,64K,2M-pte,2M-pmd",
					.variants = variants_batching,
					.rep = rep_move_pages,
					.what = "move_pages of every page to node 1 and back",
					.apply = apply_move_variant };
