/*
 * mmu.c (host) - the MMU hooks of the simulation. There is no TLB, so the
 * flushes only count; switching an mm records the root the software MMU
 * (uaccess.c) walks, as CR3 or TTBR0 would hold it. The kernel half needs
 * no sharing. (arch_mm_init is in setup.c.)
 */
#include "kernel.h"
#include "mm.h"

#include <asm/mmu.h>

uint64_t host_mmu_root; /* physical address of the live user pgd, 0 = none */
struct mm *host_mmu_mm;

/* Calls that reached the arch layer, for host-only debugging. */
uint64_t host_tlb_range_calls, host_tlb_range_live, host_tlb_all_calls, host_mm_switches;

void arch_flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
	(void)start, (void)end;
	host_tlb_range_calls++;
	if (mm == host_mmu_mm)
		host_tlb_range_live++;
}

void arch_flush_tlb_all(void)
{
	host_tlb_all_calls++;
}

void arch_switch_mm(struct mm *mm, uint64_t pgd_phys)
{
	host_mmu_mm = mm;
	host_mmu_root = pgd_phys;
	host_mm_switches++;
}

void arch_pgd_init(void *pgd)
{
	(void)pgd;
}
