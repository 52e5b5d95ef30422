/*
 * relax.c (arm64) - how a CPU waits in a lock (mm/spinlock.h): YIELD in
 * the spin; in the slow path WFE after an exclusive load of the lock
 * word. The unlocker's store to that word clears this CPU's exclusive
 * monitor, which is an event, so no kick is needed. Under KVM a WFE traps when the host CPU has other work, and KVM
 * runs another vCPU of the guest, likely the lock holder: the arm64 form
 * of a paravirtual lock's halt (docs/smp.md, "When vCPUs outnumber CPUs").
 */
#include "spinlock.h"

/* YIELD: a hint that this thread spins, for SMT cores and hypervisors. */
void arch_cpu_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}

void arch_lock_wait(const uint16_t *word, uint16_t val)
{
	uint32_t cur;

	__asm__ volatile("ldaxrh %w0, [%1]" : "=&r"(cur) : "r"(word) : "memory");
	if (cur == val)
		__asm__ volatile("wfe" ::: "memory");
}
