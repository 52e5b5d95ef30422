/*
 * vmm_trace_html.h - --trace-html: the trace=on records of a run (the
 * guest's PTELAB_TRACE_LINE lines, ptelab/abi.h), kept in order, and the
 * one self-contained HTML page that steps through them (inline CSS and
 * script, no network; docs/lab.md says how to read it).
 */
#ifndef VMM_TRACE_HTML_H
#define VMM_TRACE_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define VMM_TRACE_BYTES_MAX (64ul << 20) /* records kept, in all */

struct vmm_trace_records {
	char **rec; /* NUL-terminated copies, in the order the guest printed them */
	size_t nr, cap;
	size_t bytes;
};

/* What the page says about the run. */
struct vmm_trace_page {
	const char *command; /* the guest command line */
	const char *arch;
	int cpus;
};

/* Keep a copy of the record @json (@n bytes). Return: 0, or -1 when out
 * of memory or past VMM_TRACE_BYTES_MAX (the record is not kept). */
int vmm_trace_records_add(struct vmm_trace_records *t, const char *json, size_t n);

void vmm_trace_records_free(struct vmm_trace_records *t);

/*
 * vmm_trace_html_write - write the page for @t to @f. Each record that is
 * a strict JSON object (vmm_json_walk()) goes in, in order; the others
 * are counted in *@dropped. Every text of @p and the records is escaped.
 * Return: 0, or -1 when writing failed.
 */
int vmm_trace_html_write(FILE *f, const struct vmm_trace_page *p, const struct vmm_trace_records *t,
			 unsigned long *dropped);

#endif
