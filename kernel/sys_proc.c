/*
 * sys_proc.c - the calls about the process tree: clone as fork (fork,
 * vfork), wait4, getppid, sched_yield.
 *
 * A fork child is a copy of the caller: its mm by mm_fork() (COW, the
 * VMAs with VM_DONTCOPY left out, PTE batching: the code path
 * `run=bench:fork` measures), its fd table (pipe ends counted), break,
 * signal actions and mask, and its registers, with 0 as the call's
 * result. A fork from a thread copies its process (the one mm, the
 * group's fds and signal actions). Threads (CLONE_VM without
 * CLONE_VFORK) are thread.c's; CLONE_VM without CLONE_THREAD (a task
 * sharing memory but not the process) is not here: -ENOSYS, counted as
 * an unknown call is.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "mm.h"
#include "process.h"
#include "scheduler.h"
#include "syscall.h"
#include "thread.h"

/* Linux's clone flags (the low byte is the exit signal). */
#define CLONE_VM 0x00000100
#define CLONE_THREAD 0x00010000
#define CLONE_VFORK 0x00004000
#define CLONE_PARENT_SETTID 0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID 0x01000000
#define CSIGNAL 0xff
#define SIGCHLD 17
/* Flags a fork may carry: the tid pointers, and vfork's (the child gets
 * a copy of the memory, which a vfork child cannot tell apart as long as
 * it only calls _exit or execve). */
#define CLONE_FORK_OK                                                                              \
	(CSIGNAL | CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID |           \
	 CLONE_CHILD_SETTID)

#define WNOHANG 1
#define WUNTRACED 2
#define WCONTINUED 8
#define WNOTHREAD 0x20000000
#define WALL 0x40000000
#define WCLONE 0x80000000u
#define RUSAGE_SIZE 144 /* struct rusage: two timevals and 14 longs */

struct clone_args {
	unsigned long flags, newsp, parent_tid, child_tid, tls;
};

/* A copy of the current process: everything but what makes it itself
 * (pid, place in the lists, kstack, mm, counts), which the caller and
 * process_start_child() set. Return: the child, or NULL (-ENOMEM). */
static struct process *process_dup(struct process *p, struct user_regs *r)
{
	struct process *c = memalign(64, sizeof(*c));

	if (!c)
		return NULL;
	*c = *p;
	memcpy(c->sigaction, process_group(p)->sigaction, sizeof(c->sigaction));
	c->brk_start = process_group(p)->brk_start;
	c->brk = process_group(p)->brk;
	c->group_leader = NULL;
	c->futex_addr = 0;
	c->sig.pending = 0; /* actions, mask and altstack are inherited, as Linux */
	c->parent = c->next = c->run_next = NULL;
	c->wait_chan = NULL;
	memset(c->enosys, 0, sizeof(c->enosys));
	c->kstack = memalign(16, PROC_KSTACK_SIZE);
	if (!c->kstack)
		goto err_free;
	if (fd_table_copy(c, process_group(p)))
		goto err_kstack;
	c->mm = mm_fork(p->mm, NULL);
	if (!c->mm)
		goto err_fds;
	arch_user_regs_fork(&c->regs, r);
	arch_syscall_set_return(&c->regs, 0);
	return c;
err_fds:
	fd_close_all(c);
err_kstack:
	free(c->kstack);
err_free:
	free(c);
	return NULL;
}

/* Copy @n bytes to @addr in @c's memory. mm_access() loads the mm it
 * accesses on this CPU: the caller's is loaded again after. */
static int copy_to_child(struct process *c, unsigned long addr, const void *buf, size_t n)
{
	struct mm *mm = current_mm;
	int err = mm_access(c->mm, addr, (void *)buf, n, true);

	switch_mm(mm);
	return err;
}

/* Write the child's tid where the flags ask: into the parent's memory
 * (CLONE_PARENT_SETTID) and the child's (CLONE_CHILD_SETTID); record
 * CLONE_CHILD_CLEARTID's address as set_tid_address does. A bad address
 * is ignored, as Linux ignores it: the fork has happened. */
static void clone_set_tids(struct process *c, const struct clone_args *ca)
{
	int tid = c->pid;

	if (ca->flags & CLONE_PARENT_SETTID)
		(void)copy_to_user(ca->parent_tid, &tid, sizeof(tid));
	if (ca->flags & CLONE_CHILD_SETTID)
		(void)copy_to_child(c, ca->child_tid, &tid, sizeof(tid));
	c->clear_child_tid = ca->flags & CLONE_CHILD_CLEARTID ? ca->child_tid : 0;
}

static long do_fork(struct user_regs *r, const struct clone_args *ca)
{
	struct process *p = current_process, *c;

	if ((ca->flags & CLONE_VM) && (ca->flags & CLONE_THREAD)) {
		struct clone_request cr = { ca->flags, ca->newsp, ca->parent_tid, ca->child_tid,
					    ca->tls };

		return thread_clone(r, &cr);
	}
	if ((ca->flags & CLONE_VM) && !(ca->flags & CLONE_VFORK)) {
		p->enosys[arch_syscall_nr(r)]++; /* dispatched: below SYSCALL_MAX_NR */
		return -ENOSYS;
	}
	if (ca->flags & ~(unsigned long)CLONE_FORK_OK)
		return -EINVAL;
	c = process_dup(p, r);
	if (!c)
		return -ENOMEM;
	if (ca->newsp)
		arch_user_regs_set_sp(&c->regs, ca->newsp);
	process_start_child(c);
	clone_set_tids(c, ca);
	return c->pid;
}

/* clone(flags, newsp, parent_tid, then child_tid and tls in the arch's
 * order); glibc's fork() passes CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID
 * | SIGCHLD with its thread's tid field as child_tid. */
long sys_clone(struct user_regs *r, const long *a)
{
	struct clone_args ca = { (unsigned long)a[0], (unsigned long)a[1], (unsigned long)a[2],
				 (unsigned long)a[arch_clone_child_tid_arg],
				 (unsigned long)a[7 - arch_clone_child_tid_arg] }; /* tls: 4 or 3 */

	return do_fork(r, &ca);
}

long sys_fork(struct user_regs *r, const long *a)
{
	struct clone_args ca = { SIGCHLD, 0, 0, 0, 0 };

	(void)a;
	return do_fork(r, &ca);
}

long sys_vfork(struct user_regs *r, const long *a)
{
	struct clone_args ca = { CLONE_VFORK | CLONE_VM | SIGCHLD, 0, 0, 0, 0 };

	(void)a;
	return do_fork(r, &ca);
}

/* Does the child @c match wait4's @pid (-1 or a process group: any)? */
static bool wait_match(const struct process *c, int pid)
{
	return pid <= 0 || c->pid == pid;
}

/* Report and free the zombie @c. Return: its pid, or -EFAULT (then it
 * stays a zombie, to be waited for again). */
static long wait_reap(struct process *c, unsigned long ustatus, unsigned long urusage)
{
	static const char zero[RUSAGE_SIZE];
	int pid = c->pid;

	if (ustatus && copy_to_user(ustatus, &c->wstatus, sizeof(c->wstatus)))
		return -EFAULT;
	if (urusage && copy_to_user(urusage, zero, sizeof(zero)))
		return -EFAULT;
	process_reap(c);
	return pid;
}

long sys_wait4(struct user_regs *r, const long *a)
{
	struct process *p = process_group(current_process); /* children are the process's */
	int pid = (int)a[0], options = (int)a[2];

	(void)r;
	if ((unsigned)options & ~(WNOHANG | WUNTRACED | WCONTINUED | WNOTHREAD | WALL | WCLONE))
		return -EINVAL;
	for (;;) {
		bool any = false;

		for (struct process *c = process_next(NULL); c; c = process_next(c)) {
			if (c->parent != p || !wait_match(c, pid))
				continue;
			if (c->state == PROC_ZOMBIE)
				return wait_reap(c, (unsigned long)a[1], (unsigned long)a[3]);
			any = true;
		}
		if (!any)
			return -ECHILD;
		if (options & WNOHANG)
			return 0;
		sched_sleep(p); /* process_die() wakes the parent */
	}
}

long sys_getppid(struct user_regs *r, const long *a)
{
	struct process *g = process_group(current_process);

	(void)r;
	(void)a;
	return g->parent ? g->parent->pid : 0;
}

long sys_sched_yield(struct user_regs *r, const long *a)
{
	(void)r;
	(void)a;
	sched_yield_current();
	return 0;
}
