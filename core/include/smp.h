/*
 * smp.h - the CPUs the kernel runs on, as mm/, the commands and the tests
 * see them. The guest defines these in core/smp.c on top of its arch's
 * bring-up; arch/host defines them for the host runners.
 *
 * A CPU number is dense, 0 .. smp_nr_cpus() - 1; CPU 0 is the boot CPU,
 * which runs every command.
 */
#ifndef GUEST_SMP_H
#define GUEST_SMP_H

#include <asm/cpu_number.h>

#include "ptelab/abi.h"

#define NR_CPUS PTELAB_MAX_CPUS

/* The number of the CPU this runs on: inline, one register-relative load
 * (every counted event and every lock asks it). */
static inline unsigned smp_processor_id(void)
{
	return arch_cpu_number();
}

/* How many CPUs are online. */
unsigned smp_nr_cpus(void);

/*
 * smp_run - run @fn(cpu, @arg) on CPUs 0 .. @ncpus - 1 at the same time
 * (CPU 0 is the caller) and return once every call has returned. Panics
 * when @ncpus is 0 or more than smp_nr_cpus().
 */
void smp_run(unsigned ncpus, void (*fn)(unsigned cpu, void *arg), void *arg);

/*
 * smp_wait - sleep on this CPU until *@word differs from @old, taking
 * interrupts meanwhile (x86's flush IPIs are handled in the sleep);
 * smp_wake(@cpu) ends the sleep of a CPU that may be in one, after the
 * word has changed. The host runners' CPUs spin with a yield instead.
 */
void smp_wait(volatile unsigned *word, unsigned old);
void smp_wake(unsigned cpu);

#endif
