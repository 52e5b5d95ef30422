/*
 * fdt.c - build the guest's device tree with libfdt's sequential writer.
 *
 * Every libfdt call returns 0 or a negative error; FDT_TRY stops at the
 * first error so the builders stay a flat list of properties.
 */
#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <stdio.h>
#include <unistd.h>

#include "ptelab/abi.h"
#include "vmm_fdt.h"

#define FDT_TRY(call)                                                                              \
	do {                                                                                       \
		int r_ = (call);                                                                   \
		if (r_ < 0)                                                                        \
			return r_;                                                                 \
	} while (0)

static int fdt_u64_prop(void *fdt, const char *name, uint64_t v)
{
	fdt32_t cells[2] = { cpu_to_fdt32((uint32_t)(v >> 32)), cpu_to_fdt32((uint32_t)v) };

	return fdt_property(fdt, name, cells, sizeof(cells));
}

static int add_memory_node(void *fdt, const struct vmm_node *n)
{
	fdt32_t reg[VMM_NODE_RANGES * 4];
	char name[40];
	int k = 0;

	snprintf(name, sizeof(name), "memory@%llx", (unsigned long long)n->range[0].base);
	for (int r = 0; r < n->nr_ranges; r++) {
		reg[k++] = cpu_to_fdt32((uint32_t)(n->range[r].base >> 32));
		reg[k++] = cpu_to_fdt32((uint32_t)n->range[r].base);
		reg[k++] = cpu_to_fdt32((uint32_t)(n->range[r].size >> 32));
		reg[k++] = cpu_to_fdt32((uint32_t)n->range[r].size);
	}
	FDT_TRY(fdt_begin_node(fdt, name));
	FDT_TRY(fdt_property_string(fdt, "device_type", "memory"));
	FDT_TRY(fdt_property(fdt, "reg", reg, (int)(k * sizeof(reg[0]))));
	FDT_TRY(fdt_property_u32(fdt, "numa-node-id", (uint32_t)n->id));
	return fdt_end_node(fdt);
}

static int add_cpus(void *fdt, const struct vmm_machine *m)
{
	char name[24];

	FDT_TRY(fdt_begin_node(fdt, "cpus"));
	FDT_TRY(fdt_property_u32(fdt, "#address-cells", 1));
	FDT_TRY(fdt_property_u32(fdt, "#size-cells", 0));
	if (m->timebase_hz)
		FDT_TRY(fdt_u64_prop(fdt, "timebase-frequency", m->timebase_hz));
	for (int i = 0; i < m->nr_cpus; i++) {
		snprintf(name, sizeof(name), "cpu@%d", i);
		FDT_TRY(fdt_begin_node(fdt, name));
		FDT_TRY(fdt_property_string(fdt, "device_type", "cpu"));
		if (m->arch == VMM_ARCH_ARM64) {
			FDT_TRY(fdt_property_string(fdt, "compatible", "arm,armv8"));
			FDT_TRY(fdt_property_string(fdt, "enable-method", "psci"));
		}
		FDT_TRY(fdt_property_u32(fdt, "reg", (uint32_t)i));
		FDT_TRY(fdt_property_u32(fdt, "numa-node-id",
					 (uint32_t)m->node[m->cpu_node[i]].id));
		FDT_TRY(fdt_end_node(fdt));
	}
	return fdt_end_node(fdt);
}

static int add_distance_map(void *fdt, const struct vmm_machine *m)
{
	fdt32_t dm[VMM_MAX_NODES * VMM_MAX_NODES * 3];
	int k = 0;

	for (int i = 0; i < m->nr_nodes; i++) {
		for (int j = 0; j < m->nr_nodes; j++) {
			dm[k++] = cpu_to_fdt32((uint32_t)m->node[i].id);
			dm[k++] = cpu_to_fdt32((uint32_t)m->node[j].id);
			dm[k++] = cpu_to_fdt32(m->distance[i][j]);
		}
	}
	FDT_TRY(fdt_begin_node(fdt, "distance-map"));
	FDT_TRY(fdt_property_string(fdt, "compatible", "numa-distance-map-v1"));
	FDT_TRY(fdt_property(fdt, "distance-matrix", dm, (int)(k * sizeof(dm[0]))));
	return fdt_end_node(fdt);
}

/* A node named <name>@<base> with one reg range and @compat, a list of
 * @compat_len bytes of NUL-terminated strings. */
static int begin_device(void *fdt, const char *name, const char *compat, int compat_len,
			uint64_t base, uint64_t size)
{
	fdt32_t reg[4] = { cpu_to_fdt32((uint32_t)(base >> 32)), cpu_to_fdt32((uint32_t)base),
			   cpu_to_fdt32((uint32_t)(size >> 32)), cpu_to_fdt32((uint32_t)size) };
	char node[48];

	snprintf(node, sizeof(node), "%s@%llx", name, (unsigned long long)base);
	FDT_TRY(fdt_begin_node(fdt, node));
	FDT_TRY(fdt_property(fdt, "compatible", compat, compat_len));
	return fdt_property(fdt, "reg", reg, sizeof(reg));
}

/* PSCI 0.2 through HVC (KVM's in-kernel PSCI), and the vGICv3: the
 * distributor and one redistributor frame per cpu. */
static int add_psci_gic(void *fdt, const struct vmm_machine *m)
{
	static const char psci[] = "arm,psci-0.2", gic[] = "arm,gic-v3";
	fdt32_t reg[8] = { 0, cpu_to_fdt32(PTELAB_ARM64_GICD),
			   0, cpu_to_fdt32(PTELAB_ARM64_GICD_SIZE),
			   0, cpu_to_fdt32(PTELAB_ARM64_GICR),
			   0, cpu_to_fdt32(PTELAB_ARM64_GICR_STRIDE * (uint32_t)m->nr_cpus) };
	char node[48];

	FDT_TRY(fdt_begin_node(fdt, "psci"));
	FDT_TRY(fdt_property(fdt, "compatible", psci, sizeof(psci)));
	FDT_TRY(fdt_property_string(fdt, "method", "hvc"));
	FDT_TRY(fdt_end_node(fdt));
	snprintf(node, sizeof(node), "intc@%x", PTELAB_ARM64_GICD);
	FDT_TRY(fdt_begin_node(fdt, node));
	FDT_TRY(fdt_property(fdt, "compatible", gic, sizeof(gic)));
	FDT_TRY(fdt_property(fdt, "interrupt-controller", NULL, 0));
	FDT_TRY(fdt_property_u32(fdt, "#interrupt-cells", 3));
	FDT_TRY(fdt_property(fdt, "reg", reg, sizeof(reg)));
	return fdt_end_node(fdt);
}

/*
 * add_arm64_devices - what ptelab's arm64 KVM machine has besides RAM and
 * cpus: PSCI and the vGICv3 (for the secondary CPUs), the architected
 * timer (no interrupts used), the PL011 the VMM emulates and the exit
 * device.
 */
static int add_arm64_devices(void *fdt, const struct vmm_machine *m)
{
	static const char pl011[] = "arm,pl011\0arm,primecell", exit[] = PTELAB_FDT_EXIT_COMPAT;

	FDT_TRY(add_psci_gic(fdt, m));

	FDT_TRY(fdt_begin_node(fdt, "timer"));
	FDT_TRY(fdt_property_string(fdt, "compatible", "arm,armv8-timer"));
	FDT_TRY(fdt_property(fdt, "always-on", NULL, 0));
	FDT_TRY(fdt_end_node(fdt));
	FDT_TRY(begin_device(fdt, "pl011", pl011, sizeof(pl011), PTELAB_ARM64_UART,
			     PTELAB_ARM64_UART_SIZE));
	FDT_TRY(fdt_end_node(fdt));
	FDT_TRY(begin_device(fdt, PTELAB_FDT_EXIT_NODE, exit, sizeof(exit), PTELAB_ARM64_EXIT,
			     PTELAB_ARM64_EXIT_SIZE));
	return fdt_end_node(fdt);
}

/* /chosen/linux,initrd-start and -end (64 bits) where the arm64 KVM
 * backend copies the archive; nothing without one or without room (the
 * backend then refuses to boot). x86_64 passes it as PVH module 1. */
static int add_initrd(void *fdt, const struct vmm_machine *m)
{
	uint64_t pa = vmm_arm64_initramfs_pa(m);

	if (!pa)
		return 0;
	FDT_TRY(fdt_property_u64(fdt, "linux,initrd-start", pa));
	return fdt_property_u64(fdt, "linux,initrd-end", pa + m->initramfs_size);
}

static int add_chosen(void *fdt, const struct vmm_machine *m)
{
	char path[48];

	FDT_TRY(fdt_begin_node(fdt, "chosen"));
	FDT_TRY(fdt_property_string(fdt, "bootargs", m->bootargs));
	if (m->arch == VMM_ARCH_ARM64) {
		snprintf(path, sizeof(path), "/pl011@%x", PTELAB_ARM64_UART);
		FDT_TRY(fdt_property_string(fdt, "stdout-path", path));
	}
	FDT_TRY(fdt_property_u32(fdt, PTELAB_FDT_ABI_PROP, PTELAB_ABI_VERSION));
	if (m->exec_argv_len)
		FDT_TRY(fdt_property(fdt, PTELAB_FDT_ARGV_PROP, m->exec_argv,
				     (int)m->exec_argv_len));
	if (m->arch == VMM_ARCH_ARM64)
		FDT_TRY(add_initrd(fdt, m));
	return fdt_end_node(fdt);
}

int vmm_fdt_build(const struct vmm_machine *m, void *buf, size_t size)
{
	if (size > INT32_MAX)
		size = INT32_MAX;
	FDT_TRY(fdt_create(buf, (int)size));
	FDT_TRY(fdt_finish_reservemap(buf));
	FDT_TRY(fdt_begin_node(buf, ""));
	FDT_TRY(fdt_property_u32(buf, "#address-cells", 2));
	FDT_TRY(fdt_property_u32(buf, "#size-cells", 2));
	FDT_TRY(fdt_property_string(buf, "compatible", "ptelab,virt"));
	FDT_TRY(fdt_property_string(buf, "model", "ptelab"));
	for (int i = 0; i < m->nr_nodes; i++)
		FDT_TRY(add_memory_node(buf, &m->node[i]));
	FDT_TRY(add_cpus(buf, m));
	FDT_TRY(add_distance_map(buf, m));
	if (m->arch == VMM_ARCH_ARM64)
		FDT_TRY(add_arm64_devices(buf, m));
	FDT_TRY(add_chosen(buf, m));
	FDT_TRY(fdt_end_node(buf));
	FDT_TRY(fdt_finish(buf));
	return (int)fdt_totalsize(buf);
}

int vmm_fdt_write_file(const char *path, const void *blob, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t n = write(fd, (const char *)blob + done, len - done);

		if (n < 0) {
			int saved = errno;

			close(fd);
			errno = saved;
			return -1;
		}
		done += (size_t)n;
	}
	return close(fd);
}
