/*
 * process.h - a user process: its mm, break, file descriptors, its
 * signals (ksignal.h), its place in the process tree, and how it ends.
 * Processes run one at a time on the CPU that started the first,
 * switched at their switch points and by the user-mode tick
 * (scheduler.h). A thread (thread.c) is a struct process of its own
 * (tid, registers, kstack, signal mask and pending set) whose
 * group_leader holds what the threads of a process share: the fd table,
 * the break, the signal actions; the mm is shared by reference.
 */
#ifndef KERNEL_PROCESS_H
#define KERNEL_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ksignal.h"
#include "user_arch.h"

struct mm;
struct ifile;
struct proc_entry;
struct pipe;

#define PROC_NR_FDS 64
#define PROC_NR_SIGNALS 64
#define PROC_KSTACK_SIZE (64u << 10)
#define PROC_PATH_MAX 256

enum fd_kind { FD_NONE, FD_CONSOLE, FD_FILE, FD_PROC, FD_PIPE };

/* Linux's fcntl/open flag values the fd table keeps. */
#define O_NONBLOCK 04000
#define O_CLOEXEC 02000000
#define FD_CLOEXEC 1

/*
 * One slot of a process's fd table. Each slot owns its state (a dup or a
 * fork copies it: the position of a file is not shared); a pipe end is a
 * counted reference to the one pipe (pipe.h).
 */
struct fd {
	enum fd_kind kind;
	int access;		  /* O_RDONLY, O_WRONLY or O_RDWR, as opened */
	const struct ifile *file; /* FD_FILE */
	uint64_t pos;
	const struct proc_entry *proc; /* FD_PROC (procfs.h) */
	char *text;		       /* FD_PROC: a text file's snapshot (malloc) */
	size_t text_len;
	struct pipe *pipe; /* FD_PIPE */
	bool pipe_write;   /* FD_PIPE: the write end */
	unsigned flags;	   /* O_NONBLOCK (fcntl F_SETFL) */
	bool cloexec;	   /* FD_CLOEXEC: recorded (there is no execve) */
};

enum proc_state { PROC_RUNNABLE, PROC_RUNNING, PROC_BLOCKED, PROC_ZOMBIE };

/*
 * Context: every field is read and written only by the CPU that runs the
 * processes, in process context; kernel code is never preempted
 * (scheduler.h: the tick switches only from user mode), so nothing
 * changes under a process between its own switch points.
 */
struct process {
	struct user_regs regs;	 /* the state the process starts from (16-byte aligned) */
	struct arch_context ctx; /* the kernel context while switched out */
	struct mm *mm;		 /* NULL once the process has exited */
	int pid;
	enum proc_state state;
	struct process *parent;	      /* NULL for pid 1; orphans go to pid 1 */
	struct process *next;	      /* every process not yet reaped (scheduler.c) */
	struct process *run_next;     /* the run queue (scheduler.c) */
	const void *wait_chan;	      /* PROC_BLOCKED: what wakes it (sched_wakeup()) */
	int wstatus;		      /* PROC_ZOMBIE: Linux's wait status */
	unsigned long brk_start, brk; /* [brk_start, page_up(brk)) is mapped */
	struct fd fds[PROC_NR_FDS];
	unsigned long clear_child_tid;		/* set_tid_address() */
	uint64_t cap_effective;			/* capget/capset: root's, all bits at start */
	uint64_t sigmask;			/* blocked signals: bit SIGMASK(sig) */
	uint8_t sigaction[PROC_NR_SIGNALS][32]; /* Linux's struct sigaction, as given */
	struct signal_state sig;		/* pending, the alternate stack */
	/* -ENOSYS answers per number; [SYSCALL_MAX_NR] counts numbers past it */
	unsigned long enosys[SYSCALL_MAX_NR + 1];
	void *kstack;		      /* PROC_KSTACK_SIZE bytes; freed when the process is reaped */
	struct process *group_leader; /* a thread's process (thread.c); NULL: itself */
	unsigned long futex_addr;     /* futex.c: the word it waits on; 0: not waiting */
	uint32_t futex_bitset;	      /* futex.c: FUTEX_WAIT_BITSET's mask */
	bool sched_fifo;	      /* SCHED_FIFO: the tick does not preempt it */
};

/* The process @p belongs to: itself, or a thread's group leader, whose
 * fds, break and signal actions are the threads' too. */
static inline struct process *process_group(struct process *p)
{
	return p->group_leader ? p->group_leader : p;
}

/* The running process, or NULL in kernel-only work. */
extern struct process *current_process;

/*
 * process_exec - run the initramfs program @path with @argv and @envp
 * (NULL-terminated) in a new process and mm, to its end.
 * Return: its exit status (0..255; 128 + signal when a fault ended it),
 * or 127 (no such file) or 126 (not a program it can load) after a
 * one-line "exec: ..." message.
 * Context: process context of the kernel's command runner; switches this
 * CPU's mm and restores it.
 */
int process_exec(const char *path, char *const argv[], char *const envp[]);

/*
 * process_create - a process with a new empty mm, fds 0-2 on the console,
 * a kstack, and the next pid (1 for the first since the last run
 * ended). Not yet runnable: set its regs and mm, then process_run().
 * Return: the process, or NULL when out of memory.
 */
struct process *process_create(void);

/* Free @p, process_create()d and never run (its mm reference dropped). */
void process_destroy(struct process *p);

/*
 * process_run - run @init (process_create()d, its regs and mm set) as
 * pid 1 with every process it forks, until nothing can run: pid 1 has
 * exited and its descendants have exited too (or are blocked with
 * nothing left to wake them: they are killed, one console line). Frees
 * every process.
 * Return: pid 1's status: its exit code, or 128 + the signal that ended it.
 * Context: process context of the kernel's command runner; switches this
 * CPU's mm and restores it.
 */
int process_run(struct process *init);

/* End the current process: exit with @status (0..255, Linux's
 * status << 8 for wait4), or killed by signal @sig (wait4 sees @sig). */
__attribute__((noreturn)) void process_exit(int status);
__attribute__((noreturn)) void process_exit_signal(int sig);

/* End @p, the current process or a group leader taken off the run
 * queue (thread.c): release its fds and mm, reparent its children, make
 * it a zombie with @wstatus and tell its parent. Does not switch. */
void process_end(struct process *p, int wstatus);

/* Free a zombie @p: unlink it from the process list (wait4, process_run). */
void process_reap(struct process *p);

/* The process with @pid that is not yet reaped, or NULL. */
struct process *process_find(int pid);

/* The process after @p on the list of processes not yet reaped (NULL:
 * the first), or NULL at its end. */
struct process *process_next(struct process *p);

/* Make @child, a copy of the current process (sys_proc.c), known and
 * runnable, with a new pid. */
void process_start_child(struct process *child);

/* sys_file.c: close every fd of @p (pipe ends dropped, readers and
 * writers woken); copy @src's fd table into @dst's, empty (pipe ends
 * counted again, /proc snapshots copied). Return: 0, or -ENOMEM with
 * @dst's table left empty. */
void fd_close_all(struct process *p);
int fd_table_copy(struct process *dst, const struct process *src);

/* User memory of the current process, through mm_access().
 * Return: 0, -EFAULT or -ENOMEM. */
int copy_from_user(void *dst, unsigned long src, size_t n);
int copy_to_user(unsigned long dst, const void *src, size_t n);

/* A NUL-terminated string of at most @size bytes (NUL included) into @dst.
 * Return: its length, -ENAMETOOLONG, or -EFAULT. */
long strncpy_from_user(char *dst, unsigned long src, size_t size);

/* @n bytes for AT_RANDOM and getrandom(): a xorshift generator seeded
 * from the arch counter (not cryptographic; reproducible it is not). */
void user_random_bytes(void *buf, size_t n);

#endif
