/*
 * smp.c (arm64) - the arch side of core/smp.c: per-CPU data in
 * TPIDR_EL1, secondaries started by PSCI CPU_ON (psci.c: the conduit the
 * tree's /psci names) into boot.S's arm64_secondary_entry, and
 * a GICv3 SGI to wake a CPU from WFI (gic.c). TLB maintenance needs no
 * IPI here: TLBI ...IS reaches every CPU in the inner-shareable domain.
 */
#include <malloc.h>
#include <stdint.h>

#include "kernel.h"
#include "percpu.h"

#include <asm/mmu.h>
#include <asm/psci.h>
#include <asm/traps.h>

#define EXC_STACK_SIZE 0x8000

/* What the next CPU to start loads in boot.S (one CPU at a time). */
struct secondary_boot {
	struct percpu *pc;
	uint64_t sp_el1, sp_el0;
};
struct secondary_boot arm64_secondary_boot;

extern char arm64_secondary_entry[];
void arm64_gic_dist_init(void);
void arm64_gic_cpu_init(void);
void arm64_gic_send_wake(uint64_t mpidr);
void arm64_irq_in_kernel(void);
void arm64_secondary_start(struct percpu *pc);

_Static_assert(__builtin_offsetof(struct percpu, arch.exception_depth) == PERCPU_EXC_DEPTH,
	       "PERCPU_EXC_DEPTH");

void arch_percpu_set(struct percpu *pc)
{
	write_sysreg(pc, tpidr_el1);
}

void arch_smp_prepare(void)
{
	if (machine.nr_cpus < 2)
		return;
	arm64_gic_dist_init();
	arm64_gic_cpu_init();
}

int arch_cpu_start(struct percpu *pc, char *err, unsigned long errlen)
{
	int64_t r;

	if (machine.psci_method == MACHINE_PSCI_NONE)
		return snprintf(err, errlen, "the tree has no /psci node with method hvc or smc"),
		       -1;
	pc->arch.exception_stack = memalign(16, EXC_STACK_SIZE);
	if (!pc->arch.exception_stack)
		return snprintf(err, errlen, "no memory for its exception stack"), -1;
	arm64_stack_init(pc);
	arm64_secondary_boot = (struct secondary_boot){
		pc, (uint64_t)(uintptr_t)pc->arch.exception_stack + EXC_STACK_SIZE,
		(uint64_t)(uintptr_t)pc->stack + pc->stack_size
	};
	dsb(ish);
	r = arm64_psci_call(PSCI_CPU_ON_64, pc->hwid, virt_to_phys(arm64_secondary_entry), 0);
	if (r)
		return snprintf(err, errlen, "PSCI CPU_ON (%s) returned %lld",
				machine.psci_method == MACHINE_PSCI_HVC ? "hvc" : "smc",
				(long long)r),
		       -1;
	return 0;
}

/* C entry of a started CPU (boot.S), on its own stacks, TPIDR_EL1 set. */
void arm64_secondary_start(struct percpu *pc)
{
	if ((read_sysreg(mpidr_el1) & 0xff00ffffffull) != pc->hwid)
		panic("arm64_secondary_start: cpu%u runs with MPIDR %#llx, expected %#llx", pc->cpu,
		      (unsigned long long)read_sysreg(mpidr_el1), (unsigned long long)pc->hwid);
	arm64_mmu_cpu_init();
	arm64_gic_cpu_init();
	smp_secondary_main(pc);
}

void arch_cpu_wake(unsigned cpu)
{
	arm64_gic_send_wake(percpu_area[cpu].hwid);
}

/* IRQs stay masked: a pending SGI still ends WFI, and one that arrives
 * between the check and the WFI keeps it from sleeping. */
void arch_cpu_wait(volatile unsigned *word, unsigned old)
{
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == old) {
		__asm__ volatile("wfi" : : : "memory");
		arm64_irq_in_kernel();
	}
}
