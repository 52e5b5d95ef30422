/*
 * percpu.h (arm64) - the per-CPU register is TPIDR_EL1: it holds the
 * CPU's struct percpu, whose arch part sits at offset 8 (entry.S counts
 * nested exceptions there).
 */
#ifndef ASM_PERCPU_H
#define ASM_PERCPU_H

#define PERCPU_EXC_DEPTH 8    /* offsetof(struct percpu, arch.exception_depth) */
#define PERCPU_USER_KSTACK 40 /* offsetof(struct percpu, arch.user_kstack) */

#ifndef __ASSEMBLER__
#include <stdint.h>

struct percpu;
struct mm;

struct arch_percpu {
	uint64_t exception_depth; /* first: entry.S's nesting count */
	struct mm *loaded_mm;	  /* whose root TTBR0 holds */
	uint64_t gicr_rd;	  /* this CPU's GICv3 redistributor (physical), 0 before */
	void *exception_stack;	  /* SP_EL1's stack (secondaries; the boot CPU's is boot.S's) */
	/* Top of the stack entries from EL0 run on (arch_user_set_kstack());
	 * entry.S builds the struct user_regs right below it. */
	uint64_t user_kstack;
};

static inline struct percpu *arch_this_cpu(void)
{
	struct percpu *pc;

	__asm__ volatile("mrs %0, tpidr_el1" : "=r"(pc));
	return pc;
}
#endif

#endif
