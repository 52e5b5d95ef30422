/*
 * machine.c - what the command line asks of the machine: the RAM a
 * benchmark's size= needs, the CPUs cpus= and active= need, the nodes
 * run=numa_maps needs (ptelab/cmdline.h).
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
	return !strcmp(name, "migrate") || !strcmp(name, "move_pages");
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
	for (int i = 0; i < cl->nr_run; i++)
		if (!strcmp(cl->run[i].name, "numa_maps") && nodes < 2)
			return snprintf(err, errlen,
					"run=numa_maps needs two nodes, the machine has %u "
					"(ptelab --nodes 2)",
					nodes),
			       -1;
	return 0;
}
