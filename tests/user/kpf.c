/*
 * kpf.c - /proc/kpageflags, /proc/vmstat and /proc/self/smaps_rollup
 * against what this program mapped: a PMD THP is a COMPOUND_HEAD and 511
 * COMPOUND_TAILs with THP, ANON and MMAP; a 64 KiB mTHP (asked through
 * hugepages-64kB/enabled) a head and 15 tails, THP as 6.12 marks any
 * large anon folio; a 4 KiB page neither head nor tail nor THP; a frame
 * past the last reads nothing and a read not in whole words is -EINVAL.
 * vmstat's pgfault counts the faults taken, names ptelab has no counter
 * for are absent; smaps_rollup is one [rollup] block whose AnonHugePages
 * holds the PMD THP. Prints "kpf: ok" and exits 0, or names each failed
 * step and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PM_PRESENT (1ull << 63)
#define PM_PFN ((1ull << 55) - 1)
#define PMD (2ul << 20)
#define PAGE 4096ul

#define KPF_MMAP 11
#define KPF_ANON 12
#define KPF_HEAD 15
#define KPF_TAIL 16
#define KPF_THP 22
#define BIT(b) (1ull << (b))

static int fails;

static void check(int ok, const char *what)
{
	printf("kpf: %-56s %s\n", what, ok ? "ok" : "FAILED");
	if (!ok)
		fails++;
}

/* The PFN mapped at @addr, or 0. */
static uint64_t pfn_of(const void *addr)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t e = 0;

	if (fd < 0 || pread(fd, &e, 8, (off_t)((uintptr_t)addr / PAGE * 8)) != 8)
		e = 0;
	if (fd >= 0)
		close(fd);
	return e & PM_PRESENT ? e & PM_PFN : 0;
}

/* The kpageflags word of @pfn, or ~0 when it cannot be read. */
static uint64_t kpf(uint64_t pfn)
{
	int fd = open("/proc/kpageflags", O_RDONLY);
	uint64_t w = ~0ull;

	if (fd < 0 || pread(fd, &w, 8, (off_t)(pfn * 8)) != 8)
		w = ~0ull;
	if (fd >= 0)
		close(fd);
	return w;
}

/* A 2 MiB-aligned private anonymous region of @size, written whole. */
static char *region(unsigned long size, int advice)
{
	char *raw =
		mmap(NULL, size + PMD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)raw + PMD - 1) & ~(PMD - 1));
	madvise(p, size, advice);
	memset(p, 1, size);
	return p;
}

/* Every page of [@p, @p + @pages pages): consecutive frames, the first a
 * head and the rest tails, each with @want. */
static int one_folio(const char *p, unsigned long pages, uint64_t want)
{
	uint64_t first = pfn_of(p);

	if (!first)
		return 0;
	for (unsigned long i = 0; i < pages; i++) {
		uint64_t w = kpf(first + i);

		if (pfn_of(p + i * PAGE) != first + i || w == ~0ull || (w & want) != want)
			return 0;
		if (!!(w & BIT(KPF_HEAD)) != (i == 0) || !!(w & BIT(KPF_TAIL)) != (i != 0))
			return 0;
	}
	return 1;
}

static void put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, val, strlen(val)) < 0)
			perror(path);
		close(fd);
	}
}

static void kpageflags_cases(void)
{
	const uint64_t thp = BIT(KPF_THP) | BIT(KPF_ANON) | BIT(KPF_MMAP);
	char *pmd = region(PMD, MADV_HUGEPAGE), *small = region(PAGE, MADV_NOHUGEPAGE), *m64;
	uint64_t w, big = 1ull << 40;
	int fd;

	check(pmd && one_folio(pmd, 512, thp), "2 MiB THP: a head, 511 tails, THP ANON MMAP");
	w = small ? kpf(pfn_of(small)) : ~0ull;
	check(w != ~0ull &&
		      (w & (BIT(KPF_ANON) | BIT(KPF_MMAP))) == (BIT(KPF_ANON) | BIT(KPF_MMAP)) &&
		      !(w & (BIT(KPF_HEAD) | BIT(KPF_TAIL) | BIT(KPF_THP))),
	      "4 KiB page: ANON MMAP, no head, tail or THP");
	put("/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled", "always");
	m64 = region(64 << 10, MADV_HUGEPAGE); /* a 64 KiB VMA: no PMD fits */
	put("/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled", "never");
	check(m64 && one_folio(m64, 16, thp), "64 KiB mTHP: a head, 15 tails, THP ANON MMAP");
	fd = open("/proc/kpageflags", O_RDONLY);
	check(fd >= 0 && pread(fd, &w, 8, (off_t)(big * 8)) == 0,
	      "a frame past the last reads 0 bytes");
	check(fd >= 0 && pread(fd, &w, 4, 0) == -1 && errno == EINVAL, "a read of 4 bytes: EINVAL");
	if (fd >= 0)
		close(fd);
}

/* The value of @name in /proc/vmstat, or -1 when absent. */
static long long vmstat(const char *name)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char n[64];
	long long v, got = -1;

	while (f && fscanf(f, "%63s %lld", n, &v) == 2)
		if (!strcmp(n, name))
			got = v;
	if (f)
		fclose(f);
	return got;
}

static void vmstat_cases(void)
{
	long long before = vmstat("pgfault"), after;
	char *p = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	madvise(p, 16 * PAGE, MADV_NOHUGEPAGE);
	for (int i = 0; p != MAP_FAILED && i < 16; i++)
		p[i * PAGE] = 1;
	after = vmstat("pgfault");
	check(before >= 0 && after - before >= 16, "vmstat: pgfault counts 16 faults");
	check(vmstat("nr_free_pages") > 0, "vmstat: nr_free_pages");
	check(vmstat("pgalloc_normal") == -1, "vmstat: a name ptelab does not count is absent");
}

static void rollup_cases(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	unsigned long kb = 0;
	int header = 0;

	while (f && fgets(line, sizeof(line), f)) {
		header += strstr(line, "[rollup]") != NULL;
		sscanf(line, "AnonHugePages: %lu", &kb);
	}
	if (f)
		fclose(f);
	check(header == 1 && kb >= 2048,
	      "smaps_rollup: one [rollup] block, AnonHugePages >= 2048 kB");
}

int main(void)
{
	kpageflags_cases();
	vmstat_cases();
	rollup_cases();
	printf("kpf: %s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}
