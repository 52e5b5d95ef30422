/*
 * layout.c - place guest RAM and NUMA nodes the way each backend's machine
 * does, so the device tree ptelab writes matches the RAM that exists.
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/abi.h"
#include "vmm_layout.h"
#include "vmm_util.h"

/* The physical runs of RAM of a machine with @mem bytes in @layout. */
static int layout_ram(enum vmm_layout layout, uint64_t mem, struct vmm_range *run)
{
	switch (layout) {
	case VMM_LAYOUT_FLAT:
		run[0] = (struct vmm_range){ 0, mem };
		return 1;
	case VMM_LAYOUT_VIRT:
		run[0] = (struct vmm_range){ VMM_VIRT_RAM_BASE, mem };
		return 1;
	case VMM_LAYOUT_PC:
		/* QEMU 7.2 hw/i386/pc_piix.c: the traditional split is 3.5G, but
		 * once RAM reaches it, gigabyte_align moves the split to 3G. */
		if (mem < VMM_PC_LOWMEM_SPLIT) {
			run[0] = (struct vmm_range){ 0, mem };
			return 1;
		}
		run[0] = (struct vmm_range){ 0, VMM_PC_LOWMEM };
		run[1] = (struct vmm_range){ 1ULL << 32, mem - VMM_PC_LOWMEM };
		return 2;
	}
	return 0;
}

/* Give node @n the next @share bytes of the RAM runs, starting at offset
 * *@off of run[*@ri] and advancing both; -1 if RAM or ranges run out. */
static int take_ram(struct vmm_node *n, uint64_t share, const struct vmm_range *run, int nr_run,
		    int *ri, uint64_t *off)
{
	while (share) {
		uint64_t left, take;

		if (*ri >= nr_run || n->nr_ranges == VMM_NODE_RANGES)
			return -1;
		left = run[*ri].size - *off;
		take = share < left ? share : left;
		n->range[n->nr_ranges++] = (struct vmm_range){ run[*ri].base + *off, take };
		n->size += take;
		share -= take;
		*off += take;
		if (*off == run[*ri].size) {
			(*ri)++;
			*off = 0;
		}
	}
	return 0;
}

int vmm_machine_init(struct vmm_machine *m, enum vmm_layout layout, uint64_t mem, int nodes,
		     int cpus, const char *bootargs)
{
	uint64_t share = nodes > 0 ? mem / (uint64_t)nodes : 0, off = 0;
	int ri = 0;

	memset(m, 0, sizeof(*m));
	if (nodes < 1 || nodes > VMM_MAX_NODES || cpus < 1 || cpus > VMM_MAX_CPUS ||
	    mem > VMM_MEM_MAX || share < VMM_NODE_MIN || share % VMM_NODE_ALIGN ||
	    share * (uint64_t)nodes != mem || strlen(bootargs) >= sizeof(m->bootargs))
		return -1;
	m->arch = layout == VMM_LAYOUT_VIRT ? VMM_ARCH_ARM64 : VMM_ARCH_X86_64;
	m->layout = layout;
	m->ram_size = mem;
	m->nr_ram = layout_ram(layout, mem, m->ram);
	m->nr_nodes = nodes;
	for (int i = 0; i < nodes; i++) {
		m->node[i].id = i;
		if (take_ram(&m->node[i], share, m->ram, m->nr_ram, &ri, &off))
			return -1;
		for (int j = 0; j < nodes; j++)
			m->distance[i][j] = i == j ? 10 : 20;
	}
	m->nr_cpus = cpus;
	for (int i = 0; i < cpus; i++)
		m->cpu_node[i] = i % nodes;
	strcpy(m->bootargs, bootargs);
	return 0;
}

int vmm_ranges_contain(const struct vmm_range *r, int nr, uint64_t base, uint64_t size)
{
	for (int i = 0; i < nr; i++)
		if (base >= r[i].base && base - r[i].base <= r[i].size &&
		    size <= r[i].size - (base - r[i].base))
			return 1;
	return 0;
}

uint64_t vmm_arm64_initramfs_pa(const struct vmm_machine *m)
{
	uint64_t size = m->initramfs_size;

	if (!m->initramfs)
		return 0;
	for (int i = m->nr_ram - 1; i >= 0; i--) {
		uint64_t base = m->ram[i].base, end = base + m->ram[i].size;
		uint64_t at = (end - size) & ~(uint64_t)(PTELAB_INITRAMFS_ALIGN - 1);

		if (end - base >= 4 * size && at >= VMM_ARM64_LOAD_MIN)
			return at;
	}
	return 0;
}

void vmm_machine_print(const struct vmm_machine *m)
{
	char a[24];

	for (int i = 0; i < m->nr_nodes; i++) {
		const struct vmm_node *n = &m->node[i];

		for (int r = 0; r < n->nr_ranges; r++)
			vmm_msg("layout: node %d: [0x%llx, 0x%llx) %s", n->id,
				(unsigned long long)n->range[r].base,
				(unsigned long long)(n->range[r].base + n->range[r].size),
				vmm_fmt_size(n->range[r].size, a, sizeof(a)));
	}
	for (int i = 0; i < m->nr_cpus; i++)
		vmm_msg("layout: cpu %d on node %d", i, m->cpu_node[i]);
}
