/*
 * test_smp.c - the guest's CPUs: smp_run() on every CPU, and the
 * stale-TLB detector.
 *
 * The detector: CPUs 1..N-1 switch to one mm and keep reading or writing
 * a range of it (CPU 0 uses it too before and after), with page faults
 * disabled (a fault just fails the access
 * through the copy's fixup, mm/ is not entered), while CPU 0 munmaps the
 * range, mprotects it read-only or migrates it to another node. CPU 0
 * publishes "returned" (phase 2) only after the call has returned; a
 * reader that saw phase 2 before an access must not read the range any
 * more (munmap), must not write it (mprotect), and every write it makes
 * must land in the page the mm maps now (migrate: CPU 0 reads the values
 * back through its own, fresh TLB). Only a translation left in some
 * CPU's TLB can break these: the page tables were changed before the
 * call returned. On x86 that is what the flush IPIs prevent; on arm64 the
 * broadcast TLBI. QEMU TCG keeps a software TLB per vCPU that honours
 * INVLPG as local and TLBI ...IS as broadcast, so a missing or narrowed
 * shootdown fails these cases there.
 */
#include <string.h>

#include "kernel.h"
#include "mempolicy.h"
#include "mm.h"
#include "mm_internal.h"
#include "percpu.h"
#include "test.h"

#define STALE_PAGES 8	/* within the 33-page INVLPG ceiling: per-page flushes */
#define POST_ROUNDS 200 /* passes over the range each reader makes after the call */
#define PRE_ROUNDS 20	/* passes CPU 0 waits for before the call */

enum stale_op { OP_MUNMAP, OP_MPROTECT, OP_MIGRATE };

struct stale_run {
	struct mm *mm;
	unsigned long addr;
	enum stale_op op;
	volatile int phase; /* 0 before the call, 1 during, 2 after it returned */
	volatile unsigned ready;
	volatile unsigned long rounds[NR_CPUS];
	unsigned long stale[NR_CPUS];	     /* accesses that succeeded but must not */
	uint64_t last[NR_CPUS][STALE_PAGES]; /* migrate: last value written after return */
	long ret;			     /* the call's result */
};

static unsigned long slot(const struct stale_run *r, unsigned cpu, int page)
{
	return r->addr + (unsigned long)page * PAGE_SIZE + cpu * sizeof(uint64_t);
}

/* One pass of reader @cpu over the range; @after: the call had returned
 * before the pass began. */
static void reader_pass(struct stale_run *r, unsigned cpu, bool after, uint64_t seq)
{
	for (int p = 0; p < STALE_PAGES; p++) {
		uint64_t v = seq;
		bool write = r->op != OP_MUNMAP;
		int err = arch_copy_user(slot(r, cpu, p), &v, sizeof(v), write);

		if (err || !after)
			continue;
		if (r->op == OP_MIGRATE)
			r->last[cpu][p] = seq;
		else
			r->stale[cpu]++;
	}
}

static void reader(struct stale_run *r, unsigned cpu)
{
	unsigned long post = 0;
	uint64_t seq = (uint64_t)cpu << 32;

	switch_mm(r->mm);
	pagefault_disable();
	__atomic_fetch_add(&r->ready, 1, __ATOMIC_SEQ_CST);
	while (post < POST_ROUNDS) {
		bool after = __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE) == 2;

		reader_pass(r, cpu, after, ++seq);
		r->rounds[cpu]++;
		post += after;
	}
	pagefault_enable();
	switch_mm(NULL);
}

/* The call itself, on CPU 0. */
static long stale_call(struct stale_run *r)
{
	if (r->op == OP_MUNMAP)
		return mm_munmap(r->mm, r->addr, STALE_PAGES * PAGE_SIZE);
	if (r->op == OP_MPROTECT)
		return mm_mprotect(r->mm, r->addr, STALE_PAGES * PAGE_SIZE, VM_READ);
	return migrate_pages(r->mm, 1ul << 0, 1ul << 1);
}

/* CPU 0: use the range itself (its own TLB is checked too, the only one
 * on a single CPU), wait until every reader has made a few passes, make
 * the call, publish that it returned, then access the range once more. */
static void caller(struct stale_run *r, unsigned ncpus)
{
	switch_mm(r->mm);
	pagefault_disable();
	for (unsigned i = 0; i < PRE_ROUNDS; i++)
		reader_pass(r, 0, false, i + 1);
	for (unsigned c = 1; c < ncpus; c++)
		while (r->ready < ncpus - 1 || r->rounds[c] < PRE_ROUNDS)
			arch_cpu_relax();
	r->phase = 1;
	pagefault_enable();
	r->ret = stale_call(r);
	__atomic_store_n(&r->phase, 2, __ATOMIC_RELEASE);
	pagefault_disable();
	reader_pass(r, 0, true, PRE_ROUNDS + 1);
	pagefault_enable();
	switch_mm(NULL);
}

static void stale_fn(unsigned cpu, void *arg)
{
	struct stale_run *r = arg;

	if (cpu == 0)
		caller(r, smp_nr_cpus());
	else
		reader(r, cpu);
}

/* After the run, the writes readers made after migrate_pages() returned
 * are in the pages the mm maps now. Return: how many are not. */
static unsigned long lost_writes(struct stale_run *r)
{
	unsigned long lost = 0;

	for (unsigned c = 0; c < smp_nr_cpus(); c++)
		for (int p = 0; p < STALE_PAGES; p++) {
			uint64_t v = 0;

			mm_access(r->mm, slot(r, c, p), &v, sizeof(v), false);
			if (r->last[c][p] && v != r->last[c][p]) {
				printf("    cpu%u page %d: wrote %#llx after the call, the page "
				       "has "
				       "%#llx\n",
				       c, p, (unsigned long long)r->last[c][p],
				       (unsigned long long)v);
				lost++;
			}
		}
	return lost;
}

/* Run the detector for @op; return the stale accesses it saw (printed). */
static unsigned long stale_run(enum stale_op op, struct mm_counters *d)
{
	static struct stale_run r;
	struct mm_counters c0;
	unsigned long stale = 0;

	memset(&r, 0, sizeof(r));
	r.op = op;
	r.mm = mm_create();
	CHECK(r.mm != NULL);
	r.addr = (unsigned long)mm_mmap(r.mm, 0, STALE_PAGES * PAGE_SIZE, VM_READ | VM_WRITE, 0, 1);
	CHECK(r.addr >= MM_USER_START);
	CHECK_EQ(mm_touch(r.mm, r.addr, STALE_PAGES * PAGE_SIZE, true), 0);
	c0 = mm_counters_read();
	smp_run(smp_nr_cpus(), stale_fn, &r);
	mm_counters_since(d, &c0);
	CHECK_EQ(r.ret, 0);
	for (unsigned c = 0; c < smp_nr_cpus(); c++) {
		if (r.stale[c])
			printf("    cpu%u: %lu accesses through a stale TLB entry after the call\n",
			       c, r.stale[c]);
		stale += r.stale[c];
	}
	if (op == OP_MIGRATE)
		stale += lost_writes(&r);
	printf("    %u cpus, %llu tlb_flushes, %llu tlb_shootdowns, %llu tlb_ipis\n", smp_nr_cpus(),
	       (unsigned long long)d->tlb_flushes, (unsigned long long)d->tlb_shootdowns,
	       (unsigned long long)d->tlb_ipis);
	mm_put(r.mm);
	CHECK_EQ(mm_check(NULL), 0);
	return stale;
}

/* A flush IPI goes to each other CPU that has the mm loaded, once per
 * shootdown; arm64 sends none (its TLBI is broadcast). */
static void check_ipis(const struct mm_counters *d)
{
	CHECK(d->tlb_shootdowns <= d->tlb_flushes);
	CHECK_EQ(d->tlb_ipis, d->tlb_shootdowns * (smp_nr_cpus() - 1));
}

static void one_cpu_note(void)
{
	if (smp_nr_cpus() < 2)
		printf("    note: one CPU: only the caller's own TLB is checked (--cpus N for "
		       "more)\n");
}

/* smp_run() runs the function once on every CPU, each seeing its own
 * number, and returns after all of them. */
static void mark_cpu(unsigned cpu, void *arg)
{
	unsigned *seen = arg;

	__atomic_fetch_add(&seen[cpu], 1 + (smp_processor_id() == cpu ? 100 : 0), __ATOMIC_RELAXED);
}

TEST(smp_run_reaches_every_cpu)
{
	unsigned seen[NR_CPUS] = { 0 };

	CHECK_EQ(smp_nr_cpus(), (unsigned)(machine.nr_cpus < NR_CPUS ? machine.nr_cpus : NR_CPUS));
	smp_run(smp_nr_cpus(), mark_cpu, seen);
	smp_run(smp_nr_cpus(), mark_cpu, seen);
	for (unsigned c = 0; c < smp_nr_cpus(); c++)
		CHECK_EQ(seen[c], 202);
	for (unsigned c = smp_nr_cpus(); c < NR_CPUS; c++)
		CHECK_EQ(seen[c], 0);
}

/* After munmap() returns, no CPU reads the unmapped pages. */
TEST(stale_tlb_munmap)
{
	struct mm_counters d;

	mm_init();
	one_cpu_note();
	CHECK_EQ(stale_run(OP_MUNMAP, &d), 0);
	check_ipis(&d);
}

/* After mprotect(PROT_READ) returns, no CPU writes through a writable
 * entry it cached before. */
TEST(stale_tlb_mprotect)
{
	struct mm_counters d;

	mm_init();
	one_cpu_note();
	CHECK_EQ(stale_run(OP_MPROTECT, &d), 0);
	check_ipis(&d);
}

/* After migrate_pages() returns, every write lands in the new page. */
TEST(stale_tlb_migrate)
{
	struct mm_counters d;

	mm_init();
	if (nr_pglists < 2) {
		printf("    note: one node: nothing to migrate to; munmap and mprotect cover "
		       "the flush\n");
		CHECK_EQ(stale_run(OP_MUNMAP, &d), 0);
		return;
	}
	one_cpu_note();
	CHECK_EQ(stale_run(OP_MIGRATE, &d), 0);
	check_ipis(&d);
}

TEST_SUITE(smp, smp_run_reaches_every_cpu, stale_tlb_munmap, stale_tlb_mprotect, stale_tlb_migrate)
