/*
 * futex.c - futex(2) for threads: FUTEX_WAIT, FUTEX_WAKE and their
 * _BITSET forms, private or not (there is no memory shared between
 * processes, so the word is always named by its mm and user address).
 *
 * A waiter records the word in its own struct process (futex_addr,
 * futex_bitset) and sleeps on that field's address, a channel no one
 * else uses; a wake walks the tasks and wakes the matching ones. No list
 * of waiters exists, so a task freed while it waits (the end of its
 * group) leaves nothing behind.
 *
 * Context: scheduler.c's. The value check and the sleep are atomic with
 * respect to every other task: nothing switches between them (kernel
 * code is never preempted; a fault on the word does not block), so a
 * FUTEX_WAKE after the waker changed the word cannot fall between the
 * waiter's read and its sleep.
 */
#include <errno.h>
#include <stdint.h>

#include "kernel.h"
#include "ksignal.h"
#include "mm.h"
#include "process.h"
#include "scheduler.h"
#include "syscall.h"
#include "thread.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_BITSET_ANY 0xffffffffu

int futex_wake(struct mm *mm, unsigned long uaddr, int nr, uint32_t bitset)
{
	int woken = 0;

	for (struct process *q = process_next(NULL); q && woken < nr; q = process_next(q)) {
		if (q->futex_addr != uaddr || q->mm != mm || !(q->futex_bitset & bitset) ||
		    q->state == PROC_ZOMBIE)
			continue;
		q->futex_addr = 0;
		sched_wakeup(&q->futex_addr);
		woken++;
	}
	return woken;
}

/* The deadline of @ts_addr (0: none): relative for FUTEX_WAIT, absolute
 * on the clock time_ns() reads for FUTEX_WAIT_BITSET (clock_gettime
 * gives every clock that one). Return: 0 or -errno. */
static long futex_deadline(unsigned long ts_addr, bool absolute, uint64_t *deadline)
{
	long ts[2];

	*deadline = 0;
	if (!ts_addr)
		return 0;
	if (copy_from_user(ts, ts_addr, sizeof(ts)))
		return -EFAULT;
	if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	*deadline = (uint64_t)ts[0] * 1000000000u + (uint64_t)ts[1] + (absolute ? 0 : time_ns());
	return *deadline ? 0 : -ETIMEDOUT;
}

/* Sleep while *@uaddr == @val, until a wake, a signal or @deadline. A
 * waiter with a deadline yields instead of sleeping, so it sees the
 * time pass. */
static long futex_wait(unsigned long uaddr, uint32_t val, uint32_t bitset, uint64_t deadline)
{
	struct process *p = current_process;
	uint32_t cur;

	if (copy_from_user(&cur, uaddr, sizeof(cur)))
		return -EFAULT;
	if (cur != val)
		return -EAGAIN;
	p->futex_addr = uaddr;
	p->futex_bitset = bitset;
	while (p->futex_addr) {
		long err = 0;

		if (p->sig.pending & ~p->sigmask)
			err = -EINTR;
		else if (deadline && time_ns() >= deadline)
			err = -ETIMEDOUT;
		if (err) {
			p->futex_addr = 0;
			return err;
		}
		if (deadline)
			sched_yield_current();
		else
			sched_sleep(&p->futex_addr);
	}
	return 0;
}

long sys_futex(struct user_regs *r, const long *a)
{
	unsigned long uaddr = (unsigned long)a[0];
	int cmd = (int)a[1] & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	uint32_t bitset = FUTEX_BITSET_ANY;
	uint64_t deadline;
	long err;

	(void)r;
	if (uaddr & 3)
		return -EINVAL;
	switch (cmd) {
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAKE_BITSET:
		bitset = (uint32_t)a[5];
		if (!bitset)
			return -EINVAL;
		break;
	case FUTEX_WAIT:
	case FUTEX_WAKE:
		break;
	default:
		return -ENOSYS;
	}
	if (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET)
		return futex_wake(current_process->mm, uaddr, (int)a[2], bitset);
	err = futex_deadline((unsigned long)a[3], cmd == FUTEX_WAIT_BITSET, &deadline);
	return err ? err : futex_wait(uaddr, (uint32_t)a[2], bitset, deadline);
}
