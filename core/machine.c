/*
 * machine.c - build struct machine from the flattened device tree.
 *
 * Properties of a node may come in any order, so each interesting node is
 * gathered while it is open and committed at its END_NODE. The distance map
 * names nodes by numa-node-id and may precede the memory nodes, so it is
 * resolved after the walk.
 */
#include <stdio.h>
#include <string.h>

#include "dt.h"
#include "machine.h"
#include "ptelab/abi.h"

enum node_kind {
	NK_OTHER,
	NK_MEMORY,
	NK_CPUS,
	NK_CPU,
	NK_CHOSEN,
	NK_DISTANCE,
	NK_EXIT,
	NK_PSCI,
	NK_DEVICE
};

struct parse {
	struct machine *m;
	char *err;
	size_t errlen;
	int addr_cells, size_cells; /* of the root */
	enum node_kind kind[DT_MAX_DEPTH];
	/* the open memory or cpu node */
	const void *reg;
	uint32_t reg_len;
	int numa_id, is_memory_type, is_gicv3;
	int cpu_cells;	     /* /cpus #address-cells */
	const void *dev_reg; /* the open device node at the root */
	uint32_t dev_reg_len;
	/* /distance-map */
	const void *dist;
	uint32_t dist_len;
};

static int fail(struct parse *p, const char *what)
{
	snprintf(p->err, p->errlen, "device tree: %s", what);
	return -1;
}

static enum node_kind classify(int depth, const char *name, enum node_kind parent)
{
	if (depth == 1 && strncmp(name, "memory", 6) == 0 && (name[6] == '@' || !name[6]))
		return NK_MEMORY;
	if (depth == 1 && strcmp(name, "cpus") == 0)
		return NK_CPUS;
	if (depth == 2 && parent == NK_CPUS && strncmp(name, "cpu@", 4) == 0)
		return NK_CPU;
	if (depth == 1 && strcmp(name, "chosen") == 0)
		return NK_CHOSEN;
	if (depth == 1 && strcmp(name, "distance-map") == 0)
		return NK_DISTANCE;
	if (depth == 1 && strcmp(name, "psci") == 0)
		return NK_PSCI;
	if (depth == 1 &&
	    strncmp(name, PTELAB_FDT_EXIT_NODE "@", sizeof(PTELAB_FDT_EXIT_NODE)) == 0)
		return NK_EXIT;
	if (depth == 1 && strchr(name, '@'))
		return NK_DEVICE;
	return NK_OTHER;
}

static int on_begin(void *ctx, int depth, const char *name)
{
	struct parse *p = ctx;

	p->kind[depth] = classify(depth, name, depth ? p->kind[depth - 1] : NK_OTHER);
	p->reg = NULL;
	p->reg_len = 0;
	p->numa_id = 0;
	p->is_memory_type = p->kind[depth] == NK_MEMORY;
	if (depth == 1) {
		p->is_gicv3 = 0;
		p->dev_reg = NULL;
		p->dev_reg_len = 0;
	}
	return 0;
}

static void copy_string(char *dst, size_t size, const void *data, uint32_t len)
{
	size_t n = len < size ? len : size - 1;

	memcpy(dst, data, n);
	dst[n] = 0;
}

/* A 32- or 64-bit big-endian cell pair value; 0 for any other length. */
static uint64_t be_number(const void *data, uint32_t len)
{
	const uint8_t *b = data;

	return len == 4 ? dt_be32(b) : len == 8 ? (uint64_t)dt_be32(b) << 32 | dt_be32(b + 4) : 0;
}

/* run=exec's arguments and the initramfs's place, from /chosen. An argv
 * that does not end in a NUL or does not fit is ignored. */
static void chosen_exec_prop(struct machine *m, const char *name, const void *data, uint32_t len)
{
	if (strcmp(name, PTELAB_FDT_ARGV_PROP) == 0 && len && len <= sizeof(m->exec_argv) &&
	    ((const char *)data)[len - 1] == 0) {
		memcpy(m->exec_argv, data, len);
		m->exec_argv_len = len;
	} else if (strcmp(name, "linux,initrd-start") == 0) {
		m->initrd_start = be_number(data, len);
	} else if (strcmp(name, "linux,initrd-end") == 0) {
		m->initrd_end = be_number(data, len);
	}
}

/* Does the string list @data (@len bytes) contain @s? */
static int has_string(const void *data, uint32_t len, const char *s)
{
	const char *p = data, *end = p + len;

	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));

		if (n < (size_t)(end - p) && strcmp(p, s) == 0)
			return 1;
		p += n + 1;
	}
	return 0;
}

static int root_prop(struct parse *p, const char *name, const void *data, uint32_t len)
{
	if (len != 4)
		return 0;
	if (strcmp(name, "#address-cells") == 0)
		p->addr_cells = (int)dt_be32(data);
	else if (strcmp(name, "#size-cells") == 0)
		p->size_cells = (int)dt_be32(data);
	if (p->addr_cells < 1 || p->addr_cells > 2 || p->size_cells < 1 || p->size_cells > 2)
		return fail(p, "root #address-cells/#size-cells must be 1 or 2");
	return 0;
}

static int on_prop(void *ctx, int depth, const char *name, const void *data, uint32_t len)
{
	struct parse *p = ctx;
	struct machine *m = p->m;

	if (depth == 0)
		return root_prop(p, name, data, len);
	switch (p->kind[depth]) {
	case NK_MEMORY:
	case NK_CPU:
	case NK_EXIT:
		if (strcmp(name, "reg") == 0) {
			p->reg = data;
			p->reg_len = len;
		} else if (strcmp(name, "numa-node-id") == 0 && len == 4) {
			p->numa_id = (int)dt_be32(data);
		} else if (strcmp(name, "device_type") == 0) {
			p->is_memory_type = len >= 7 && memcmp(data, "memory", 7) == 0;
		}
		break;
	case NK_CPUS:
		if (strcmp(name, "timebase-frequency") == 0 && (len == 4 || len == 8))
			m->timebase_hz = dt_cells(data, (int)len / 4);
		else if (strcmp(name, "#address-cells") == 0 && len == 4)
			p->cpu_cells = (int)dt_be32(data);
		break;
	case NK_DEVICE: /* its own fields: a child node's begin must not clear them */
		if (strcmp(name, "compatible") == 0)
			p->is_gicv3 = has_string(data, len, "arm,gic-v3");
		else if (strcmp(name, "reg") == 0) {
			p->dev_reg = data;
			p->dev_reg_len = len;
		}
		break;
	case NK_PSCI:
		if (strcmp(name, "method") == 0)
			m->psci_method = has_string(data, len, "hvc")	? MACHINE_PSCI_HVC
					 : has_string(data, len, "smc") ? MACHINE_PSCI_SMC
									: MACHINE_PSCI_NONE;
		break;
	case NK_CHOSEN:
		if (strcmp(name, "bootargs") == 0)
			copy_string(m->bootargs, sizeof(m->bootargs), data, len);
		else if (strcmp(name, "ptelab,abi") == 0 && len == 4)
			m->ptelab_abi = dt_be32(data);
		else
			chosen_exec_prop(m, name, data, len);
		break;
	case NK_DISTANCE:
		if (strcmp(name, "distance-matrix") == 0) {
			p->dist = data;
			p->dist_len = len;
		}
		break;
	case NK_OTHER:
		break;
	}
	return 0;
}

/* Find or add the node with numa-node-id @id, keeping node[] sorted. */
static struct numa_node *node_get(struct parse *p, int id)
{
	struct machine *m = p->m;
	int i = 0;

	if (id < 0 || id >= 256)
		return fail(p, "numa-node-id out of range"), NULL;
	while (i < m->nr_nodes && m->node[i].id < id)
		i++;
	if (i < m->nr_nodes && m->node[i].id == id)
		return &m->node[i];
	if (m->nr_nodes == MACHINE_MAX_NODES)
		return fail(p, "too many NUMA nodes"), NULL;
	memmove(&m->node[i + 1], &m->node[i], (size_t)(m->nr_nodes - i) * sizeof(m->node[0]));
	memset(&m->node[i], 0, sizeof(m->node[i]));
	m->node[i].id = id;
	m->nr_nodes++;
	return &m->node[i];
}

static int commit_memory(struct parse *p)
{
	uint32_t entry = 4u * (uint32_t)(p->addr_cells + p->size_cells);
	struct numa_node *n;

	if (!p->is_memory_type)
		return 0;
	if (!p->reg || p->reg_len == 0 || p->reg_len % entry)
		return fail(p, "memory node without a well-formed reg");
	n = node_get(p, p->numa_id);
	if (!n)
		return -1;
	for (uint32_t off = 0; off < p->reg_len; off += entry) {
		const uint8_t *r = (const uint8_t *)p->reg + off;
		struct mem_range mr = { dt_cells(r, p->addr_cells),
					dt_cells(r + 4 * p->addr_cells, p->size_cells) };
		if (mr.size == 0)
			continue;
		if (n->nr_ranges == MACHINE_MAX_RANGES)
			return fail(p, "too many memory ranges in one node");
		n->range[n->nr_ranges++] = mr;
		n->size += mr.size;
	}
	return 0;
}

static int on_end(void *ctx, int depth)
{
	struct parse *p = ctx;
	struct machine *m = p->m;

	if (p->kind[depth] == NK_MEMORY)
		return commit_memory(p);
	if (p->kind[depth] == NK_EXIT) {
		if (!p->reg || p->reg_len < 4u * (uint32_t)p->addr_cells)
			return fail(p, PTELAB_FDT_EXIT_NODE " without a reg");
		m->exit_mmio = dt_cells(p->reg, p->addr_cells);
	}
	if (p->kind[depth] == NK_CPU) {
		if (m->nr_cpus == MACHINE_MAX_CPUS)
			return fail(p, "too many cpus");
		if (p->cpu_cells < 1 || p->cpu_cells > 2 || !p->reg ||
		    p->reg_len < 4u * (uint32_t)p->cpu_cells)
			return fail(p, "a cpu node without a reg of /cpus #address-cells");
		m->cpu_hwid[m->nr_cpus] = dt_cells(p->reg, p->cpu_cells);
		m->cpu_node[m->nr_cpus++] = p->numa_id;
	}
	if (p->kind[depth] == NK_DEVICE && p->is_gicv3) {
		uint32_t pair = 4u * (uint32_t)(p->addr_cells + p->size_cells);

		if (!p->dev_reg || p->dev_reg_len < 2 * pair)
			return fail(p,
				    "arm,gic-v3 node without distributor and redistributor regs");
		m->gicd_base = dt_cells(p->dev_reg, p->addr_cells);
		m->gicr_base = dt_cells((const uint8_t *)p->dev_reg + pair, p->addr_cells);
	}
	return 0;
}

/* Resolve the distance-matrix triples (from-id, to-id, distance). */
static int resolve_distances(struct parse *p)
{
	struct machine *m = p->m;

	for (int i = 0; i < m->nr_nodes; i++)
		for (int j = 0; j < m->nr_nodes; j++)
			m->distance[i][j] = i == j ? 10 : 20;
	if (!p->dist)
		return 0;
	if (p->dist_len % 12)
		return fail(p, "distance-matrix is not a list of triples");
	for (uint32_t off = 0; off < p->dist_len; off += 12) {
		const uint8_t *t = (const uint8_t *)p->dist + off;
		int a = machine_node_index(m, (int)dt_be32(t));
		int b = machine_node_index(m, (int)dt_be32(t + 4));
		uint32_t d = dt_be32(t + 8);

		if (a < 0 || b < 0 || d > 255)
			return fail(p, "distance-matrix names an unknown node or a distance > 255");
		m->distance[a][b] = (uint8_t)d;
	}
	m->has_distances = 1;
	return 0;
}

int machine_node_index(const struct machine *m, int id)
{
	for (int i = 0; i < m->nr_nodes; i++)
		if (m->node[i].id == id)
			return i;
	return -1;
}

int machine_from_fdt(const void *blob, size_t max, struct machine *m, char *err, size_t errlen)
{
	struct parse p = { .m = m,
			   .err = err,
			   .errlen = errlen,
			   .addr_cells = 2,
			   .size_cells = 1,
			   .cpu_cells = 1 };
	struct dt_visitor v = { on_begin, on_prop, on_end, &p };
	struct dt dt;
	int r;

	memset(m, 0, sizeof(*m));
	if (errlen)
		err[0] = 0;
	if (dt_open(&dt, blob, max))
		return fail(&p, "bad header (not an FDT, or larger than its buffer)");
	r = dt_walk(&dt, &v);
	if (r == -1 && !err[0])
		return fail(&p, "malformed structure block");
	if (r)
		return -1;
	if (m->nr_nodes == 0)
		return fail(&p, "no memory nodes");
	return resolve_distances(&p);
}
