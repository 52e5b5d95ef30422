/*
 * setup.c - bring up the simulated machine and mm before the host mm
 * runner's tests, and the arch hooks mm/ needs from the simulation.
 */
#include <stdlib.h>

#include "explore.h"
#include "kernel.h"
#include "smp.h"
#include "page.h"
#include <host_tlb.h>
#include "mm/mm_test.h"
#include "test.h"

#define HOST_NODES 3
#define HOST_NODE_MB 64

const char arch_name[] = "host-" HOST_PTE_FORMAT;

/*
 * Boot ranges as a guest's boot protocol would report them: a "kernel"
 * at the start of node 0 (the guest reserves its image and heap the same
 * way) and an unaligned "fdt" straddling the 4 MiB boundary of node 0, so
 * outward page alignment and the split of two MAX_ORDER blocks are tested.
 */
static const struct boot_range host_boot_ranges[] = {
	{ HOST_RAM_BASE, 1ull << 20, "host-kernel" },
	{ HOST_RAM_BASE + 0x3ff800, 0x1000, "host-fdt" },
};

/* There are no kernel page tables to build in the simulation. */
void arch_mm_init(void)
{
}

/* The host runner can catch panics (tests/mm/mm_test.h). */
bool test_can_catch_panic(void)
{
	return true;
}

int test_catch_panic(void (*fn)(void *), void *arg, char *msg, size_t size)
{
	return host_catch_panic(fn, arg, msg, size);
}

/* The strict TLB model's reports fail the running case. */
static void tlb_report_to_test(const char *msg)
{
	test_checks++;
	test_check_failed(__FILE__, __LINE__, "strict TLB", msg);
}

/* CPUs (threads) the runner's SMP cases use: MM_TEST_CPUS, default 4. */
static unsigned host_test_cpus(void)
{
	const char *e = getenv("MM_TEST_CPUS");
	int n = e ? atoi(e) : 4;

	return n >= 1 && n <= NR_CPUS ? (unsigned)n : 4;
}

/* MM_EXPLORE=pct:SEED[:DEPTH[:STEPS_HINT]] or random:SEED: every smp_run()
 * of the run is explored with that schedule (explore.h). */
static void host_test_explore(void)
{
	const char *e = getenv("MM_EXPLORE");
	struct explore_cfg cfg;

	if (!e || !*e)
		return;
	if (explore_parse(e, &cfg))
		panic("MM_EXPLORE=%s: want pct:SEED[:DEPTH[:STEPS_HINT]], random:SEED or off", e);
	explore_set(&cfg);
}

__attribute__((constructor)) static void host_mm_setup(void)
{
	host_test_explore();
	host_tlb_reporter = tlb_report_to_test;
	host_smp_set_cpus(host_test_cpus());
	host_machine_init(HOST_NODES, HOST_NODE_MB);
	for (unsigned i = 0; i < sizeof(host_boot_ranges) / sizeof(host_boot_ranges[0]); i++)
		boot_info->reserved[boot_info->nr_reserved++] = host_boot_ranges[i];
	mm_init();
}
