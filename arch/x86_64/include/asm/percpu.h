/*
 * percpu.h (x86_64) - the per-CPU register is the GS base (MSR
 * IA32_GS_BASE): %gs:0 is struct percpu's self pointer.
 */
#ifndef ASM_PERCPU_H
#define ASM_PERCPU_H

#include <stdint.h>

struct percpu;
struct mm;

/* What only x86_64 keeps per CPU. */
struct arch_percpu {
	uint32_t apic_id;     /* APIC ID, = the tree's cpu reg */
	struct mm *loaded_mm; /* whose root CR3 holds (changed with interrupts off) */
	/* Bit s set: CPU s has a TLB flush request for this CPU in its
	 * x86_flush_req (arch/x86_64/tlb.c); taken by the IPI handler. */
	volatile uint32_t flush_pending;
	int in_trap; /* reporting an exception: a second one must not recurse */
};

static inline struct percpu *arch_this_cpu(void)
{
	struct percpu *pc;

	__asm__ volatile("mov %%gs:0, %0" : "=r"(pc));
	return pc;
}

#endif
