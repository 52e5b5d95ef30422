/*
 * mmu.c (host) - the MMU hooks of the simulation: flushes go to the strict
 * TLB model (tlb.c) when they concern the live mm; switching an mm
 * records the root the software MMU (uaccess.c) walks, as CR3 or TTBR0
 * would hold it, and flushes the whole TLB as the guest's switch does (no
 * ASIDs). The kernel half needs no sharing. (arch_mm_init is in setup.c.)
 */
#include <string.h>

#include "kernel.h"
#include "mm.h"

#include <asm/mmu.h>
#include <host_tlb.h>

/* Calls that reached the arch layer, for host-only debugging. */
uint64_t host_tlb_range_calls, host_mm_switches;

/* Every CPU that has @mm live drops the range (tlb.c: a broadcast). An
 * mm live on no CPU is in no TLB: switching to it flushes everything. */
void arch_flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
	__atomic_fetch_add(&host_tlb_range_calls, 1, __ATOMIC_RELAXED);
	host_tlb_flush_mm(mm, start, end);
}

void arch_switch_mm(struct mm *mm, uint64_t pgd_phys)
{
	host_tlb_switch(mm, pgd_phys);
	__atomic_fetch_add(&host_mm_switches, 1, __ATOMIC_RELAXED);
}

unsigned long arch_mm_cpus_elsewhere(struct mm *mm)
{
	return host_tlb_cpus_with(mm);
}

void arch_copy_pages(void *to, const void *from, unsigned long nr)
{
	memcpy(to, from, nr * PAGE_SIZE);
}

void arch_pgd_init(void *pgd)
{
	(void)pgd;
}
