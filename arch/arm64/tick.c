/*
 * tick.c (arm64) - the scheduler's tick (kernel/user_arch.h): the EL1
 * virtual timer (CNTV), PPI 27 through the GICv3, re-armed by its TVAL
 * on every tick. The kernel keeps IRQs masked, so the tick is taken only
 * at EL0 (user.c's el0_irq()); one that comes due in the kernel waits
 * for the return to EL0, or, when it ends a WFI (smp.c), is a request
 * that the end of the system call serves. A machine without a GICv3 gets
 * no tick.
 */
#include <stdbool.h>

#include "kernel.h"
#include "percpu.h"
#include "user_arch.h"

#include <asm/mmu.h>

#define TIMER_PPI 27 /* the virtual timer's INTID on every GIC */
#define CNTV_CTL_ENABLE 1u

uint64_t arm64_gic_ack(void);
void arm64_gic_eoi(uint64_t intid);
void arm64_gic_dist_init(void);
void arm64_gic_cpu_init(void);
void arm64_gic_enable_ppi(unsigned intid);
bool arm64_tick_rearm(uint64_t intid);

/* Counter ticks per period; 0: no tick armed. Context: the CPU that runs
 * processes. */
static uint64_t tick_period;

void arch_tick_start(unsigned period_us)
{
	if (!machine.gicd_base || !machine.gicr_base)
		return;
	if (!this_cpu()->arch.gicr_rd) { /* one CPU: smp.c set up no GIC */
		arm64_gic_dist_init();
		arm64_gic_cpu_init();
	}
	arm64_gic_enable_ppi(TIMER_PPI);
	tick_period = read_sysreg(cntfrq_el0) / 1000000u * period_us;
	write_sysreg(tick_period, cntv_tval_el0);
	write_sysreg(CNTV_CTL_ENABLE, cntv_ctl_el0);
	isb();
}

void arch_tick_stop(void)
{
	write_sysreg(0, cntv_ctl_el0);
	isb();
	tick_period = 0;
}

/* Is @intid (acknowledged, not yet ended) the tick? Then the next one is
 * armed, which lowers the timer's level. The caller ends the interrupt
 * after this: ended with the level still high, it is pending again at
 * once, and under KVM, whose vGIC learns of the new TVAL only at the
 * next exit, it is taken a second time (two switches for one tick:
 * tests/user's preempt made no progress on a nested KVM). */
bool arm64_tick_rearm(uint64_t intid)
{
	if (intid != TIMER_PPI || !tick_period)
		return false;
	write_sysreg(tick_period, cntv_tval_el0);
	isb();
	return true;
}

/* An interrupt that ended a WFI in the kernel, IRQs masked: acknowledged
 * and ended. A tick among them is re-armed first and left as a request
 * that the end of the system call serves (kernel_timer_tick()), as a
 * tick taken in kernel mode on x86_64. */
void arm64_irq_in_kernel(void)
{
	uint64_t intid = arm64_gic_ack();
	bool tick = arm64_tick_rearm(intid);

	arm64_gic_eoi(intid);
	if (tick)
		kernel_timer_tick();
}
