/*
 * smp.c (x86_64) - the arch side of core/smp.c: per-CPU data in the GS
 * base, secondaries started by INIT-SIPI-SIPI through the x2APIC into
 * trampoline.S, and the one IPI vector that wakes a CPU from HLT and
 * carries TLB flush requests (arch/x86_64/tlb.c).
 *
 * Secondaries run with interrupts enabled except inside exception
 * handlers; the boot CPU enables them once its APIC is up.
 */
#include <string.h>

#include "kernel.h"
#include "percpu.h"
#include "ptelab/abi.h"

#include <asm/apic.h>
#include <asm/mmu.h>
#include <asm/traps.h>

#define MSR_GS_BASE 0xc0000101u

extern char x86_trampoline_start[], x86_trampoline_end[];
extern uint64_t x86_tramp_cr3[], x86_tramp_stack[], x86_tramp_percpu[], x86_tramp_entry[];
extern char boot_pml4[], x86_secondary_entry[];

void x86_secondary_start(struct percpu *pc);

void arch_percpu_set(struct percpu *pc)
{
	wrmsr(MSR_GS_BASE, (uint64_t)(uintptr_t)pc);
}

static inline void irq_enable(void)
{
	__asm__ volatile("sti" : : : "memory");
}

/* The trampoline's copy in low memory, and where a word of it lies there. */
static void *tramp_word(uint64_t *sym)
{
	return phys_to_virt(PTELAB_X86_TRAMPOLINE + (uint64_t)((char *)sym - x86_trampoline_start));
}

void arch_smp_prepare(void)
{
	struct percpu *pc = this_cpu();

	x86_lock_pv_init();
	x86_lock_pv_cpu_init(pc->cpu);
	apic_cpu_init();
	pc->arch.apic_id = apic_id();
	if (pc->arch.apic_id != pc->hwid)
		panic("arch_smp_prepare: the boot CPU's APIC ID is %u, the tree's cpu@0 says "
		      "%llu",
		      pc->arch.apic_id, (unsigned long long)pc->hwid);
	memcpy(phys_to_virt(PTELAB_X86_TRAMPOLINE), x86_trampoline_start,
	       (size_t)(x86_trampoline_end - x86_trampoline_start));
	irq_enable();
}

int arch_cpu_start(struct percpu *pc, char *err, unsigned long errlen)
{
	uint32_t apic = (uint32_t)pc->hwid;

	(void)err;
	(void)errlen;
	pc->arch.apic_id = apic;
	*(uint64_t *)tramp_word(x86_tramp_cr3) = virt_to_phys(boot_pml4);
	*(uint64_t *)tramp_word(x86_tramp_stack) = (uint64_t)(uintptr_t)pc->stack + pc->stack_size;
	*(uint64_t *)tramp_word(x86_tramp_percpu) = (uint64_t)(uintptr_t)pc;
	*(uint64_t *)tramp_word(x86_tramp_entry) = (uint64_t)(uintptr_t)x86_secondary_entry;
	/* The second STARTUP is for CPUs that miss the first (the MP spec's
	 * sequence); one already running ignores it. */
	apic_send_init(apic);
	apic_send_sipi(apic, PTELAB_X86_TRAMPOLINE >> 12);
	apic_send_sipi(apic, PTELAB_X86_TRAMPOLINE >> 12);
	return 0;
}

/* C entry of a started CPU (trampoline.S), on its own stack. */
void x86_secondary_start(struct percpu *pc)
{
	arch_percpu_set(pc);
	traps_cpu_init(pc->cpu);
	apic_cpu_init();
	if (apic_id() != pc->arch.apic_id)
		panic("x86_secondary_start: cpu%u runs with APIC ID %u, expected %u", pc->cpu,
		      apic_id(), pc->arch.apic_id);
	x86_mmu_cpu_init();
	x86_lock_pv_cpu_init(pc->cpu);
	irq_enable();
	smp_secondary_main(pc);
}

void arch_cpu_wake(unsigned cpu)
{
	apic_send_ipi(percpu_area[cpu].arch.apic_id, X86_IPI_VECTOR);
}

/* STI's one-instruction shadow makes "sti; hlt" atomic: an IPI that
 * arrives after the check wakes the HLT instead of being lost. */
void arch_cpu_wait(volatile unsigned *word, unsigned old)
{
	__asm__ volatile("cli" : : : "memory");
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == old) {
		__asm__ volatile("sti; hlt; cli" : : : "memory");
	}
	__asm__ volatile("sti" : : : "memory");
}
