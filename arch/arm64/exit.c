/*
 * exit.c (arm64) - stopping the machine: on ptelab's KVM backend a write
 * of the status to the exit device the tree names (ptelab/abi.h); on QEMU
 * (no such device) the status line PTELAB_EXIT_LINE on the console and
 * PSCI SYSTEM_OFF, which makes QEMU exit. And the interrupts-off hang.
 */
#include <string.h>

#include "kernel.h"
#include "ptelab/abi.h"

#include <asm/psci.h>
#include <asm/traps.h>

uint64_t arm64_exit_pa;

/* Write "PTELAB_EXIT_LINE <status>\n" at the start of a console line. */
static void write_status_line(int status)
{
	char line[sizeof(PTELAB_EXIT_LINE) + 8];
	int n = snprintf(line, sizeof(line), "%s%s%d\n", arm64_console_at_line_start() ? "" : "\n",
			 PTELAB_EXIT_LINE, status & 0xff);

	arch_console_write(line, (size_t)n);
}

/* A kernel stack that overflowed makes every result suspect: say so and
 * report a crash instead of @status. */
void arch_exit(int status)
{
	const char *stack = arm64_stack_problem(0);

	if (stack) {
		static const char msg[] = "guest: arch_exit: ";

		arch_console_write(msg, sizeof(msg) - 1);
		arch_console_write(stack, strlen(stack));
		arch_console_write("\n", 1);
		status = PTELAB_EXIT_CRASH;
	}
	if (arm64_exit_pa)
		*(volatile uint32_t *)phys_to_virt(arm64_exit_pa) = (uint32_t)status;
	write_status_line(status);
	arm64_psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
	arch_hang(); /* SYSTEM_OFF returned: ptelab's --timeout ends the run */
}

void arch_hang(void)
{
	__asm__ volatile("msr daifset, #0xf" : : : "memory");
	for (;;)
		__asm__ volatile("wfi");
}
