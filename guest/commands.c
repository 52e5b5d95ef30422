/*
 * commands.c - the table of run= commands and the simple ones.
 */
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "page.h"
#include "ptelab_abi.h"

static void print_size(uint64_t bytes)
{
	if (bytes % (1ull << 30) == 0)
		printf("%llu GiB", (unsigned long long)(bytes >> 30));
	else
		printf("%llu MiB", (unsigned long long)(bytes >> 20));
}

static void hello_nodes(void)
{
	uint64_t total = 0;

	for (int i = 0; i < machine.nr_nodes; i++) {
		const struct numa_node *n = &machine.node[i];

		printf("node %d:", n->id);
		for (int r = 0; r < n->nr_ranges; r++)
			printf(" [%#014llx-%#014llx)", (unsigned long long)n->range[r].base,
			       (unsigned long long)(n->range[r].base + n->range[r].size));
		printf(" ");
		print_size(n->size);
		printf("\n");
		total += n->size;
	}
	printf("memory: %llu MiB in %d node%s\n", (unsigned long long)(total >> 20),
	       machine.nr_nodes, machine.nr_nodes == 1 ? "" : "s");
}

static void hello_cpus_distances(void)
{
	printf("cpus: %d (", machine.nr_cpus);
	for (int i = 0; i < machine.nr_cpus; i++)
		printf("%scpu%d on node %d", i ? ", " : "", i, machine.cpu_node[i]);
	printf(")\n");
	printf("distances (%s):", machine.has_distances ? "fdt" : "default");
	for (int i = 0; i < machine.nr_nodes; i++) {
		printf(" %d:[", machine.node[i].id);
		for (int j = 0; j < machine.nr_nodes; j++)
			printf("%s%d", j ? " " : "", machine.distance[i][j]);
		printf("]");
	}
	printf("\n");
}

/* run=hello: the machine summary, all of it from the FDT. */
static int cmd_hello(const char *arg)
{
	(void)arg;
	printf("ptelab guest: arch %s, boot %s, abi %d (tree says %u)\n", arch_name,
	       boot_info->boot_path, PTELAB_ABI_VERSION, machine.ptelab_abi);
	arch_describe_boot();
	hello_nodes();
	hello_cpus_distances();
	printf("cmdline: %s\n", machine.bootargs);
	printf("timer: %llu kHz (%s)\n", (unsigned long long)(counter_hz() / 1000),
	       counter_hz_source());
	printf("boot: %llu us from first instruction to hello\n",
	       (unsigned long long)(time_ns() / 1000));
	return PTELAB_EXIT_OK;
}

/* run=exit:N: stop at once with status N (0..255). */
static int cmd_exit(const char *arg)
{
	int n = cmdline_uint(arg);

	if (n < 0 || n > 255) {
		printf("guest: exit:N needs N in 0..255, got '%s'\n", arg);
		return PTELAB_EXIT_USAGE;
	}
	fflush(stdout);
	arch_exit(n);
}

static int cmd_fault(const char *arg)
{
	(void)arg;
	printf("guest: touching an unmapped kernel address on purpose\n");
	fflush(stdout);
	arch_deliberate_fault();
}

static int cmd_hang(const char *arg)
{
	(void)arg;
	printf("guest: hanging on purpose (interrupts off)\n");
	fflush(stdout);
	arch_hang();
}

/* run=selftest: the mm cases need physical memory up, so bring it up
 * first (mm_init() is idempotent). */
static int cmd_selftest(const char *arg)
{
	mm_init();
	return selftest_run(arg);
}

static int cmd_list(const char *arg);
int cmd_bench(const char *arg);
int cmd_ptdump(const char *arg);
int cmd_numa_maps(const char *arg);

static const struct command commands[] = {
	{ "hello", "print the machine summary", 0, cmd_hello },
	{ "exit", "exit:N - stop with status N", 2, cmd_exit },
	{ "fault", "take an unhandled page fault (exits 3)", 0, cmd_fault },
	{ "hang", "spin forever with interrupts off", 0, cmd_hang },
	{ "selftest", "selftest[:FILTER] - run the in-guest tests", 1, cmd_selftest },
	{ "bench", "bench[:NAME] - run one benchmark or all (size=MiB reps=N folios=4K,64K,...)", 1,
	  cmd_bench },
	{ "ptdump", "watch PTE runs form and break (batching caps apply)", 0, cmd_ptdump },
	{ "numa_maps", "mbind, migrate_pages, move_pages of a small mm, numa_maps after each", 0,
	  cmd_numa_maps },
	{ "list", "list the commands", 0, cmd_list },
};

#define NR_COMMANDS (int)(sizeof(commands) / sizeof(commands[0]))

const struct command *command_find(const char *name)
{
	for (int i = 0; i < NR_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int cmd_list(const char *arg)
{
	(void)arg;
	printf("commands (run=NAME[:ARG][,NAME...]):\n");
	for (int i = 0; i < NR_COMMANDS; i++)
		printf("  %-10s %s\n", commands[i].name, commands[i].help);
	return PTELAB_EXIT_OK;
}
