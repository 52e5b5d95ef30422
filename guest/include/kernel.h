/*
 * kernel.h - guest-wide services outside mm: panic, time, the machine
 * description and the command line.
 */
#ifndef GUEST_KERNEL_H
#define GUEST_KERNEL_H

#include <stdint.h>
#include <stdio.h>

#include "arch.h"
#include "ptelab/cmdline.h"
#include "machine.h"

extern struct machine machine; /* from the FDT, set before any command runs */
extern struct cmdline cmdline;
extern struct boot_info *boot_info;

/* printf straight to the console, bypassing stdio's buffers: for exception
 * reports, which may interrupt printf itself. One line of up to 160 bytes. */
void console_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A broken invariant: print "panic: <message>" and stop with the crash status. */
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#define BUG_ON(cond)                                                                               \
	do {                                                                                       \
		if (cond)                                                                          \
			panic("%s:%d: %s: BUG_ON(%s)", __FILE__, __LINE__, __func__, #cond);       \
	} while (0)

/* Time since boot from the arch counter and the FDT's (or arch's) rate. */
uint64_t time_ns(void);
uint64_t counter_hz(void);
const char *counter_hz_source(void); /* "fdt" or "arch" */
void time_init(void);

/* The newlib heap: a reserved physical range right after the kernel image. */
void heap_init(void);
void heap_range(uint64_t *start_phys, uint64_t *size);

/* Commands for run=NAME[:ARG]. fn returns a PTELAB_EXIT_* status. */
/* Does a command take an argument (run=NAME:ARG)? */
enum command_arg { ARG_NONE, ARG_OPTIONAL, ARG_REQUIRED };

struct command {
	const char *name;
	const char *help;
	enum command_arg arg;
	int (*fn)(const char *arg);
	/* Optional: is @arg (NULL when absent) usable? 0, or -1 with a reason. */
	int (*check)(const char *arg, char *err, size_t errlen);
	/* Needs a booted machine (its console, exit, MMU): not on --backend host. */
	bool needs_machine;
};

/* Look up a command by name; NULL when there is none. */
const struct command *command_find(const char *name);

/*
 * commands_check - every run= item names a command, with an argument when
 * it needs one and none when it takes none, which its own check accepts;
 * with @host_backend, none needs a booted machine. Called before any
 * command runs, so a bad item costs no work.
 * Return: 0, or -1 with a one-line reason in @err.
 */
int commands_check_on(int host_backend, char *err, size_t errlen);
#define commands_check(err, errlen) commands_check_on(0, err, errlen)

/* The in-guest test runner (run=selftest): prints a line per case and
 * "N passed, N failed"; returns PTELAB_EXIT_OK or PTELAB_EXIT_FAIL. */
int selftest_run(const char *filter);

/* run=selftest:list: print the name of every case, run none. */
int selftest_list(void);

#endif
