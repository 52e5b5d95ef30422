/*
 * exit.c (arm64) - stopping the machine: on ptelab's KVM backend a write
 * of the status to the exit device the tree names (ptelab/abi.h); on QEMU
 * (no such device) semihosting SYS_EXIT, which makes QEMU (run with
 * -semihosting-config enable=on) exit with the guest's status. And the
 * interrupts-off hang.
 */
#include <string.h>

#include "kernel.h"
#include "ptelab/abi.h"

#include <asm/traps.h>

uint64_t arm64_exit_pa;

#define SEMIHOST_SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

/*
 * semihost_exit - SYS_EXIT with the AArch64 two-word block {reason,
 * status}. Does not return: with semihosting off the hlt is an undefined
 * instruction, and the exception path ends the guest instead.
 */
static void semihost_exit(int status)
{
	volatile uint64_t block[2] = { ADP_STOPPED_APPLICATION_EXIT, (uint64_t)status };
	register uint64_t x0 __asm__("x0") = SEMIHOST_SYS_EXIT;
	register uint64_t x1 __asm__("x1") = (uint64_t)(uintptr_t)block;

	__asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
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
	semihost_exit(status);
	arch_hang();
}

void arch_hang(void)
{
	__asm__ volatile("msr daifset, #0xf" : : : "memory");
	for (;;)
		__asm__ volatile("wfi");
}
