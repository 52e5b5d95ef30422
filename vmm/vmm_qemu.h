/*
 * vmm_qemu.h - the QEMU backend: qemu-system-x86_64 -M pc (TCG or KVM) and
 * qemu-system-aarch64 -M virt, run as a child with its serial output piped
 * through ptelab's console.
 */
#ifndef VMM_QEMU_H
#define VMM_QEMU_H

#include "vmm_config.h"
#include "vmm_console.h"
#include "vmm_layout.h"
#include "vmm_timing.h"

#define VMM_QEMU_MAX_ARGS 192
#define VMM_QEMU_ARGS_BYTES 8192
/* The file of an x86_64 run, in its private directory. */
#define VMM_QEMU_FDT_FILE "guest.dtb"
/* An arm64 run's files for QEMU's loader (ptelab/abi.h): the boot record
 * and the initramfs, when there is one or run=exec has arguments. */
#define VMM_QEMU_BOOTREC_FILE "bootrec.bin"
#define VMM_QEMU_INITRAMFS_FILE "initramfs.cpio"
/* x86_64's status byte: QEMU writes it to this inherited descriptor, a
 * pipe ptelab drains keeping only the last byte, so a guest writing the
 * port in a loop fills no disk. */
#define VMM_QEMU_STATUS_FD 3

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
 * node, cpus placed by -numa cpu; x86_64 adds -initrd @dir/guest.dtb (the
 * FDT, which QEMU's PVH loader makes module 0), isa-debug-exit, and an
 * isa-debugcon writing the status byte to /dev/fd/VMM_QEMU_STATUS_FD (a
 * pipe, whose write end QEMU inherits); arm64 adds
 * -append bootargs, dumpdtb=@dumpdtb when not NULL, and with an
 * initramfs or program arguments a -device loader for each of
 * @dir/VMM_QEMU_BOOTREC_FILE and @dir/VMM_QEMU_INITRAMFS_FILE at the
 * addresses vmm_arm64_initramfs_pa() and ptelab/abi.h give. Both run under
 * QEMU's seccomp sandbox, and no option opens a channel from the guest to
 * the host beyond the serial console and the status byte
 * (docs/isolation.md).
 * Return: 0, or -1 when it does not fit in @a.
 */
int vmm_qemu_build_argv(const struct vmm_config *cfg, const struct vmm_machine *m, const char *dir,
			const char *dumpdtb, struct vmm_qemu_argv *a);

/*
 * vmm_qemu_status - the guest's exit status from QEMU's exit code @code on
 * x86_64, given the last byte the guest wrote to PTELAB_PORT_STATUS
 * (@status_byte, or -1 when it wrote none).
 * Return: the status, or -1 when @code is not an isa-debug-exit code (QEMU
 * failed, or the guest reset the machine).
 */
int vmm_qemu_status(int code, int status_byte);

/*
 * vmm_qemu_boot - run the guest under QEMU until it exits or @cfg->timeout
 * passes (QEMU then gets SIGTERM, and SIGKILL a second later). SIGINT,
 * SIGTERM and SIGHUP stop QEMU the same way and return 128 + the signal.
 * The x86_64 run's files live in a private temporary directory, removed on
 * return unless cfg->keep. With cfg->dtb_out on arm64, only has QEMU dump
 * its device tree there.
 * Return: the ptelab exit status.
 */
int vmm_qemu_boot(const struct vmm_config *cfg, struct vmm_machine *m, struct vmm_console *con,
		  struct vmm_timing *t);

#endif
