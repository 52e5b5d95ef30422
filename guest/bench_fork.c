/*
 * bench_fork.c - benchmarks of fork: the batched PTE copy (seed "mm:
 * batch-copy PTE ranges during fork") and the teardown of the child.
 *
 * fork:      mm_fork() of a parent with @size of populated, written anon
 *            memory (every page writable and AnonExclusive, as after the
 *            first touch). Linux measured -2% at 4K, -16% at 16K, -26% at
 *            64K and -30% at 2M (PTE-mapped) on a Xeon, 1 GiB.
 * fork_exit: mm_put() of the child right after such a fork, with the
 *            parent still alive: the child's zap drops one mapping and one
 *            reference per run (the batched zap) and frees its tables; no
 *            folio is freed.
 * Each repetition builds a fresh parent (untimed), so every fork sees the
 * same state; the counters of one repetition are in each RESULT line, per
 * GiB when size=1024 (ref_updates: 16 per 64 KiB folio unbatched, 1
 * batched).
 */
#include "bench.h"
#include "kernel.h"
#include "mm.h"

/*
 * One repetition: a populated parent (untimed), its fork, the child's
 * teardown, the parent's teardown (untimed). @timed_exit says which of
 * the two middle steps is timed. Return: 0, or -1 when memory ran out.
 */
static int rep_fork_common(const struct folio_size *fs, const struct bench_params *p,
			   bool timed_exit)
{
	struct mm *parent = mm_create(), *child = NULL;
	bool forked;

	if (parent && bench_map(parent, fs, p->size, true)) {
		if (!timed_exit)
			bench_start();
		child = mm_fork(parent, NULL);
		if (!timed_exit)
			bench_stop();
	}
	forked = child != NULL;
	if (child) {
		if (timed_exit)
			bench_start();
		mm_put(child);
		if (timed_exit)
			bench_stop();
	}
	if (parent)
		mm_put(parent);
	return forked ? 0 : -1;
}

static int rep_fork(const struct folio_size *fs, const struct bench_rep *r,
		    const struct bench_params *p)
{
	(void)r;
	return rep_fork_common(fs, p, false);
}

static int rep_fork_exit(const struct folio_size *fs, const struct bench_rep *r,
			 const struct bench_params *p)
{
	(void)r;
	return rep_fork_common(fs, p, true);
}

#define FORK_FOLIOS "4K,16K,32K,64K,128K,256K,512K,1M,2M-pte,2M-pmd"

const struct bench bench_fork = { .default_folios = FORK_FOLIOS,
				  .variants = variants_batching,
				  .rep = rep_fork,
				  .what = "fork of populated anon memory" };
/* The timed teardown is the child's zap: its cap is zap=. */
const struct bench bench_fork_exit = { .default_folios = FORK_FOLIOS,
				       .variants = variants_batching,
				       .rep = rep_fork_exit,
				       .what = "teardown of a fork child (parent alive)" };
