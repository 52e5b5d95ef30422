/*
 * bench_active.c - active=K: K other CPUs in a benchmark's mm while CPU 0
 * times the operation (bench:zap, bench:mprotect, bench:migrate).
 *
 * CPUs 1..K switch to the mm and read one word of every page of the
 * range, so their TLBs hold its translations (as many as they keep), and
 * tell CPU 0 they are ready; CPU 0 then starts the clock. During the
 * operation they sleep in the mm with interrupts enabled until CPU 0 ends
 * the run: they stay in the mm's cpumask, so each x86 flush of the range
 * sends every one of them an IPI, which it takes in its sleep; arm64's
 * broadcast TLBI reaches their TLBs without one.
 *
 * They sleep rather than keep reading because under --accel icount the
 * instructions of every vCPU advance the one clock: a reading loop would
 * be counted as the operation's time. What the time includes is CPU 0's
 * work, the IPIs' delivery and handling on the other CPUs, and CPU 0's
 * wait for their acknowledgements: the cost of a shootdown.
 *
 * The range is populated before the readers start, so their reads take
 * no fault.
 */
#include "bench.h"
#include "kernel.h"
#include "mm.h"
#include "arch_mmu.h" /* arch_copy_user() */
#include "smp.h"
#include "spinlock.h" /* arch_cpu_relax() */

struct active_run {
	struct mm *mm;
	unsigned long addr, size;
	int (*op)(struct mm *mm, unsigned long addr, unsigned long size);
	unsigned readers;	 /* K */
	int err;		 /* the operation's result */
	volatile unsigned ready; /* readers that have read the range once */
	volatile unsigned done;	 /* set by CPU 0 when the operation is timed */
};

static void active_reader(struct active_run *r)
{
	uint64_t v;

	switch_mm(r->mm);
	for (unsigned long off = 0; off < r->size; off += PAGE_SIZE)
		(void)arch_copy_user(r->addr + off, &v, sizeof(v), 0);
	__atomic_fetch_add(&r->ready, 1, __ATOMIC_RELEASE);
	smp_wait(&r->done, 0);
	switch_mm(NULL);
}

static void active_caller(struct active_run *r)
{
	while (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) < r->readers)
		arch_cpu_relax();
	bench_start();
	r->err = r->op(r->mm, r->addr, r->size);
	bench_stop();
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	for (unsigned cpu = 1; cpu <= r->readers; cpu++)
		smp_wake(cpu);
}

static void active_fn(unsigned cpu, void *arg)
{
	struct active_run *r = arg;

	if (cpu == 0)
		active_caller(r);
	else
		active_reader(r);
}

int bench_timed(struct mm *mm, unsigned long addr, const struct bench_params *p,
		int (*op)(struct mm *mm, unsigned long addr, unsigned long size))
{
	struct active_run r = {
		.mm = mm, .addr = addr, .size = p->size, .op = op, .readers = p->active
	};
	int err;

	if (!p->active) {
		bench_start();
		err = op(mm, addr, p->size);
		bench_stop();
		return err;
	}
	smp_run(p->active + 1, active_fn, &r);
	return r.err;
}
