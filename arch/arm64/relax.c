/*
 * relax.c (arm64) - the spin-wait hint of mm/spinlock.h.
 */
#include "spinlock.h"

/* YIELD: a hint that this thread spins, for SMT cores and hypervisors. */
void arch_cpu_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}
