/*
 * mm_context.h - the arch's private part of struct mm (embedded as
 * mm->context).
 */
#ifndef ASM_MM_CONTEXT_H
#define ASM_MM_CONTEXT_H

/*
 * cpumask: bit c set while CPU c has this mm loaded (TTBR0/CR3), so its
 * TLB may hold the mm's translations. Set with an atomic OR before the
 * CPU loads the root and cleared after it has loaded another one (which
 * drops the old entries: no PCIDs/ASIDs here). A flush reads it after
 * the page-table change (full barrier), so a CPU whose bit it misses
 * loads the root after the change and cannot cache the old entry.
 */
struct arch_mm_context {
	unsigned long cpumask;
};

#endif
