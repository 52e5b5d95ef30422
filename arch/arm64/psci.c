/*
 * psci.c (arm64) - calls to the PSCI firmware interface: CPU_ON for the
 * secondaries (smp.c) and SYSTEM_OFF for the end of the run (exit.c).
 *
 * The conduit is the tree's /psci method once arm64_start() has read it.
 * Before that (and when the tree has no /psci node) it follows the entry
 * level: a kernel entered at EL2 runs on QEMU virt with virtualization=on,
 * whose PSCI is at EL3 (SMC); one entered at EL1 has its PSCI at EL2
 * (HVC), as on QEMU virt without virtualization and on KVM.
 */
#include "kernel.h"

#include <asm/psci.h>

/* ARM64_PSCI_HVC or ARM64_PSCI_SMC; read by arm64_fatal_exit (entry.S). */
uint64_t arm64_psci_conduit = ARM64_PSCI_HVC;

void arm64_psci_set_conduit(int entry_el, int tree_method)
{
	if (tree_method == MACHINE_PSCI_HVC)
		arm64_psci_conduit = ARM64_PSCI_HVC;
	else if (tree_method == MACHINE_PSCI_SMC)
		arm64_psci_conduit = ARM64_PSCI_SMC;
	else
		arm64_psci_conduit = entry_el == 2 ? ARM64_PSCI_SMC : ARM64_PSCI_HVC;
}

int64_t arm64_psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	if (arm64_psci_conduit == ARM64_PSCI_HVC)
		__asm__ volatile("hvc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x3) : "memory");
	else
		__asm__ volatile("smc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x3) : "memory");
	return (int64_t)x0;
}
