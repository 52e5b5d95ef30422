/*
 * smp.c - the guest's CPUs (core/include/smp.h) on top of its arch's
 * bring-up (core/include/percpu.h).
 *
 * smp_init() starts the tree's CPUs one at a time: each gets a kernel
 * stack and a struct percpu, the arch starts it (INIT-SIPI-SIPI, PSCI
 * CPU_ON), and the boot CPU waits a bounded time for it to say it is
 * online. A started CPU then sleeps in arch_cpu_wait() on its mailbox;
 * smp_run() fills the mailboxes, wakes the CPUs with an IPI, runs its own
 * share and waits for the others to count down smp_run_pending.
 *
 * Ordering: the mailbox's fn/arg are published by the release store of
 * work_seq and read after the acquire load that sees it; each CPU's
 * decrement of smp_run_pending is a release, so what fn wrote is visible
 * to the caller once it reads zero (acquire).
 */
#include <malloc.h>

#include "kernel.h"
#include "percpu.h"
#include "spinlock.h" /* arch_cpu_relax() */
#include "ptelab/abi.h"

#define SECONDARY_STACK_SIZE 0x10000
#define CPU_START_TIMEOUT_NS 3000000000ull /* TCG on a busy host is slow, not this slow */

struct percpu percpu_area[NR_CPUS];
static unsigned nr_online = 1;
static uint64_t bringup_ns;
static volatile unsigned smp_run_pending;

_Static_assert(offsetof(struct percpu, cpu) == ARCH_PERCPU_CPU_OFFSET,
	       "asm/cpu_number.h reads the cpu field at the wrong offset");

unsigned smp_nr_cpus(void)
{
	return nr_online;
}

uint64_t smp_bringup_us(void)
{
	return bringup_ns / 1000;
}

static void cpu_fail(const struct percpu *pc, const char *why)
{
	printf("smp: cpu%u (hwid %#llx, node %d) did not come up: %s\n", pc->cpu,
	       (unsigned long long)pc->hwid, pc->node, why);
	fflush(stdout);
	arch_exit(PTELAB_EXIT_CRASH);
}

/* Start CPU @cpu and wait until it is online. */
static void cpu_up(unsigned cpu)
{
	struct percpu *pc = &percpu_area[cpu];
	char err[96];
	uint64_t t0;

	pc->self = pc;
	pc->cpu = cpu;
	pc->hwid = machine.cpu_hwid[cpu];
	pc->node = machine.cpu_node[cpu];
	pc->stack_size = SECONDARY_STACK_SIZE;
	pc->stack = memalign(4096, SECONDARY_STACK_SIZE);
	if (!pc->stack)
		cpu_fail(pc, "no memory for its stack");
	if (arch_cpu_start(pc, err, sizeof(err)))
		cpu_fail(pc, err);
	t0 = time_ns();
	while (!__atomic_load_n(&pc->online, __ATOMIC_ACQUIRE)) {
		if (time_ns() - t0 > CPU_START_TIMEOUT_NS)
			cpu_fail(pc, "not online within 3 s of its start request");
		arch_cpu_relax();
	}
}

void smp_init(void)
{
	struct percpu *boot = this_cpu();
	unsigned n = (unsigned)machine.nr_cpus;
	uint64_t t0 = time_ns();

	boot->hwid = machine.cpu_hwid[0];
	boot->node = machine.cpu_node[0];
	boot->online = true;
	if (n > NR_CPUS) {
		printf("smp: the tree lists %u CPUs, the guest supports %d: using %d\n", n, NR_CPUS,
		       NR_CPUS);
		n = NR_CPUS;
	}
	arch_smp_prepare();
	for (unsigned cpu = 1; cpu < n; cpu++) {
		cpu_up(cpu);
		nr_online++;
	}
	bringup_ns = time_ns() - t0;
	if (n > 1) /* the bring-up time (guest clock), what --timing leaves out */
		printf("smp: %u of %d cpus online, secondaries up in %llu us\n", nr_online,
		       machine.nr_cpus, (unsigned long long)smp_bringup_us());
}

void smp_secondary_main(struct percpu *pc)
{
	unsigned seen = 0;

	__atomic_store_n(&pc->online, true, __ATOMIC_RELEASE);
	for (;;) {
		arch_cpu_wait(&pc->work_seq, seen);
		seen = __atomic_load_n(&pc->work_seq, __ATOMIC_ACQUIRE);
		pc->fn(pc->cpu, pc->arg);
		__atomic_fetch_sub(&smp_run_pending, 1, __ATOMIC_RELEASE);
	}
}

void smp_run(unsigned ncpus, void (*fn)(unsigned cpu, void *arg), void *arg)
{
	if (ncpus == 0 || ncpus > nr_online)
		panic("smp_run: %u CPUs asked for, %u online", ncpus, nr_online);
	if (smp_processor_id() != 0)
		panic("smp_run: called on cpu%u, only cpu0 runs commands", smp_processor_id());
	if (smp_run_pending)
		panic("smp_run: nested call (%u CPUs still busy)", smp_run_pending);
	smp_run_pending = ncpus - 1;
	for (unsigned cpu = 1; cpu < ncpus; cpu++) {
		struct percpu *pc = &percpu_area[cpu];

		pc->fn = fn;
		pc->arg = arg;
		__atomic_store_n(&pc->work_seq, pc->work_seq + 1, __ATOMIC_RELEASE);
		arch_cpu_wake(cpu);
	}
	fn(0, arg);
	while (__atomic_load_n(&smp_run_pending, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
}

void smp_wait(volatile unsigned *word, unsigned old)
{
	arch_cpu_wait(word, old);
}

void smp_wake(unsigned cpu)
{
	arch_cpu_wake(cpu);
}
