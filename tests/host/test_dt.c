/*
 * test_dt.c - the guest's device-tree reader (core/dt.c, core/machine.c)
 * on trees written with libfdt, including broken and hostile ones.
 */
#include <libfdt.h>
#include <stdlib.h>

#include "dt.h"
#include "machine.h"
#include "test.h"

static char err[160];
static struct machine m;

/* A small tree in the QEMU arm64 shape: 1 address/size cell pair of 2,
 * memory nodes out of id order, a distance map before the memory. */
static size_t make_tree(void *buf, size_t size)
{
	fdt32_t reg[4];

	fdt_create(buf, (int)size);
	fdt_finish_reservemap(buf);
	fdt_begin_node(buf, "");
	fdt_property_u32(buf, "#address-cells", 2);
	fdt_property_u32(buf, "#size-cells", 2);
	fdt_begin_node(buf, "distance-map");
	{
		fdt32_t dm[] = { cpu_to_fdt32(0), cpu_to_fdt32(1), cpu_to_fdt32(21),
				 cpu_to_fdt32(1), cpu_to_fdt32(0), cpu_to_fdt32(22) };
		fdt_property(buf, "distance-matrix", dm, sizeof(dm));
	}
	fdt_end_node(buf);
	fdt_begin_node(buf, "memory@60000000");
	fdt_property_string(buf, "device_type", "memory");
	reg[0] = cpu_to_fdt32(0), reg[1] = cpu_to_fdt32(0x60000000);
	reg[2] = cpu_to_fdt32(0), reg[3] = cpu_to_fdt32(0x20000000);
	fdt_property(buf, "reg", reg, sizeof(reg));
	fdt_property_u32(buf, "numa-node-id", 1);
	fdt_end_node(buf);
	fdt_begin_node(buf, "memory@40000000");
	fdt_property_u32(buf, "numa-node-id", 0);
	reg[1] = cpu_to_fdt32(0x40000000);
	fdt_property(buf, "reg", reg, sizeof(reg));
	fdt_property_string(buf, "device_type", "memory");
	fdt_end_node(buf);
	fdt_begin_node(buf, "cpus");
	fdt_property_u32(buf, "#address-cells", 1);
	fdt_begin_node(buf, "cpu@0");
	fdt_property_u32(buf, "numa-node-id", 1);
	fdt_property_u32(buf, "reg", 0x100);
	fdt_end_node(buf);
	fdt_end_node(buf);
	fdt_begin_node(buf, "psci");
	fdt_property_string(buf, "method", "hvc");
	fdt_end_node(buf);
	/* QEMU's GICv3 node: distributor and redistributor regs, an ITS child
	 * (whose begin must not hide the parent's reg). */
	fdt_begin_node(buf, "intc@8000000");
	fdt_property_string(buf, "compatible", "arm,gic-v3");
	{
		fdt32_t gic[8] = { 0, cpu_to_fdt32(0x8000000), 0, cpu_to_fdt32(0x10000),
				   0, cpu_to_fdt32(0x80a0000), 0, cpu_to_fdt32(0xf60000) };

		fdt_property(buf, "reg", gic, sizeof(gic));
	}
	fdt_begin_node(buf, "its@8080000");
	fdt_property_u32(buf, "reg", 1);
	fdt_end_node(buf);
	fdt_end_node(buf);
	fdt_begin_node(buf, "chosen");
	fdt_property_string(buf, "bootargs", "run=hello");
	fdt_end_node(buf);
	fdt_end_node(buf);
	fdt_finish(buf);
	return fdt_totalsize(buf);
}

/* Memory nodes are grouped and sorted by id; distances map by id. */
TEST(qemu_shaped_tree)
{
	char buf[4096];
	size_t n = make_tree(buf, sizeof(buf));

	CHECK_EQ(machine_from_fdt(buf, n, &m, err, sizeof(err)), 0);
	CHECK_EQ(m.nr_nodes, 2);
	CHECK_EQ(m.node[0].id, 0);
	CHECK_EQ(m.node[0].range[0].base, 0x40000000);
	CHECK_EQ(m.node[1].size, 0x20000000);
	CHECK_EQ(m.distance[0][1], 21);
	CHECK_EQ(m.distance[1][0], 22);
	CHECK_EQ(m.distance[1][1], 10);
	CHECK_EQ(m.nr_cpus, 1);
	CHECK_EQ(m.cpu_node[0], 1);
	CHECK_EQ(m.cpu_hwid[0], 0x100);
	CHECK_EQ(m.psci_method, MACHINE_PSCI_HVC);
	CHECK_EQ(m.gicd_base, 0x8000000);
	CHECK_EQ(m.gicr_base, 0x80a0000);
	CHECK_STR(m.bootargs, "run=hello");
	CHECK_EQ(m.timebase_hz, 0);
	CHECK_EQ(m.exit_mmio, 0); /* QEMU's tree: the guest exits with its status line */
}

/* A tree with one memory node and, unless @exit_name is NULL, a node of that
 * name (with a 1-cell reg of 0x9f0000 when @with_reg); #address-cells 1. */
static size_t exit_tree(void *buf, size_t size, const char *exit_name, int with_reg)
{
	fdt32_t mem[2] = { cpu_to_fdt32(0x40000000), cpu_to_fdt32(0x10000000) };
	fdt32_t reg[2] = { cpu_to_fdt32(0x9f0000), cpu_to_fdt32(0x1000) };

	fdt_create(buf, (int)size);
	fdt_finish_reservemap(buf);
	fdt_begin_node(buf, "");
	fdt_property_u32(buf, "#address-cells", 1);
	fdt_property_u32(buf, "#size-cells", 1);
	fdt_begin_node(buf, "memory@40000000");
	fdt_property_string(buf, "device_type", "memory");
	fdt_property(buf, "reg", mem, sizeof(mem));
	fdt_end_node(buf);
	if (exit_name) {
		fdt_begin_node(buf, exit_name);
		fdt_property_string(buf, "compatible", "ptelab,exit");
		if (with_reg)
			fdt_property(buf, "reg", reg, sizeof(reg));
		fdt_end_node(buf);
	}
	fdt_end_node(buf);
	fdt_finish(buf);
	return fdt_totalsize(buf);
}

/* The exit device's address comes from its reg, in the root's cells; the
 * node is known by its name; one without a reg is an error. */
TEST(exit_device)
{
	char buf[1024];
	size_t n = exit_tree(buf, sizeof(buf), "ptelab-exit@9f0000", 1);

	CHECK_EQ(machine_from_fdt(buf, n, &m, err, sizeof(err)), 0);
	CHECK_EQ(m.exit_mmio, 0x9f0000);
	n = exit_tree(buf, sizeof(buf), "ptelab-exitx@9f0000", 1);
	CHECK_EQ(machine_from_fdt(buf, n, &m, err, sizeof(err)), 0);
	CHECK_EQ(m.exit_mmio, 0);
	n = exit_tree(buf, sizeof(buf), "ptelab-exit@9f0000", 0);
	CHECK_EQ(machine_from_fdt(buf, n, &m, err, sizeof(err)), -1);
	CHECK_HAS(err, "ptelab-exit without a reg");
}

/* A limit smaller than the header's totalsize is refused. */
TEST(truncated_blob_refused)
{
	char buf[4096];
	size_t n = make_tree(buf, sizeof(buf));

	CHECK_EQ(machine_from_fdt(buf, n - 1, &m, err, sizeof(err)), -1);
	CHECK_HAS(err, "bad header");
	CHECK_EQ(machine_from_fdt(buf, 39, &m, err, sizeof(err)), -1);
	CHECK_EQ(machine_from_fdt("not a tree at all, not a tree at all......", 42, &m, err,
				  sizeof(err)),
		 -1);
}

/* Flipping any byte of the tree never crashes the reader (run under ASan)
 * and either parses or reports an error. */
TEST(every_byte_flip_is_survived)
{
	char buf[4096], copy[4096];
	size_t n = make_tree(buf, sizeof(buf));
	int errors = 0, parsed = 0;

	for (size_t i = 0; i < n; i++) {
		for (int bit = 0; bit < 8; bit += 3) {
			memcpy(copy, buf, n);
			copy[i] ^= (char)(1 << bit);
			if (machine_from_fdt(copy, n, &m, err, sizeof(err)))
				errors++;
			else
				parsed++;
		}
	}
	CHECK(errors > 0);
	CHECK(parsed > 0);
	CHECK_EQ(errors + parsed, (int)n * 3);
}

/* A tree without memory nodes is not a machine. */
TEST(no_memory_is_an_error)
{
	char buf[512];

	fdt_create(buf, sizeof(buf));
	fdt_finish_reservemap(buf);
	fdt_begin_node(buf, "");
	fdt_end_node(buf);
	fdt_finish(buf);
	CHECK_EQ(machine_from_fdt(buf, sizeof(buf), &m, err, sizeof(err)), -1);
	CHECK_HAS(err, "no memory");
}

/* dt_walk visits nodes in order with the right depths. */
static int depth_sum, nodes;
static int count_node(void *ctx, int depth, const char *name)
{
	(void)ctx, (void)name;
	depth_sum += depth;
	nodes++;
	return 0;
}

TEST(walk_depths)
{
	char buf[4096];
	struct dt dt;
	struct dt_visitor v = { count_node, NULL, NULL, NULL };

	make_tree(buf, sizeof(buf));
	CHECK_EQ(dt_open(&dt, buf, sizeof(buf)), 0);
	CHECK_EQ(dt_walk(&dt, &v), 0);
	/* root, distance-map, 2 memory, cpus, cpu@0, psci, intc, its, chosen */
	CHECK_EQ(nodes, 10);
	CHECK_EQ(depth_sum, 11); /* 7 at depth 1, cpu@0 and its@ at 2 */
}

TEST_SUITE(dt, qemu_shaped_tree, exit_device, truncated_blob_refused, every_byte_flip_is_survived,
	   no_memory_is_an_error, walk_depths)
