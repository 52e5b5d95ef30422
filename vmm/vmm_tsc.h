/*
 * vmm_tsc.h - the rate of the host's free-running counter, the timebase a
 * guest not run by ptelab's KVM backend counts in: under QEMU TCG the
 * guest's rdtsc (x86_64) or CNTVCT_EL0 (arm64) reads the host's counter,
 * which is the TSC on an x86_64 host (tsc_x86.c) and the generic timer's
 * virtual counter on an arm64 host (tsc_arm64.c).
 */
#ifndef VMM_TSC_H
#define VMM_TSC_H

#include <stdint.h>

/* x86_64 hosts: measure the TSC against CLOCK_MONOTONIC over about @ms ms.
 * Return: Hz rounded to the nearest kHz, 0 when it could not be measured. */
uint64_t vmm_tsc_calibrate_hz(int ms);

/* The host counter's rate: on an x86_64 host the TSC's (what KVM reports
 * when /dev/kvm works, else measured over ~5 ms), on an arm64 host the
 * generic timer's (CNTFRQ_EL0; no TSC there). Return: Hz, or 0 when
 * unknown. */
uint64_t vmm_host_counter_hz(void);

#endif
