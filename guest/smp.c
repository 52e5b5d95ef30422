/*
 * smp.c - the guest's CPUs (guest/include/smp.h). One CPU: the boot CPU.
 */
#include "kernel.h"
#include "smp.h"

unsigned smp_processor_id(void)
{
	return 0;
}

unsigned smp_nr_cpus(void)
{
	return 1;
}

void smp_run(unsigned ncpus, void (*fn)(unsigned cpu, void *arg), void *arg)
{
	if (ncpus != 1)
		panic("smp_run: %u CPUs asked for, %u online", ncpus, smp_nr_cpus());
	fn(0, arg);
}
