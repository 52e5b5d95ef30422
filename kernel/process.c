/*
 * process.c - creating a process, running the first one with everything
 * it forks, ending one, and the user memory of the current one.
 *
 * process_exec() builds the mm (exec.c) and hands the process to
 * process_run(), which runs the scheduler (scheduler.c) until no process can
 * run. Each process enters user mode from its own kstack
 * (process_entry()); it leaves for good by process_exit() (exit,
 * exit_group, a fatal fault): its mm and fds are released at once, it
 * becomes a zombie, its parent is woken, and it switches away. Its
 * parent's wait4 (sys_proc.c) frees the rest.
 *
 * Orphans go to pid 1, as on Linux; whatever is left when the scheduler
 * stops (pid 1 itself, zombies nobody reaped, processes blocked for
 * good) is freed by process_run(). Signals are signal.c's.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "initramfs.h"
#include "kernel.h"
#include "ksignal.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "procfs.h"
#include "scheduler.h"
#include "syscall.h"
#include "thread.h"

struct process *current_process;

/* Every process not yet reaped, newest first. Context: scheduler.c's. */
static struct process *process_list;

#define SIGKILL 9
static int next_pid = 1;

struct process *process_next(struct process *p)
{
	return p ? p->next : process_list;
}

struct process *process_find(int pid)
{
	for (struct process *p = process_list; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

struct process *process_create(void)
{
	struct process *p = memalign(64, sizeof(*p));

	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->kstack = memalign(16, PROC_KSTACK_SIZE);
	p->mm = mm_create();
	if (!p->kstack || !p->mm) {
		if (p->mm)
			mm_put(p->mm);
		free(p->kstack);
		free(p);
		return NULL;
	}
	p->cap_effective = (1ull << 41) - 1; /* every capability up to CAP_CHECKPOINT_RESTORE */
	for (int fd = 0; fd < 3; fd++)
		p->fds[fd].kind = FD_CONSOLE;
	return p;
}

/* Where every process starts: user mode, from its regs. */
static void process_entry(void)
{
	arch_return_to_user(&current_process->regs);
}

/* Link @p into the process list with the next pid and queue it. */
static void process_start(struct process *p)
{
	p->pid = next_pid++;
	p->next = process_list;
	process_list = p;
	arch_context_init(&p->ctx, (char *)p->kstack + PROC_KSTACK_SIZE, process_entry);
	sched_enqueue(p);
}

void process_start_child(struct process *child)
{
	child->parent = process_group(current_process);
	process_start(child);
}

void process_reap(struct process *p)
{
	struct process **pp = &process_list;

	BUG_ON(p->state != PROC_ZOMBIE);
	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	free(p->kstack);
	free(p);
}

/* Release what @p holds while it lives: its fds and its mm (the kernel's
 * mm is loaded first if @p's is). At exit, when the scheduler stops
 * with @p blocked, and for a process that never ran. */
static void process_release(struct process *p)
{
	fd_close_all(p);
	if (p->mm) {
		if (current_mm == p->mm)
			switch_mm(sched_kernel_mm());
		mm_put(p->mm);
		p->mm = NULL;
	}
}

void process_destroy(struct process *p)
{
	process_release(p);
	free(p->kstack);
	free(p);
}

/* When the scheduler stops, the processes still blocked have nothing
 * left to wake them: each is killed (SIGKILL's status, so a pid 1 stuck
 * that way ends the run with 137), becoming a zombie before anything of
 * it is released (closing its pipe ends wakes the pipe's sleepers, and a
 * zombie is not queued). Return: how many. */
static int process_kill_blocked(void)
{
	int n = 0;

	for (struct process *p = process_list; p; p = p->next)
		if (p->state != PROC_ZOMBIE) {
			n++;
			p->wstatus = SIGKILL;
			p->state = PROC_ZOMBIE;
		}
	return n;
}

/* Free every process, all zombies by now. */
static void process_free_all(void)
{
	while (process_list) {
		struct process *p = process_list;

		process_release(p);
		process_reap(p);
	}
}

int process_run(struct process *init)
{
	int wstatus, stuck;

	BUG_ON(process_list);
	next_pid = 1;
	init->parent = NULL;
	process_start(init);
	fflush(stdout);
	sched_run();
	stuck = process_kill_blocked();
	wstatus = init->wstatus;
	process_free_all();
	if (stuck)
		printf("exec: %d process(es) blocked with nothing to wake them: killed\n", stuck);
	if (!sched_queue_empty())
		panic("process_run: freeing the processes left queued one to run");
	return (wstatus & 0x7f) ? 128 + (wstatus & 0x7f) : (wstatus >> 8) & 0xff;
}

/* Resolve @path and load it into @p; 0, or the status exec fails with. */
static int process_load(struct process *p, const char *path, char *const argv[], char *const envp[],
			struct exec_start *start)
{
	const struct ifile *f = initramfs_lookup(path);
	char err[160];
	int r;

	if (!f || (f->mode & 0170000) != 0100000) {
		printf("exec: %s: %s\n", path,
		       f ? "not a regular file" : "no such file in the initramfs");
		return f ? 126 : 127;
	}
	r = exec_load(p->mm, f, argv, envp, start, err, sizeof(err));
	if (r) {
		printf("exec: %s: %s\n", path, err);
		return 126;
	}
	p->brk_start = p->brk = start->brk;
	return 0;
}

int process_exec(const char *path, char *const argv[], char *const envp[])
{
	struct mm *prev_mm = current_mm;
	struct exec_start start;
	struct process *p = process_create();
	int status;

	if (!p) {
		printf("exec: %s: out of memory\n", path);
		return 126;
	}
	status = process_load(p, path, argv, envp, &start);
	switch_mm(prev_mm);
	if (status) {
		process_destroy(p);
		return status;
	}
	arch_user_regs_init(&p->regs, start.entry, start.sp);
	return process_run(p);
}

/* @p's children become pid 1's; pid 1 is woken when a zombie joins it. */
static void reparent_children(struct process *p)
{
	struct process *init = process_find(1);
	bool zombie = false;

	for (struct process *q = process_list; q; q = q->next)
		if (q->parent == p && p != init) {
			q->parent = init;
			zombie |= q->state == PROC_ZOMBIE;
		}
	if (zombie)
		sched_wakeup(init);
}

/* @child has become a zombie: SIGCHLD to its parent (CLD_EXITED or
 * CLD_KILLED, as Linux's do_notify_parent), and its wait4 woken. */
static void notify_parent(struct process *child)
{
	struct linux_siginfo info = { .code = child->wstatus & 0x7f ? 2 : 1 };

	info.kill.pid = child->pid;
	signal_send_to(child->parent, SIGCHLD, &info);
	sched_wakeup(child->parent);
}

void process_end(struct process *p, int wstatus)
{
	syscall_print_unknown(p);
	process_release(p);
	reparent_children(p);
	p->wstatus = wstatus;
	p->state = PROC_ZOMBIE;
	if (p->parent)
		notify_parent(p);
}

/* The end of every process: a zombie with status @wstatus. A thread
 * ends its whole group (exit_group, a fatal signal): the leader carries
 * the status, the thread itself ends as a thread. */
static __attribute__((noreturn)) void process_die(int wstatus)
{
	struct process *p = current_process, *leader;

	BUG_ON(!p);
	leader = thread_group_end(p);
	process_end(leader, wstatus);
	if (leader != p)
		thread_exit_current();
	sched_exit_current();
}

void process_exit(int status)
{
	process_die((status & 0xff) << 8);
}

void process_exit_signal(int sig)
{
	process_die(sig & 0x7f);
}

int copy_from_user(void *dst, unsigned long src, size_t n)
{
	return n ? mm_access(current_process->mm, src, dst, n, false) : 0;
}

int copy_to_user(unsigned long dst, const void *src, size_t n)
{
	return n ? mm_access(current_process->mm, dst, (void *)src, n, true) : 0;
}

long strncpy_from_user(char *dst, unsigned long src, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (copy_from_user(&dst[i], src + i, 1))
			return -EFAULT;
		if (!dst[i])
			return (long)i;
	}
	return -ENAMETOOLONG;
}

void user_random_bytes(void *buf, size_t n)
{
	static uint64_t state;
	uint8_t *b = buf;

	if (!state)
		state = arch_counter() | 1;
	for (size_t i = 0; i < n; i++) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		b[i] = (uint8_t)(state >> 24);
	}
}
