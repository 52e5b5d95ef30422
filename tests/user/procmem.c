/*
 * procmem.c - /proc/self/mem as ptrace writes it, the THP size in /sys,
 * and the NUMA calls, against what this program did:
 *  - a write through /proc/self/mem into a PROT_READ page (touched or
 *    not) lands, and the page stays read-only (the program reads the
 *    new byte; /proc/self/smaps still says r--p; a store would fault);
 *  - the same into a PROT_READ 2 MiB-aligned range of a 4 MiB mapping
 *    places a whole PMD folio (its last page is present too);
 *  - a read through /proc/self/mem of a write-only page sees what the
 *    program wrote; an address with no mapping is -EIO; O_RDWR on
 *    /proc/self/pagemap is -EACCES;
 *  - /sys/kernel/mm/transparent_hugepage/hpage_pmd_size is 2097152;
 *  - mbind(MPOL_LOCAL, MPOL_MF_MOVE) and get_mempolicy(MPOL_F_NODE |
 *    MPOL_F_ADDR), move_pages' query, a bad mask (-EINVAL), and
 *    capget/capset round trip;
 *  - MADV_PAGEOUT: pagemap's swapped bit, smaps' Swap, the contents back.
 * Prints "procmem: ok" and exits 0, or names each failed step, exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PM_PRESENT (1ull << 63)
#define PMD (2ul << 20)
#define MPOL_LOCAL 4
#define MPOL_MF_MOVE 2
#define MPOL_F_NODE 1
#define MPOL_F_ADDR 2

static int fails, mem, pagemap;

static void check(int ok, const char *what)
{
	printf("procmem: %-56s %s\n", what, ok ? "ok" : "FAILED");
	if (!ok)
		fails++;
}

static int present(const void *addr)
{
	uint64_t e = 0;

	if (pread(pagemap, &e, 8, (off_t)((uintptr_t)addr / 4096 * 8)) != 8)
		return 0;
	return !!(e & PM_PRESENT);
}

/* Is the VMA holding @addr read-only ("r--p") in /proc/self/maps? */
static int maps_read_only(const void *addr)
{
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");
	int ro = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && lo <= (uintptr_t)addr &&
		    (uintptr_t)addr < hi)
			ro = !strcmp(perms, "r--p");
	}
	if (f)
		fclose(f);
	return ro;
}

static void ptrace_writes(void)
{
	char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char b = 0x5a;

	check(p != MAP_FAILED && q != MAP_FAILED, "mmap PROT_READ");
	check(*(volatile char *)p == 0, "a read of the untouched page is 0");
	check(pwrite(mem, &b, 1, (off_t)(uintptr_t)p) == 1, "pwrite /proc/self/mem, touched");
	check(*(volatile char *)p == 0x5a, "the program reads what was written");
	check(pwrite(mem, &b, 1, (off_t)(uintptr_t)q + 7) == 1, "pwrite /proc/self/mem, untouched");
	check(q[7] == 0x5a && present(q), "the page was faulted in with the byte");
	check(maps_read_only(p) && maps_read_only(q), "both stay r--p in maps");
}

static void ptrace_write_thp(void)
{
	char *m = mmap(NULL, 2 * PMD, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *t = (char *)(((uintptr_t)m + PMD) & ~(PMD - 1)), b = 1;

	check(m != MAP_FAILED, "mmap 4 MiB PROT_READ");
	check(madvise(t, PMD, MADV_HUGEPAGE) == 0, "MADV_HUGEPAGE");
	if (lseek(mem, (off_t)(uintptr_t)t, SEEK_SET) != (off_t)(uintptr_t)t)
		check(0, "lseek /proc/self/mem to the address");
	check(write(mem, &b, 1) == 1 && *t == 1, "write /proc/self/mem into the THP range");
	check(present(t + PMD - 4096), "a whole PMD folio was placed (last page present)");
}

static void ptrace_reads(void)
{
	char *w = mmap(NULL, 4096, PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char b = 0;
	int fd;

	w[3] = 0x33;
	check(pread(mem, &b, 1, (off_t)(uintptr_t)w + 3) == 1 && b == 0x33,
	      "pread /proc/self/mem of a write-only page");
	errno = 0;
	check(pread(mem, &b, 1, 4096) == -1 && errno == EIO, "no mapping at the address: EIO");
	fd = open("/proc/self/pagemap", O_RDWR);
	check(fd == -1 && errno == EACCES, "O_RDWR on pagemap: EACCES");
}

static void sysfs(void)
{
	char buf[32] = { 0 };
	int fd = open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", O_RDONLY);

	check(fd >= 0 && read(fd, buf, sizeof(buf) - 1) > 0 && !strcmp(buf, "2097152\n"),
	      "hpage_pmd_size is 2097152");
	if (fd >= 0)
		close(fd);
}

static void numa(void)
{
	char *p = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long bad = 1ul << 40;
	int node = -1, status = -99;
	void *pages[1] = { p };
	uint32_t hdr[2] = { 0x20080522, 0 }, data[6];

	memset(p, 1, 8 * 4096);
	check(syscall(SYS_mbind, p, 8 * 4096, MPOL_LOCAL, NULL, 0x7fful, MPOL_MF_MOVE) == 0,
	      "mbind MPOL_LOCAL, MPOL_MF_MOVE");
	check(syscall(SYS_get_mempolicy, &node, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR) == 0 &&
		      node == 0,
	      "get_mempolicy MPOL_F_NODE|MPOL_F_ADDR: node 0");
	check(syscall(SYS_move_pages, 0, 1, pages, NULL, &status, 0) == 0 && status == 0,
	      "move_pages query: node 0");
	errno = 0;
	check(syscall(SYS_mbind, p, 4096, 2 /* BIND */, &bad, 64ul, 0) == -1 && errno == EINVAL,
	      "mbind to node 40: EINVAL");
	check(syscall(SYS_capget, hdr, data) == 0 && (data[0] >> 23 & 1), "capget: CAP_SYS_NICE");
	data[0] &= ~(1u << 23);
	check(syscall(SYS_capset, hdr, data) == 0 && syscall(SYS_capget, hdr, data) == 0 &&
		      !(data[0] >> 23 & 1),
	      "capset drops it from the effective set");
}

/* The "Swap:" kB of the smaps block of the VMA starting at @addr, or -1. */
static long smaps_swap_kb(const void *addr)
{
	char line[256], head[32];
	FILE *f = fopen("/proc/self/smaps", "r");
	long kb = -1;
	int in = 0;

	snprintf(head, sizeof(head), "%08lx-", (unsigned long)addr);
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, head, strlen(head)))
			in = 1;
		else if (in && sscanf(line, "Swap: %ld kB", &kb) == 1)
			break;
	}
	if (f)
		fclose(f);
	return kb;
}

/* MADV_PAGEOUT: the pages go to swap (pagemap bit 62, smaps Swap) and a
 * read brings the contents back. */
static void swap(void)
{
	char *p = mmap(NULL, 64 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t e = 0;

	memset(p, 0x77, 64 << 10);
	check(madvise(p, 64 << 10, MADV_PAGEOUT) == 0, "MADV_PAGEOUT");
	check(pread(pagemap, &e, 8, (off_t)((uintptr_t)p / 4096 * 8)) == 8 && (e >> 62 & 1) &&
		      !(e >> 63),
	      "pagemap: swapped, not present");
	check(smaps_swap_kb(p) == 64, "smaps Swap: 64 kB");
	check(p[5000] == 0x77 && smaps_swap_kb(p) == 60,
	      "one read brings one page back (4 KiB folios: mTHP is \"never\")");
	for (int i = 0; i < 64 << 10; i++)
		if (p[i] != 0x77) {
			check(0, "the contents read back from swap");
			break;
		}
	check(smaps_swap_kb(p) == 0, "smaps Swap: 0 kB after reading it all");
}

int main(void)
{
	mem = open("/proc/self/mem", O_RDWR);
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	check(mem >= 0 && pagemap >= 0, "open /proc/self/mem O_RDWR, pagemap");
	ptrace_writes();
	ptrace_write_thp();
	ptrace_reads();
	sysfs();
	numa();
	swap();
	printf("procmem: %s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}
