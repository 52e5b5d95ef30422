/*
 * machine.c - what the command line asks of the machine: the RAM a
 * benchmark's size= needs, the CPUs cpus=, active= and run=stress:mm
 * need, the nodes run=numa_maps, run=ptdump:migrate and the benchmarks
 * that move memory between nodes need (ptelab/cmdline.h).
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/cmdline.h"

uint64_t cmdline_bench_mem(unsigned size_mb, unsigned nodes, bool every_node)
{
	uint64_t one = (((uint64_t)size_mb + size_mb / 8) << 20) + (64ull << 20);
	uint64_t need = every_node ? one * nodes : one, unit = (2ull << 20) * nodes;

	return (need + unit - 1) / unit * unit;
}

bool cmdline_bench_every_node(const char *name)
{
	const struct cmdline_bench *b = cmdline_bench_find(name);

	return b && b->every_node;
}

bool cmdline_run_every_node(const struct cmdline *cl)
{
	for (int i = 0; i < cl->nr_run; i++)
		if (!strcmp(cl->run[i].name, "bench") &&
		    (!cl->run[i].has_arg || cmdline_bench_every_node(cl->run[i].arg)))
			return true;
	return false;
}

bool cmdline_runs_bench(const struct cmdline *cl)
{
	for (int i = 0; i < cl->nr_run; i++)
		if (!strcmp(cl->run[i].name, "bench"))
			return true;
	return false;
}

/* Does the run= item @it move memory between nodes: run=numa_maps,
 * run=ptdump:migrate, a benchmark of an every_node row? */
static bool item_needs_nodes(const struct run_item *it)
{
	if (!strcmp(it->name, "numa_maps"))
		return true;
	if (!it->has_arg)
		return false;
	if (!strcmp(it->name, "ptdump"))
		return !strcmp(it->arg, "migrate");
	return !strcmp(it->name, "bench") && cmdline_bench_every_node(it->arg);
}

/* The run= items of @cl that need a second node (item_needs_nodes(); and
 * run=bench, which runs the benchmarks that do). */
static int check_nodes(const struct cmdline *cl, unsigned nodes, char *err, size_t errlen)
{
	for (int i = 0; nodes < 2 && i < cl->nr_run; i++) {
		const struct run_item *it = &cl->run[i];

		if (item_needs_nodes(it))
			return snprintf(err, errlen,
					"run=%s%s%s needs two nodes, the machine has %u "
					"(ptelab --nodes 2)",
					it->name, it->has_arg ? ":" : "",
					it->has_arg ? it->arg : "", nodes),
			       -1;
		if (!strcmp(it->name, "bench") && !it->has_arg)
			return snprintf(err, errlen,
					"run=bench runs bench:migrate and bench:move_pages, which "
					"need two nodes; the machine has %u (ptelab --nodes 2)",
					nodes),
			       -1;
	}
	return 0;
}

/* run=stress:mm runs its mixes on cpus= CPUs, by default all: at least 2. */
static int check_stress(const struct cmdline *cl, unsigned cpus, char *err, size_t errlen)
{
	const char *c = cmdline_get(cl, "cpus");

	for (int i = 0; i < cl->nr_run; i++) {
		if (strcmp(cl->run[i].name, "stress"))
			continue;
		if (c && cmdline_uint(c) < 2)
			return snprintf(err, errlen, "cpus=%s: run=stress:mm needs 2 CPUs or more",
					c),
			       -1;
		if (!c && cpus < 2)
			return snprintf(err, errlen,
					"run=stress:mm needs 2 CPUs, the machine has %u "
					"(ptelab --cpus 2)",
					cpus),
			       -1;
	}
	return 0;
}

int cmdline_check_machine(const struct cmdline *cl, unsigned nodes, unsigned cpus, char *err,
			  size_t errlen)
{
	const char *c = cmdline_get(cl, "cpus"), *a = cmdline_get(cl, "active");

	if (c && (unsigned)cmdline_uint(c) > cpus)
		return snprintf(err, errlen, "cpus=%s: the machine has %u CPU%s (ptelab --cpus %s)",
				c, cpus, cpus == 1 ? "" : "s", c),
		       -1;
	if (a && (unsigned)cmdline_uint(a) >= cpus)
		return snprintf(err, errlen,
				"active=%s needs %d CPUs, the machine has %u (ptelab --cpus %d)", a,
				cmdline_uint(a) + 1, cpus, cmdline_uint(a) + 1),
		       -1;
	return check_nodes(cl, nodes, err, errlen) ? -1 : check_stress(cl, cpus, err, errlen);
}
