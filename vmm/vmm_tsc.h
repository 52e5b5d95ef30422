/*
 * vmm_tsc.h - the rate x86_64 guests under QEMU TCG count in: TCG's rdtsc
 * reads the host's cycle counter (the TSC on x86_64 hosts, tsc_x86.c; the
 * generic timer's counter on arm64 hosts, tsc_arm64.c).
 */
#ifndef VMM_TSC_H
#define VMM_TSC_H

#include <stdint.h>

/* x86_64 hosts: measure the TSC against CLOCK_MONOTONIC over about @ms ms.
 * Return: Hz rounded to the nearest kHz, 0 when it could not be measured. */
uint64_t vmm_tsc_calibrate_hz(int ms);

/* The rate: on x86_64 what KVM reports when /dev/kvm works, else measured
 * over ~5 ms; on arm64 CNTFRQ_EL0. Return: Hz, or 0 when unknown. */
uint64_t vmm_host_tsc_hz(void);

#endif
