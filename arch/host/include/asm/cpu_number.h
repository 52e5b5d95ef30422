/*
 * cpu_number.h (host) - smp_processor_id() of the host runners: a
 * thread-local set when a CPU thread starts (arch/host/smp.c).
 */
#ifndef ASM_CPU_NUMBER_H
#define ASM_CPU_NUMBER_H

extern __thread unsigned host_cpu_number;

static inline unsigned arch_cpu_number(void)
{
	return host_cpu_number;
}

#endif
