/*
 * bench_mm.c - benchmarks of the mm core: fault, zap, mprotect.
 *
 * zap:      munmap of populated memory (Linux's zap batching: -1% at 4K,
 *           -37% at 64K, -58% at 2M).
 * mprotect: one RO and one RW mprotect of populated memory (Linux: 7.9 s
 *           -> 2.2 s on 64K mTHP, 4K unchanged).
 * fault:    fault-in of every page by a write; reported per page too.
 *           cpus=K: K CPUs fault disjoint parts of one mm at once, the
 *           size split among them in whole folios, timed from a common
 *           start to the last finish (bench_timed_on_cpus()).
 */
#include "bench.h"
#include "counters.h"
#include "kernel.h"
#include "mm.h"
#include "smp.h"

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

/* One fault repetition's split: CPU i writes [addr + i * share, + share),
 * the last CPU also the rest. */
struct fault_split {
	struct mm *mm;
	unsigned long addr, size, share, folio;
	unsigned ncpus;
	int err[NR_CPUS];
	uint64_t faults[NR_CPUS]; /* what each CPU's own faults counter counted */
};

static unsigned long fault_share_bytes(const struct fault_split *f, unsigned cpu)
{
	return cpu == f->ncpus - 1 ? f->size - cpu * f->share : f->share;
}

static void fault_share(unsigned cpu, void *arg)
{
	struct fault_split *f = arg;
	uint64_t f0 = __atomic_load_n(&mm_counters_cpu[cpu].c.faults, __ATOMIC_RELAXED);

	f->err[cpu] = mm_touch(f->mm, f->addr + cpu * f->share, fault_share_bytes(f, cpu), true);
	f->faults[cpu] = __atomic_load_n(&mm_counters_cpu[cpu].c.faults, __ATOMIC_RELAXED) - f0;
	if (cpu)
		switch_mm(NULL); /* no CPU but the caller keeps the mm loaded */
}

/* Did every CPU fault its own share, one fault per folio, and nothing
 * else? Return: 0, or -1 with the first CPU that did not printed. */
static int fault_split_check(const struct fault_split *f)
{
	for (unsigned cpu = 0; cpu < f->ncpus; cpu++) {
		uint64_t want = fault_share_bytes(f, cpu) / f->folio;

		if (f->err[cpu] || f->faults[cpu] != want)
			return printf("\nbench fault: cpu%u: error %d, %llu faults, wanted %llu\n",
				      cpu, f->err[cpu], (unsigned long long)f->faults[cpu],
				      (unsigned long long)want),
			       -1;
	}
	return 0;
}

/*
 * One repetition of bench:fault on p->cpus CPUs: a fresh mm of @p->size
 * for @fs, split in whole folios among the CPUs (a folio that two CPUs
 * shared would be faulted by whichever came first). Return: 0, or -1 when
 * a fault failed, a CPU did not fault exactly its share, or the size has
 * fewer folios than CPUs.
 */
static int rep_fault(const struct folio_size *fs, const struct bench_rep *r,
		     const struct bench_params *p)
{
	struct fault_split f = { .mm = mm_create(), .size = p->size, .ncpus = p->cpus };
	int err = -1;

	(void)r;
	f.folio = PAGE_SIZE << fs->order;
	f.share = p->size / f.ncpus / f.folio * f.folio;
	if (!f.share)
		printf("\nbench fault: size=%lu has fewer %s folios than cpus=%u\n", p->size >> 20,
		       fs->label, f.ncpus);
	f.addr = f.mm && f.share ? bench_map(f.mm, fs, p->size, false) : 0;
	if (f.addr) {
		bench_timed_on_cpus(f.ncpus, fault_share, &f);
		err = fault_split_check(&f);
	}
	if (f.mm)
		mm_put(f.mm);
	return err;
}

const struct bench bench_zap = { .default_folios = "4K,16K,64K,2M-pte,2M-pmd",
				 .variants = variants_batching,
				 .rep = rep_zap,
				 .what = "munmap of populated anon memory" };
const struct bench bench_mprotect = { .default_folios = "4K,16K,64K,2M-pte,2M-pmd",
				      .variants = variants_batching,
				      .rep = rep_mprotect,
				      .what = "mprotect RO then RW of populated memory" };
/* The fault path has no batching cap: one variant, whatever the knobs. */
const struct bench bench_fault = { .default_folios = "4K,16K,64K,2M-pte,2M-pmd",
				   .variants = variants_fault,
				   .rep = rep_fault,
				   .what = "write fault-in of every page" };
