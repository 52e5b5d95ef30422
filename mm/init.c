/*
 * init.c - mm_init(): physical memory from `machine` and boot_info.
 *
 * Order: every reservation first (boot_info's ranges, the first MiB where
 * RAM starts at 0, and whatever the caller reserved with mm_reserve(),
 * e.g. the kernel image and heap), then the arch hook (early page tables
 * from memblock_alloc, full direct map), then the memmaps and buddy lists,
 * which reserve their own memmaps.
 */
#include <stdio.h>

#include "kernel.h"
#include "memblock.h"
#include "mempolicy.h"
#include "page.h"

#define FIRMWARE_AREA (1ull << 20) /* x86: real-mode IVT, BIOS data, ROMs */

/* Does any node have RAM in [start, end)? */
static bool ram_in(uint64_t start, uint64_t end)
{
	for (int n = 0; n < machine.nr_nodes; n++)
		for (int r = 0; r < machine.node[n].nr_ranges; r++) {
			const struct mem_range *mr = &machine.node[n].range[r];

			if (mr->base < end && start < mr->base + mr->size)
				return true;
		}
	return false;
}

/* Reserve what the boot protocol and the firmware own. */
static void reserve_boot_ranges(void)
{
	for (int i = 0; boot_info && i < boot_info->nr_reserved; i++) {
		const struct boot_range *b = &boot_info->reserved[i];

		mm_reserve(b->start, b->size, b->what ? b->what : "boot");
	}
	if (ram_in(0, FIRMWARE_AREA))
		mm_reserve(0, FIRMWARE_AREA, "firmware");
}

/* cpu_nid[] (mempolicy.h): each CPU's node index, from its numa-node-id
 * (a CPU on a node without memory counts as node index 0). */
static void init_cpu_nodes(void)
{
	for (int cpu = 0; cpu < machine.nr_cpus && cpu < NR_CPUS; cpu++)
		for (int i = 0; i < nr_pglists; i++)
			if (pglists[i].node_id == machine.cpu_node[cpu])
				cpu_nid[cpu] = i;
}

/*
 * mm_init - bring up physical memory once; later calls do nothing. With
 * mm_boot_verbose (ptelab --verbose) it prints the reserved ranges and
 * each node's free blocks; a command's output is otherwise its own.
 * Context: boot, after `machine` is read and boot_info set, before any
 * folio_alloc().
 */
bool mm_boot_verbose;

void mm_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	reserve_boot_ranges();
	arch_mm_init();
	page_alloc_init();
	init_cpu_nodes();
	if (mm_boot_verbose) {
		memblock_print();
		page_alloc_print();
	}
}
