/*
 * apic.h (x86_64) - the local APIC (arch/x86_64/apic.c): x2APIC through
 * MSRs when the CPU has it, else xAPIC through its MMIO page.
 */
#ifndef ASM_APIC_H
#define ASM_APIC_H

#include <stdint.h>

/* Enable this CPU's APIC (x2APIC mode when CPUID has it; the boot CPU
 * decides for all), mask its local interrupts (timer, LINT0/1, error). */
void apic_cpu_init(void);

/* "x2APIC (MSRs)" or "xAPIC (MMIO)"; the xAPIC's physical page (0 with
 * x2APIC), which the kernel's page tables must map uncached. */
const char *apic_mode(void);
uint64_t apic_mmio_phys(void);

/* This CPU's APIC ID. */
uint32_t apic_id(void);

/* A fixed IPI with @vector to APIC ID @dest. Earlier stores are visible
 * to the target first. */
void apic_send_ipi(uint32_t dest, uint8_t vector);

/* INIT, then STARTUP at the real-mode page @page (address >> 12). */
void apic_send_init(uint32_t dest);
void apic_send_sipi(uint32_t dest, uint8_t page);

/* End of interrupt: the in-service vector may be delivered again. */
void apic_eoi(void);

/* The APIC timer: @vector every @count ticks of the bus clock divided
 * by 16 (periodic), or masked and stopped. */
void apic_timer_periodic(uint8_t vector, uint32_t count);
void apic_timer_stop(void);

/* Set lock_pv_halt when the hypervisor is KVM with PV unhalt
 * (arch/x86_64/pvlock.c). Context: boot, before a second CPU runs. */
void x86_lock_pv_init(void);

/* Give KVM this CPU's steal-time record (whether its vCPU is preempted,
 * for the lock waiters). Context: CPU @cpu's start. */
void x86_lock_pv_cpu_init(unsigned cpu);

#endif
