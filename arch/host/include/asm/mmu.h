/*
 * mmu.h (host) - the MMU operations of the simulation: TLB flushes only
 * count (there is no TLB), switching an mm records it for the software
 * walker in arch/host/uaccess.c.
 */
#ifndef ASM_MMU_H
#define ASM_MMU_H

#include <stdint.h>

struct mm;
void arch_flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end);
void arch_flush_tlb_all(void);
void arch_switch_mm(struct mm *mm, uint64_t pgd_phys);
void arch_pgd_init(void *pgd); /* no kernel half to share */

/* Copy to or from the current mm's user address @uaddr through the
 * software MMU; faults go to handle_mm_fault. Return: 0, or the error of
 * the fault that could not be resolved (-EFAULT, -ENOMEM). */
int arch_copy_user(unsigned long uaddr, void *kbuf, unsigned long len, int write);

#endif
