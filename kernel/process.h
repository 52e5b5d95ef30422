/*
 * process.h - a user process: its mm, break, file descriptors, its
 * signals (ksignal.h), and how it ends.
 * One process runs at a time, to completion, on the CPU that started it
 * (no fork, wait4, pipes or threads in this slice).
 */
#ifndef KERNEL_PROCESS_H
#define KERNEL_PROCESS_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "ksignal.h"
#include "user_arch.h"

struct mm;
struct ifile;
struct proc_entry;

#define PROC_NR_FDS 64
#define PROC_NR_SIGNALS 64
#define PROC_KSTACK_SIZE (64u << 10)
#define PROC_PATH_MAX 256

enum fd_kind { FD_NONE, FD_CONSOLE, FD_FILE, FD_PROC };

struct fd {
	enum fd_kind kind;
	int access;		  /* O_RDONLY, O_WRONLY or O_RDWR, as opened */
	const struct ifile *file; /* FD_FILE */
	uint64_t pos;
	const struct proc_entry *proc; /* FD_PROC (procfs.h) */
	char *text;		       /* FD_PROC: a text file's snapshot (malloc) */
	size_t text_len;
};

struct process {
	struct user_regs regs; /* the state the process starts from (16-byte aligned) */
	struct mm *mm;
	int pid;
	unsigned long brk_start, brk; /* [brk_start, page_up(brk)) is mapped */
	struct fd fds[PROC_NR_FDS];
	unsigned long clear_child_tid;		/* set_tid_address() */
	uint64_t cap_effective;			/* capget/capset: root's, all bits at start */
	uint64_t sigmask;			/* blocked signals: bit SIGMASK(sig) */
	uint8_t sigaction[PROC_NR_SIGNALS][32]; /* Linux's struct sigaction, as given */
	struct signal_state sig;		/* pending, the alternate stack */
	/* -ENOSYS answers per number; [SYSCALL_MAX_NR] counts numbers past it */
	unsigned long enosys[SYSCALL_MAX_NR + 1];
	int exit_status;
	jmp_buf exit_jmp; /* process_exit() returns here, into process_exec() */
	void *kstack;
};

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

/* End the current process with @status (0..255). */
__attribute__((noreturn)) void process_exit(int status);

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
