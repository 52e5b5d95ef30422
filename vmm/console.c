/*
 * console.c - line-buffered guest output and RESULT capture.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "vmm_console.h"
#include "vmm_util.h"

#define RESULT_TAG "RESULT "

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

/* The line in line[0..len) is complete (it ends with '\n'): write it out
 * and capture its JSON when it is a RESULT line. */
static void end_line(struct vmm_console *c)
{
	size_t n = c->len, tag = strlen(RESULT_TAG);

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

/* Could the partial line still turn out to be a RESULT line? */
static bool maybe_result(const struct vmm_console *c)
{
	size_t n = c->len < strlen(RESULT_TAG) ? c->len : strlen(RESULT_TAG);

	return !c->overlong && memcmp(c->line, RESULT_TAG, n) == 0;
}

/* Write out what is new of a partial line that is not a RESULT line, so
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
		else if (!maybe_result(c))
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
