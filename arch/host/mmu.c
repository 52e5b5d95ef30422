/*
 * mmu.c (host) - the MMU hooks of the simulation: flushes go to the strict
 * TLB model (tlb.c), this CPU's and those of the CPUs in the mm's
 * cpumask; switching an mm keeps the cpumask, records the root the
 * software MMU (uaccess.c) walks, as CR3 or TTBR0 would hold it, and
 * flushes the whole TLB as the guest's switch does (no ASIDs). The kernel half needs no sharing. (arch_mm_init is in setup.c.)
 */
#include <string.h>

#include "kernel.h"
#include "mm.h"
#include "trace.h"

#include <asm/mmu.h>
#include <host_tlb.h>

/* Calls that reached the arch layer, for host-only debugging. */
uint64_t host_tlb_range_calls, host_mm_switches;

/*
 * This CPU's TLB drops the range if @mm is live here; every other CPU in
 * @mm's cpumask gets it as a shootdown (tlb.c: host_tlb_flush_others(),
 * x86's IPI protocol). An mm live on no CPU is in no TLB: switching to it
 * flushes everything.
 * Context: the page-table change is complete.
 */
void arch_flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
	__atomic_fetch_add(&host_tlb_range_calls, 1, __ATOMIC_RELAXED);
	TRACE(trace_flush_how("the host TLB model: this CPU and every CPU in the mm's cpumask"));
	if (mm && mm == host_tlb_live_mm())
		host_tlb_flush_local(start, end);
	host_tlb_flush_others(mm, start, end);
}

/*
 * The cpumask as the guests keep it: this CPU's bit in @mm is set before
 * the MMU walks @mm's root, and cleared in the previous mm only after the
 * switch emptied this CPU's TLB, so a flush that reads the mask after its
 * page-table change reaches every CPU that may cache the old entry.
 */
void arch_switch_mm(struct mm *mm, uint64_t pgd_phys)
{
	struct mm *prev = host_tlb_live_mm();
	unsigned long bit = 1ul << smp_processor_id();

	if (mm)
		__atomic_fetch_or(&mm->context.cpumask, bit, __ATOMIC_SEQ_CST);
	host_tlb_switch(mm, pgd_phys);
	if (prev && prev != mm)
		__atomic_fetch_and(&prev->context.cpumask, ~bit, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&host_mm_switches, 1, __ATOMIC_RELAXED);
}

unsigned long arch_mm_cpus_elsewhere(struct mm *mm)
{
	return host_tlb_cpus_with(mm);
}
