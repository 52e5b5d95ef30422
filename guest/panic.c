/*
 * panic.c - the guest's reaction to a broken invariant.
 */
#include <stdarg.h>
#include <stdio.h>

#include "kernel.h"
#include "ptelab_abi.h"

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
