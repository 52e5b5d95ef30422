/*
 * smp.c - the host runners' CPUs (core/include/smp.h): POSIX threads.
 *
 * CPU 0 is the thread that calls smp_run(); CPUs 1 .. n-1 are threads
 * started for the call and joined before it returns, so everything a CPU
 * wrote is visible to CPU 0 afterwards (pthread_join is the barrier).
 * smp_processor_id() is a thread-local set when the thread starts (0 for
 * every thread smp_run did not start). How many CPUs are online is
 * host_smp_set_cpus()'s setting: 1 until a runner raises it.
 *
 * While the schedule explorer has a mode set (explore.h), the threads of
 * an smp_run() run one at a time in the order it picks: each starts
 * blocked, and CPU 0 hands over to the CPU picked first.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "explore.h"
#include "kernel.h"
#include "smp.h"
#include "spinlock.h"

__thread unsigned host_cpu_number; /* asm/cpu_number.h */
static unsigned nr_online = 1;
unsigned host_smp_running = 1;

unsigned smp_nr_cpus(void)
{
	return nr_online;
}

void host_smp_set_cpus(unsigned n)
{
	if (n == 0 || n > NR_CPUS)
		panic("host_smp_set_cpus: %u CPUs (1..%d)", n, NR_CPUS);
	nr_online = n;
}

/* A CPU's thread yields: the lock holder may be waiting for this core.
 * Under the explorer a spin is a switch point that lets another CPU run. */
void arch_cpu_relax(void)
{
	if (__atomic_load_n(&explore_running, __ATOMIC_RELAXED))
		explore_spin();
	else
		sched_yield();
}

/* The lock slow path: a yield. */
void arch_lock_wait(const uint16_t *word, uint16_t val)
{
	(void)word;
	(void)val;
	arch_cpu_relax();
}

/* The halt and kick of core/include/spinlock.h, for tests that set lock_pv_halt:
 * a kick sets the CPU's flag, a halt waits (yielding) until it can take
 * it, so a kick before the halt ends it at once, as KVM's PV unhalt does.
 * A halt that no kick ends in HOST_HALT_LIMIT_S seconds panics: on a real
 * machine that CPU would sleep for ever (a lost wake-up). */
#define HOST_HALT_LIMIT_S 10
static unsigned lock_kicked[NR_CPUS];

void arch_lock_halt(void)
{
	unsigned cpu = smp_processor_id();
	time_t t0 = time(NULL);

	while (!__atomic_exchange_n(&lock_kicked[cpu], 0, __ATOMIC_ACQUIRE)) {
		if (time(NULL) - t0 > HOST_HALT_LIMIT_S)
			panic("arch_lock_halt: cpu%u halted %d s and no unlock kicked it", cpu,
			      HOST_HALT_LIMIT_S);
		arch_cpu_relax();
	}
}

void arch_lock_kick(unsigned cpu)
{
	__atomic_store_n(&lock_kicked[cpu], 1, __ATOMIC_RELEASE);
}

bool arch_lock_can_halt(void)
{
	return true;
}

/* The host runner's spin budget is in spins only. */
uint64_t arch_lock_clock(void)
{
	return 0;
}

/* The host runner's CPUs are threads: none is known to be descheduled. */
bool arch_vcpu_is_preempted(unsigned cpu)
{
	(void)cpu;
	return false;
}

/* The host CPUs take no interrupts: a sleep is a yielding spin. */
void smp_wait(volatile unsigned *word, unsigned old)
{
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == old)
		arch_cpu_relax();
}

void smp_wake(unsigned cpu)
{
	(void)cpu;
}

struct cpu_start {
	unsigned cpu;
	void (*fn)(unsigned cpu, void *arg);
	void *arg;
};

static void *cpu_thread(void *p)
{
	struct cpu_start *s = p;

	host_cpu_number = s->cpu;
	explore_cpu_enter(s->cpu);
	s->fn(s->cpu, s->arg);
	explore_cpu_exit(s->cpu);
	return NULL;
}

void smp_run(unsigned ncpus, void (*fn)(unsigned cpu, void *arg), void *arg)
{
	struct cpu_start start[NR_CPUS];
	pthread_t tid[NR_CPUS];

	if (ncpus == 0 || ncpus > nr_online)
		panic("smp_run: %u CPUs asked for, %u online", ncpus, nr_online);
	if (host_cpu_number != 0)
		panic("smp_run: called on CPU %u, not CPU 0", host_cpu_number);
	__atomic_store_n(&host_smp_running, ncpus, __ATOMIC_RELAXED);
	explore_begin(ncpus);
	for (unsigned i = 1; i < ncpus; i++) {
		start[i] = (struct cpu_start){ i, fn, arg };
		if (pthread_create(&tid[i], NULL, cpu_thread, &start[i]))
			panic("smp_run: cannot start a thread for CPU %u", i);
	}
	explore_cpu_enter(0);
	fn(0, arg);
	explore_cpu_exit(0);
	for (unsigned i = 1; i < ncpus; i++)
		pthread_join(tid[i], NULL);
	explore_end();
	__atomic_store_n(&host_smp_running, 1, __ATOMIC_RELAXED);
}
