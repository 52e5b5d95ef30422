/*
 * main.c - the generic guest entry: read the machine from the FDT, parse
 * the command line, run the commands it names, exit with their status.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dt.h"
#include "commands.h"
#include "kernel.h"
#include "trace.h"
#include "vmscan.h"
#include "knob_parse.h"
#include "ptelab/abi.h"
#include "knobs.h"
#include "mempolicy.h"
#include "page.h"
#include "percpu.h"

struct machine machine;
struct cmdline cmdline;
struct boot_info *boot_info;

/* Run every run= item in order (commands_check() has passed them all);
 * stop at the first that does not pass. */
static int run_commands(void)
{
	for (int i = 0; i < cmdline.nr_run; i++) {
		const struct run_item *it = &cmdline.run[i];
		int status = command_find(it->name)->fn(it->has_arg ? it->arg : NULL);

		if (status != PTELAB_EXIT_OK)
			return status;
	}
	return PTELAB_EXIT_OK;
}

/* Parse FDT and command line; on bad input say why and stop. */
static void read_machine(void)
{
	char err[CMDLINE_ERR_MAX];
	uint32_t size = dt_total_size(boot_info->fdt);

	if (!size || machine_from_fdt(boot_info->fdt, size, &machine, err, sizeof(err))) {
		printf("guest: %s\n", size ? err : "no device tree from the boot protocol");
		arch_exit(PTELAB_EXIT_USAGE);
	}
	if (cmdline_parse(machine.bootargs, &cmdline, err, sizeof(err)) ||
	    cmdline_check(&cmdline, arch_name, err, sizeof(err)) ||
	    caps_parse(&cmdline, err, sizeof(err))) {
		printf("guest: command line: %s\n", err);
		arch_exit(PTELAB_EXIT_USAGE);
	}
	if (commands_check(err, sizeof(err))) {
		printf("guest: %s\n", err);
		arch_exit(PTELAB_EXIT_USAGE);
	}
	mm_boot_verbose = cmdline_on(&cmdline, CMDLINE_KEY_ptelab_verbose);
	reclaim_set_low(-1, cmdline_num(&cmdline, CMDLINE_KEY_reclaim_low));
	numa_scan_set(cmdline_num(&cmdline, CMDLINE_KEY_numa_scan));
	if (cmdline_on(&cmdline, CMDLINE_KEY_trace) && !mm_set_trace(true)) {
		printf("guest: command line: trace=on: this image has no trace built in (ptelab "
		       "boots <arch>/guest-trace.elf for trace=on unless --kernel names "
		       "another)\n");
		arch_exit(PTELAB_EXIT_USAGE);
	}
}

void run_constructors(void);
extern char _kernel_start[], _kernel_end[];

void boot_reserve(uint64_t start, uint64_t size, const char *what)
{
	if (boot_info->nr_reserved == BOOT_RANGES_MAX)
		panic("boot_reserve: no room for %s (%d ranges)", what, BOOT_RANGES_MAX);
	boot_info->reserved[boot_info->nr_reserved++] = (struct boot_range){ start, size, what };
}

void kmain(struct boot_info *bi)
{
	boot_info = bi;
	boot_reserve(virt_to_phys(_kernel_start), (uint64_t)(_kernel_end - _kernel_start),
		     "kernel image");
	run_constructors();
	read_machine();
	heap_init();
	setvbuf(stdout, NULL, _IOLBF, 256);
	time_init();
	smp_init();
	fflush(stdout);
	_exit(run_commands());
}
