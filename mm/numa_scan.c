/*
 * numa_scan.c - the periodic scan of NUMA balancing: every numa_scan_period
 * faults of an mm, one step of change_prot_numa() over the mm's VMAs, a
 * window that moves on and wraps (the contract is in mempolicy.h).
 * Linux runs task_numa_work() from the task's return to user mode once
 * per scan period (numa_balancing_scan_period_min_ms, 256 MiB a period);
 * ptelab counts faults instead of time, so that a run under icount and a
 * test on the host scan at the same points.
 */
#include "kernel.h"
#include "mm_internal.h"

unsigned long numa_scan_period;

void numa_scan_set(unsigned long faults)
{
	__atomic_store_n(&numa_scan_period, faults, __ATOMIC_RELAXED);
}

/* The step's window: from @from, or from the first VMA when no VMA lies
 * at or after @from. Return: its start, or 0 when the mm has no VMA.
 * Context: the mmap_lock held for read. */
static unsigned long step_start(struct mm *mm, unsigned long from)
{
	struct vma *v = find_vma_from(mm, from);

	if (v)
		return from > v->start ? from : v->start;
	return mm->vmas ? mm->vmas->start : 0;
}

void __numa_scan_tick(struct mm *mm)
{
	unsigned long period = __atomic_load_n(&numa_scan_period, __ATOMIC_RELAXED), start;

	if (!period || __atomic_add_fetch(&mm->numa_scan_faults, 1, __ATOMIC_RELAXED) % period)
		return;
	read_lock(&mm->mmap_lock);
	start = step_start(mm, __atomic_load_n(&mm->numa_scan_next, __ATOMIC_RELAXED));
	read_unlock(&mm->mmap_lock);
	if (!start)
		return;
	/* Two CPUs may step from one cursor at once: both mark the same
	 * window, which marking makes idempotent. */
	__atomic_store_n(&mm->numa_scan_next, start + NUMA_SCAN_STEP, __ATOMIC_RELAXED);
	count_event(numa_scans, 1);
	change_prot_numa(mm, start, start + NUMA_SCAN_STEP, numa_node_id());
}
