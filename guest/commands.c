/*
 * commands.c - the table of run= commands, made from CMDLINE_CMDS
 * (ptelab/cmdline_cmds.h), and the simple ones.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "kernel.h"
#include "page.h"
#include "ptelab/abi.h"
#include "ptelab/cmdline.h"
#include "smp.h"

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
	/* Online CPUs are dense from 0: the boot brings each up or stops. */
	for (unsigned i = 0; i < smp_nr_cpus(); i++)
		printf("cpu%u: online, node %d, hwid %#llx\n", i, machine.cpu_node[i],
		       (unsigned long long)machine.cpu_hwid[i]);
	printf("distances (%s):", machine.has_distances ? "fdt" : "default");
	for (int i = 0; i < machine.nr_nodes; i++) {
		printf(" %d:[", machine.node[i].id);
		for (int j = 0; j < machine.nr_nodes; j++)
			printf("%s%d", j ? " " : "", machine.distance[i][j]);
		printf("]");
	}
	printf("\n");
}

/* Who built the device tree: ptelab writes its ABI version into it, QEMU's
 * own tree (arm64 under QEMU) has none. */
static void hello_tree(void)
{
	if (!machine.ptelab_abi)
		printf("tree: built by QEMU (no ptelab ABI version in it)\n");
	else if (machine.ptelab_abi == PTELAB_ABI_VERSION)
		printf("tree: built by ptelab, ABI %u\n", machine.ptelab_abi);
	else
		printf("tree: built by ptelab with ABI %u, but this guest has ABI %d: rebuild "
		       "both\n",
		       machine.ptelab_abi, PTELAB_ABI_VERSION);
}

/* The user's words of the command line, then what ptelab added (ptelab.*). */
static void hello_cmdline(void)
{
	printf("cmdline:");
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < cmdline.nr_words; i++) {
			const struct cmdline_word *w = &cmdline.word[i];

			if ((strncmp(w->key, "ptelab.", 7) == 0) != pass)
				continue;
			printf(" %s%s%s", w->key + (pass ? 7 : 0), w->val[0] ? "=" : "", w->val);
		}
		if (pass == 0 && cmdline_get(&cmdline, "ptelab.clock"))
			printf("\nset by ptelab:");
	}
	printf("\n");
}

/* run=hello: the machine summary, all of it from the FDT. */
static int cmd_hello(const char *arg)
{
	(void)arg;
	printf("ptelab guest: arch %s, boot %s, ABI %d\n", arch_name, boot_info->boot_path,
	       PTELAB_ABI_VERSION);
	hello_tree();
	arch_describe_boot();
	hello_nodes();
	hello_cpus_distances();
	hello_cmdline();
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
 * first (mm_init() is idempotent). selftest:list names the cases. */
static int cmd_selftest(const char *arg)
{
	if (arg && !strcmp(arg, "list"))
		return selftest_list();
	mm_init();
	return selftest_run(arg);
}

/* run=stress:mm (tests/guest/stress.c). A build without the mixes (the host
 * backend, where the command is refused as needing a machine) links this
 * one instead. */
__attribute__((weak)) int cmd_stress(const char *arg)
{
	(void)arg;
	return PTELAB_EXIT_USAGE;
}

/* run=exec:PATH (guest/exec_cmd.c). The host backend, which has no
 * user mode, links this one instead (the command needs a machine). */
__attribute__((weak)) int cmd_exec(const char *arg)
{
	(void)arg;
	return PTELAB_EXIT_USAGE;
}

static int cmd_list(const char *arg);
static int cmd_help(const char *arg);
int cmd_bench(const char *arg);
int cmd_ptdump(const char *arg);
int cmd_numa_maps(const char *arg);

/* cmd_<id> for every row of CMDLINE_CMDS, at the row's index: a row
 * without its function does not compile. */
static const struct command commands[NR_CMDLINE_CMDS] = {
#define COMMAND_ENTRY(id, arg, form, words, what, lo, hi, needs_machine, help)                     \
	[CMDLINE_CMD_##id] = { #id, cmd_##id },
	CMDLINE_CMDS(COMMAND_ENTRY)
#undef COMMAND_ENTRY
};

const struct command *command_find(const char *name)
{
	for (int i = 0; i < NR_CMDLINE_CMDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int cmd_list(const char *arg)
{
	(void)arg;
	printf("commands (run=NAME[:ARG][,NAME...]):\n");
	cmdline_print_cmds(stdout);
	return PTELAB_EXIT_OK;
}

static int cmd_help(const char *arg)
{
	cmd_list(arg);
	printf("keys (key=value, anywhere on the command line):\n");
	cmdline_print_keys(stdout);
	return PTELAB_EXIT_OK;
}

int commands_check_on(int host_backend, char *err, size_t errlen)
{
	if (cmdline_check_run(&cmdline, host_backend, err, errlen))
		return -1;
	return cmdline_check_machine(&cmdline, (unsigned)machine.nr_nodes,
				     (unsigned)machine.nr_cpus, err, errlen);
}
