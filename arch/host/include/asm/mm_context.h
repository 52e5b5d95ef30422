/*
 * mm_context.h (host) - the arch's private part of struct mm (embedded as
 * mm->context).
 */
#ifndef ASM_MM_CONTEXT_H
#define ASM_MM_CONTEXT_H

/*
 * cpumask: bit c set while CPU c has this mm live in its simulated MMU,
 * so its TLB may hold the mm's translations; the guests' contract
 * (arch/x86_64, arch/arm64): set with an atomic OR before the CPU loads
 * the root, cleared after it has loaded another one (which empties its
 * TLB: no ASIDs). A flush reads it after the page-table change (full
 * barrier) and reaches only the CPUs it names (arch/host/tlb.c), so the
 * strict TLB model sees what a wrong mask would leave behind.
 */
struct arch_mm_context {
	unsigned long cpumask;
};

#endif
