/*
 * process.c - starting a process, leaving it, and its user memory.
 *
 * process_exec() builds the mm (exec.c), sets up a kernel stack for the
 * process's system calls and exceptions, and enters user mode through
 * the arch. The process leaves by process_exit() (exit, exit_group, or a
 * fatal fault): a longjmp from that kernel stack back into
 * process_exec()'s frame, which user mode never touched. Signals are
 * signal.c's.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "initramfs.h"
#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "procfs.h"
#include "syscall.h"

struct process *current_process;

static struct process *process_alloc(void)
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
	p->pid = 1;
	p->cap_effective = (1ull << 41) - 1; /* every capability up to CAP_CHECKPOINT_RESTORE */
	for (int fd = 0; fd < 3; fd++)
		p->fds[fd].kind = FD_CONSOLE;
	return p;
}

static void process_free(struct process *p)
{
	for (int fd = 0; fd < PROC_NR_FDS; fd++)
		if (p->fds[fd].kind == FD_PROC)
			procfs_release(&p->fds[fd]);
	mm_put(p->mm);
	free(p->kstack);
	free(p);
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
	struct process *p = process_alloc();
	int status;

	if (!p) {
		printf("exec: %s: out of memory\n", path);
		return 126;
	}
	status = process_load(p, path, argv, envp, &start);
	if (status) {
		switch_mm(prev_mm);
		process_free(p);
		return status;
	}
	fflush(stdout);
	switch_mm(p->mm);
	arch_user_regs_init(&p->regs, start.entry, start.sp);
	arch_user_set_kstack((char *)p->kstack + PROC_KSTACK_SIZE);
	current_process = p;
	if (!setjmp(p->exit_jmp))
		arch_return_to_user(&p->regs);
	current_process = NULL;
	status = p->exit_status;
	syscall_print_unknown(p);
	switch_mm(prev_mm);
	process_free(p);
	return status;
}

void process_exit(int status)
{
	struct process *p = current_process;

	BUG_ON(!p);
	p->exit_status = status & 0xff;
	longjmp(p->exit_jmp, 1);
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
