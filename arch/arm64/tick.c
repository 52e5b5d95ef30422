/*
 * tick.c (arm64) - the scheduler's tick (kernel/user_arch.h): the EL1
 * virtual timer (CNTV), PPI 27 through the GICv3, re-armed by its TVAL
 * on every tick. The kernel keeps IRQs masked, so the tick is taken only
 * at EL0 (user.c's el0_irq()); one that comes due in the kernel waits
 * for the return to EL0. A machine without a GICv3 gets no tick.
 */
#include <stdbool.h>

#include "kernel.h"
#include "percpu.h"
#include "user_arch.h"

#include <asm/mmu.h>

#define TIMER_PPI 27 /* the virtual timer's INTID on every GIC */
#define CNTV_CTL_ENABLE 1u

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

/* Is @intid (acknowledged) the tick? Then the next one is armed. */
bool arm64_tick_rearm(uint64_t intid)
{
	if (intid != TIMER_PPI || !tick_period)
		return false;
	write_sysreg(tick_period, cntv_tval_el0);
	isb();
	return true;
}
