/*
 * relax.c (arm64) - how a CPU waits in a lock (core/include/spinlock.h): YIELD in
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

/* The halt-and-kick contract with events: WFE returns at once when the
 * event register is set, so a SEV before it is not lost. Not used:
 * arch_lock_can_halt() says no, since arch_lock_wait's WFE needs no kick
 * (and QEMU's TCG ends a WFE at once, so a halt there lasts no time). */
void arch_lock_halt(void)
{
	__asm__ volatile("wfe" ::: "memory");
}

/* SEV wakes every CPU, @cpu among them; DSB first, so the store of owner
 * is visible before any CPU wakes to read it. */
void arch_lock_kick(unsigned cpu)
{
	(void)cpu;
	__asm__ volatile("dsb ish; sev" ::: "memory");
}

bool arch_lock_can_halt(void)
{
	return false;
}

/* Nothing tells an arm64 guest whether another vCPU runs. */
bool arch_vcpu_is_preempted(unsigned cpu)
{
	(void)cpu;
	return false;
}

/* No halt, so no spin budget in time. */
uint64_t arch_lock_clock(void)
{
	return 0;
}
