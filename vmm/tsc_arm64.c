/*
 * tsc_arm64.c - the host counter's rate on an arm64 host (vmm_tsc.h): the
 * generic timer's virtual counter, CNTFRQ_EL0, which an x86_64 guest's
 * rdtsc reads under QEMU TCG and an arm64 guest's CNTVCT_EL0 reads on KVM.
 */
#include "vmm_tsc.h"

uint64_t vmm_host_counter_hz(void)
{
	uint64_t hz;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	return hz & 0xffffffffu;
}
