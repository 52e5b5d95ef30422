/*
 * semantics.c - the Linux side of the semantics check: the scenarios of
 * tests/linux/semantics_table.c through real system calls. A static
 * program that tests/linux/record.sh runs as the only process of a Linux
 * kernel booted under QEMU with three NUMA nodes (as the mm host runners
 * have), one CPU on node 0; its SEM lines are the expected output.
 *
 *   semantics [--set-thp]
 *
 * prints "# " header lines, then one SEM line per call. --set-thp first
 * sets the THP knobs the scenarios assume (top level and defrag
 * "madvise", hugepages-64kB "always" where the kernel has mTHP): only
 * inside the boot, never on a machine whose settings matter. Needs root
 * (MPOL_MF_MOVE_ALL) and /proc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "semantics.h"

#define PAGE 4096ul
#define PMD (2ul << 20)
#define MAXNODE 64 /* bits of the masks handed to the kernel */

static struct {
	char *reserve, *base; /* the mapping with its guards; the region */
	size_t reserve_len;
	pid_t child;
	int cmd, ack; /* pipes to and from the child */
	int pagemap;
} sem = { .child = -1, .cmd = -1, .ack = -1, .pagemap = -1 };

static long ret_of(long r)
{
	return r < 0 ? -errno : r;
}

static char *page_addr(unsigned long page)
{
	return sem.base + page * PAGE;
}

/* Write @val to the sysfs file @path; 0 or -1 (no such file). */
static int knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -1 : 0;
}

long sem_begin(enum sem_kind kind)
{
	static const int advice[SEM_KINDS] = { MADV_NOHUGEPAGE, -1, MADV_HUGEPAGE };
	size_t len = SEM_PAGES * PAGE;
	uintptr_t b;

	/* PROT_NONE guards of at least 2 MiB on both sides keep every other
	 * mapping out of the pages next to the region. */
	sem.reserve_len = len + 5 * PMD;
	sem.reserve = mmap(NULL, sem.reserve_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sem.reserve == MAP_FAILED)
		return -errno;
	b = ((uintptr_t)sem.reserve + PMD + 2 * PMD - 1) & ~(2 * PMD - 1);
	sem.base = (char *)b;
	if (mprotect(sem.base, len, PROT_READ | PROT_WRITE))
		return -errno;
	if (advice[kind] >= 0 && madvise(sem.base, len, advice[kind]))
		return -errno;
	return 0;
}

static void child_loop(void)
{
	unsigned long msg[2];

	while (read(sem.cmd, msg, sizeof(msg)) == sizeof(msg)) {
		long r = 0;

		for (unsigned long i = 0; i < msg[1]; i++)
			*(volatile char *)page_addr(msg[0] + i) = 2;
		if (write(sem.ack, &r, sizeof(r)) != sizeof(r))
			break;
	}
	_exit(0);
}

void sem_end(void)
{
	if (sem.child > 0) {
		close(sem.cmd);
		waitpid(sem.child, NULL, 0);
		close(sem.ack);
		sem.child = -1;
	}
	munmap(sem.reserve, sem.reserve_len);
	syscall(SYS_set_mempolicy, SEM_MPOL_DEFAULT, NULL, 0);
}

long sem_touch(unsigned long first, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		*(volatile char *)page_addr(first + i) = 1;
	return 0;
}

long sem_child_touch(unsigned long first, unsigned long n)
{
	unsigned long msg[2] = { first, n };
	long r;

	if (sem.child <= 0)
		return -ESRCH;
	if (write(sem.cmd, msg, sizeof(msg)) != sizeof(msg) ||
	    read(sem.ack, &r, sizeof(r)) != sizeof(r))
		return -EIO;
	return r;
}

long sem_munmap(unsigned long first, unsigned long n)
{
	return ret_of(munmap(page_addr(first), n * PAGE));
}

long sem_mprotect(unsigned long first, unsigned long n, enum sem_prot prot)
{
	static const int p[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE };

	return ret_of(mprotect(page_addr(first), n * PAGE, p[prot]));
}

long sem_fork(void)
{
	int cmd[2], ack[2];

	if (pipe(cmd) || pipe(ack))
		return -errno;
	fflush(stdout);
	sem.child = fork();
	if (sem.child < 0)
		return -errno;
	if (sem.child == 0) {
		close(cmd[1]);
		close(ack[0]);
		sem.cmd = cmd[0];
		sem.ack = ack[1];
		child_loop();
	}
	close(cmd[0]);
	close(ack[1]);
	sem.cmd = cmd[1];
	sem.ack = ack[0];
	return 0;
}

long sem_mbind(unsigned long first, unsigned long n, int mode, unsigned long nodes, unsigned flags)
{
	return ret_of(syscall(SYS_mbind, page_addr(first), n * PAGE, mode, &nodes, MAXNODE, flags));
}

long sem_set_mempolicy(int mode, unsigned long nodes)
{
	return ret_of(syscall(SYS_set_mempolicy, mode, &nodes, MAXNODE));
}

long sem_get_mempolicy(int *mode, unsigned long *nodes, unsigned long page, unsigned flags)
{
	/* Linux refuses an address without MPOL_F_ADDR. */
	char *addr = flags & SEM_F_ADDR ? page_addr(page) : NULL;

	return ret_of(syscall(SYS_get_mempolicy, mode, nodes, MAXNODE, addr, flags));
}

/* Raise or drop CAP_SYS_NICE in the effective set (it stays permitted). */
static int set_nice_cap(bool on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	if (on)
		d[0].effective |= 1u << CAP_SYS_NICE;
	else
		d[0].effective &= ~(1u << CAP_SYS_NICE);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

long sem_migrate_pages(unsigned long from, unsigned long to, bool nice)
{
	long r, e;

	if (!nice && (e = set_nice_cap(false)))
		return e;
	r = ret_of(syscall(SYS_migrate_pages, 0, MAXNODE, &from, &to));
	if (!nice && (e = set_nice_cap(true)))
		return e;
	return r;
}

long sem_move_pages(unsigned long n, const unsigned long *pages, const int *nodes, int *status,
		    unsigned flags)
{
	void *addrs[SEM_PAGES];

	for (unsigned long i = 0; i < n; i++)
		addrs[i] = page_addr(pages[i]);
	return ret_of(syscall(SYS_move_pages, 0, n, addrs, nodes, status, flags));
}

void sem_pages(unsigned long first, unsigned long n, struct sem_page *out)
{
	static unsigned long pages[SEM_PAGES];
	static int status[SEM_PAGES];
	static uint64_t pm[SEM_PAGES];
	off_t off = (off_t)((uintptr_t)page_addr(first) / PAGE * 8);

	for (unsigned long i = 0; i < n; i++)
		pages[i] = first + i;
	if (sem_move_pages(n, pages, NULL, status, 0) < 0)
		memset(status, 0, sizeof(status));
	if (pread(sem.pagemap, pm, n * 8, off) != (ssize_t)(n * 8))
		memset(pm, 0, sizeof(pm));
	for (unsigned long i = 0; i < n; i++) {
		out[i].node = status[i];
		out[i].present = pm[i] >> 63 & 1;
		out[i].excl = pm[i] >> 56 & 1;
	}
}

void sem_out(const char *line)
{
	printf("%s\n", line);
}

int main(int argc, char **argv)
{
	struct utsname u;
	int mthp = -1, lines;

	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&u);
	sem.pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (sem.pagemap < 0) {
		perror("semantics: /proc/self/pagemap");
		return 1;
	}
	/* 2 MiB only where asked (MADV_HUGEPAGE); 64 KiB mTHP everywhere it
	 * is allowed (not under MADV_NOHUGEPAGE), where the kernel has it. */
	if (argc > 1 && !strcmp(argv[1], "--set-thp")) {
		knob("/sys/kernel/mm/transparent_hugepage/enabled", "madvise");
		knob("/sys/kernel/mm/transparent_hugepage/defrag", "madvise");
		mthp = knob("/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled", "always");
	}
	printf("# semantics: Linux %s %s, mTHP 64K %s\n", u.release, u.machine,
	       mthp < 0 ? "absent or not set" : "always");
	lines = sem_run_all();
	printf("# semantics: %d lines\n", lines);
	return 0;
}
