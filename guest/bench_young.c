/*
 * bench_young.c - bench:young: one aging pass (mm_clear_young()) over
 * populated memory whose entries are all young: every run tested,
 * cleared and flushed (Linux's clear_flush_young_ptes() in
 * folio_referenced_one(), 7.0: 1.518 s -> 1.018 s on arm64). young=1
 * flushes each young page; batched, each run of one folio.
 */
#include "bench.h"
#include "kernel.h"
#include "mm.h"
#include "young.h"

static int op_young(struct mm *mm, unsigned long addr, unsigned long size)
{
	return mm_clear_young(mm, addr, addr + size, true) < 0 ? -1 : 0;
}

static int rep_young(const struct folio_size *fs, const struct bench_rep *r,
		     const struct bench_params *p)
{
	(void)r;
	return bench_rep_populated(fs, p, NULL, op_young);
}

const struct bench bench_young = {
	.default_folios = "4K,16K,64K,2M-pte,2M-pmd",
	.variants = variants_batching,
	.rep = rep_young,
	.what = "aging: test and clear the young bits of populated memory"
};
