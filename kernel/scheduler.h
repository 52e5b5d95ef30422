/*
 * scheduler.h - the scheduler of user processes: one run queue on the CPU
 * that runs them. A process runs until it blocks (sched_sleep(): wait4
 * with no exited child, a pipe read with no data and a writer, a pipe
 * write to a full pipe with a reader, a futex wait), yields
 * (sched_yield), exits, or is preempted: a timer tick taken while it
 * runs user code (preempt.c) puts it at the end of the run queue, so a
 * program that never makes a system call does not keep the CPU. Kernel
 * code is never preempted.
 *
 * Switching is xv6's: a process switches to the scheduler's context (the
 * frame of process_run()), which picks the next runnable process, loads
 * its mm and kstack top and switches to it. Every switch happens inside
 * a system call, a user fault or a tick taken in user mode, on the
 * process's own kstack, holding no lock.
 */
#ifndef KERNEL_SCHEDULER_H
#define KERNEL_SCHEDULER_H

#include <stdbool.h>

struct process;
struct mm;

/* Append @p to the run queue (PROC_RUNNABLE). */
void sched_enqueue(struct process *p);

/* Take @p off the run queue if it is on it (the end of a thread group:
 * thread.c). */
void sched_dequeue(struct process *p);

/* Block the current process until sched_wakeup(@chan); it may wake for
 * another reason, so the caller checks its condition again. */
void sched_sleep(const void *chan);

/* Make every process blocked on @chan runnable. */
void sched_wakeup(const void *chan);

/* Let every other runnable process run once before the current one goes on. */
void sched_yield_current(void);

/* Leave the current process, a zombie whose mm is released, for good. */
__attribute__((noreturn)) void sched_exit_current(void);

/* The mm the CPU ran before processes (what an exited process's CPU
 * switches to before its mm is released). */
struct mm *sched_kernel_mm(void);

/* Is the run queue empty? (process_run() checks that freeing what is
 * left after sched_run() queued nothing.) */
bool sched_queue_empty(void);

/* Run processes until the run queue is empty (process_run()).
 * Context: the command runner's context, on its own stack. */
void sched_run(void);

#endif
