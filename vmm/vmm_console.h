/*
 * vmm_console.h - the guest's serial output: passed to stdout line by line,
 * with the JSON of every "RESULT " line that is strict JSON (vmm_json.h)
 * also written to the --results file,
 * the JSON of every PTELAB_TRACE_LINE line (trace=on) written there too
 * and kept for --trace-html, the line not shown,
 * and the status of a PTELAB_EXIT_LINE line (ptelab/abi.h) kept, not shown.
 */
#ifndef VMM_CONSOLE_H
#define VMM_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vmm_csv.h"
#include "vmm_trace_html.h"

#define VMM_CONSOLE_LINE_MAX 65536 /* longer lines pass through uncaptured */
#define VMM_CONSOLE_DROP_REPORTS 5 /* refused RESULT lines said on stderr */

struct vmm_console {
	int out_fd;	    /* where guest bytes go (stdout) */
	bool out_broken;    /* a write failed (reader gone): drop the rest */
	bool raw;	    /* --raw: no control character filter (set before init) */
	FILE *results;	    /* NULL without --results */
	struct vmm_csv csv; /* csv.f NULL without --csv */
	size_t out_done;    /* bytes of line[] already written out (a progress line) */
	size_t len;	    /* bytes of the current line in line[] */
	bool overlong;	    /* the current line outgrew line[] and was flushed */
	unsigned long nr_results;
	unsigned long nr_dropped; /* RESULT and trace lines refused by the results or CSV file */
	struct vmm_trace_records *trace; /* --trace-html: NULL none (set after init) */
	unsigned long nr_traces;	 /* trace record lines seen */
	bool traces_lost;		 /* a record did not fit in trace */
	int exit_status;		 /* the last PTELAB_EXIT_LINE's status, -1 before one */
	char line[VMM_CONSOLE_LINE_MAX];
};

/*
 * vmm_console_init - start a console writing to @out_fd and, unless
 * @results_path is NULL, to a results file created (truncated) there.
 * Return: 0, or -1 with errno set when the results file cannot be opened.
 */
int vmm_console_init(struct vmm_console *c, int out_fd, const char *results_path);

/* Also write every RESULT line as a CSV row (vmm_csv_row()) to a file
 * created at @path. Return: 0, or -1 with errno set. */
int vmm_console_csv_open(struct vmm_console *c, const char *path);

/* Feed @n guest bytes; complete lines are written out at once, and so is
 * a partial line that cannot be a RESULT line (progress dots). */
void vmm_console_put(struct vmm_console *c, const void *buf, size_t n);

/* Write out the partial line so far (it is no longer captured): call
 * before ptelab reports on stderr, so the report follows the guest's output. */
void vmm_console_flush(struct vmm_console *c);

/* Write out a partial last line and close the results and CSV files.
 * Return: 0, or -1 when writing either failed. */
int vmm_console_close(struct vmm_console *c);

#endif
