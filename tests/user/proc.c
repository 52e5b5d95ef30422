/*
 * proc.c - /proc/self/pagemap, maps and smaps against what this program
 * did: an untouched page reads 0, a touched one present and exclusive
 * with a PFN, a 2 MiB mapping written whole is one PMD folio (512
 * consecutive PFNs, AnonHugePages 2048 kB), a read-only page says r--p,
 * a write-only mapping has no "rd" in VmFlags, there is no "sd", the
 * stack is named, and pagemap refuses reads not in whole entries. Prints
 * "proc: ok" and exits 0, or names each step that failed and exits 1.
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
#define PM_EXCLUSIVE (1ull << 56)
#define PM_PFN ((1ull << 55) - 1)
#define PMD (2ul << 20)

static int fails;
static int pagemap;

static void check(int ok, const char *what)
{
	printf("proc: %-52s %s\n", what, ok ? "ok" : "FAILED");
	if (!ok)
		fails++;
}

static uint64_t entry(const void *addr)
{
	uint64_t e = 0;
	off_t off = (off_t)((uintptr_t)addr / 4096 * 8);

	if (pread(pagemap, &e, 8, off) != 8)
		return ~0ull;
	return e;
}

/* The smaps block of the VMA starting at @addr, into @buf. */
static int smaps_block(const void *addr, char *buf, size_t size)
{
	char line[256], head[32];
	FILE *f = fopen("/proc/self/smaps", "r");
	size_t len = 0;
	int in = 0;

	if (!f)
		return 0;
	snprintf(head, sizeof(head), "%08lx-", (unsigned long)addr);
	buf[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		/* a VMA's first line starts with its address, lower-case hex;
		 * the fields with a capital */
		if ((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f'))
			in = !strncmp(line, head, strlen(head));
		if (in && len + strlen(line) < size) {
			strcpy(buf + len, line);
			len += strlen(line);
		}
	}
	fclose(f);
	return len > 0;
}

static void pages(void)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t e;

	check(p != MAP_FAILED, "mmap 3 pages");
	p[4096] = 1;
	check(entry(p) == 0, "an untouched page reads 0");
	e = entry(p + 4096);
	check((e & PM_PRESENT) && (e & PM_EXCLUSIVE) && (e & PM_PFN),
	      "a written page: present, exclusive, a PFN");
	check(entry((void *)0x1000) == 0, "an address outside every VMA reads 0");
	check(pread(pagemap, &e, 4, 0) == -1 && errno == EINVAL, "a read of 4 bytes: EINVAL");
	check(pread(pagemap, &e, 8, 4) == -1 && errno == EINVAL, "a read at offset 4: EINVAL");
	munmap(p, 3 * 4096);
}

static void thp(void)
{
	char *p = mmap(NULL, PMD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
	     buf[2048];
	uint64_t first, last;

	check(p != MAP_FAILED && ((uintptr_t)p & (PMD - 1)) == 0, "mmap 2 MiB, 2 MiB aligned");
	memset(p, 7, PMD);
	first = entry(p);
	last = entry(p + PMD - 4096);
	check((first & PM_PRESENT) && (last & PM_PRESENT) &&
		      (last & PM_PFN) - (first & PM_PFN) == PMD / 4096 - 1,
	      "2 MiB written: 512 consecutive PFNs");
	check(smaps_block(p, buf, sizeof(buf)) && strstr(buf, "AnonHugePages:      2048 kB") &&
		      strstr(buf, "Rss:                2048 kB"),
	      "smaps: Rss and AnonHugePages 2048 kB");
	check(strstr(buf, " rw-p 00000000 00:00 0 \n") &&
		      strstr(buf, "VmFlags: rd wr mr mw me ac \n"),
	      "smaps: rw-p header, VmFlags rd wr mr mw me ac");
	check(mprotect(p, 4096, PROT_READ) == 0 && smaps_block(p, buf, sizeof(buf)) &&
		      strstr(buf, " r--p ") && strstr(buf, "Size:                  4 kB"),
	      "mprotect one page: its own r--p VMA of 4 kB");
	munmap(p, PMD);
}

static void maps(void)
{
	char *p = mmap(NULL, 4096, PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), buf[2048];
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");
	int stack = 0, sd = 0;

	check(p != MAP_FAILED && smaps_block(p, buf, sizeof(buf)) &&
		      strstr(buf, "VmFlags: wr mr mw me ac \n") && strstr(buf, " -w-p "),
	      "a PROT_WRITE mapping: -w-p, no rd in VmFlags");
	while (f && fgets(line, sizeof(line), f))
		stack |= strlen(line) > 74 && !strcmp(line + 73, "[stack]\n");
	check(f && stack, "maps: [stack] named at column 74");
	if (f)
		fclose(f);
	f = fopen("/proc/self/smaps", "r");
	while (f && fgets(line, sizeof(line), f))
		sd |= !strncmp(line, "VmFlags:", 8) && strstr(line, " sd ");
	check(f && !sd, "no VmFlags says sd (no soft-dirty)");
	if (f)
		fclose(f);
	check(open("/proc/self/pagemap", O_RDWR) == -1 && errno == EACCES,
	      "pagemap opened for writing: EACCES");
	munmap(p, 4096);
}

int main(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/pagemap", getpid());
	pagemap = open(path, O_RDONLY);
	check(pagemap >= 0, "open /proc/PID/pagemap");
	pages();
	thp();
	maps();
	printf("proc: %s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}
