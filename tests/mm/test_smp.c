/*
 * test_smp.c - mm on several CPUs at once: faults of one mm from every CPU
 * (disjoint and shared pages), fork while other CPUs write, GUP pins from
 * several CPUs. The CPUs are smp_run()'s: threads on the host runners
 * (the ThreadSanitizer stage runs these), the guest's CPUs in
 * run=selftest. Each case then checks the invariants (mm_check), the
 * memory contents and that the per-CPU counters add up. With one CPU
 * online a case says so and checks the single-CPU part.
 *
 * Workers never call CHECK (the harness counts on CPU 0): they record
 * what they saw, and CPU 0 checks it after smp_run() has joined them.
 * A worker leaves no mm live on its CPU (switch_mm(NULL)), so no CPU's
 * MMU walks an mm after the case frees it.
 */
#include "mm_cases.h"
#include "gup.h"
#include "smp.h"
#include "spinlock.h"

#define SMP_MAX 4	 /* CPUs a case uses at most */
#define PAGES_PER_CPU 64 /* disjoint pages each CPU faults */
#define SHARED_PAGES 16	 /* pages every CPU writes, per round */
#define SHARED_ROUNDS 8	 /* rounds, each in a PMD of its own */
#define MPROTECTS 8	 /* mprotect RO/RW pairs while others read */
#define FORKS 6		 /* forks CPU 0 makes while the others write */
#define PIN_ROUNDS 20	 /* pin + unpin calls per CPU */
#define PIN_PAGES 64	 /* pages per pin call: four 64K folios */

static unsigned smp_cpus(void)
{
	unsigned n = smp_nr_cpus();

	if (n < 2)
		printf("    1 CPU online: the single-CPU part only\n");
	return n < SMP_MAX ? n : SMP_MAX;
}

/* Per-CPU results; CPU 0 reads them after the join. */
struct smp_case {
	struct mm *mm;
	unsigned long base;
	unsigned ncpus;
	int errors[NR_CPUS];
	uint64_t faults[NR_CPUS];	/* this CPU's own faults counter over its work */
	unsigned stop;			/* fork case: CPU 0 tells the writers to stop */
	uint32_t last[NR_CPUS];		/* fork case: the last value each writer wrote */
	unsigned arrived;		/* barrier: CPUs that reached it */
	struct page *expect[PIN_PAGES]; /* GUP case: the pages mapped */
};

static uint64_t cpu_faults(unsigned cpu)
{
	return __atomic_load_n(&mm_counters_cpu[cpu].c.faults, __ATOMIC_RELAXED);
}

/* ---- every CPU faulting one mm ------------------------------------------- */

/* Each CPU writes its number into the first word of each of its pages. */
static void fault_disjoint(unsigned cpu, void *arg)
{
	struct smp_case *c = arg;
	unsigned long a = c->base + (unsigned long)cpu * PAGES_PER_CPU * PAGE_SIZE;
	uint64_t f0 = cpu_faults(cpu);

	for (unsigned i = 0; i < PAGES_PER_CPU; i++, a += PAGE_SIZE) {
		uint32_t v = cpu + 1;

		c->errors[cpu] += mm_access(c->mm, a, &v, sizeof(v), true) != 0;
	}
	c->faults[cpu] = cpu_faults(cpu) - f0;
	switch_mm(NULL);
}

/* Every CPU faults its own pages of one mm at once: each page is faulted
 * once, by its CPU (the per-CPU fault counts are exact), holds what its
 * CPU wrote, and the checker passes. */
TEST(smp_faults_on_disjoint_pages)
{
	uint64_t free0;
	struct smp_case c = { .mm = mm_case_begin(&free0) };
	struct mm_counters c0;
	uint64_t faults = 0;
	bool contents = true;

	c.ncpus = smp_cpus();
	c.base = test_mmap(c.mm, (unsigned long)c.ncpus * PAGES_PER_CPU * PAGE_SIZE, RW, 1);
	c0 = mm_counters_read();
	smp_run(c.ncpus, fault_disjoint, &c);
	for (unsigned cpu = 0; cpu < c.ncpus; cpu++) {
		CHECK_EQ(c.errors[cpu], 0);
		CHECK_EQ(c.faults[cpu], PAGES_PER_CPU);
		faults += c.faults[cpu];
	}
	CHECK_EQ(counters_since(&c0).faults, faults);
	CHECK_EQ(faults, (uint64_t)c.ncpus * PAGES_PER_CPU);
	for (unsigned long i = 0; i < (unsigned long)c.ncpus * PAGES_PER_CPU; i++) {
		uint32_t v = 0;

		mm_access(c.mm, c.base + i * PAGE_SIZE, &v, sizeof(v), false);
		contents &= v == i / PAGES_PER_CPU + 1;
	}
	CHECK(contents);
	mm_case_end(c.mm, free0);
}

/* Wait until all c->ncpus CPUs have arrived at barrier number @round
 * (0, 1, 2, ...), so they go on at the same moment. */
static void smp_barrier(struct smp_case *c, unsigned round)
{
	__atomic_fetch_add(&c->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&c->arrived, __ATOMIC_ACQUIRE) < (round + 1) * c->ncpus)
		arch_cpu_relax();
}

/* The first shared page of round @r: each round starts a new PMD, so
 * every CPU's first fault races to install the PTE table too. */
static unsigned long shared_page(struct smp_case *c, unsigned r, unsigned i)
{
	return c->base + (unsigned long)r * PMD_SIZE + (unsigned long)i * PAGE_SIZE;
}

/* Each CPU writes its number into its own word of every shared page,
 * all CPUs starting each round together. */
static void fault_shared(unsigned cpu, void *arg)
{
	struct smp_case *c = arg;
	uint64_t f0 = cpu_faults(cpu);

	for (unsigned r = 0; r < SHARED_ROUNDS; r++) {
		smp_barrier(c, r);
		for (unsigned i = 0; i < SHARED_PAGES; i++) {
			uint32_t v = cpu + 1;

			c->errors[cpu] += mm_access(c->mm, shared_page(c, r, i) + cpu * sizeof(v),
						    &v, sizeof(v), true) != 0;
		}
	}
	c->faults[cpu] = cpu_faults(cpu) - f0;
	switch_mm(NULL);
}

/* Every CPU faults the same pages at once, each round in a new PMD (so
 * the CPUs also race to hook its PTE table): each page gets one folio
 * and each PMD one table (no CPU's write lost to a page or table another
 * CPU put over it), so every page holds every CPU's word, the data
 * folios allocated are exactly the pages, the checker finds no table
 * unaccounted for, and the faults are at least the pages and add up
 * over CPUs. */
TEST(smp_faults_on_shared_pages)
{
	uint64_t free0, faults = 0;
	struct smp_case c = { .mm = mm_case_begin(&free0) };
	struct mm_counters c0, d;
	bool contents = true;

	c.ncpus = smp_cpus();
	c.base = test_mmap(c.mm, (SHARED_ROUNDS + 1) * PMD_SIZE, RW, 1);
	c.base = (c.base + PMD_SIZE - 1) & PMD_MASK;
	c0 = mm_counters_read();
	smp_run(c.ncpus, fault_shared, &c);
	d = counters_since(&c0);
	for (unsigned cpu = 0; cpu < c.ncpus; cpu++) {
		CHECK_EQ(c.errors[cpu], 0);
		faults += c.faults[cpu];
	}
	CHECK_EQ(d.faults, faults);
	CHECK(faults >= SHARED_ROUNDS * SHARED_PAGES);
	CHECK_EQ(d.folio_allocs - d.pt_allocs, SHARED_ROUNDS * SHARED_PAGES);
	for (unsigned r = 0; r < SHARED_ROUNDS; r++)
		for (unsigned i = 0; i < SHARED_PAGES; i++)
			for (unsigned cpu = 0; cpu < c.ncpus; cpu++) {
				uint32_t v = 0;

				mm_access(c.mm, shared_page(&c, r, i) + cpu * sizeof(v), &v,
					  sizeof(v), false);
				contents &= v == cpu + 1;
			}
	CHECK(contents);
	mm_case_end(c.mm, free0);
}

/* ---- fork while other CPUs write ----------------------------------------- */

/* CPUs 1.. write rising values into their own pages until told to stop;
 * CPU 0 forks FORKS times, checking and dropping each child. */
static void fork_writer(struct smp_case *c, unsigned cpu)
{
	unsigned long a = c->base + (unsigned long)cpu * PAGES_PER_CPU * PAGE_SIZE;
	uint32_t v = 0;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		v++;
		for (unsigned i = 0; i < PAGES_PER_CPU; i++)
			c->errors[cpu] +=
				mm_access(c->mm, a + i * PAGE_SIZE, &v, sizeof(v), true) != 0;
		__atomic_store_n(&c->last[cpu], v, __ATOMIC_RELEASE);
		arch_cpu_relax(); /* a round done: it waits for stop (an explorer's switch) */
	}
	switch_mm(NULL);
}

/* Read the child's copy of every writer page into @snap; count the pages
 * that cannot be read or hold a value their writer had not yet written
 * when the fork returned (@after: its last + 1, the round in progress). */
static int child_read(struct smp_case *c, struct mm *child, const uint32_t *after,
		      uint32_t snap[][PAGES_PER_CPU])
{
	int bad = 0;

	for (unsigned cpu = 1; cpu < c->ncpus; cpu++)
		for (unsigned i = 0; i < PAGES_PER_CPU; i++) {
			unsigned long a =
				c->base + ((unsigned long)cpu * PAGES_PER_CPU + i) * PAGE_SIZE;

			snap[cpu][i] = ~0u;
			bad += mm_access(child, a, &snap[cpu][i], sizeof(uint32_t), false) != 0 ||
			       snap[cpu][i] > after[cpu];
		}
	return bad;
}

/* Wait until every writer has finished a round it started after the fork
 * returned (it wrote every page again, through whatever its TLB held). */
static void wait_for_writers(struct smp_case *c, const uint32_t *after)
{
	for (unsigned cpu = 1; cpu < c->ncpus; cpu++)
		while (__atomic_load_n(&c->last[cpu], __ATOMIC_ACQUIRE) <= after[cpu])
			arch_cpu_relax();
}

/* One fork: the child must hold a consistent snapshot, and keep it while
 * the writers go on writing the parent (a writable TLB entry left over
 * from before the fork's flush would write into the shared page). */
static int fork_once(struct smp_case *c)
{
	static uint32_t snap[SMP_MAX][PAGES_PER_CPU], again[SMP_MAX][PAGES_PER_CPU];
	uint32_t after[NR_CPUS] = { 0 };
	struct mm *child = mm_fork(c->mm, NULL);
	int bad;

	if (!child)
		return 1;
	for (unsigned cpu = 1; cpu < c->ncpus; cpu++)
		after[cpu] = __atomic_load_n(&c->last[cpu], __ATOMIC_ACQUIRE) + 1;
	bad = child_read(c, child, after, snap);
	wait_for_writers(c, after);
	child_read(c, child, after, again);
	for (unsigned cpu = 1; cpu < c->ncpus; cpu++)
		for (unsigned i = 0; i < PAGES_PER_CPU; i++)
			bad += snap[cpu][i] != again[cpu][i];
	mm_put(child);
	return bad;
}

static void fork_cpu0(struct smp_case *c)
{
	for (int k = 0; k < FORKS; k++)
		c->errors[0] += fork_once(c);
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	switch_mm(NULL);
}

static void fork_while_writing(unsigned cpu, void *arg)
{
	if (cpu == 0)
		fork_cpu0(arg);
	else
		fork_writer(arg, cpu);
}

/* Fork while the other CPUs write the parent: each fork write-protects
 * pages other CPUs are writing through their TLBs; after its flush the
 * writers take COW faults, so each child holds a snapshot no later than
 * the fork and keeps it while the writers go on; the checker passes, and
 * each writer's last value is in the parent. */
TEST(smp_fork_while_other_cpus_write)
{
	uint64_t free0;
	struct smp_case c = { .mm = mm_case_begin(&free0) };
	bool contents = true;

	c.ncpus = smp_cpus();
	c.base = test_mmap(c.mm, (unsigned long)c.ncpus * PAGES_PER_CPU * PAGE_SIZE, RW, ORDERS(4));
	for (unsigned long i = 0; i < (unsigned long)c.ncpus * PAGES_PER_CPU; i++) {
		uint32_t zero = 0;

		CHECK_EQ(mm_access(c.mm, c.base + i * PAGE_SIZE, &zero, sizeof(zero), true), 0);
	}
	smp_run(c.ncpus, fork_while_writing, &c);
	for (unsigned cpu = 0; cpu < c.ncpus; cpu++)
		CHECK_EQ(c.errors[cpu], 0);
	for (unsigned cpu = 1; cpu < c.ncpus; cpu++) {
		uint32_t v = 0;

		for (unsigned i = 0; i < PAGES_PER_CPU; i++) {
			unsigned long a =
				c.base + ((unsigned long)cpu * PAGES_PER_CPU + i) * PAGE_SIZE;

			mm_access(c.mm, a, &v, sizeof(v), false);
			contents &= v == c.last[cpu];
		}
	}
	CHECK(contents);
	mm_case_end(c.mm, free0);
}

/* ---- mprotect while other CPUs read ---------------------------------------- */

/* CPU 0 makes the range read-only and writable again MPROTECTS times;
 * the others read their pages until it is done, counting wrong values. */
static void mprotect_cpu0(struct smp_case *c)
{
	unsigned long len = (unsigned long)c->ncpus * PAGES_PER_CPU * PAGE_SIZE;

	for (int k = 0; k < MPROTECTS; k++) {
		c->errors[0] += mm_mprotect(c->mm, c->base, len, VM_READ) != 0;
		c->errors[0] += mm_mprotect(c->mm, c->base, len, VM_READ | VM_WRITE) != 0;
	}
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
}

static void mprotect_reader(struct smp_case *c, unsigned cpu)
{
	unsigned long a = c->base + (unsigned long)cpu * PAGES_PER_CPU * PAGE_SIZE;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		for (unsigned i = 0; i < PAGES_PER_CPU; i++) {
			uint32_t v = 0;

			c->errors[cpu] +=
				mm_access(c->mm, a + i * PAGE_SIZE, &v, sizeof(v), false) ||
				v != cpu * PAGES_PER_CPU + i;
		}
		arch_cpu_relax(); /* a round done: it waits for stop (an explorer's switch) */
	}
	switch_mm(NULL);
}

static void mprotect_while_reading(unsigned cpu, void *arg)
{
	if (cpu == 0)
		mprotect_cpu0(arg);
	else
		mprotect_reader(arg, cpu);
}

/* mprotect clears and rewrites entries the other CPUs' MMUs are reading
 * (and, on x86, may set accessed or dirty in): every read sees the
 * page's own value (a fault in the window waits for the mmap_lock), the
 * checker passes, and ThreadSanitizer sees only atomic entry updates. */
TEST(smp_mprotect_while_other_cpus_read)
{
	uint64_t free0;
	struct smp_case c = { .mm = mm_case_begin(&free0) };

	c.ncpus = smp_cpus();
	c.base = test_mmap(c.mm, (unsigned long)c.ncpus * PAGES_PER_CPU * PAGE_SIZE, RW, ORDERS(4));
	for (uint32_t i = 0; i < c.ncpus * PAGES_PER_CPU; i++)
		CHECK_EQ(mm_access(c.mm, c.base + i * PAGE_SIZE, &i, sizeof(i), true), 0);
	smp_run(c.ncpus, mprotect_while_reading, &c);
	for (unsigned cpu = 0; cpu < c.ncpus; cpu++)
		CHECK_EQ(c.errors[cpu], 0);
	mm_case_end(c.mm, free0);
}

/* ---- GUP pins from several CPUs ------------------------------------------ */

/* Pin the range (fast path, then its slow fallback), check the pages,
 * unpin; PIN_ROUNDS times. */
static void pin_rounds(unsigned cpu, void *arg)
{
	struct smp_case *c = arg;
	struct page *pages[PIN_PAGES];

	for (int r = 0; r < PIN_ROUNDS; r++) {
		long n = pin_user_pages_fast(c->mm, c->base, PIN_PAGES, FOLL_WRITE, pages);

		if (n != PIN_PAGES) {
			c->errors[cpu]++;
			if (n > 0)
				unpin_user_pages(pages, (unsigned long)n);
			continue;
		}
		for (int i = 0; i < PIN_PAGES; i++)
			c->errors[cpu] += pages[i] != c->expect[i];
		unpin_user_pages(pages, PIN_PAGES);
	}
}

/* Several CPUs pin and unpin the same 64K folios at once: the refcounts
 * and pincounts come back exactly (one atomic add per run, no update
 * lost), the checker passes, and the refcount updates are N CPUs times
 * what one CPU's round costs. */
TEST(smp_gup_pins_from_several_cpus)
{
	uint64_t free0;
	struct smp_case c = { .mm = mm_case_begin(&free0) };
	struct mm_counters c0, one;
	int ref0[PIN_PAGES / 16];

	c.ncpus = smp_cpus();
	c.base = test_mmap(c.mm, PIN_PAGES * PAGE_SIZE, RW | VM_NOHUGEPMD, ORDERS(4));
	CHECK_EQ(mm_touch(c.mm, c.base, PIN_PAGES * PAGE_SIZE, true), 0);
	for (int i = 0; i < PIN_PAGES; i++) {
		bool by_pmd;
		pte_t pte;

		c.expect[i] = page_at(c.mm, c.base + (unsigned long)i * PAGE_SIZE, &by_pmd, &pte);
	}
	for (int f = 0; f < PIN_PAGES / 16; f++)
		ref0[f] = folio_ref_count(folio_at(c.mm, c.base + f * 16 * PAGE_SIZE));
	c0 = mm_counters_read();
	pin_rounds(0, &c); /* one CPU alone: the cost of PIN_ROUNDS rounds */
	one = counters_since(&c0);
	CHECK(one.ref_updates > 0);
	c0 = mm_counters_read();
	smp_run(c.ncpus, pin_rounds, &c);
	for (unsigned cpu = 0; cpu < c.ncpus; cpu++)
		CHECK_EQ(c.errors[cpu], 0);
	CHECK_EQ(counters_since(&c0).ref_updates, one.ref_updates * c.ncpus);
	for (int f = 0; f < PIN_PAGES / 16; f++) {
		struct folio *folio = folio_at(c.mm, c.base + f * 16 * PAGE_SIZE);

		CHECK_EQ(folio_ref_count(folio), ref0[f]);
		CHECK_EQ(folio_pincount(folio), 0);
	}
	mm_case_end(c.mm, free0);
}

/* ---- a lock waiter that halts ------------------------------------------ */

#define HALT_LOOKS (1u << 24) /* the holder's looks for the waiter */

struct halt_case {
	struct spinlock lock;
	bool halt;	       /* lock_pv_halt is on for the case */
	unsigned held;	       /* CPU 0 holds the lock */
	unsigned got;	       /* CPU 1 took it after CPU 0's unlock */
	unsigned saw_waiter;   /* CPU 0 saw CPU 1 halted (or waiting) before it unlocked */
	uint64_t waits, kicks; /* CPU 1's lock_waits, CPU 0's kicks */
};

/* CPU @cpu's own count of @name (only that CPU writes it). */
#define cpu_count(cpu, name) __atomic_load_n(&mm_counters_cpu[cpu].c.name, __ATOMIC_RELAXED)

/* Is CPU 1 where the case wants it: halted for the lock, or (no halt
 * here) holding a ticket behind CPU 0's? */
static bool halt_waiter_ready(struct halt_case *c)
{
	return c->halt ? lock_cpu_halted(1) : spin_is_contended(&c->lock);
}

/* CPU 0 takes the lock, waits until CPU 1 waits for it (halted, where
 * the machine can halt), unlocks; CPU 1 takes a ticket behind it. */
static void halt_holder_waiter(unsigned cpu, void *arg)
{
	struct halt_case *c = arg;
	uint64_t n0;

	if (cpu == 0) {
		spin_lock(&c->lock);
		flag_set(&c->held);
		for (unsigned i = 0; i < HALT_LOOKS && !halt_waiter_ready(c); i++)
			arch_cpu_relax();
		c->saw_waiter = halt_waiter_ready(c);
		n0 = lock_cpu_kicks(0);
		spin_unlock(&c->lock);
		c->kicks = lock_cpu_kicks(0) - n0;
	} else if (cpu == 1) {
		flag_wait(&c->held);
		n0 = cpu_count(1, lock_waits);
		spin_lock(&c->lock);
		c->waits = cpu_count(1, lock_waits) - n0;
		c->got = 1;
		spin_unlock(&c->lock);
	}
}

/* With the slow path's halt on (lock_pv_halt: the host runner, x86 on
 * KVM with PV unhalt), a waiter that found the lock held halts, and the
 * unlock wakes it: CPU 0 saw CPU 1 halted, its unlock kicked once, and
 * CPU 1 took the lock (without the kick it would sleep for ever; the
 * host runner's halt panics after 10 s). Where nothing halts, the same
 * hand-over through the spin. */
TEST(smp_lock_waiter_halts_and_the_unlock_wakes_it)
{
	struct halt_case c = { .lock = SPINLOCK_INIT(LOCK_LEAF, "halt case lock") };
	bool was = lock_pv_halt, was_virt = lock_virt;

	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: the single-CPU part only\n");
		spin_lock(&c.lock);
		CHECK(spin_is_locked(&c.lock) && !spin_is_contended(&c.lock));
		spin_unlock(&c.lock);
		CHECK(!spin_is_locked(&c.lock));
		return;
	}
	c.halt = arch_lock_can_halt();
	if (!c.halt)
		printf("    no halt-and-kick on this machine: the hand-over through the spin\n");
	lock_set_virt(false); /* a waiter out of turn holds no ticket to halt for */
	lock_pv_halt = c.halt;
	smp_run(2, halt_holder_waiter, &c);
	lock_pv_halt = was;
	lock_set_virt(was_virt);
	CHECK_EQ(c.saw_waiter, 1);
	CHECK_EQ(c.got, 1);
	CHECK(!spin_is_locked(&c.lock));
	if (c.halt) {
		CHECK(c.waits >= 1);
		CHECK_EQ(c.kicks, 1);
	}
}

/* ---- locks taken out of turn (lock_virt) -------------------------------- */

#define VIRT_ROUNDS 5000

struct virt_case {
	struct spinlock lock;
	struct rwlock rw;
	unsigned long plain;	/* written under lock, read and written plainly */
	unsigned long rw_plain; /* written under rw's write side */
	unsigned bad_reads;	/* a reader saw rw_plain odd: a writer inside */
};

/* Each CPU adds under the spinlock, and alternately writes (two steps,
 * odd in between) and reads under the rwlock. */
static void virt_lockers(unsigned cpu, void *arg)
{
	struct virt_case *c = arg;

	for (unsigned i = 0; i < VIRT_ROUNDS; i++) {
		unsigned long v;

		spin_lock(&c->lock);
		v = c->plain;
		arch_cpu_relax(); /* the host runner yields: others reach the lock */
		c->plain = v + 1;
		spin_unlock(&c->lock);
		if ((i + cpu) % 4 == 0) {
			write_lock(&c->rw);
			c->rw_plain++;
			arch_cpu_relax();
			c->rw_plain++;
			write_unlock(&c->rw);
		} else {
			read_lock(&c->rw);
			if (__atomic_load_n(&c->rw_plain, __ATOMIC_RELAXED) & 1)
				__atomic_fetch_add(&c->bad_reads, 1, __ATOMIC_RELAXED);
			read_unlock(&c->rw);
		}
	}
}

/* Under lock_virt (x86 on KVM without the PV halt) a waiter holds no
 * ticket and takes the lock when it finds it free: the spinlock and the
 * rwlock's writer still exclude each other, no count is lost, and every
 * lock is free with no waiter at the end. */
TEST(smp_lock_virt_takes_locks_out_of_turn_and_still_excludes)
{
	struct virt_case c = { .lock = SPINLOCK_INIT(LOCK_LEAF, "virt case lock"),
			       .rw = RWLOCK_INIT_CLASS(LOCK_LEAF, "virt case rwlock") };
	unsigned n = smp_cpus() < 4 ? smp_cpus() : 4;
	bool was = lock_virt;
	struct mm_counters c0 = mm_counters_read();
	unsigned long writes = 0;

	lock_set_virt(true);
	smp_run(n, virt_lockers, &c);
	lock_set_virt(was);
	for (unsigned cpu = 0; cpu < n; cpu++)
		for (unsigned i = 0; i < VIRT_ROUNDS; i++)
			writes += (i + cpu) % 4 == 0;
	printf("    %u CPUs, %lu contended takes\n", n,
	       (unsigned long)counters_since(&c0).other_lock_contended);
	CHECK_EQ(c.plain, (unsigned long)n * VIRT_ROUNDS);
	CHECK_EQ(c.rw_plain, 2 * writes);
	CHECK_EQ(c.bad_reads, 0);
	CHECK(!spin_is_locked(&c.lock) && !spin_is_contended(&c.lock));
	CHECK(!rwlock_is_locked(&c.rw));
}

TEST_SUITE(concurrency, smp_faults_on_disjoint_pages, smp_faults_on_shared_pages,
	   smp_fork_while_other_cpus_write, smp_mprotect_while_other_cpus_read,
	   smp_gup_pins_from_several_cpus, smp_lock_waiter_halts_and_the_unlock_wakes_it,
	   smp_lock_virt_takes_locks_out_of_turn_and_still_excludes)
