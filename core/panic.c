/*
 * panic.c - the guest's reaction to a broken invariant, and the unbuffered
 * console printf that exception reports use.
 */
#include <stdarg.h>
#include <stdio.h>

#include "kernel.h"
#include "ptelab/abi.h"

void console_printf(const char *fmt, ...)
{
	char line[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	arch_console_write(line, n > 0 ? (size_t)n : 0);
}

void panic(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("panic: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	arch_exit(PTELAB_EXIT_CRASH);
}
