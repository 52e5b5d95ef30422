/*
 * vmm_fdt.h - the flattened device tree ptelab gives its guest: x86_64 on
 * its own KVM backend and under QEMU (where it becomes PVH module 0), arm64
 * on its own KVM backend.
 */
#ifndef VMM_FDT_H
#define VMM_FDT_H

#include <stddef.h>

#include "vmm_layout.h"

/*
 * vmm_fdt_build - write the tree describing @m into @buf (@size bytes):
 *   / : #address-cells 2, #size-cells 2, compatible "ptelab,virt"
 *   /memory@<base of first range> per node: device_type, reg (every range),
 *       numa-node-id
 *   /cpus: #address-cells 1, #size-cells 0, timebase-frequency (64 bits,
 *       omitted when m->timebase_hz is 0); /cpus/cpu@N: device_type, reg,
 *       numa-node-id
 *   /distance-map: compatible "numa-distance-map-v1", distance-matrix with
 *       a (from, to, distance) triple for every ordered pair of nodes
 *   /chosen: bootargs, ptelab,abi = PTELAB_ABI_VERSION, ptelab,argv (with
 *       run=exec's arguments)
 * and, when @m is an arm64 machine (ptelab's arm64 KVM backend; QEMU's
 * arm64 guests get QEMU's own tree), the devices of that machine:
 *   /cpus/cpu@N: compatible "arm,armv8"
 *   /timer: compatible "arm,armv8-timer", always-on (no interrupts)
 *   /pl011@9000000: compatible "arm,pl011", "arm,primecell", reg
 *   /ptelab-exit@90f0000: compatible "ptelab,exit", reg (ptelab/abi.h)
 *   /chosen/stdout-path: "/pl011@9000000"
 *   /chosen/linux,initrd-start, linux,initrd-end (64 bits): with an
 *       initramfs, [vmm_arm64_initramfs_pa(), + its size), where the
 *       backend copies it
 * Return: the blob's size (> 0), or a negative libfdt error (-FDT_ERR_NOSPACE
 * when @size is too small).
 */
int vmm_fdt_build(const struct vmm_machine *m, void *buf, size_t size);

/*
 * vmm_fdt_write_file - write the @len bytes of @blob to @path (created or
 * truncated, mode 0644).
 * Return: 0, or -1 with errno set.
 */
int vmm_fdt_write_file(const char *path, const void *blob, size_t len);

#endif
