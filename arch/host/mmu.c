/*
 * mmu.c (host) - the MMU hooks of the simulation: flushes go to the strict
 * TLB model (tlb.c) when they concern the live mm; switching an mm
 * records the root the software MMU (uaccess.c) walks, as CR3 or TTBR0
 * would hold it, and flushes the whole TLB as the guest's switch does (no
 * ASIDs). The kernel half needs no sharing. (arch_mm_init is in setup.c.)
 */
#include "kernel.h"
#include "mm.h"

#include <asm/mmu.h>
#include <host_tlb.h>

uint64_t host_mmu_root; /* physical address of the live user pgd, 0 = none */
struct mm *host_mmu_mm;

/* Calls that reached the arch layer, for host-only debugging. */
uint64_t host_tlb_range_calls, host_tlb_range_live, host_mm_switches;

void arch_flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
	host_tlb_range_calls++;
	if (mm != host_mmu_mm)
		return; /* not in the TLB: switching to it flushes everything */
	host_tlb_range_live++;
	host_tlb_flush(start, end);
}

void arch_switch_mm(struct mm *mm, uint64_t pgd_phys)
{
	host_tlb_flush_all(); /* checks the old mm's tables first */
	host_mmu_mm = mm;
	host_mmu_root = pgd_phys;
	host_mm_switches++;
}

void arch_pgd_init(void *pgd)
{
	(void)pgd;
}
