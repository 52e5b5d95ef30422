/*
 * proc_vmstat.c - /proc/vmstat: "name value" lines, a snapshot taken at
 * open, for the few of Linux's names that one of ptelab's counters
 * (mm/counters.h) counts with the same meaning, in Linux's order:
 *
 *   nr_free_pages          pages on the allocator's free lists, all nodes
 *   pgfault                faults (every page fault mm/ handled)
 *   numa_pte_updates       numa_pte_updates (a PMD leaf counts 512)
 *   numa_hint_faults       numa_hint_faults
 *   numa_pages_migrated    numa_pages_migrated
 *   pgmigrate_success      pgmigrate_success (pages)
 *   pgmigrate_fail         pgmigrate_fail (pages)
 *   thp_migration_success  thp_migration_success (PMD-sized folios moved whole)
 *
 * Every other Linux name is absent, not 0: ptelab has no counter that
 * means the same (its folio_allocs count folios where Linux's pgalloc_*
 * count pages; thp_migration_split counts splits of any large folio where
 * Linux counts PMD-sized ones only). A reader that looks a name up (lbench
 * diffs two reads name by name) finds the ones ptelab has.
 */
#include <stddef.h>

#include "counters.h"
#include "page.h"
#include "process.h"
#include "procfs.h"

/* Linux's name and the mm_counters field that counts it. */
static const struct {
	const char *name;
	size_t offset;
} vmstat_events[] = {
#define VMSTAT(linux_name, field)                                                                  \
	{                                                                                          \
#linux_name, offsetof(struct mm_counters, field)                                   \
	}
	VMSTAT(pgfault, faults),
	VMSTAT(numa_pte_updates, numa_pte_updates),
	VMSTAT(numa_hint_faults, numa_hint_faults),
	VMSTAT(numa_pages_migrated, numa_pages_migrated),
	VMSTAT(pgmigrate_success, pgmigrate_success),
	VMSTAT(pgmigrate_fail, pgmigrate_fail),
	VMSTAT(thp_migration_success, thp_migration_success),
#undef VMSTAT
};

/* Free pages of every node. The per-node counts are read without the
 * allocator lock: each is one moment of its node. */
static uint64_t vmstat_free_pages(void)
{
	uint64_t sum = 0;

	for (int i = 0; i < nr_pglists; i++)
		sum += __atomic_load_n(&pglists[i].free_pages, __ATOMIC_RELAXED);
	return sum;
}

static int proc_vmstat_text(struct process *p, const struct proc_entry *e, struct proc_text *t)
{
	struct mm_counters c = mm_counters_read();

	(void)p;
	(void)e;
	proc_printf(t, "nr_free_pages %llu\n", (unsigned long long)vmstat_free_pages());
	for (size_t i = 0; i < sizeof(vmstat_events) / sizeof(vmstat_events[0]); i++)
		proc_printf(t, "%s %llu\n", vmstat_events[i].name,
			    (unsigned long long)*(const uint64_t *)((const char *)&c +
								    vmstat_events[i].offset));
	return t->err;
}

static const struct proc_entry vmstat_files[] = {
	{ "proc/vmstat", .text = proc_vmstat_text },
};

const struct sys_table proc_vmstat_table = { vmstat_files, 1 };
