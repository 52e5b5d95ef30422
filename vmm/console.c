/*
 * console.c - line-buffered guest output and RESULT capture.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ptelab/abi.h"
#include "vmm_console.h"
#include "vmm_json.h"
#include "vmm_util.h"

#define RESULT_TAG "RESULT "
#define EXIT_TAG PTELAB_EXIT_LINE
#define TRACE_TAG PTELAB_TRACE_LINE

int vmm_console_init(struct vmm_console *c, int out_fd, const char *results_path)
{
	c->out_fd = out_fd;
	c->out_broken = false;
	c->len = 0;
	c->overlong = false;
	c->nr_results = 0;
	c->results = NULL;
	c->csv.f = NULL;
	c->csv.ncols = 0;
	c->out_done = 0;
	c->exit_status = -1;
	c->nr_dropped = 0;
	c->nr_traces = 0;
	c->traces_lost = false;
	if (results_path) {
		c->results = fopen(results_path, "we"); /* not inherited by QEMU */
		if (!c->results)
			return -1;
	}
	return 0;
}

int vmm_console_csv_open(struct vmm_console *c, const char *path)
{
	c->csv.f = fopen(path, "we");
	return c->csv.f ? 0 : -1;
}

static void out_write_raw(struct vmm_console *c, const char *p, size_t n)
{
	while (n && !c->out_broken) {
		ssize_t w = write(c->out_fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			c->out_broken = true;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Would a terminal act on byte @b? All C0 controls but \n \t \r, and DEL. */
static bool is_control(unsigned char b)
{
	return (b < 0x20 && b != '\n' && b != '\t' && b != '\r') || b == 0x7f;
}

/* Write guest bytes to out_fd; unless c->raw, each control character
 * (is_control()) as ^X, so an escape sequence reaches the terminal as text. */
static void out_write(struct vmm_console *c, const char *p, size_t n)
{
	size_t run = 0;

	for (size_t i = 0; i < n && !c->raw; i++) {
		char caret[2] = { '^', (char)((unsigned char)p[i] ^ 0x40) };

		if (!is_control((unsigned char)p[i]))
			continue;
		out_write_raw(c, p + run, i - run);
		out_write_raw(c, caret, 2);
		run = i + 1;
	}
	out_write_raw(c, p + run, n - run);
}

/* Does line[0..n) start with @tag, or could it still (a partial line)? */
static bool has_tag(const struct vmm_console *c, size_t n, const char *tag)
{
	size_t t = strlen(tag);

	return !c->overlong && memcmp(c->line, tag, n < t ? n : t) == 0;
}

/* Is line[0..n) (without its '\n') exactly EXIT_TAG and a status 0..255
 * in decimal? Return: the status, or -1. */
static int exit_line_status(const struct vmm_console *c, size_t n)
{
	size_t t = strlen(EXIT_TAG);
	int v = 0;

	if (n > t && c->line[n - 1] == '\r')
		n--;
	if (n <= t || n > t + 3 || !has_tag(c, n, EXIT_TAG))
		return -1;
	for (size_t i = t; i < n; i++) {
		if (c->line[i] < '0' || c->line[i] > '9')
			return -1;
		v = v * 10 + (c->line[i] - '0');
	}
	return v <= 255 ? v : -1;
}

/* Say on stderr that the current RESULT line was not taken (by @what)
 * and why (@why, at JSON byte @at); only the first few times, so a guest
 * cannot flood stderr. */
static void report_drop(struct vmm_console *c, const char *what, const char *why, size_t at)
{
	if (++c->nr_dropped > VMM_CONSOLE_DROP_REPORTS)
		return;
	vmm_msg("RESULT line %lu %s: %s (at byte %zu of its JSON)", c->nr_results + 1, what, why,
		at);
	if (c->nr_dropped == VMM_CONSOLE_DROP_REPORTS)
		vmm_msg("further refused RESULT lines are counted, not shown");
}

/* The JSON of a RESULT line, @n bytes at @json: to the results file only
 * if it is strict JSON, to the CSV file only if it also makes a row. */
static void take_result(struct vmm_console *c, const char *json, size_t n)
{
	size_t at = 0;
	const char *why = vmm_json_walk(json, n, NULL, NULL, &at);

	if (why) {
		report_drop(c, "was dropped", why, at);
	} else if (c->results) {
		fwrite(json, 1, n, c->results);
		fputc('\n', c->results);
		fflush(c->results);
	}
	if (!why && c->csv.f && (why = vmm_csv_row(&c->csv, json, n, &at)))
		report_drop(c, "got no CSV row", why, at);
	c->nr_results++;
}

/* The JSON of a trace record line, @n bytes at @json: to the results file
 * and the --trace-html records (in order with the RESULT lines) only if
 * it is strict JSON. */
static void take_trace(struct vmm_console *c, const char *json, size_t n)
{
	size_t at = 0;
	const char *why = vmm_json_walk(json, n, NULL, NULL, &at);

	c->nr_traces++;
	if (why) {
		if (++c->nr_dropped <= VMM_CONSOLE_DROP_REPORTS)
			vmm_msg("trace record %lu was dropped: %s (at byte %zu of its JSON)",
				c->nr_traces, why, at);
		return;
	}
	if (c->results) {
		fwrite(json, 1, n, c->results);
		fputc('\n', c->results);
		fflush(c->results);
	}
	if (c->trace && !c->traces_lost && vmm_trace_records_add(c->trace, json, n)) {
		vmm_msg("--trace-html: out of memory or past %lu MiB of records; the page ends at "
			"record %lu",
			VMM_TRACE_BYTES_MAX >> 20, c->nr_traces);
		c->traces_lost = true;
	}
}

/* Does the complete line line[0..@n) (without its '\n') start with @tag?
 * Then *@json and *@len are what follows the tag, without
 * a trailing '\r'. */
static bool tagged(const struct vmm_console *c, size_t n, const char *tag, const char **json,
		   size_t *len)
{
	size_t t = strlen(tag);

	if (c->overlong || n < t || memcmp(c->line, tag, t) != 0)
		return false;
	if (n > t && c->line[n - 1] == '\r')
		n--;
	*json = c->line + t;
	*len = n > t ? n - t : 0;
	return true;
}

/* The line in line[0..len) is complete (it ends with '\n'): take it as
 * the guest's exit status when it is a status line, else write it out and
 * capture its JSON when it is a RESULT line; a trace record line is
 * captured and not shown. */
static void end_line(struct vmm_console *c)
{
	size_t n = c->len, len;
	int status = exit_line_status(c, n - 1);
	const char *json;

	if (status >= 0) {
		c->exit_status = status;
		c->len = 0;
		c->out_done = 0;
		return;
	}
	if (tagged(c, n - 1, TRACE_TAG, &json, &len)) {
		take_trace(c, json, len);
		c->len = 0;
		c->out_done = 0;
		return;
	}
	out_write(c, c->line + c->out_done, n - c->out_done);
	if (tagged(c, n - 1, RESULT_TAG, &json, &len))
		take_result(c, json, len);
	c->len = 0;
	c->out_done = 0;
	c->overlong = false;
}

/* Could the partial line still turn out to be a RESULT or status line?
 * (Such a line is held back until it is complete.) */
static bool maybe_held(const struct vmm_console *c)
{
	return has_tag(c, c->len, RESULT_TAG) || has_tag(c, c->len, TRACE_TAG) ||
	       (c->len <= strlen(EXIT_TAG) + 4 && has_tag(c, c->len, EXIT_TAG));
}

/* Write out what is new of a partial line that is not held back, so
 * progress shows as it happens; the line stays for end_line(). */
static void pass_partial(struct vmm_console *c)
{
	out_write(c, c->line + c->out_done, c->len - c->out_done);
	c->out_done = c->len;
}

void vmm_console_put(struct vmm_console *c, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) + 1 : n;

		if (take > sizeof(c->line) - c->len) {
			/* Too long to keep: pass it on now, do not capture it. */
			if (!c->overlong && c->len >= strlen(RESULT_TAG) &&
			    memcmp(c->line, RESULT_TAG, strlen(RESULT_TAG)) == 0)
				vmm_msg("a RESULT line longer than %d bytes was not captured",
					VMM_CONSOLE_LINE_MAX);
			out_write(c, c->line + c->out_done, c->len - c->out_done);
			c->len = 0;
			c->out_done = 0;
			c->overlong = true;
			take = take < sizeof(c->line) ? take : sizeof(c->line);
		}
		memcpy(c->line + c->len, p, take);
		c->len += take;
		p += take;
		n -= take;
		if (c->line[c->len - 1] == '\n')
			end_line(c);
		else if (!maybe_held(c))
			pass_partial(c);
	}
}

void vmm_console_flush(struct vmm_console *c)
{
	if (!c->len)
		return;
	out_write(c, c->line + c->out_done, c->len - c->out_done);
	c->len = 0;
	c->out_done = 0;
	c->overlong = true;
}

int vmm_console_close(struct vmm_console *c)
{
	int r = 0;

	vmm_console_flush(c);
	if (c->nr_dropped > VMM_CONSOLE_DROP_REPORTS)
		vmm_msg("%lu RESULT lines were refused in all", c->nr_dropped);
	if (c->results) {
		if (ferror(c->results) || fclose(c->results))
			r = -1;
		c->results = NULL;
	}
	if (c->csv.f) {
		if (ferror(c->csv.f) || fclose(c->csv.f))
			r = -1;
		c->csv.f = NULL;
	}
	return r;
}
