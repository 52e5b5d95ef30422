/*
 * vmm_layout.h - the machine ptelab describes to its guest: NUMA nodes with
 * their physical memory, cpus, distances, command line, timebase.
 *
 * The same description feeds the FDT builder, the ELF loader's RAM limits,
 * the KVM memory slots and the QEMU -numa options, so they cannot disagree.
 */
#ifndef VMM_LAYOUT_H
#define VMM_LAYOUT_H

#include <stdint.h>

#include "vmm_config.h"

#define VMM_NODE_RANGES 2 /* a node may straddle QEMU pc's hole below 4 GiB */
#define VMM_MAX_RAM (VMM_MAX_NODES * VMM_NODE_RANGES)

/* Where guest RAM goes. */
enum vmm_layout {
	VMM_LAYOUT_FLAT, /* ptelab's KVM backend: all RAM from GPA 0 */
	VMM_LAYOUT_PC,	 /* QEMU -M pc: low RAM below 4 GiB, the rest from 4 GiB */
	VMM_LAYOUT_VIRT, /* QEMU arm64 -M virt: all RAM from 1 GiB */
};

#define VMM_PC_LOWMEM_SPLIT 0xe0000000ULL /* from this size on, QEMU pc splits */
#define VMM_PC_LOWMEM 0xc0000000ULL	  /* ... and keeps this much below 4 GiB */
#define VMM_VIRT_RAM_BASE 0x40000000ULL
#define VMM_ARM64_LOAD_MIN 0x40200000ULL /* QEMU's DTB sits at the base of RAM */

struct vmm_range {
	uint64_t base, size;
};

struct vmm_node {
	int id;
	int nr_ranges;
	struct vmm_range range[VMM_NODE_RANGES]; /* ascending */
	uint64_t size;				 /* sum of the ranges */
};

struct vmm_machine {
	enum vmm_arch arch;
	enum vmm_layout layout;
	uint64_t ram_size;
	int nr_nodes;
	struct vmm_node node[VMM_MAX_NODES];
	int nr_cpus;
	int cpu_node[VMM_MAX_CPUS];
	uint8_t distance[VMM_MAX_NODES][VMM_MAX_NODES];
	char bootargs[VMM_BOOTARGS_MAX];
	uint64_t timebase_hz; /* 0: unknown (the FDT then omits it) */
	/* Maximal runs of contiguous RAM over all nodes, ascending. */
	int nr_ram;
	struct vmm_range ram[VMM_MAX_RAM];
	/* --initramfs's archive (NULL: none) and run=exec's argv[1..]
	 * (NUL-separated), which the backends hand to the guest. */
	const uint8_t *initramfs;
	size_t initramfs_size;
	const char *exec_argv;
	size_t exec_argv_len;
};

/*
 * vmm_machine_init - lay out @mem bytes over @nodes equal nodes in @layout,
 * with @cpus cpus (cpu i on node i % nodes), distances 10 local and 20
 * remote, and @bootargs.
 * Return: 0, or -1 when the sizes are out of the limits of vmm_config.h
 * (vmm_args_parse() has already refused those) or @bootargs is too long.
 */
int vmm_machine_init(struct vmm_machine *m, enum vmm_layout layout, uint64_t mem, int nodes,
		     int cpus, const char *bootargs);

/* Does [base, base+size) lie inside one of the @nr ranges? Overflow-safe;
 * an empty range counts when @base is inside or at the end of a range. */
int vmm_ranges_contain(const struct vmm_range *r, int nr, uint64_t base, uint64_t size);

/*
 * vmm_arm64_initramfs_pa - where an arm64 run's initramfs goes, on QEMU
 * (its generic loader) and on the KVM backend (/chosen/linux,initrd-*):
 * the top of the highest RAM run at least four times its size,
 * PTELAB_INITRAMFS_ALIGN-aligned, above the boot data at the base of RAM.
 * Return: the address, 0 when @m has no initramfs or no run has room.
 */
uint64_t vmm_arm64_initramfs_pa(const struct vmm_machine *m);

/* Print the nodes and RAM runs on stderr, one "ptelab: " line each. */
void vmm_machine_print(const struct vmm_machine *m);

#endif
