/*
 * cpu_number.h (x86_64) - smp_processor_id() as one GS-relative load:
 * struct percpu's cpu field follows its self pointer (8 bytes) and
 * struct arch_percpu (core/smp.c asserts the offset).
 */
#ifndef ASM_CPU_NUMBER_H
#define ASM_CPU_NUMBER_H

#include <asm/percpu.h>

#define ARCH_PERCPU_CPU_OFFSET (8 + sizeof(struct arch_percpu))

/* Not volatile: a running context never changes CPU, so the compiler
 * may reuse the value. */
static inline unsigned arch_cpu_number(void)
{
	unsigned cpu;

	__asm__("movl %%gs:%c1, %0" : "=r"(cpu) : "i"(ARCH_PERCPU_CPU_OFFSET));
	return cpu;
}

#endif
