/*
 * time.c - time since boot from the architecture's free-running counter.
 *
 * The rate comes from the device tree (/cpus/timebase-frequency, which
 * ptelab sets from KVM_GET_TSC_KHZ) or, when the tree does not say (QEMU's
 * arm64 tree), from the architecture (CNTFRQ_EL0).
 */
#include "kernel.h"

static uint64_t hz;
static const char *hz_source = "none";
static uint64_t start;

void time_init(void)
{
	hz = machine.timebase_hz;
	hz_source = "fdt";
	if (!hz) {
		hz = arch_counter_freq();
		hz_source = "arch";
	}
	if (!hz)
		panic("time_init: no counter frequency in the FDT or from the arch");
	start = boot_info->entry_counter;
}

uint64_t counter_hz(void)
{
	return hz;
}

const char *counter_hz_source(void)
{
	return hz_source;
}

uint64_t time_ns(void)
{
	uint64_t t = arch_counter() - start;

	/* split to avoid overflow of t * 1e9 for long uptimes */
	return t / hz * 1000000000ull + t % hz * 1000000000ull / hz;
}
