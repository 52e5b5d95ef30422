/*
 * console.c (arm64) - the boot console: QEMU virt's PL011 UART, polled,
 * through the direct map (the first GiB is device memory in both the boot
 * tables and mm's). QEMU needs no setup of the UART to transmit.
 */
#include "kernel.h"

#define PL011_DR 0x00
#define PL011_FR 0x18
#define PL011_FR_TXFF (1u << 5) /* transmit FIFO full */

static volatile uint32_t *pl011_reg(unsigned off)
{
	return phys_to_virt(VIRT_UART_PBASE + off);
}

/* The last byte written (relaxed: CPUs writing at once only make the
 * status line's leading newline a guess). */
static char console_last = '\n';

/* Context: any, including exception handlers; no locks. */
void arch_console_write(const char *buf, size_t len)
{
	volatile uint32_t *dr = pl011_reg(PL011_DR), *fr = pl011_reg(PL011_FR);

	for (size_t i = 0; i < len; i++) {
		while (*fr & PL011_FR_TXFF)
			;
		*dr = (unsigned char)buf[i];
	}
	if (len)
		__atomic_store_n(&console_last, buf[len - 1], __ATOMIC_RELAXED);
}

bool arm64_console_at_line_start(void)
{
	return __atomic_load_n(&console_last, __ATOMIC_RELAXED) == '\n';
}
