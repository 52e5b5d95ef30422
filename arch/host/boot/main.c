/*
 * main.c (host backend) - the guest's commands run natively on the host
 * CPU: build/ptelab-host-<arch>, which `ptelab --backend host` runs.
 *
 * It plays the part of the guest's boot code and kmain: simulated RAM of
 * --mem bytes over --nodes nodes (arch/host/sim.c), the command line
 * parsed and checked by the guest's own code, then the run= commands from
 * the guest's own table (guest/commands.c), so every command that uses
 * only mm/ (bench:*, ptdump, ...) runs here unchanged. Commands that need
 * a booted machine are refused before anything runs.
 *
 * Usage: ptelab-host-<arch> --mem BYTES --nodes N -- "GUEST COMMAND LINE"
 * (ptelab checks the values; this program trusts them.)
 */
/* Built with -D_GNU_SOURCE (sched_setaffinity, sched_getcpu): the forced
 * include of arch.h comes before any line of this file. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "kernel.h"
#include "knob_parse.h"
#include "mm.h"
#include "ptelab/abi.h"
#include <host_tlb.h>

const char arch_name[] = "host-" HOST_PTE_FORMAT;

/* The simulation has no kernel page tables to build. */
void arch_mm_init(void)
{
}

void arch_exit(int status)
{
	fflush(stdout);
	exit(status);
}

/* Refused by commands_check_on(1) before they can be reached. */
void arch_deliberate_fault(void)
{
	panic("arch_deliberate_fault: not on the host backend");
}

void arch_hang(void)
{
	panic("arch_hang: not on the host backend");
}

void arch_describe_boot(void)
{
	printf("host backend: mm/ on the host CPU, simulated MMU, %s PTE format\n",
	       HOST_PTE_FORMAT);
}

const char *counter_hz_source(void)
{
	return "CLOCK_MONOTONIC";
}

int selftest_run(const char *filter)
{
	(void)filter;
	panic("selftest_run: not on the host backend (tests/mm/run.sh runs the mm cases)");
}

int selftest_list(void)
{
	panic("selftest_list: not on the host backend");
}

struct cmdline cmdline;

/* Touch every page of the simulated RAM once, so the host's own page
 * faults on first use do not land in the first repetition. */
static void prefault_ram(void)
{
	for (uint64_t off = 0; off < host_ram_size; off += 4096)
		host_ram[off] = 0;
}

/* Pin to the CPU we are on, so the figures do not mix CPUs and caches.
 * Return: that CPU, or -1 when pinning is not allowed. */
static int pin_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -1 : cpu;
}

/* Is the machine busy? Load average over half the cores, or other
 * runnable processes than us (/proc/loadavg's "running/total" field). */
static void report_load(const char *when)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double load = 0;
	int running = 0, total = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (!f)
		return;
	if (fscanf(f, "%lf %*f %*f %d/%d", &load, &running, &total) != 3)
		running = 0;
	fclose(f);
	if (load > 0.5 * (double)cores || running > 1)
		printf("host backend: the machine was busy %s (loadavg %.2f on %ld cores, %d "
		       "runnable): real-time figures are noisy\n",
		       when, load, cores, running);
	else
		printf("host backend: the machine was quiet %s (loadavg %.2f on %ld cores)\n", when,
		       load, cores);
}

/* argv as ptelab passes it; exit 2 on anything else. */
static void parse_args(int argc, char **argv, uint64_t *mem, int *nodes, const char **args)
{
	if (argc != 7 || strcmp(argv[1], "--mem") || strcmp(argv[3], "--nodes") ||
	    strcmp(argv[5], "--")) {
		fprintf(stderr,
			"usage: %s --mem BYTES --nodes N -- 'GUEST ARGS' (ptelab --backend "
			"host runs this)\n",
			argv[0]);
		exit(PTELAB_EXIT_USAGE);
	}
	*mem = strtoull(argv[2], NULL, 10);
	*nodes = atoi(argv[4]);
	*args = argv[6];
	if (*nodes < 1 || *nodes > MACHINE_MAX_NODES || *mem / (uint64_t)*nodes < (16ull << 20) ||
	    strlen(*args) >= sizeof(machine.bootargs)) {
		fprintf(stderr, "%s: bad --mem, --nodes or guest arguments\n", argv[0]);
		exit(PTELAB_EXIT_USAGE);
	}
}

int main(int argc, char **argv)
{
	const char *args;
	uint64_t mem;
	int nodes, cpu, status = PTELAB_EXIT_OK;
	char err[CMDLINE_ERR_MAX];

	parse_args(argc, argv, &mem, &nodes, &args);
	host_machine_init(nodes, (unsigned)(mem / (uint64_t)nodes >> 20));
	snprintf(machine.bootargs, sizeof(machine.bootargs), "%s", args);
	boot_info->boot_path = "host";
	if (cmdline_parse(machine.bootargs, &cmdline, err, sizeof(err)) ||
	    cmdline_check(&cmdline, arch_name, err, sizeof(err)) ||
	    caps_parse(&cmdline, err, sizeof(err)) || commands_check_on(1, err, sizeof(err))) {
		printf("guest: %s\n", err);
		return PTELAB_EXIT_USAGE;
	}
	/* Benchmarks time the mm code: no strict TLB model (tests keep it). */
	host_tlb_model = false;
	prefault_ram();
	cpu = pin_cpu();
	printf("host backend: %s, %llu MiB simulated over %d node%s, %s\n", arch_name,
	       (unsigned long long)(mem >> 20), nodes, nodes == 1 ? "" : "s",
	       cpu >= 0 ? "pinned to one CPU" : "not pinned (sched_setaffinity refused)");
	report_load("at the start");
	fflush(stdout);
	for (int i = 0; i < cmdline.nr_run && status == PTELAB_EXIT_OK; i++) {
		const struct run_item *it = &cmdline.run[i];

		status = command_find(it->name)->fn(it->has_arg ? it->arg : NULL);
	}
	report_load("at the end");
	return status;
}
