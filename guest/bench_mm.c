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

/*
 * One repetition: a fresh mm with @p->size of memory for @fs (populated
 * when @populate), then @op timed on it, then the mm torn down untimed.
 */
static int rep_with_mm(const struct folio_size *fs, const struct bench_params *p, bool populate,
		       int (*op)(struct mm *mm, unsigned long addr, unsigned long size))
{
	struct mm *mm = mm_create();
	unsigned long a = mm ? bench_map(mm, fs, p->size, populate) : 0;
	int err = -1;

	if (a)
		err = bench_timed(mm, a, p, op);
	if (mm)
		mm_put(mm);
	return err ? -1 : 0;
}

static int op_zap(struct mm *mm, unsigned long addr, unsigned long size)
{
	return mm_munmap(mm, addr, size);
}

static int op_mprotect(struct mm *mm, unsigned long addr, unsigned long size)
{
	int err = mm_mprotect(mm, addr, size, VM_READ);

	return err ? err : mm_mprotect(mm, addr, size, VM_READ | VM_WRITE);
}

static int op_fault(struct mm *mm, unsigned long addr, unsigned long size)
{
	return mm_touch(mm, addr, size, true);
}

static int rep_zap(const struct folio_size *fs, const struct bench_rep *r,
		   const struct bench_params *p)
{
	(void)r;
	return rep_with_mm(fs, p, true, op_zap);
}

static int rep_mprotect(const struct folio_size *fs, const struct bench_rep *r,
			const struct bench_params *p)
{
	(void)r;
	return rep_with_mm(fs, p, true, op_mprotect);
}

static int rep_fault(const struct folio_size *fs, const struct bench_rep *r,
		     const struct bench_params *p)
{
	(void)r;
	return rep_with_mm(fs, p, false, op_fault);
}

const struct bench bench_zap = { .name = "zap",
				 .default_folios = "4K,16K,64K,2M-pte,2M-pmd",
				 .variants = variants_batching,
				 .rep = rep_zap,
				 .what = "munmap of populated anon memory",
				 .cap_key = "zap",
				 .takes_active = true };
const struct bench bench_mprotect = { .name = "mprotect",
				      .default_folios = "4K,16K,64K,2M-pte,2M-pmd",
				      .variants = variants_batching,
				      .rep = rep_mprotect,
				      .what = "mprotect RO then RW of populated memory",
				      .cap_key = "mprotect",
				      .takes_active = true };
/* The fault path has no batching cap: one variant, whatever the knobs. */
const struct bench bench_fault = { .name = "fault",
				   .default_folios = "4K,16K,64K,2M-pte,2M-pmd",
				   .variants = variants_fault,
				   .rep = rep_fault,
				   .what = "write fault-in of every page" };
