/*
 * vmm_tsc.h - the host's TSC rate, which QEMU TCG guests also count in
 * (TCG's rdtsc reads the host TSC).
 */
#ifndef VMM_TSC_H
#define VMM_TSC_H

#include <stdint.h>

/* Measure the TSC against CLOCK_MONOTONIC over about @ms milliseconds.
 * Return: Hz rounded to the nearest kHz, 0 when it could not be measured. */
uint64_t vmm_tsc_calibrate_hz(int ms);

/* The TSC rate: what KVM reports when /dev/kvm works, else measured over
 * ~20 ms. Return: Hz, or 0 when neither works. */
uint64_t vmm_host_tsc_hz(void);

#endif
