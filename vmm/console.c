/*
 * console.c - line-buffered guest output and RESULT capture.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ptelab/abi.h"
#include "vmm_console.h"
#include "vmm_util.h"

#define RESULT_TAG "RESULT "
#define EXIT_TAG PTELAB_EXIT_LINE

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
	if (results_path) {
		c->results = fopen(results_path, "w");
		if (!c->results)
			return -1;
	}
	return 0;
}

int vmm_console_csv_open(struct vmm_console *c, const char *path)
{
	c->csv.f = fopen(path, "w");
	return c->csv.f ? 0 : -1;
}

static void out_write(struct vmm_console *c, const char *p, size_t n)
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

/* The line in line[0..len) is complete (it ends with '\n'): take it as
 * the guest's exit status when it is a status line, else write it out and
 * capture its JSON when it is a RESULT line. */
static void end_line(struct vmm_console *c)
{
	size_t n = c->len, tag = strlen(RESULT_TAG);
	int status = exit_line_status(c, n - 1);

	if (status >= 0) {
		c->exit_status = status;
		c->len = 0;
		c->out_done = 0;
		return;
	}
	out_write(c, c->line + c->out_done, n - c->out_done);
	if (!c->overlong && n > tag && memcmp(c->line, RESULT_TAG, tag) == 0) {
		n--; /* the '\n' */
		if (n > tag && c->line[n - 1] == '\r')
			n--;
		if (c->results) {
			fwrite(c->line + tag, 1, n - tag, c->results);
			fputc('\n', c->results);
			fflush(c->results);
		}
		if (c->csv.f) /* a line that is not a JSON object gets no row */
			vmm_csv_row(&c->csv, c->line + tag, n - tag);
		c->nr_results++;
	}
	c->len = 0;
	c->out_done = 0;
	c->overlong = false;
}

/* Could the partial line still turn out to be a RESULT or status line?
 * (Such a line is held back until it is complete.) */
static bool maybe_held(const struct vmm_console *c)
{
	return has_tag(c, c->len, RESULT_TAG) ||
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
