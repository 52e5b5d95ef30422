/*
 * psci.h (arm64) - the PSCI calls the guest makes (psci.c) and the exit
 * status line that reports its status to ptelab on QEMU, where ptelab has
 * no exit device (exit.c, and without C in entry.S and boot.S).
 */
#ifndef ASM_PSCI_H
#define ASM_PSCI_H

#define PSCI_CPU_ON_64 0xc4000003
#define PSCI_SYSTEM_OFF 0x84000008

#define ARM64_PSCI_HVC 1
#define ARM64_PSCI_SMC 2

#ifndef __ASSEMBLER__
#include <stdint.h>

/* The conduit every PSCI call uses: the tree's /psci method
 * (MACHINE_PSCI_*) when it names one, else the entry level's (see psci.c).
 * Context: boot, before any CPU is started or any exit. */
void arm64_psci_set_conduit(int entry_el, int tree_method);

/* One PSCI call @fn with three arguments. Return: PSCI's x0. */
int64_t arm64_psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3);

/* ARM64_PSCI_HVC or ARM64_PSCI_SMC. */
extern uint64_t arm64_psci_conduit;
#endif

#endif
