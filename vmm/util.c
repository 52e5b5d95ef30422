/*
 * util.c - stderr messages, the clock, size formatting and shell quoting.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ptelab/abi.h"
#include "vmm_util.h"

void vmm_msg(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write so the line is not interleaved with a child's output. */
	fprintf(stderr, "ptelab: %s\n", line);
}

int vmm_self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size);

	if (n <= 0 || (size_t)n >= size)
		return -1;
	buf[n] = 0;
	return 0;
}

int vmm_guest_status(int status)
{
	const char *own = status == PTELAB_EXIT_NOBACKEND ? "no usable backend"
			  : status == PTELAB_EXIT_TIMEOUT ? "--timeout"
			  : status >= 128		  ? "a stop signal"
							  : NULL;

	if (own)
		vmm_msg("exit status %d is the guest's own (ptelab's %d would mean %s)", status,
			status, own);
	return status;
}

uint64_t vmm_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

char *vmm_fmt_size(uint64_t bytes, char *buf, size_t size)
{
	if (bytes && bytes % VMM_GIB == 0)
		snprintf(buf, size, "%lluG", (unsigned long long)(bytes / VMM_GIB));
	else if (bytes && bytes % VMM_MIB == 0)
		snprintf(buf, size, "%lluM", (unsigned long long)(bytes / VMM_MIB));
	else if (bytes && bytes % VMM_KIB == 0)
		snprintf(buf, size, "%lluK", (unsigned long long)(bytes / VMM_KIB));
	else
		snprintf(buf, size, "%llu", (unsigned long long)bytes);
	return buf;
}

static int shell_safe(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_./=,:@%+-",
			    *w))
			return 0;
	return 1;
}

int vmm_shell_quote(char *buf, size_t size, const char *word)
{
	size_t len = strlen(buf), n = len;

	if (shell_safe(word)) {
		if (len + strlen(word) + 1 > size)
			return -1;
		strcpy(buf + len, word);
		return 0;
	}
	if (n + 3 > size)
		return -1;
	buf[n++] = '\'';
	for (; *word; word++) {
		const char *piece = *word == '\'' ? "'\\''" : word;
		size_t plen = *word == '\'' ? 4 : 1;

		if (n + plen + 2 > size)
			goto err_full;
		memcpy(buf + n, piece, plen);
		n += plen;
	}
	buf[n++] = '\'';
	buf[n] = 0;
	return 0;

err_full:
	buf[len] = 0;
	return -1;
}

int vmm_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char full[PATH_MAX];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (snprintf(full, sizeof(full), "%.*s/%s", (int)n, n ? path : ".", name) <
			    (int)sizeof(full) &&
		    access(full, X_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}
