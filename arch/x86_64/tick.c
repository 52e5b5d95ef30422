/*
 * tick.c (x86_64) - the scheduler's tick (kernel/user_arch.h): the local
 * APIC timer in periodic mode on X86_TIMER_VECTOR. Its clock is the APIC
 * bus clock, which QEMU and KVM both run at 1 GHz; traps.c acknowledges
 * each tick and, when it came from ring 3, calls x86_user_tick().
 */
#include "user_arch.h"

#include <asm/apic.h>
#include <asm/traps.h>

#define APIC_BUS_HZ 1000000000u
#define APIC_TIMER_DIVIDE 16u

void arch_tick_start(unsigned period_us)
{
	apic_timer_periodic(X86_TIMER_VECTOR, (uint32_t)((uint64_t)APIC_BUS_HZ / APIC_TIMER_DIVIDE /
							 1000000u * period_us));
}

void arch_tick_stop(void)
{
	apic_timer_stop();
}
