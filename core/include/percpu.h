/*
 * percpu.h - each guest CPU's own data, reached through a register the
 * arch reserves for it (x86_64: the GS base; arm64: TPIDR_EL1), and the
 * hooks core/smp.c brings the CPUs up with.
 *
 * The arch points that register at the CPU's struct percpu before any C
 * that may ask smp_processor_id() runs on it; `self` comes first so one
 * load through the register finds the whole struct.
 */
#ifndef GUEST_PERCPU_H
#define GUEST_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "smp.h"

#include <asm/percpu.h> /* struct arch_percpu, arch_this_cpu() */

struct percpu {
	struct percpu *self;	 /* first: what arch_this_cpu() loads */
	struct arch_percpu arch; /* second, at offset 8, for the arch's assembly */
	unsigned cpu;		 /* dense number, 0 = the boot CPU */
	uint64_t hwid;		 /* x2APIC ID / MPIDR affinity, from the tree's cpu reg */
	int node;		 /* numa-node-id from the tree */
	/* Written once by the CPU itself when it reaches smp_secondary_main(). */
	volatile bool online;
	/* Faults taken while nonzero are not resolved by mm/: the access
	 * fails through its fixup (pagefault_disable(), as Linux's). */
	int pagefault_disabled;
	/* smp_run()'s mailbox: fn and arg are written before work_seq is
	 * bumped (release); the CPU reads them after seeing it (acquire). */
	void (*fn)(unsigned cpu, void *arg);
	void *arg;
	volatile unsigned work_seq;
	void *stack; /* the CPU's kernel stack [stack, stack + stack_size) */
	unsigned long stack_size;
};

extern struct percpu percpu_area[NR_CPUS];

static inline struct percpu *this_cpu(void)
{
	return arch_this_cpu();
}

static inline void pagefault_disable(void)
{
	this_cpu()->pagefault_disabled++;
}

static inline void pagefault_enable(void)
{
	this_cpu()->pagefault_disabled--;
}

/* Bring up every CPU the tree lists (kmain, once, on the boot CPU). Stops
 * the guest with PTELAB_EXIT_CRASH naming any CPU that does not come up. */
void smp_init(void);

/* Microseconds smp_init() took to bring the secondaries up. */
uint64_t smp_bringup_us(void);

/* Where a started CPU lands once its stack and per-CPU register are set:
 * marks it online and runs smp_run() work forever. */
void smp_secondary_main(struct percpu *pc) __attribute__((noreturn));

/* ---- the arch side, defined per arch ------------------------------------- */

/* Point this CPU's per-CPU register at @pc (every CPU, first thing). */
void arch_percpu_set(struct percpu *pc);

/* Boot CPU, before any secondary starts: the interrupt controller and
 * whatever the arch needs to start and wake CPUs. */
void arch_smp_prepare(void);

/* Start the CPU @pc describes (hwid, stack); it calls
 * smp_secondary_main(@pc). Return: 0, or -1 with a reason in @err when the
 * start request itself failed (e.g. PSCI's error code). */
int arch_cpu_start(struct percpu *pc, char *err, unsigned long errlen);

/* Wake @cpu out of arch_cpu_wait() (an IPI). */
void arch_cpu_wake(unsigned cpu);

/* Sleep until *@word differs from @old; woken by arch_cpu_wake() (and
 * spuriously). No wake-up between the check and the sleep is lost. */
void arch_cpu_wait(volatile unsigned *word, unsigned old);

#endif
