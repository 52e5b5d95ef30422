/*
 * vmm_qemu.h - the QEMU backend: qemu-system-x86_64 -M pc (TCG or KVM) and
 * qemu-system-aarch64 -M virt, run as a child with its serial output piped
 * through ptelab's console.
 */
#ifndef VMM_QEMU_H
#define VMM_QEMU_H

#include "vmm_config.h"
#include "vmm_console.h"
#include "vmm_kvm.h"
#include "vmm_layout.h"

#define VMM_QEMU_MAX_ARGS 192
#define VMM_QEMU_ARGS_BYTES 8192

/* A QEMU command line; every string lives in buf[]. */
struct vmm_qemu_argv {
	int argc;
	char *argv[VMM_QEMU_MAX_ARGS + 1]; /* NULL-terminated */
	char buf[VMM_QEMU_ARGS_BYTES];
	size_t used;
};

/* The QEMU binary for @arch, and the Debian package that has it. */
const char *vmm_qemu_binary(enum vmm_arch arch);
const char *vmm_qemu_package(enum vmm_arch arch);

/*
 * vmm_qemu_build_argv - the QEMU command line running @cfg's kernel on @m:
 * machine, accelerator, RAM and one memory-backend-ram plus -numa node per
 * node, cpus placed by -numa cpu; x86_64 adds -initrd @initrd (the FDT,
 * which QEMU's PVH loader makes module 0) and isa-debug-exit; arm64 adds
 * semihosting and -append bootargs, and dumpdtb=@dumpdtb when not NULL.
 * Return: 0, or -1 when it does not fit in @a.
 */
int vmm_qemu_build_argv(const struct vmm_config *cfg, const struct vmm_machine *m,
			const char *initrd, const char *dumpdtb, struct vmm_qemu_argv *a);

/*
 * vmm_qemu_boot - run the guest under QEMU until it exits or @cfg->timeout
 * passes (QEMU then gets SIGTERM, and SIGKILL a second later). With
 * cfg->dtb_out on arm64, only has QEMU dump its device tree there.
 * Return: the ptelab exit status.
 */
int vmm_qemu_boot(const struct vmm_config *cfg, struct vmm_machine *m, struct vmm_console *con,
		  struct vmm_timing *t);

#endif
