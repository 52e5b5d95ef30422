/*
 * tsc_x86.c - the host TSC rate for guests that do not run on ptelab's KVM
 * backend. With kvm_x86.c, the host-x86-specific code (tsc_arm64.c is its
 * arm64 host twin).
 */
#include <time.h>
#include <x86intrin.h>

#include "vmm_kvm.h"
#include "vmm_tsc.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t vmm_tsc_calibrate_hz(int ms)
{
	uint64_t t0 = mono_ns(), c0 = __rdtsc(), t1, c1;

	do {
		t1 = mono_ns();
	} while (t1 - t0 < (uint64_t)ms * 1000000u);
	c1 = __rdtsc();
	if (c1 <= c0 || t1 <= t0)
		return 0;
	/* (c1 - c0) cycles in (t1 - t0) ns, as kHz rounded to nearest. */
	return ((c1 - c0) * 1000000u + (t1 - t0) / 2) / (t1 - t0) * 1000;
}

uint64_t vmm_host_counter_hz(void)
{
	uint64_t hz = vmm_kvm_probe_timebase_hz();

	/* 5 ms against CLOCK_MONOTONIC: within about 0.05%, and it is on
	 * every QEMU x86 boot's critical path (20 ms was a fifth of it). */
	return hz ? hz : vmm_tsc_calibrate_hz(5);
}
