/*
 * apic.c (x86_64) - the local APIC. x2APIC (every register an MSR, the
 * ICR one 64-bit write) when CPUID offers it, as KVM's in-kernel LAPIC
 * does; else the xAPIC's MMIO page at its base (QEMU 7.2's TCG has no
 * x2APIC). Both are the same registers: MSR 0x800 + offset / 16. The
 * legacy 8259 PICs are masked once so no ISA interrupt reaches a vector
 * below 32.
 */
#include <stdbool.h>

#include "kernel.h"
#include "smp.h"

#include <asm/apic.h>
#include <asm/io.h>
#include <asm/mmu.h>
#include <asm/traps.h>

#define MSR_APIC_BASE 0x1b
#define APIC_BASE_EXTD (1ull << 10) /* x2APIC mode */
#define APIC_BASE_EN (1ull << 11)
#define APIC_BASE_ADDR 0xfffff000ull
#define APIC_ID 0x20
#define APIC_TPR 0x80
#define APIC_EOI 0xb0
#define APIC_SVR 0xf0
#define APIC_ICR 0x300
#define APIC_ICR2 0x310 /* xAPIC: the destination in bits 31:24 */
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERROR 0x370
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_DIV 0x3e0
#define LVT_TIMER_PERIODIC (1u << 17)
#define TIMER_DIV_16 0x3
#define X2APIC_MSR(off) (0x800u + ((off) >> 4))
#define SVR_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define ICR_BUSY (1u << 12) /* xAPIC: delivery pending */
#define ICR_INIT 0x500
#define ICR_STARTUP 0x600
#define ICR_ASSERT (1u << 14)
#define CPUID_1_ECX_X2APIC (1u << 21)
#define PIC1_DATA 0x21
#define PIC2_DATA 0xa1

static bool x2apic;
static uint64_t xapic_phys;

static volatile uint32_t *xapic_reg(unsigned off)
{
	return (volatile uint32_t *)phys_to_virt(xapic_phys + off);
}

static void apic_write(unsigned off, uint32_t v)
{
	if (x2apic)
		wrmsr(X2APIC_MSR(off), v);
	else
		*xapic_reg(off) = v;
}

static uint32_t apic_read(unsigned off)
{
	return x2apic ? (uint32_t)rdmsr(X2APIC_MSR(off)) : *xapic_reg(off);
}

uint64_t apic_mmio_phys(void)
{
	return x2apic ? 0 : xapic_phys;
}

const char *apic_mode(void)
{
	return x2apic ? "x2APIC (MSRs)" : "xAPIC (MMIO)";
}

void apic_cpu_init(void)
{
	uint32_t a, b, c, d;
	uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_EN;

	cpuid(1, &a, &b, &c, &d);
	if (smp_processor_id() == 0) {
		x2apic = c & CPUID_1_ECX_X2APIC;
		xapic_phys = base & APIC_BASE_ADDR;
		outb(PIC1_DATA, 0xff);
		outb(PIC2_DATA, 0xff);
	}
	/* xAPIC -> x2APIC needs EN first, then EN|EXTD. */
	wrmsr(MSR_APIC_BASE, base);
	if (x2apic)
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EXTD);
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_LVT_LINT0, LVT_MASKED);
	apic_write(APIC_LVT_LINT1, LVT_MASKED);
	apic_write(APIC_LVT_ERROR, LVT_MASKED);
	apic_write(APIC_TPR, 0);
	apic_write(APIC_SVR, SVR_ENABLE | X86_SPURIOUS_VECTOR);
}

uint32_t apic_id(void)
{
	uint32_t id = apic_read(APIC_ID);

	return x2apic ? id : id >> 24;
}

/* Earlier stores (the request an IPI announces) are made visible before
 * the ICR write, which is not serializing in x2APIC mode (Linux's
 * weak_wrmsr_fence()). */
static void icr_write(uint32_t dest, uint32_t low)
{
	__asm__ volatile("mfence; lfence" : : : "memory");
	if (x2apic) {
		wrmsr(X2APIC_MSR(APIC_ICR), (uint64_t)dest << 32 | low);
		return;
	}
	while (apic_read(APIC_ICR) & ICR_BUSY)
		__asm__ volatile("pause");
	apic_write(APIC_ICR2, dest << 24);
	apic_write(APIC_ICR, low);
}

void apic_send_ipi(uint32_t dest, uint8_t vector)
{
	icr_write(dest, vector | ICR_ASSERT);
}

void apic_send_init(uint32_t dest)
{
	icr_write(dest, ICR_INIT | ICR_ASSERT);
}

void apic_send_sipi(uint32_t dest, uint8_t page)
{
	icr_write(dest, ICR_STARTUP | ICR_ASSERT | page);
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

void apic_timer_periodic(uint8_t vector, uint32_t count)
{
	apic_write(APIC_TIMER_DIV, TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LVT_TIMER_PERIODIC | vector);
	apic_write(APIC_TIMER_INIT, count);
}

void apic_timer_stop(void)
{
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_TIMER_INIT, 0);
}
