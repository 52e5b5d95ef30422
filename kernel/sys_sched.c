/*
 * sys_sched.c - sched_setscheduler() and the affinity calls for the one
 * scheduler ptelab has.
 *
 * ptelab's scheduler (scheduler.h) runs one task at a time on one CPU,
 * round robin with a tick that preempts user code (SCHED_OTHER). A task
 * with SCHED_FIFO (any priority Linux accepts: all are equal here) is not
 * preempted by the tick, as FIFO among equals: it runs until it blocks,
 * yields or exits. Programs ask for SCHED_FIFO to keep a child out of a
 * timed window (lbench's fork). A fork child or a thread inherits the
 * policy (SCHED_RESET_ON_FORK is accepted and not honoured).
 */
#include <errno.h>

#include "kernel.h"
#include "process.h"
#include "syscall.h"

#define SCHED_OTHER 0
#define SCHED_FIFO 1
#define SCHED_RESET_ON_FORK 0x40000000
#define FIFO_PRIO_MAX 99

/* sched_setscheduler(pid, policy, param): pid 0 or the caller's own. */
long sys_sched_setscheduler(struct user_regs *r, const long *a)
{
	int pid = (int)a[0], policy = (int)a[1] & ~SCHED_RESET_ON_FORK, prio;

	(void)r;
	if (pid < 0 || !a[2])
		return -EINVAL;
	if (pid && pid != current_process->pid)
		return -ESRCH;
	if (copy_from_user(&prio, (unsigned long)a[2], sizeof(prio)))
		return -EFAULT;
	if (policy == SCHED_OTHER && !prio)
		current_process->sched_fifo = false;
	else if (policy == SCHED_FIFO && prio >= 1 && prio <= FIFO_PRIO_MAX)
		current_process->sched_fifo = true;
	else
		return -EINVAL;
	return 0;
}

/* The kernel's cpumask: one long, as Linux's for up to 64 CPUs. */
#define CPUMASK_BYTES 8

/* sched_getaffinity(pid, len, mask): every CPU of the machine, although
 * tasks all run on one (scheduler.h); programs size their threads by
 * it. Return: the mask's size in bytes, as Linux's system call. */
long sys_sched_getaffinity(struct user_regs *r, const long *a)
{
	uint64_t mask = machine.nr_cpus >= 64 ? ~0ull : (1ull << machine.nr_cpus) - 1;

	(void)r;
	if ((int)a[0] < 0)
		return -ESRCH;
	if ((unsigned long)a[1] < CPUMASK_BYTES || ((unsigned long)a[1] & 7))
		return -EINVAL;
	if (copy_to_user((unsigned long)a[2], &mask, sizeof(mask)))
		return -EFAULT;
	return CPUMASK_BYTES;
}

/* sched_setaffinity: accepted when the mask names a CPU of the machine;
 * it changes nothing, every task runs on the one CPU anyway. */
long sys_sched_setaffinity(struct user_regs *r, const long *a)
{
	uint64_t mask = 0, all = machine.nr_cpus >= 64 ? ~0ull : (1ull << machine.nr_cpus) - 1;
	unsigned long len = (unsigned long)a[1];

	(void)r;
	if (copy_from_user(&mask, (unsigned long)a[2], len < sizeof(mask) ? len : sizeof(mask)))
		return -EFAULT;
	return mask & all ? 0 : -EINVAL;
}
