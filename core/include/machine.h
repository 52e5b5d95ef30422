/*
 * machine.h - what the guest knows about its machine, all of it read from
 * the flattened device tree (the guest's one source of truth).
 *
 * machine_from_fdt() is plain C with no guest dependencies so the host test
 * runner can check it against the VMM's FDT builder.
 */
#ifndef GUEST_MACHINE_H
#define GUEST_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "ptelab/abi.h"

#define MACHINE_MAX_NODES 8
#define MACHINE_MAX_RANGES 4 /* memory ranges per node */
#define MACHINE_MAX_CPUS 64
#define MACHINE_BOOTARGS_MAX 1024

#define MACHINE_PSCI_NONE 0
#define MACHINE_PSCI_HVC 1
#define MACHINE_PSCI_SMC 2

struct mem_range {
	uint64_t base, size;
};

struct numa_node {
	int id; /* numa-node-id */
	int nr_ranges;
	struct mem_range range[MACHINE_MAX_RANGES];
	uint64_t size; /* sum of the ranges */
};

struct machine {
	int nr_nodes; /* nodes with memory, sorted by id */
	struct numa_node node[MACHINE_MAX_NODES];
	int nr_cpus;
	int cpu_node[MACHINE_MAX_CPUS];	     /* numa-node-id of each cpu, in DT order */
	uint64_t cpu_hwid[MACHINE_MAX_CPUS]; /* its reg: APIC ID (x86), MPIDR affinity (arm64) */
	int psci_method;		     /* /psci method: MACHINE_PSCI_* */
	uint64_t gicd_base, gicr_base;	     /* arm,gic-v3 reg: distributor, redistributors */
	int has_distances;
	uint8_t distance[MACHINE_MAX_NODES][MACHINE_MAX_NODES]; /* by node index */
	char bootargs[MACHINE_BOOTARGS_MAX];
	uint64_t timebase_hz; /* 0 when the tree does not say */
	uint32_t ptelab_abi;  /* /chosen/ptelab,abi, 0 if not a ptelab tree */
	uint64_t exit_mmio;   /* reg of /ptelab-exit@..., 0 without one */
	/* /chosen/ptelab,argv: NUL-terminated strings, exec_argv_len bytes */
	char exec_argv[PTELAB_ARGV_MAX];
	uint32_t exec_argv_len;
	uint64_t initrd_start, initrd_end; /* /chosen/linux,initrd-*, 0 without */
};

/*
 * machine_from_fdt - parse @blob (at most @max bytes readable) into @m.
 * Return: 0, or a negative errno-style code with a message in @err.
 * Reads every memory@ node's reg (using the root's #address-cells and
 * #size-cells) grouped by numa-node-id (0 when absent), the cpus and their
 * numa-node-id, /distance-map (distance-matrix triples), /chosen/bootargs
 * and /cpus/timebase-frequency (32 or 64 bits), each cpu's reg (its hardware
 * id), /psci's method, the two reg ranges of an arm,gic-v3 node at the root,
 * and the address of the exit device /ptelab-exit@... (ptelab/abi.h).
 */
int machine_from_fdt(const void *blob, size_t max, struct machine *m, char *err, size_t errlen);

/* Index of the node with numa-node-id @id in @m, or -1. */
int machine_node_index(const struct machine *m, int id);

#endif
