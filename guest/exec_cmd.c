/*
 * exec_cmd.c - run=exec:PATH: run the initramfs program PATH as a user
 * process, with argv[1..] from /chosen/ptelab,argv (ptelab's arguments
 * after a second "--"); its exit status is the guest's.
 */
#include <stdio.h>
#include <string.h>

#include "initramfs.h"
#include "commands.h"
#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "ptelab/abi.h"
#include "ptelab/cmdline.h"

#define EXEC_MAX_ARGS 64

/* The archive: where the boot protocol put it, else where the FDT says.
 * Read again for every run=exec (it is read in place, without copies):
 * run=selftest's initramfs cases replace the table with their own. */
static int load_initramfs(void)
{
	uint64_t phys = boot_info->initramfs_phys, size = boot_info->initramfs_size;
	char err[120];
	int n;

	if (!size && machine.initrd_end > machine.initrd_start) {
		phys = machine.initrd_start;
		size = machine.initrd_end - machine.initrd_start;
	}
	if (!size) {
		printf("exec: no initramfs (give ptelab --initramfs DIR|FILE)\n");
		return -1;
	}
	n = initramfs_parse(phys_to_virt(phys), size, err, sizeof(err));
	if (n < 0) {
		printf("exec: initramfs at %#llx (%llu bytes): %s\n", (unsigned long long)phys,
		       (unsigned long long)size, err);
		return -1;
	}
	printf("exec: initramfs: %d entries, %llu bytes\n", n, (unsigned long long)size);
	return 0;
}

/* argv[0] is @path, then each string the boot protocol carried, else
 * each of /chosen/ptelab,argv. */
static int build_argv(const char *path, char *argv[EXEC_MAX_ARGS + 1])
{
	char *args = boot_info->exec_argv_len ? (char *)boot_info->exec_argv : machine.exec_argv;
	uint32_t len = boot_info->exec_argv_len ? boot_info->exec_argv_len : machine.exec_argv_len;
	int argc = 0;

	argv[argc++] = (char *)path;
	for (uint32_t o = 0; o < len && argc < EXEC_MAX_ARGS; o += (uint32_t)strlen(args + o) + 1)
		argv[argc++] = args + o;
	argv[argc] = NULL;
	return argc;
}

int cmd_exec(const char *arg);
int cmd_exec(const char *arg)
{
	static char *envp[] = { "HOME=/", "PATH=/bin:/", "TERM=dumb", NULL };
	char *argv[EXEC_MAX_ARGS + 1];
	int status;

	mm_init();
	if (load_initramfs())
		return PTELAB_EXIT_USAGE;
	build_argv(arg, argv);
	/* mm_debug=off: what run=bench turns off to measure a production
	 * kernel (make compare's "same binary" column). */
	if (!cmdline_on(&cmdline, CMDLINE_KEY_mm_debug)) {
		mm_debug_poison = false;
		mm_set_debug_vm(false);
	}
	status = process_exec(arg, argv, envp);
	mm_debug_poison = true;
	mm_set_debug_vm(true);
	printf("exec: %s: exit status %d\n", arg, status);
	return status;
}
