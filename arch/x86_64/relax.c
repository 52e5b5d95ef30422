/*
 * relax.c (x86_64) - the spin-wait hint of mm/spinlock.h.
 */
#include "spinlock.h"

/* PAUSE: tells the core it is in a spin loop (saves power, and avoids
 * the memory-order mis-speculation when the lock is released). */
void arch_cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}
