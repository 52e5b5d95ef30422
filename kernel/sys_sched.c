/*
 * sys_sched.c - sched_setscheduler() for the one scheduler ptelab has.
 *
 * ptelab's scheduler (sched.c) runs one process at a time on one CPU and
 * switches only where the running process blocks or yields: every process
 * already runs as SCHED_FIFO does among equals, so SCHED_OTHER and
 * SCHED_FIFO (any priority Linux accepts) are both granted and change
 * nothing. Programs ask for SCHED_FIFO to keep a child out of a timed
 * window (lbench's fork); here that already holds.
 */
#include <errno.h>

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
	if (policy == SCHED_OTHER)
		return prio ? -EINVAL : 0;
	if (policy == SCHED_FIFO)
		return prio < 1 || prio > FIFO_PRIO_MAX ? -EINVAL : 0;
	return -EINVAL;
}
