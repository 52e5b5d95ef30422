/*
 * thread.h - threads of a process (thread.c): clone with CLONE_THREAD,
 * exit of one thread, the end of a whole group, and the futex calls
 * (futex.c) threads wait and wake each other with.
 */
#ifndef KERNEL_THREAD_H
#define KERNEL_THREAD_H

#include <stdint.h>

#include "user_arch.h"

struct process;
struct mm;

/* What clone() asked for (Linux's arguments, the arch's order undone). */
struct clone_request {
	unsigned long flags, newsp, parent_tid, child_tid, tls;
};

/*
 * thread_clone - a new thread of the current process: its own tid,
 * kstack, registers (the caller's, returning 0, on @cr->newsp, with
 * @cr->tls when CLONE_SETTLS), signal mask; the caller's mm by
 * reference, the group's fds, break and signal actions.
 * Return: the tid, -EINVAL for a flag set that is not a thread's
 * (CLONE_THREAD needs CLONE_SIGHAND, CLONE_SIGHAND needs CLONE_VM), or
 * -ENOMEM.
 */
long thread_clone(struct user_regs *r, const struct clone_request *cr);

/* exit(): end the calling thread only (its clear_child_tid cleared and
 * woken). The last task of a process, or a leader with threads left,
 * ends the process as exit_group does. */
__attribute__((noreturn)) void thread_exit(int status);

/* End the current thread: its clear_child_tid written 0 and woken, its
 * mm reference dropped, a zombie the scheduler frees
 * (thread_reap_if_done()). */
__attribute__((noreturn)) void thread_exit_current(void);

/*
 * thread_group_end - the group of @p (the current task) is ending: every
 * other thread is taken off the run queue and freed (each is switched
 * out at a switch point, holding nothing). Return: the task that carries
 * the process's exit status: @p when it is the leader, else the leader,
 * taken off the run queue for process_end().
 */
struct process *thread_group_end(struct process *p);

/* After @p switched back to the scheduler: free it when it is a thread
 * that has exited. Context: sched_run(), on the scheduler's stack. */
void thread_reap_if_done(struct process *p);

/* Wake at most @nr tasks of @mm waiting on the futex word at @uaddr whose
 * bitset meets @bitset. Return: how many were woken. */
int futex_wake(struct mm *mm, unsigned long uaddr, int nr, uint32_t bitset);

#endif
