/*
 * bench_numa_hint.c - bench:numa_hint: one NUMA hinting scan
 * (change_prot_numa()) over populated memory whose folios are all off
 * the target node, so every entry is marked (Linux's batched
 * change_prot_numa(), 6.17: 2.1 s -> 0.65 s for PTE-mapped THP). The
 * target is node index 1; on a one-node machine it is node 0, where
 * every folio already is: the scan then only skips, run by run, which is
 * the other half of the batching.
 */
#include "bench.h"
#include "kernel.h"
#include "mempolicy.h"
#include "mm.h"

static int op_numa_hint(struct mm *mm, unsigned long addr, unsigned long size)
{
	int nid = nr_pglists > 1 ? 1 : 0;

	return change_prot_numa(mm, addr, addr + size, nid) < 0 ? -1 : 0;
}

static int rep_numa_hint(const struct folio_size *fs, const struct bench_rep *r,
			 const struct bench_params *p)
{
	(void)r;
	return bench_rep_populated(fs, p, NULL, op_numa_hint);
}

const struct bench bench_numa_hint = {
	.default_folios = "4K,16K,64K,2M-pte,2M-pmd",
	.variants = variants_batching,
	.rep = rep_numa_hint,
	.what = "NUMA hinting scan (change_prot_numa) of populated memory"
};
