/*
 * vmm_timing.h - where a run's time went, for --timing: every backend
 * (KVM, QEMU, host) fills the phases it has.
 */
#ifndef VMM_TIMING_H
#define VMM_TIMING_H

#include <stdint.h>

/* Microseconds spent in each phase. */
struct vmm_timing {
	uint64_t start_us; /* process start (main) */
	uint64_t vm_create_us, load_us, first_exit_us, run_us;
	int have_kvm; /* the KVM fields are meaningful */
};

#endif
