/*
 * preempt.c - the timer tick that takes the CPU from a process running
 * user code, so that a program spinning in user space does not starve
 * the others (scheduler.h).
 *
 * The arch arms a periodic tick on the CPU that runs processes while
 * sched_run() runs (arch_tick_start(), arch_tick_stop()); a tick taken
 * in user mode (ring 3, EL0) calls user_timer_tick() on the process's
 * kstack, exactly where a system call would run, so the switch it makes
 * is one more switch point of the scheduler: the process
 * holds no lock there. A tick taken in kernel mode (x86_64 runs system
 * calls with interrupts on) does not switch: kernel code between two
 * switch points runs as one piece (futex.c relies on that for its value
 * check). It leaves a request that the end of the system call serves,
 * as Linux's need_resched, so a process that spends its time in system
 * calls is preempted too. arm64 keeps IRQs masked in the kernel, so its
 * tick waits for the return to EL0 and is taken there.
 */
#include <stdbool.h>

#include "kernel.h"
#include "ksignal.h"
#include "process.h"
#include "scheduler.h"
#include "user_arch.h"

/* Ticks taken in user mode, and the switches they made (tests read them). */
unsigned long preempt_user_ticks, preempt_switches;
/* A tick came while the kernel ran a system call. */
static bool resched_pending;

/* Yield to the next runnable task, if any, unless the current one is
 * SCHED_FIFO (sys_sched.c). */
static void preempt_switch(void)
{
	resched_pending = false;
	if (!sched_queue_empty() && !current_process->sched_fifo) {
		preempt_switches++;
		sched_yield_current();
	}
}

unsigned long preempt_ticks(void)
{
	return preempt_user_ticks;
}

void preempt_check_rate(uint64_t run_ns, unsigned long ticks, unsigned period_us)
{
	uint64_t most = run_ns / (period_us * 1000ull) + 1;

	if (ticks > most)
		printf("sched: %lu ticks in %llu us, at most %llu with one a period: an "
		       "interrupt was taken twice\n",
		       ticks, (unsigned long long)(run_ns / 1000), (unsigned long long)most);
}

void kernel_timer_tick(void)
{
	if (current_process)
		resched_pending = true;
}

void preempt_syscall_return(void)
{
	if (resched_pending)
		preempt_switch();
}

void user_timer_tick(struct user_regs *r)
{
	struct process *p = current_process;

	if (!p)
		return;
	preempt_user_ticks++;
	preempt_switch();
	if (p->sig.pending & ~p->sigmask)
		signal_deliver_pending(r);
}
