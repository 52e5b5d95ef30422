/*
 * vmm_kvm.h - ptelab's own KVM backend.
 *
 * kvm.c is the generic part (the VM, memory slots, the vCPU, the run loop,
 * the timeout); the arch part, kvm_x86.c or kvm_arm64.c after the host's
 * arch (the Makefile picks one), defines the vmm_kvm_arch_* hooks below:
 * vCPU identity, boot state, device exits (port I/O or MMIO) and register
 * dumps. Every cpu of the machine is a vCPU with a thread of its own;
 * vCPU 0 starts at the entry, the others wait in the in-kernel interrupt
 * controller (x86 LAPIC: INIT-SIPI; arm64: powered off until PSCI CPU_ON).
 */
#ifndef VMM_KVM_H
#define VMM_KVM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm_config.h"
#include "vmm_console.h"
#include "vmm_elf.h"
#include "vmm_guestmem.h"
#include "vmm_layout.h"
#include "vmm_timing.h"

struct kvm_run;

struct vmm_kvm;

/* One vCPU: its fd, its kvm_run mapping and the thread that runs it. */
struct vmm_kvm_vcpu {
	struct vmm_kvm *k;
	int id, fd;
	struct kvm_run *run;
	pthread_t thread;
	int started; /* the thread exists; set under exit_lock (kvm_start_vcpus()) */
};

struct vmm_kvm {
	int sys_fd, vm_fd;
	int nr_vcpus;
	struct vmm_kvm_vcpu vcpu[VMM_MAX_CPUS];
	size_t run_size; /* of each kvm_run mapping */
	int arch_fd;	 /* the arch's device fd (arm64: the vGIC), -1 without */
	struct vmm_guest_mem mem;
	struct vmm_machine *m;
	struct vmm_console *con;
	/* Exits are handled one at a time (console, devices, the status). */
	pthread_mutex_t exit_lock;
	pthread_t main_thread;		      /* waits for the stop; woken by SIGUSR1 */
	volatile int stop;		      /* set once: every vCPU thread leaves its loop */
	int status;			      /* the ptelab exit status, valid once stop is set */
	int halted;			      /* a vCPU stopped with nothing to wake it */
	uint64_t run_start_us, first_exit_us; /* for --timing: vCPU 0's first exit */
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
 * vCPUs exist (x86: the in-kernel irqchip). Return: 0, or -1 (reported). */
int vmm_kvm_arch_init_vm(struct vmm_kvm *k);

/* Set up vCPU @v's identity (CPUID and APIC ID on x86, the target and
 * PSCI, powered off unless it is vCPU 0, on arm64). Return: 0, or -1
 * (reported). */
int vmm_kvm_arch_init_vcpu(struct vmm_kvm_vcpu *v);

/* VM-wide setup that needs every vCPU (arm64: the vGICv3). Return: 0,
 * or -1 (reported). */
int vmm_kvm_arch_finish_vm(struct vmm_kvm *k);

/* The timebase the guest counts in, in Hz; 0 when unknown. */
uint64_t vmm_kvm_arch_timebase_hz(struct vmm_kvm *k);

/* Write the boot information (FDT, boot structures) into guest RAM and
 * set vCPU 0's registers to enter @img. Return: 0, or -1 (reported). */
int vmm_kvm_arch_boot(struct vmm_kvm *k, const struct vmm_elf_image *img);

/* Handle the exit in v->run; on VMM_KVM_DONE store the guest's status.
 * Context: k->exit_lock held. */
enum vmm_kvm_exit vmm_kvm_arch_handle_exit(struct vmm_kvm_vcpu *v, int *status);

/* Print vCPU @v's registers (and what helps, e.g. a page walk) on stderr. */
void vmm_kvm_arch_dump(struct vmm_kvm_vcpu *v);

/* Print the arch's boot structures for --verbose. */
void vmm_kvm_arch_print_layout(struct vmm_kvm *k);

#endif
