/*
 * preempt.c - the timer tick that takes the CPU from a process running
 * user code, so that a program spinning in user space does not starve
 * the others (scheduler.h).
 *
 * The arch arms a periodic tick on the CPU that runs processes while
 * sched_run() runs (arch_tick_start(), arch_tick_stop()); a tick taken
 * in user mode (ring 3, EL0) calls user_timer_tick() on the process's
 * kstack, exactly where a system call would run, so the switch it makes
 * is one more switch point of the cooperative scheduler: the process
 * holds no lock there. A tick taken in kernel mode only re-arms: kernel
 * code between two switch points runs as one piece (futex.c relies on
 * that for its value check).
 */
#include "kernel.h"
#include "ksignal.h"
#include "process.h"
#include "scheduler.h"
#include "user_arch.h"

/* Ticks taken in user mode, and the switches they made (tests read them). */
unsigned long preempt_user_ticks, preempt_switches;

void user_timer_tick(struct user_regs *r)
{
	struct process *p = current_process;

	if (!p)
		return;
	preempt_user_ticks++;
	if (!sched_queue_empty()) {
		preempt_switches++;
		sched_yield_current();
	}
	if (p->sig.pending & ~p->sigmask)
		signal_deliver_pending(r);
}
