/*
 * commands.h - the guest application's command registry (run=NAME[:ARG]),
 * the parsed command line and the in-guest selftest runner.
 */
#ifndef GUEST_COMMANDS_H
#define GUEST_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "ptelab/cmdline.h"

/* The command line, parsed from machine.bootargs before any command runs. */
extern struct cmdline cmdline;

/* A command for run=NAME[:ARG]: its name and what runs it (@arg NULL
 * when absent), returning a PTELAB_EXIT_* status. Its argument's form,
 * whether it needs a machine and its help are its row of
 * ptelab/cmdline_cmds.h, which cmdline_check_run() checks before it runs. */
struct command {
	const char *name;
	int (*fn)(const char *arg);
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
