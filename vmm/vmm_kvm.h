/*
 * vmm_kvm.h - ptelab's own KVM backend.
 *
 * kvm.c is the generic part (the VM, memory slots, the vCPU, the run loop,
 * the timeout); the arch part, kvm_x86.c or kvm_arm64.c after the host's
 * arch (the Makefile picks one), defines the vmm_kvm_arch_* hooks below:
 * vCPU identity, boot state, device exits (port I/O or MMIO) and register
 * dumps. Only one vCPU runs; the other cpus of the machine exist only in
 * the device tree.
 */
#ifndef VMM_KVM_H
#define VMM_KVM_H

#include <stddef.h>
#include <stdint.h>

#include "vmm_console.h"
#include "vmm_elf.h"
#include "vmm_guestmem.h"
#include "vmm_layout.h"
#include "vmm_timing.h"

struct kvm_run;

struct vmm_kvm {
	int sys_fd, vm_fd, vcpu_fd;
	struct kvm_run *run;
	size_t run_size; /* of the kvm_run mapping */
	struct vmm_guest_mem mem;
	struct vmm_machine *m;
	struct vmm_console *con;
};

/* What an arch exit handler decided. */
enum vmm_kvm_exit {
	VMM_KVM_CONTINUE,  /* handled: run the vCPU again */
	VMM_KVM_DONE,	   /* the guest finished; *status is its exit status */
	VMM_KVM_CRASH,	   /* reported already; ptelab exits PTELAB_EXIT_CRASH */
	VMM_KVM_HALTED,	   /* the vCPU stopped and nothing can wake it: a hang */
	VMM_KVM_UNHANDLED, /* not an exit the arch knows */
};

/*
 * vmm_kvm_usable - can this process use KVM: /dev/kvm opens read-write
 * and KVM_GET_API_VERSION says 12?
 * Return: 1, or 0 with the reason in @why.
 */
int vmm_kvm_usable(char *why, size_t whylen);

/*
 * vmm_kvm_probe_timebase_hz - the guest timebase (TSC) rate KVM would give a
 * vCPU, from a throw-away VM. Return: Hz, or 0 when KVM is not usable.
 */
uint64_t vmm_kvm_probe_timebase_hz(void);

/*
 * vmm_kvm_boot - run the guest @img (validated against @m, bytes @elf) on
 * KVM with guest output to @con, stopping after @timeout seconds.
 * @m->timebase_hz is filled in from the vCPU. Prints the layout first
 * when @verbose.
 * Return: the ptelab exit status (the guest's own, or a PTELAB_EXIT_*).
 */
int vmm_kvm_boot(struct vmm_machine *m, const struct vmm_elf_image *img, const void *elf,
		 struct vmm_console *con, int timeout, int verbose, struct vmm_timing *t);

/* Name of a KVM_EXIT_* reason ("KVM_EXIT_SHUTDOWN"), or "KVM_EXIT_<n>". */
const char *vmm_kvm_exit_name(uint32_t reason, char *buf, size_t size);

/* --- required arch hooks (kvm_x86.c, kvm_arm64.c: the host's arch) --- */

/* The guest arch this host's KVM runs (the host's own). */
extern const enum vmm_arch vmm_kvm_guest_arch;

/* VM-wide setup once RAM is in (k->m may be NULL for a probe), before the
 * vCPU exists. Return: 0, or -1 (reported). */
int vmm_kvm_arch_init_vm(struct vmm_kvm *k);

/* Set up the vCPU's identity (CPUID on x86, the preferred target on
 * arm64). Return: 0, or -1 (reported). */
int vmm_kvm_arch_init_vcpu(struct vmm_kvm *k);

/* The timebase the guest counts in, in Hz; 0 when unknown. */
uint64_t vmm_kvm_arch_timebase_hz(struct vmm_kvm *k);

/* Write the boot information (FDT, boot structures) into guest RAM and
 * set the vCPU's registers to enter @img. Return: 0, or -1 (reported). */
int vmm_kvm_arch_boot(struct vmm_kvm *k, const struct vmm_elf_image *img);

/* Handle the exit in k->run; on VMM_KVM_DONE store the guest's status. */
enum vmm_kvm_exit vmm_kvm_arch_handle_exit(struct vmm_kvm *k, int *status);

/* Print the vCPU's registers (and what helps, e.g. a page walk) on stderr. */
void vmm_kvm_arch_dump(struct vmm_kvm *k);

/* Print the arch's boot structures for --verbose. */
void vmm_kvm_arch_print_layout(struct vmm_kvm *k);

#endif
