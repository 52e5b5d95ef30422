/*
 * relax.c (x86_64) - how a CPU spins in a lock (core/include/spinlock.h): PAUSE,
 * in the spin and in the slow path without PV unhalt (the halt and kick
 * with it: pvlock.c).
 */
#include "spinlock.h"

/* PAUSE: tells the core it is in a spin loop (saves power, and avoids
 * the memory-order mis-speculation when the lock is released). */
void arch_cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

void arch_lock_wait(const uint16_t *word, uint16_t val)
{
	(void)word;
	(void)val;
	arch_cpu_relax();
}
