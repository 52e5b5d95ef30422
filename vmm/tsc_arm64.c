/*
 * tsc_arm64.c - the "TSC" rate of x86_64 guests under QEMU TCG on an arm64
 * host: TCG's rdtsc reads the host's cycle source, which on arm64 is the
 * generic timer's virtual counter, so the rate is CNTFRQ_EL0.
 */
#include "vmm_tsc.h"

uint64_t vmm_host_tsc_hz(void)
{
	uint64_t hz;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	return hz & 0xffffffffu;
}
