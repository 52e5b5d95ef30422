/*
 * lockless_walk.c - the freer's side of lockless_walk.h: wait out the
 * lockless walkers (gup-fast) before page-table pages are freed.
 */
#include "kernel.h"
#include "lockless_walk.h"
#include "mm_internal.h"
#include "spinlock.h"

struct lockless_walk_seq lockless_walk_seq[NR_CPUS];
#ifdef __SANITIZE_THREAD__
unsigned long mm_barrier_word;
#endif

void lockless_walk_sync(void)
{
	unsigned self = smp_processor_id();

	if (smp_nr_cpus() < 2)
		return;
	/* The cleared table entries before the seq reads (pairs with the
	 * walker's barrier in lockless_walk_begin()). */
	mm_full_barrier();
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		unsigned long s;

		arch_sched_point(SCHED_TLB);
		s = __atomic_load_n(&lockless_walk_seq[cpu].seq, __ATOMIC_ACQUIRE);

		if (cpu == self || !(s & 1))
			continue;
		count_event(lockless_waits, 1);
		/* Any change means that walk ended (a new one cannot reach
		 * the unhooked tables). Acquire: its reads came first. */
		while (__atomic_load_n(&lockless_walk_seq[cpu].seq, __ATOMIC_ACQUIRE) == s)
			arch_cpu_relax();
	}
}
