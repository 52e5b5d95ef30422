/*
 * kernel.h - the kernel core's services that every kernel file may use:
 * panic and printing, time, the machine description and the heap. The
 * core stands below mm/; the guest's application (commands, benches,
 * selftests) is in guest/include/commands.h.
 */
#ifndef CORE_KERNEL_H
#define CORE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arch.h"
#include "machine.h"

extern struct machine machine; /* from the FDT, set before any command runs */
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

#endif
