/*
 * bench_mm.c - benchmarks of the mm core: fault, zap, mprotect.
 *
 * zap:      munmap of populated memory (Linux's zap batching: -1% at 4K,
 *           -37% at 64K, -58% at 2M).
 * mprotect: one RO and one RW mprotect of populated memory (Linux: 7.9 s
 *           -> 2.2 s on 64K mTHP, 4K unchanged).
 * fault:    fault-in of every page by a write; reported per page too.
 */
#include "bench.h"
#include "kernel.h"
#include "mm.h"

static const char *const variants_fault[] = { "batched", NULL };

static int rep_zap(const struct folio_size *fs, const char *variant, const struct bench_params *p)
{
	struct mm *mm = mm_create();
	unsigned long a = mm ? bench_map(mm, fs, p->size, true) : 0;
	int err;

	(void)variant;
	if (!a) {
		if (mm)
			mm_put(mm);
		return -1;
	}
	bench_start();
	err = mm_munmap(mm, a, p->size);
	bench_stop();
	mm_put(mm);
	return err ? -1 : 0;
}

static int rep_mprotect(const struct folio_size *fs, const char *variant,
			const struct bench_params *p)
{
	struct mm *mm = mm_create();
	unsigned long a = mm ? bench_map(mm, fs, p->size, true) : 0;
	int err;

	(void)variant;
	if (!a) {
		if (mm)
			mm_put(mm);
		return -1;
	}
	bench_start();
	err = mm_mprotect(mm, a, p->size, VM_READ);
	if (!err)
		err = mm_mprotect(mm, a, p->size, VM_READ | VM_WRITE);
	bench_stop();
	mm_put(mm);
	return err ? -1 : 0;
}

static int rep_fault(const struct folio_size *fs, const char *variant, const struct bench_params *p)
{
	struct mm *mm = mm_create();
	unsigned long a = mm ? bench_map(mm, fs, p->size, false) : 0;
	int err;

	(void)variant;
	if (!a) {
		if (mm)
			mm_put(mm);
		return -1;
	}
	bench_start();
	err = mm_touch(mm, a, p->size, true);
	bench_stop();
	mm_put(mm);
	return err ? -1 : 0;
}

const struct bench bench_zap = { "zap", "4K,16K,64K,2M-pte,2M-pmd", variants_batching, rep_zap,
				 "munmap of populated anon memory" };
const struct bench bench_mprotect = { "mprotect", "4K,16K,64K,2M-pte,2M-pmd", variants_batching,
				      rep_mprotect, "mprotect RO then RW of populated memory" };
const struct bench bench_fault = { "fault", "4K,16K,64K,2M-pte,2M-pmd", variants_fault, rep_fault,
				   "write fault-in of every page" };
