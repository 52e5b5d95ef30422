/*
 * mm.c - the mm system calls from user space, each step checked: a 2 MiB
 * anonymous mmap touched and read back, mprotect, MAP_FIXED_NOREPLACE,
 * MADV_DONTNEED (zeroes after), MAP_POPULATE, a private read-only file
 * mapping, munmap, and the break. Prints "mm: ok" and exits 0, or names
 * the first step that failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1ul << 20)

static int fails;

static void check(int ok, const char *what)
{
	printf("mm: %-44s %s\n", what, ok ? "ok" : "FAILED");
	if (!ok)
		fails++;
}

static int all_equal(const unsigned char *p, size_t len, unsigned char v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static void anon_2m(void)
{
	unsigned char *p =
		mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	check(p != MAP_FAILED, "mmap 2 MiB anonymous");
	if (p == MAP_FAILED)
		return;
	check(all_equal(p, 2 * MIB, 0), "fresh anonymous memory reads zero");
	memset(p, 0x5a, 2 * MIB);
	check(all_equal(p, 2 * MIB, 0x5a), "written pattern reads back");
	check(mprotect(p, MIB, PROT_READ) == 0, "mprotect the first MiB read-only");
	check(p[10] == 0x5a && p[MIB + 10] == 0x5a, "still readable after mprotect");
	check(madvise(p + MIB, MIB, MADV_DONTNEED) == 0, "madvise DONTNEED the second MiB");
	check(all_equal(p + MIB, MIB, 0) && p[0] == 0x5a, "DONTNEED range reads zero, rest kept");
	check(madvise(p, 4096, 12345) == -1 && errno == EINVAL, "unknown advice is EINVAL");
	check(mmap(p, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) ==
			      MAP_FAILED &&
		      errno == EEXIST,
	      "MAP_FIXED_NOREPLACE over a mapping: EEXIST");
	check(munmap(p, 2 * MIB) == 0, "munmap");
	check(mmap(p, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == p,
	      "MAP_FIXED_NOREPLACE into the hole");
	munmap(p, 4096);
}

static void populate_and_file(const char *self)
{
	unsigned char *p = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_NORESERVE, -1, 0);
	int fd = open(self, O_RDONLY);
	unsigned char *f;

	check(p != MAP_FAILED && all_equal(p, 64 * 4096, 0), "MAP_POPULATE mapping reads zero");
	if (p != MAP_FAILED)
		munmap(p, 64 * 4096);
	check(fd >= 0, "open our own program file");
	if (fd < 0)
		return;
	f = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
	check(f != MAP_FAILED && !memcmp(f, "\177ELF", 4), "private file mapping shows the ELF");
	if (f != MAP_FAILED)
		munmap(f, 8192);
	close(fd);
}

static void brk_steps(void)
{
	char *start = sbrk(0), *p;

	check(start != (void *)-1, "sbrk(0)");
	p = sbrk(3 * MIB);
	check(p == start, "sbrk grows by 3 MiB");
	if (p != start)
		return;
	memset(p, 1, 3 * MIB);
	check(all_equal((unsigned char *)p, 3 * MIB, 1), "the grown break holds data");
	check(sbrk(-(long)(2 * MIB)) == p + 3 * MIB && sbrk(0) == p + MIB, "sbrk shrinks");
}

int main(int argc, char **argv)
{
	(void)argc;
	anon_2m();
	populate_and_file(argv[0]);
	brk_steps();
	printf(fails ? "mm: %d step(s) FAILED\n" : "mm: ok\n", fails);
	return fails ? 1 : 0;
}
