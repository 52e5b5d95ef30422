/*
 * test_vmm_fdt.c - the VMM's device-tree builder (vmm/fdt.c) read back by
 * the guest's parser (core/dt.c, core/machine.c): whatever ptelab
 * describes, the guest must learn exactly, for 1..8 nodes and every layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <stdlib.h>
#include <unistd.h>

#include "machine.h"
#include "ptelab/abi.h"
#include "test.h"
#include "vmm_fdt.h"

static struct vmm_machine vm;
static struct machine gm;
static char blob[PTELAB_BOOT_FDT_MAX];
static char err[160];

/* Distances that differ in every direction, so a swapped pair shows. */
static void odd_distances(struct vmm_machine *m)
{
	for (int i = 0; i < m->nr_nodes; i++)
		for (int j = 0; j < m->nr_nodes; j++)
			m->distance[i][j] = (uint8_t)(i == j ? 10 : 20 + 8 * i + j);
}

/*
 * same_machine - compare what the guest parsed (@g) with what the VMM
 * described (@v), one CHECK per fact, so a failure says which one.
 */
static void same_machine(const struct machine *g, const struct vmm_machine *v)
{
	CHECK_EQ(g->nr_nodes, v->nr_nodes);
	for (int i = 0; i < v->nr_nodes && i < g->nr_nodes; i++) {
		CHECK_EQ(g->node[i].id, v->node[i].id);
		CHECK_EQ(g->node[i].nr_ranges, v->node[i].nr_ranges);
		CHECK_EQ(g->node[i].size, v->node[i].size);
		for (int r = 0; r < v->node[i].nr_ranges; r++) {
			CHECK_EQ(g->node[i].range[r].base, v->node[i].range[r].base);
			CHECK_EQ(g->node[i].range[r].size, v->node[i].range[r].size);
		}
	}
	CHECK_EQ(g->nr_cpus, v->nr_cpus);
	for (int c = 0; c < v->nr_cpus && c < g->nr_cpus; c++) {
		CHECK_EQ(g->cpu_node[c], v->node[v->cpu_node[c]].id);
		CHECK_EQ(g->cpu_hwid[c], c); /* APIC ID / MPIDR = the vCPU id */
	}
	CHECK_EQ(g->has_distances, 1);
	for (int i = 0; i < v->nr_nodes && i < g->nr_nodes; i++)
		for (int j = 0; j < v->nr_nodes && j < g->nr_nodes; j++)
			CHECK_EQ(g->distance[i][j], v->distance[i][j]);
	CHECK_STR(g->bootargs, v->bootargs);
	CHECK_EQ(g->timebase_hz, v->timebase_hz);
	CHECK_EQ(g->ptelab_abi, PTELAB_ABI_VERSION);
	CHECK_EQ(g->exit_mmio, v->arch == VMM_ARCH_ARM64 ? PTELAB_ARM64_EXIT : 0);
}

/* Build @v's tree, check it with libfdt, parse it as the guest does. */
static void round_trip(const struct vmm_machine *v)
{
	int size = vmm_fdt_build(v, blob, sizeof(blob));

	CHECK(size > 0);
	if (size <= 0)
		return;
	CHECK_EQ(fdt_check_full(blob, (size_t)size), 0);
	CHECK_EQ(machine_from_fdt(blob, (size_t)size, &gm, err, sizeof(err)), 0);
	same_machine(&gm, v);
}

/* 1..8 nodes on the KVM layout, 1..8 cpus spread over them, 32 and
 * 64-bit timebases: every range, node id, cpu, distance, bootarg and the
 * timer frequency comes back. */
TEST(round_trip_1_to_8_nodes)
{
	char args[64];

	for (int n = 1; n <= VMM_MAX_NODES; n++) {
		int cpus = 1 + (n * 3) % VMM_MAX_CPUS;

		snprintf(args, sizeof(args), "run=hello nodes=%d cpus=%d", n, cpus);
		CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_FLAT, (uint64_t)n * (48ULL << 20), n,
					  cpus, args),
			 0);
		odd_distances(&vm);
		vm.timebase_hz = n % 2 ? 2999999000ULL + (uint64_t)n : 5000000000ULL + (uint64_t)n;
		round_trip(&vm);
	}
}

/* QEMU pc's hole below 4 GiB splits a node into two ranges; the tree
 * carries both in one reg. */
TEST(round_trip_pc_layout_split_nodes)
{
	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_PC, 4ULL << 30, 2, 2, "run=hello"), 0);
	CHECK_EQ(vm.node[1].nr_ranges, 2);
	vm.timebase_hz = 1000000000;
	round_trip(&vm);
	CHECK_EQ(gm.node[1].range[1].base, 4ULL << 30);
	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_PC, 6ULL << 30, 3, 3, "a b c"), 0);
	odd_distances(&vm);
	round_trip(&vm);
	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_PC, 5ULL << 30, 1, 1, "run=hello"), 0);
	round_trip(&vm);
	CHECK_EQ(gm.node[0].size, 5ULL << 30);
}

/* arm64's layout (RAM from 1 GiB); no timebase: the property is left out
 * and the guest reads 0. */
TEST(round_trip_virt_layout_no_timebase)
{
	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_VIRT, 2ULL << 30, 4, 8, "run=selftest"), 0);
	round_trip(&vm);
	CHECK_EQ(gm.node[0].range[0].base, VMM_VIRT_RAM_BASE);
	CHECK_EQ(gm.timebase_hz, 0);
}

/* The biggest tree (8 nodes, one split by the PC hole, 8 cpus, the
 * longest command line) fits the FDT slot of the boot layout. */
TEST(largest_tree_fits_boot_slot)
{
	char args[VMM_BOOTARGS_MAX];

	memset(args, 'a', sizeof(args) - 1);
	args[sizeof(args) - 1] = 0;
	memcpy(args, "run=hello ", 10);
	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_PC, 10ULL << 30, 8, 8, args), 0);
	CHECK_EQ(vm.node[2].nr_ranges, 2);
	odd_distances(&vm);
	vm.timebase_hz = 0xfedcba9876ULL;
	round_trip(&vm);
	CHECK_EQ(strlen(gm.bootargs), VMM_BOOTARGS_MAX - 1);
}

/* Every buffer smaller than the tree gets a clean error, never a write past
 * its end (each is malloc'ed to exactly its size, under ASan). */
TEST(small_buffers_refused)
{
	int need, bad = 0;

	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_FLAT, 1ULL << 30, 4, 4, "run=hello"), 0);
	need = vmm_fdt_build(&vm, blob, sizeof(blob));
	CHECK(need > 0);
	for (int size = 0; size < need; size++) {
		char *b = malloc((size_t)(size ? size : 1));

		if (vmm_fdt_build(&vm, b, (size_t)size) >= 0)
			bad++;
		free(b);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(vmm_fdt_build(&vm, blob, (size_t)need), need);
}

/* The tree names what the guest and dtc expect. */
TEST(tree_has_standard_names)
{
	int size, off, len;
	const char *s;

	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_FLAT, 1ULL << 30, 2, 2, "run=hello x=1"), 0);
	size = vmm_fdt_build(&vm, blob, sizeof(blob));
	CHECK(size > 0);
	off = fdt_path_offset(blob, "/memory@20000000");
	CHECK(off >= 0);
	s = fdt_getprop(blob, off, "device_type", &len);
	CHECK_STR(s, "memory");
	off = fdt_path_offset(blob, "/distance-map");
	CHECK_STR(fdt_getprop(blob, off, "compatible", &len), "numa-distance-map-v1");
	off = fdt_path_offset(blob, "/cpus/cpu@1");
	CHECK_STR(fdt_getprop(blob, off, "device_type", &len), "cpu");
	CHECK_STR(fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "bootargs", &len),
		  "run=hello x=1");
}

/* The arm64 KVM machine's devices: the PL011 (also stdout-path), the
 * exit device of ptelab/abi.h, the timer, armv8 cpus; none on x86_64. */
TEST(arm64_tree_has_devices)
{
	const fdt32_t *reg;
	int size, off, len;

	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_VIRT, 1ULL << 30, 2, 2, "run=hello"), 0);
	size = vmm_fdt_build(&vm, blob, PTELAB_ARM64_FDT_MAX);
	CHECK(size > 0);
	CHECK_EQ(fdt_check_full(blob, (size_t)size), 0);
	off = fdt_path_offset(blob, "/pl011@9000000");
	CHECK(off >= 0);
	CHECK_EQ(fdt_node_check_compatible(blob, off, "arm,pl011"), 0);
	CHECK_EQ(fdt_node_check_compatible(blob, off, "arm,primecell"), 0);
	CHECK_STR(fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "stdout-path", &len),
		  "/pl011@9000000");
	off = fdt_path_offset(blob, "/" PTELAB_FDT_EXIT_NODE "@90f0000");
	CHECK(off >= 0);
	CHECK_EQ(fdt_node_check_compatible(blob, off, PTELAB_FDT_EXIT_COMPAT), 0);
	reg = fdt_getprop(blob, off, "reg", &len);
	CHECK_EQ(len, 16);
	if (reg && len == 16) {
		CHECK_EQ(fdt32_to_cpu(reg[1]), PTELAB_ARM64_EXIT);
		CHECK_EQ(fdt32_to_cpu(reg[3]), PTELAB_ARM64_EXIT_SIZE);
	}
	off = fdt_path_offset(blob, "/timer");
	CHECK_EQ(fdt_node_check_compatible(blob, off, "arm,armv8-timer"), 0);
	off = fdt_path_offset(blob, "/cpus/cpu@1");
	CHECK_EQ(fdt_node_check_compatible(blob, off, "arm,armv8"), 0);
	CHECK_EQ(machine_from_fdt(blob, (size_t)size, &gm, err, sizeof(err)), 0);
	CHECK_EQ(gm.exit_mmio, PTELAB_ARM64_EXIT);
	/* The secondaries: PSCI by HVC, the vGICv3 with a redistributor each. */
	CHECK_EQ(gm.psci_method, MACHINE_PSCI_HVC);
	CHECK_EQ(gm.gicd_base, PTELAB_ARM64_GICD);
	CHECK_EQ(gm.gicr_base, PTELAB_ARM64_GICR);
	reg = fdt_getprop(blob, fdt_path_offset(blob, "/intc@8000000"), "reg", &len);
	CHECK_EQ(len, 32);
	if (reg && len == 32)
		CHECK_EQ(fdt32_to_cpu(reg[7]), 2 * PTELAB_ARM64_GICR_STRIDE);
	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_FLAT, 1ULL << 30, 2, 2, "run=hello"), 0);
	size = vmm_fdt_build(&vm, blob, sizeof(blob));
	CHECK(size > 0);
	CHECK(fdt_path_offset(blob, "/pl011@9000000") < 0);
	CHECK(fdt_path_offset(blob, "/" PTELAB_FDT_EXIT_NODE "@90f0000") < 0);
}

/* The arm64 KVM machine names its initramfs in /chosen as Linux's
 * linux,initrd-start/-end, at the top of RAM, which the guest's parser
 * reads back; no initramfs, or an x86_64 tree (PVH module 1), names none. */
TEST(arm64_tree_names_initramfs)
{
	static const uint8_t cpio[1 << 20];

	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_VIRT, 1ULL << 30, 2, 1, "run=exec:/bin/x"), 0);
	vm.initramfs = cpio;
	vm.initramfs_size = sizeof(cpio) - 3;
	CHECK(vmm_fdt_build(&vm, blob, PTELAB_ARM64_FDT_MAX) > 0);
	CHECK_EQ(machine_from_fdt(blob, fdt_totalsize(blob), &gm, err, sizeof(err)), 0);
	CHECK_EQ(gm.initrd_start, 0x80000000ull - (1 << 20));
	CHECK_EQ(gm.initrd_end, gm.initrd_start + sizeof(cpio) - 3);
	CHECK_EQ(gm.initrd_start, vmm_arm64_initramfs_pa(&vm));
	vm.initramfs_size = 300 << 20; /* no run has room: none named */
	CHECK(vmm_fdt_build(&vm, blob, PTELAB_ARM64_FDT_MAX) > 0);
	CHECK(fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "linux,initrd-start", NULL) ==
	      NULL);
	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_FLAT, 1ULL << 30, 2, 1, "run=exec:/bin/x"), 0);
	vm.initramfs = cpio;
	vm.initramfs_size = sizeof(cpio);
	CHECK(vmm_fdt_build(&vm, blob, sizeof(blob)) > 0);
	CHECK(fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "linux,initrd-start", NULL) ==
	      NULL);
	vm.initramfs = NULL;
	vm.initramfs_size = 0;
}

/* --dtb-out's writer puts exactly the blob in the file. */
TEST(write_file_exact)
{
	char dir[] = "/tmp/ptelab-fdt.XXXXXX", path[64], back[PTELAB_BOOT_FDT_MAX];
	int size, fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/t.dtb", dir);
	CHECK_EQ(vmm_machine_init(&vm, VMM_LAYOUT_FLAT, 1ULL << 30, 2, 1, "run=hello"), 0);
	size = vmm_fdt_build(&vm, blob, sizeof(blob));
	CHECK_EQ(vmm_fdt_write_file(path, blob, (size_t)size), 0);
	fd = open(path, O_RDONLY);
	CHECK_EQ(read(fd, back, sizeof(back)), size);
	CHECK(memcmp(back, blob, (size_t)size) == 0);
	close(fd);
	unlink(path);
	rmdir(dir);
	errno = 0;
	CHECK_EQ(vmm_fdt_write_file("/nonexistent-dir/t.dtb", blob, (size_t)size), -1);
	CHECK_EQ(errno, ENOENT);
}

TEST_SUITE(vmm_fdt, round_trip_1_to_8_nodes, round_trip_pc_layout_split_nodes,
	   round_trip_virt_layout_no_timebase, largest_tree_fits_boot_slot, small_buffers_refused,
	   tree_has_standard_names, arm64_tree_has_devices, arm64_tree_names_initramfs,
	   write_file_exact)
