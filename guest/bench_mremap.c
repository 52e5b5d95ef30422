/*
 * bench_mremap.c - bench:mremap: MREMAP_MAYMOVE | MREMAP_FIXED of populated
 * memory to a free range (Linux's batched move_ptes(), Dev Jain, 6.17:
 * 1.9 s -> 1.2 s on arm64 with 64 KiB mTHP).
 *
 * The destination is the first 2 MiB boundary a PMD past the end of the
 * range, plus 64 KiB for the PTE-mapped cells: aligned to every folio
 * below 2 MiB (arm64 blocks fold there) but not to a PMD, so the entries
 * move PTE by PTE (an aligned destination would move whole PTE tables,
 * at any cap) and a 2 MiB folio's run is cut once where the destination's
 * table ends. The 2M-pmd cell moves to the boundary itself: each PMD
 * leaf moves by its entry. tests/bench/linux/lbench.c does the same.
 */
#include "bench.h"
#include "kernel.h"
#include "mm.h"

/* The destination's offset past a 2 MiB boundary for this repetition. */
static unsigned long dst_off;

static int op_mremap(struct mm *mm, unsigned long addr, unsigned long size)
{
	unsigned long dst = ((addr + size + PMD_SIZE - 1) & PMD_MASK) + PMD_SIZE + dst_off;
	long r = mm_mremap(mm, addr, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, dst);

	return r == (long)dst ? 0 : -1;
}

static int rep_mremap(const struct folio_size *fs, const struct bench_rep *r,
		      const struct bench_params *p)
{
	struct mm *mm = mm_create();
	unsigned long a = mm ? bench_map(mm, fs, p->size, true) : 0;
	int err = -1;

	(void)r;
	dst_off = fs->pmd ? 0 : 64ul << 10;
	if (a)
		err = bench_timed(mm, a, p, op_mremap);
	if (mm)
		mm_put(mm);
	return err ? -1 : 0;
}

const struct bench bench_mremap = { .default_folios = "4K,16K,64K,2M-pte,2M-pmd",
				    .variants = variants_batching,
				    .rep = rep_mremap,
				    .what = "mremap (move) of populated memory" };
