/*
 * scheduler.c - the run queue, sleep and wakeup, and the switch between
 * processes (scheduler.h has the model).
 *
 * Context: all of this runs on the one CPU that runs processes, in
 * process context; no lock guards it because nothing else touches it:
 * no interrupt handler wakes a process, and a process is switched out
 * only where it calls in here: a system call or a fault that blocks or
 * yields, or the tick taken in user mode (preempt.c), which calls in on
 * the kstack as a system call does. A tick taken in kernel mode does not
 * switch, so kernel code between two calls in here runs as one piece.
 */
#include "scheduler.h"

#include "kernel.h"
#include "mm.h"
#include "process.h"
#include "thread.h"
#include "user_arch.h"

/* The tick that preempts user code (preempt.c): 10 ms, Linux's HZ=100. */
#define SCHED_TICK_US 10000

static struct {
	struct arch_context ctx; /* sched_run()'s, while a process runs */
	struct process *head, *tail;
	struct mm *kernel_mm;
	bool running;
} sched;

void sched_enqueue(struct process *p)
{
	p->state = PROC_RUNNABLE;
	p->run_next = NULL;
	if (sched.tail)
		sched.tail->run_next = p;
	else
		sched.head = p;
	sched.tail = p;
}

static struct process *runqueue_pop(void)
{
	struct process *p = sched.head;

	if (p) {
		sched.head = p->run_next;
		if (!sched.head)
			sched.tail = NULL;
	}
	return p;
}

void sched_dequeue(struct process *p)
{
	struct process **pp = &sched.head, *prev = NULL;

	while (*pp && *pp != p) {
		prev = *pp;
		pp = &prev->run_next;
	}
	if (!*pp)
		return;
	*pp = p->run_next;
	if (sched.tail == p)
		sched.tail = prev;
	p->run_next = NULL;
}

/* Back to sched_run(): the current process has set its state. */
static void sched_switch_out(void)
{
	struct process *p = current_process;

	BUG_ON(!p || p->state == PROC_RUNNING);
	arch_switch_to(&p->ctx, &sched.ctx);
}

void sched_sleep(const void *chan)
{
	struct process *p = current_process;

	p->state = PROC_BLOCKED;
	p->wait_chan = chan;
	sched_switch_out();
}

void sched_wakeup(const void *chan)
{
	for (struct process *q = process_next(NULL); q; q = process_next(q))
		if (q->state == PROC_BLOCKED && q->wait_chan == chan) {
			q->wait_chan = NULL;
			sched_enqueue(q);
		}
}

void sched_yield_current(void)
{
	if (!sched.head)
		return;
	sched_enqueue(current_process);
	sched_switch_out();
}

void sched_exit_current(void)
{
	BUG_ON(current_process->state != PROC_ZOMBIE);
	sched_switch_out();
	panic("sched_exit_current: pid %d ran again after it exited", current_process->pid);
}

bool sched_queue_empty(void)
{
	return !sched.head;
}

struct mm *sched_kernel_mm(void)
{
	return sched.kernel_mm;
}

/* Run @p until it switches back: its mm, its kstack for entries from
 * user mode, then its own context. */
static void run_one(struct process *p)
{
	p->state = PROC_RUNNING;
	current_process = p;
	switch_mm(p->mm);
	arch_user_set_kstack((char *)p->kstack + PROC_KSTACK_SIZE);
	arch_switch_to(&sched.ctx, &p->ctx);
	current_process = NULL;
}

void sched_run(void)
{
	uint64_t t0 = time_ns();
	unsigned long ticks = preempt_ticks();
	struct process *p;

	if (sched.running)
		panic("sched_run: processes are already running on this CPU");
	sched.running = true;
	sched.kernel_mm = current_mm;
	arch_tick_start(SCHED_TICK_US);
	while ((p = runqueue_pop())) {
		run_one(p);
		thread_reap_if_done(p);
	}
	arch_tick_stop();
	preempt_check_rate(time_ns() - t0, preempt_ticks() - ticks, SCHED_TICK_US);
	switch_mm(sched.kernel_mm);
	sched.running = false;
}
