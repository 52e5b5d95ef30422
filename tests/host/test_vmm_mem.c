/*
 * test_vmm_mem.c - guest RAM as the VMM sees it: the machine layouts
 * (vmm/layout.c), the checked guest-physical translator (vmm/guestmem.c)
 * that every guest access goes through, and the small helpers of
 * vmm/util.c that format what the VMM prints.
 */
#include "test.h"
#include "vmm_guestmem.h"
#include "vmm_layout.h"
#include "vmm_util.h"

static struct vmm_machine m;

#define GIB (1ULL << 30)
#define MIB (1ULL << 20)

/* KVM: all RAM from 0, split evenly; cpus round-robin over the nodes. */
TEST(flat_layout)
{
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, 768 * MIB, 3, 5, "run=hello"), 0);
	CHECK_EQ(m.nr_ram, 1);
	CHECK_EQ(m.ram[0].base, 0);
	CHECK_EQ(m.ram[0].size, 768 * MIB);
	CHECK_EQ(m.nr_nodes, 3);
	CHECK_EQ(m.node[2].range[0].base, 512 * MIB);
	CHECK_EQ(m.node[2].size, 256 * MIB);
	CHECK_EQ(m.cpu_node[4], 1);
	CHECK_EQ(m.distance[0][0], 10);
	CHECK_EQ(m.distance[2][0], 20);
	CHECK_EQ(m.arch, VMM_ARCH_X86_64);
	CHECK_STR(m.bootargs, "run=hello");
}

/* QEMU pc: below 3.5G all RAM is low; from 3.5G on, 3G stays below 4 GiB
 * and the rest starts at 4 GiB, and a node may straddle the hole. */
TEST(pc_layout_hole)
{
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_PC, 3 * GIB, 3, 1, ""), 0);
	CHECK_EQ(m.nr_ram, 1);
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_PC, VMM_PC_LOWMEM_SPLIT, 1, 1, ""), 0);
	CHECK_EQ(m.nr_ram, 2);
	CHECK_EQ(m.ram[0].size, VMM_PC_LOWMEM);
	CHECK_EQ(m.ram[1].base, 4 * GIB);
	CHECK_EQ(m.ram[1].size, VMM_PC_LOWMEM_SPLIT - VMM_PC_LOWMEM);
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_PC, 4 * GIB, 2, 1, ""), 0);
	CHECK_EQ(m.node[0].nr_ranges, 1);
	CHECK_EQ(m.node[1].nr_ranges, 2);
	CHECK_EQ(m.node[1].range[0].base, 2 * GIB);
	CHECK_EQ(m.node[1].range[0].size, 1 * GIB);
	CHECK_EQ(m.node[1].range[1].base, 4 * GIB);
	CHECK_EQ(m.node[1].range[1].size, 1 * GIB);
	CHECK_EQ(m.node[1].size, 2 * GIB);
}

/* QEMU virt (arm64): RAM from 1 GiB. */
TEST(virt_layout)
{
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_VIRT, 2 * GIB, 2, 2, ""), 0);
	CHECK_EQ(m.arch, VMM_ARCH_ARM64);
	CHECK_EQ(m.ram[0].base, VMM_VIRT_RAM_BASE);
	CHECK_EQ(m.node[1].range[0].base, VMM_VIRT_RAM_BASE + GIB);
}

/* Sizes the command line refuses are refused here too. */
TEST(layout_refuses_bad_sizes)
{
	char longargs[VMM_BOOTARGS_MAX + 1];

	memset(longargs, 'x', VMM_BOOTARGS_MAX);
	longargs[VMM_BOOTARGS_MAX] = 0;
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, GIB, 0, 1, ""), -1);
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, GIB, 9, 1, ""), -1);
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, GIB, 1, 0, ""), -1);
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, GIB, 1, 9, ""), -1);
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, 0, 1, 1, ""), -1);
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, 100 * MIB, 3, 1, ""), -1);
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, 65 * GIB, 1, 1, ""), -1);
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, GIB, 1, 1, longargs), -1);
	longargs[VMM_BOOTARGS_MAX - 1] = 0;
	CHECK_EQ(vmm_machine_init(&m, VMM_LAYOUT_FLAT, GIB, 1, 1, longargs), 0);
}

/* Range containment is exact at both ends and immune to overflow. */
TEST(ranges_contain_edges)
{
	struct vmm_range r[2] = { { 0x1000, 0x1000 }, { 0x10000, 0x100 } };

	CHECK(vmm_ranges_contain(r, 2, 0x1000, 0x1000));
	CHECK(vmm_ranges_contain(r, 2, 0x1fff, 1));
	CHECK(vmm_ranges_contain(r, 2, 0x2000, 0)); /* empty, at the end */
	CHECK(!vmm_ranges_contain(r, 2, 0x1fff, 2));
	CHECK(!vmm_ranges_contain(r, 2, 0xfff, 2));
	CHECK(!vmm_ranges_contain(r, 2, 0x1800, 0x10000)); /* spans the gap */
	CHECK(vmm_ranges_contain(r, 2, 0x100ff, 1));
	CHECK(!vmm_ranges_contain(r, 2, 0x1800, UINT64_MAX));
	CHECK(!vmm_ranges_contain(r, 2, UINT64_MAX, 2));
	CHECK(!vmm_ranges_contain(r, 0, 0x1000, 1));
}

/* The translator: exact ends, no empty or overflowing or cross-region range. */
TEST(gpa_translator_bounds)
{
	struct vmm_range ram[2] = { { 0, 2 * MIB }, { 2 * MIB, 1 * MIB } };
	struct vmm_guest_mem mem;
	uint8_t *lo, *hi;

	CHECK_EQ(vmm_guest_mem_map(&mem, ram, 2), 0);
	CHECK_EQ(mem.nr, 2);
	lo = vmm_gpa(&mem, 0, 2 * MIB);
	hi = vmm_gpa(&mem, 2 * MIB, MIB);
	CHECK(lo != NULL && hi != NULL);
	CHECK(vmm_gpa(&mem, 0x1234, 4) == lo + 0x1234);
	CHECK(vmm_gpa(&mem, 3 * MIB - 1, 1) == hi + MIB - 1);
	CHECK(vmm_gpa(&mem, 0, 0) == NULL);		 /* empty */
	CHECK(vmm_gpa(&mem, 3 * MIB, 1) == NULL);	 /* just past the end */
	CHECK(vmm_gpa(&mem, 3 * MIB - 1, 2) == NULL);	 /* runs past the end */
	CHECK(vmm_gpa(&mem, 2 * MIB - 4, 8) == NULL);	 /* spans two regions */
	CHECK(vmm_gpa(&mem, 8, UINT64_MAX) == NULL);	 /* gpa + len overflows */
	CHECK(vmm_gpa(&mem, UINT64_MAX, 1) == NULL);	 /* far away */
	CHECK(vmm_gpa(&mem, UINT64_MAX - 3, 8) == NULL); /* wraps to 4 */
	if (lo && hi) {
		lo[2 * MIB - 1] = 0x5a; /* both mappings are writable */
		hi[0] = 0xa5;
		CHECK_EQ(*(uint8_t *)vmm_gpa(&mem, 2 * MIB - 1, 1), 0x5a);
	}
	vmm_guest_mem_unmap(&mem);
	CHECK_EQ(mem.nr, 0);
	CHECK(vmm_gpa(&mem, 0, 1) == NULL);
	vmm_guest_mem_unmap(&mem); /* twice is harmless */
}

/* Mapping refuses a bad count and leaves nothing half-mapped. */
TEST(guest_mem_map_refusals)
{
	struct vmm_range ram[2] = { { 0, MIB }, { 1ULL << 40, 1ULL << 62 } };
	struct vmm_guest_mem mem;

	CHECK_EQ(vmm_guest_mem_map(&mem, ram, -1), -1);
	CHECK_EQ(mem.nr, 0);
	CHECK_EQ(vmm_guest_mem_map(&mem, ram, VMM_MAX_RAM + 1), -1);
	CHECK_EQ(vmm_guest_mem_map(&mem, ram, 2), -1); /* 4 EiB cannot be mapped */
	CHECK_EQ(mem.nr, 0);
}

/* Sizes print as the shortest exact unit. */
TEST(fmt_size)
{
	char b[24];

	CHECK_STR(vmm_fmt_size(0, b, sizeof(b)), "0");
	CHECK_STR(vmm_fmt_size(1000, b, sizeof(b)), "1000");
	CHECK_STR(vmm_fmt_size(1536 * 1024, b, sizeof(b)), "1536K");
	CHECK_STR(vmm_fmt_size(768 * MIB, b, sizeof(b)), "768M");
	CHECK_STR(vmm_fmt_size(64 * GIB, b, sizeof(b)), "64G");
	CHECK_STR(vmm_fmt_size(UINT64_MAX, b, sizeof(b)), "18446744073709551615");
}

/* Shell quoting round-trips through sh's rules and never overflows. */
TEST(shell_quote)
{
	char b[32] = "";

	CHECK_EQ(vmm_shell_quote(b, sizeof(b), "-M"), 0);
	CHECK_STR(b, "-M");
	strcpy(b, "x ");
	CHECK_EQ(vmm_shell_quote(b, sizeof(b), "a b'c"), 0);
	CHECK_STR(b, "x 'a b'\\''c'");
	b[0] = 0;
	CHECK_EQ(vmm_shell_quote(b, sizeof(b), ""), 0);
	CHECK_STR(b, "''");
	strcpy(b, "keep");
	CHECK_EQ(vmm_shell_quote(b, 8, "toolong"), -1);
	CHECK_STR(b, "keep");
	CHECK_EQ(vmm_shell_quote(b, 10, "it's"), -1); /* 'it'\''s' needs 10 more */
	CHECK_STR(b, "keep");
}

TEST_SUITE(vmm_mem, flat_layout, pc_layout_hole, virt_layout, layout_refuses_bad_sizes,
	   ranges_contain_edges, gpa_translator_bounds, guest_mem_map_refusals, fmt_size,
	   shell_quote)
