/*
 * main.c - the generic guest entry: read the machine from the FDT, parse
 * the command line, run the commands it names, exit with their status.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dt.h"
#include "kernel.h"
#include "knobs.h"
#include "ptelab_abi.h"

struct machine machine;
struct cmdline cmdline;
struct boot_info *boot_info;

/* Keys the command line may use; anything else is a usage error. */
static const char *const known_keys[] = { "run",    "size",   "reps",	   "folios",	"seed",
					  "gup_nr", "gup_op", "gup_write", "gup_touch", NULL };

/* Every key must be a command-line key or a batching knob. */
static int check_keys(char *err, size_t errlen)
{
	for (int i = 0; i < cmdline.nr_words; i++) {
		static struct cmdline one;

		one.nr_words = 1;

		one.word[0] = cmdline.word[i];
		if (cmdline_check_keys(&one, known_keys, err, errlen) &&
		    cmdline_check_keys(&one, caps_keys, err, errlen))
			return -1;
	}
	return 0;
}

/* Run every run= item in order; stop at the first that does not pass. */
static int run_commands(void)
{
	if (cmdline.nr_run == 0) {
		printf("guest: nothing to run (give run=NAME; run=list lists the commands)\n");
		return PTELAB_EXIT_USAGE;
	}
	for (int i = 0; i < cmdline.nr_run; i++) {
		const struct run_item *it = &cmdline.run[i];
		const struct command *c = command_find(it->name);
		int status;

		if (!c) {
			printf("guest: unknown command '%s' (run=list lists the commands)\n",
			       it->name);
			return PTELAB_EXIT_USAGE;
		}
		if ((c->arg == 0 && it->has_arg) || (c->arg == 2 && !it->has_arg)) {
			printf("guest: command '%s' %s an argument (%s)\n", it->name,
			       c->arg ? "needs" : "takes no", c->help);
			return PTELAB_EXIT_USAGE;
		}
		status = c->fn(it->has_arg ? it->arg : NULL);
		if (status != PTELAB_EXIT_OK)
			return status;
	}
	return PTELAB_EXIT_OK;
}

/* Parse FDT and command line; on bad input say why and stop. */
static void read_machine(void)
{
	char err[160];
	uint32_t size = dt_total_size(boot_info->fdt);

	if (!size || machine_from_fdt(boot_info->fdt, size, &machine, err, sizeof(err))) {
		printf("guest: %s\n", size ? err : "no device tree from the boot protocol");
		arch_exit(PTELAB_EXIT_USAGE);
	}
	if (cmdline_parse(machine.bootargs, &cmdline, err, sizeof(err)) ||
	    check_keys(err, sizeof(err)) || caps_parse(&cmdline, err, sizeof(err))) {
		printf("guest: command line: %s\n", err);
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
	fflush(stdout);
	_exit(run_commands());
}
