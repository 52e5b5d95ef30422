/*
 * thread.c - threads: clone(CLONE_VM | CLONE_THREAD | ...) as glibc's
 * pthread_create() calls it, exit of one thread, and the end of a group.
 *
 * A thread is a struct process (process.h) with group_leader set: the
 * scheduler runs it as any process, with its own tid, kstack, registers
 * and signal state. What a process's threads share lives in the leader
 * (process_group()): the fd table, the break, the signal actions; the
 * mm is shared by reference (mm_get()), so it is freed once, when the
 * last task that uses it drops it. A thread's parent is NULL: wait4
 * never sees it; the scheduler frees it once it has exited.
 *
 * Context: scheduler.c's: one CPU runs every task, and a task that is
 * switched out sits at a switch point holding nothing, so the group's
 * end may free the other threads as they are.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "mm.h"
#include "process.h"
#include "scheduler.h"
#include "thread.h"

#define CLONE_VM 0x00000100
#define CLONE_FS 0x00000200
#define CLONE_FILES 0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_THREAD 0x00010000
#define CLONE_SYSVSEM 0x00040000
#define CLONE_SETTLS 0x00080000
#define CLONE_PARENT_SETTID 0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_DETACHED 0x00400000
#define CLONE_CHILD_SETTID 0x01000000
/* What a thread shares with its process (glibc passes them all), and
 * what it may add. */
#define CLONE_THREAD_NEED (CLONE_VM | CLONE_SIGHAND | CLONE_THREAD)
#define CLONE_THREAD_OK                                                                            \
	(CLONE_THREAD_NEED | CLONE_FS | CLONE_FILES | CLONE_SYSVSEM | CLONE_SETTLS |               \
	 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_DETACHED | CLONE_CHILD_SETTID)

/* A copy of the current task @p as a new thread of its group. */
static struct process *thread_dup(struct process *p, struct user_regs *r,
				  const struct clone_request *cr)
{
	struct process *t = memalign(64, sizeof(*t));

	if (!t)
		return NULL;
	*t = *p;
	t->kstack = memalign(16, PROC_KSTACK_SIZE);
	if (!t->kstack) {
		free(t);
		return NULL;
	}
	t->group_leader = process_group(p);
	/* The mask is inherited; the alternate stack is not (size 0: none),
	 * as Linux clears it for a thread. */
	t->sig.pending = 0;
	memset(&t->sig.altstack, 0, sizeof(t->sig.altstack));
	t->next = t->run_next = NULL;
	t->wait_chan = NULL;
	t->futex_addr = 0;
	memset(t->fds, 0, sizeof(t->fds)); /* the group's are used */
	memset(t->enosys, 0, sizeof(t->enosys));
	mm_get(p->mm);
	arch_user_regs_fork(&t->regs, r);
	arch_syscall_set_return(&t->regs, 0);
	if (cr->newsp)
		arch_user_regs_set_sp(&t->regs, cr->newsp);
	if (cr->flags & CLONE_SETTLS)
		arch_user_regs_set_tls(&t->regs, cr->tls);
	t->clear_child_tid = cr->flags & CLONE_CHILD_CLEARTID ? cr->child_tid : 0;
	return t;
}

long thread_clone(struct user_regs *r, const struct clone_request *cr)
{
	struct process *t;
	int tid;

	if ((cr->flags & CLONE_THREAD_NEED) != CLONE_THREAD_NEED ||
	    (cr->flags & ~(unsigned long)CLONE_THREAD_OK & ~0xfful))
		return -EINVAL;
	t = thread_dup(current_process, r, cr);
	if (!t)
		return -ENOMEM;
	process_start_child(t);
	t->parent = NULL; /* a thread is nobody's child */
	tid = t->pid;
	if (cr->flags & CLONE_PARENT_SETTID)
		(void)copy_to_user(cr->parent_tid, &tid, sizeof(tid));
	if (cr->flags & CLONE_CHILD_SETTID)
		(void)copy_to_user(cr->child_tid, &tid, sizeof(tid));
	return tid;
}

/* Does @p's group have a live task besides @p? */
static bool group_has_others(struct process *p)
{
	struct process *g = process_group(p);

	for (struct process *q = process_next(NULL); q; q = process_next(q))
		if (q != p && process_group(q) == g && q->state != PROC_ZOMBIE)
			return true;
	return false;
}

/* Add @t's -ENOSYS counts to its leader's, which are printed at exit. */
static void merge_enosys(struct process *t)
{
	struct process *g = process_group(t);

	if (g == t)
		return;
	for (int nr = 0; nr <= SYSCALL_MAX_NR; nr++)
		g->enosys[nr] += t->enosys[nr];
}

/* Drop @t's mm reference (the kernel's mm loaded first if @t's is and
 * this is the last). */
static void thread_put_mm(struct process *t)
{
	if (!t->mm)
		return;
	if (current_mm == t->mm && t->mm->users == 1)
		switch_mm(sched_kernel_mm());
	mm_put(t->mm);
	t->mm = NULL;
}

void thread_exit_current(void)
{
	struct process *t = current_process;
	unsigned long ctid = t->clear_child_tid;
	uint32_t zero = 0;

	if (ctid && t->mm && !copy_to_user(ctid, &zero, sizeof(zero)))
		futex_wake(t->mm, ctid, 1, ~0u);
	if (process_group(t)->state != PROC_ZOMBIE)
		merge_enosys(t);
	thread_put_mm(t);
	t->state = PROC_ZOMBIE;
	sched_exit_current();
}

void thread_exit(int status)
{
	struct process *t = current_process;

	if (!t->group_leader || !group_has_others(t))
		process_exit(status);
	thread_exit_current();
}

/* Free @t, another thread of the current task's group. */
static void thread_kill(struct process *t)
{
	sched_dequeue(t);
	merge_enosys(t);
	thread_put_mm(t); /* the current task holds the mm too */
	t->state = PROC_ZOMBIE;
	process_reap(t);
}

struct process *thread_group_end(struct process *p)
{
	struct process *g = process_group(p), *q;

again:
	for (q = process_next(NULL); q; q = process_next(q))
		if (q != p && q != g && q->group_leader == g && q->state != PROC_ZOMBIE) {
			thread_kill(q);
			goto again;
		}
	if (g != p) {
		sched_dequeue(g);
		merge_enosys(p); /* printed with the leader's, by process_end() */
		memset(p->enosys, 0, sizeof(p->enosys));
	}
	return g;
}

void thread_reap_if_done(struct process *p)
{
	if (p->group_leader && p->state == PROC_ZOMBIE)
		process_reap(p);
}
