/*
 * sched_point.h - the switch points of the schedule explorer: places where
 * another CPU's step could change what this CPU is about to see, so an
 * explorer that runs one CPU at a time (the host runner's, arch/host/
 * explore.c) may hand the machine to another CPU there.
 *
 * mm/ calls arch_sched_point(kind) at every lock acquire and release, every
 * atomic read-modify-write of a page, folio or counter other CPUs touch,
 * every page-table entry read and write through the pgtable accessors,
 * lockless-walk begin and end, every TLB flush and shootdown wait, and
 * every spin (arch_cpu_relax(): the host's does it itself), and every
 * window: a step between a decision made from state other CPUs change
 * (a run of entries read, a reference count looked at) and the act that
 * relies on it (the clear), where the explorer's PCT is told to try
 * another CPU's steps (arch/host/explore.c).
 *
 * Optional arch hook: the default does nothing, so a guest compiles every
 * switch point away; arch/host defines its own in its arch.h (one test of
 * a global while no exploration runs) and `#define arch_sched_point
 * arch_sched_point`.
 */
#ifndef MM_SCHED_POINT_H
#define MM_SCHED_POINT_H

enum sched_point_kind {
	SCHED_LOCK,	 /* before a lock acquire */
	SCHED_UNLOCK,	 /* after a lock release */
	SCHED_ATOMIC,	 /* before an atomic RMW of a shared page/folio/counter */
	SCHED_PTE_READ,	 /* before a page-table entry read */
	SCHED_PTE_WRITE, /* before a page-table entry write or RMW */
	SCHED_WALK,	 /* lockless walk begin or end */
	SCHED_TLB,	 /* before a TLB flush or a wait for other CPUs' walks */
	SCHED_SPIN,	 /* a spin: this CPU waits for another one */
	SCHED_WINDOW,	 /* between a decision on shared state and the act on it */
	NR_SCHED_POINT_KINDS,
};

#ifndef arch_sched_point
static inline void arch_sched_point(unsigned kind)
{
	(void)kind;
}
#endif

#endif
