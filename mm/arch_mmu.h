/*
 * arch_mmu.h - the MMU hooks (and the page copy) every arch provides to
 * mm/, declared once here and defined with these names in arch/<arch>/
 * (x86_64, arm64, and the host simulation), two of them with a default. Each <asm/mmu.h> includes this file and adds
 * what is private to its arch (the instructions behind the hooks).
 */
#ifndef MM_ARCH_MMU_H
#define MM_ARCH_MMU_H

#include <stdint.h>

struct mm;

/* Drop @mm's translations of [@start, @end) (nothing when @mm is not the
 * one the MMU is using: switching to an mm flushes everything). Called by
 * flush_tlb_range() only. */
void arch_flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end);

/* Make @mm (page-table root at @pgd_phys; NULL: none) the MMU's user half. */
void arch_switch_mm(struct mm *mm, uint64_t pgd_phys);

/* The CPUs other than this one (bit c: CPU c) that have @mm live in
 * their MMU, so whose TLB may hold @mm's translations: mm_put() checks
 * that there are none before a teardown that frees pages ahead of its
 * one flush. */
unsigned long arch_mm_cpus_elsewhere(struct mm *mm);

/*
 * Two hooks with a default, which an arch overrides by defining the name
 * (#define arch_pgd_init arch_pgd_init) in its <asm/mmu.h> before it
 * includes this file:
 * arch_pgd_init - fill a new, zeroed root with what every mm shares (the
 * kernel half where the arch keeps it in the same root; by default there
 * is nothing).
 * arch_copy_pages - copy @nr pages from @from to @to (kernel addresses,
 * page-aligned, not overlapping) the arch's fastest way, Linux's
 * copy_page() (by default memcpy(): on arm64 newlib's load/store pairs,
 * as Linux's arm64 copy_page()).
 */
#ifdef arch_pgd_init
void arch_pgd_init(void *pgd);
#else
static inline void arch_pgd_init(void *pgd)
{
	(void)pgd;
}
#endif

#ifdef arch_copy_pages
void arch_copy_pages(void *to, const void *from, unsigned long nr);
#else
#include <string.h>

#include <asm/layout.h>

static inline void arch_copy_pages(void *to, const void *from, unsigned long nr)
{
	memcpy(to, from, nr * PAGE_SIZE);
}
#endif

/*
 * arch_copy_user - copy to (@write) or from the current mm's user address
 * @uaddr with real loads and stores (the host: through its software MMU);
 * faults go to handle_mm_fault(). Defined with the exception fixups.
 * Return: 0, or the error of the fault that could not be resolved
 * (-EFAULT, -ENOMEM), as mm_access() promises.
 */
int arch_copy_user(unsigned long uaddr, void *kbuf, unsigned long len, int write);

#endif
