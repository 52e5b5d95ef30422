/*
 * bench_madvise.c - run=bench:madvise advice=LIST: mm_madvise() of a
 * whole range, one bench per advice (its RESULT lines say madvise_free,
 * madvise_dontneed, madvise_populate, the names lbench gives Linux's):
 *
 *   free:     MADV_FREE of populated memory (Linux 6.10's batching:
 *             -94% to -99% on 1 GiB of 16K to 1M mTHP, from not
 *             splitting each folio); the variants set madvise=.
 *   dontneed: MADV_DONTNEED of populated memory: the zap path, so each
 *             variant's cap is given to zap= as well.
 *   populate: MADV_POPULATE_WRITE of unpopulated memory: the fault path,
 *             which has no cap (both variants run the same code).
 *
 * advice= is a comma-separated list (default free); run=bench:madvise_free
 * and the others name one directly.
 */
#include "bench.h"
#include "kernel.h"
#include "knob_parse.h"
#include "madvise.h"
#include "mm.h"

static int advice_now; /* the advice op_madvise() gives, set untimed */

static int op_madvise(struct mm *mm, unsigned long addr, unsigned long size)
{
	return mm_madvise(mm, addr, size, advice_now);
}

/* One repetition: a fresh mm with @p->size for @fs (written first unless
 * @advice populates), @advice timed over all of it, the mm torn down. */
static int rep_advice(const struct folio_size *fs, const struct bench_params *p, int advice)
{
	bool populate = advice != MADV_POPULATE_WRITE;
	struct mm *mm = mm_create();
	unsigned long a = mm ? bench_map(mm, fs, p->size, populate) : 0;
	int err = -1;

	if (advice == MADV_DONTNEED)
		mm_caps.zap = mm_caps.madvise; /* DONTNEED is the zap path */
	advice_now = advice;
	if (a)
		err = bench_timed(mm, a, p, op_madvise);
	if (mm)
		mm_put(mm);
	return err ? -1 : 0;
}

static int rep_free(const struct folio_size *fs, const struct bench_rep *r,
		    const struct bench_params *p)
{
	(void)r;
	return rep_advice(fs, p, MADV_FREE);
}

static int rep_dontneed(const struct folio_size *fs, const struct bench_rep *r,
			const struct bench_params *p)
{
	(void)r;
	return rep_advice(fs, p, MADV_DONTNEED);
}

static int rep_populate(const struct folio_size *fs, const struct bench_rep *r,
			const struct bench_params *p)
{
	(void)r;
	return rep_advice(fs, p, MADV_POPULATE_WRITE);
}

#define MADV_BENCH(adv, desc)                                                                      \
	const struct bench bench_madvise_##adv = { .default_folios = "4K,16K,64K,2M-pte,2M-pmd",   \
						   .variants = variants_batching,                  \
						   .rep = rep_##adv,                               \
						   .what = desc }

MADV_BENCH(free, "MADV_FREE of populated anon memory");
MADV_BENCH(dontneed, "MADV_DONTNEED of populated anon memory (zap= set to madvise=)");
MADV_BENCH(populate, "MADV_POPULATE_WRITE of unpopulated anon memory (no cap)");
