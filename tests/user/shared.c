/*
 * shared.c - MAP_SHARED|MAP_ANONYMOUS memory (mm/shmem.h) from user
 * space: a fork child and its parent see each other's writes both ways;
 * the parent's munmap leaves the child's data; maps shows "rw-s";
 * pagemap marks a page two processes map as a file page (bit 61) and not
 * exclusive (bit 56); move_pages(MPOL_MF_MOVE_ALL) moves a page both map
 * and both still share it; MAP_SHARED of a file is -EINVAL, MAP_HUGETLB
 * -ENOMEM. Needs --nodes 2 for the move. Prints "shared: ok", exits 0;
 * 1 with the failed check on any failure.
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
#include <sys/wait.h>
#include <unistd.h>

#define PAGES 4
#define PG 4096ul
#define MPOL_MF_MOVE_ALL (1 << 2)

static int failed;

#define check(cond, what)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("shared: FAIL %s (line %d)\n", what, __LINE__);                     \
			failed = 1;                                                                \
		}                                                                                  \
	} while (0)

/* The pagemap entry of @p. */
static uint64_t pagemap(const void *p)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd >= 0) {
		if (pread(fd, &e, 8, (off_t)((uintptr_t)p / PG * 8)) != 8)
			e = 0;
		close(fd);
	}
	return e;
}

/* Is there a maps line starting at @p with permissions @perm? */
static int maps_has(const void *p, const char *perm)
{
	char line[256], want[64];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	snprintf(want, sizeof(want), "%08lx-", (unsigned long)(uintptr_t)p);
	while (f && fgets(line, sizeof(line), f))
		found |= !strncmp(line, want, strlen(want)) && strstr(line, perm) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* Child: wait for the parent's byte on @rd, check and write the buffer. */
static int child(volatile unsigned char *b, int rd, int wr)
{
	char c;
	int bad = 0;

	for (unsigned long i = 0; i < PAGES; i++)
		bad |= b[i * PG] != (unsigned char)(0x10 + i); /* the parent's writes */
	for (unsigned long i = 0; i < PAGES; i++)
		b[i * PG] = (unsigned char)(0x20 + i);
	if (write(wr, "w", 1) != 1 || read(rd, &c, 1) != 1) /* the parent unmapped */
		return 2;
	for (unsigned long i = 0; i < PAGES; i++)
		bad |= b[i * PG] != (unsigned char)(0x30 + i); /* its last writes */
	return bad;
}

int main(void)
{
	int up[2], down[2], status = -1, node = 1, st = -1;
	volatile unsigned char *b;
	void *page;
	char c;
	pid_t pid;

	b = mmap(NULL, PAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	check(b != MAP_FAILED, "mmap(MAP_SHARED|MAP_ANONYMOUS)");
	if (b == MAP_FAILED)
		return 1;
	check(maps_has((void *)b, " rw-s "), "maps: rw-s");
	for (unsigned long i = 0; i < PAGES; i++)
		b[i * PG] = (unsigned char)(0x10 + i);
	check(pipe(up) == 0 && pipe(down) == 0, "pipes");
	pid = fork();
	if (pid == 0)
		_exit(child(b, down[0], up[1]));
	check(read(up[0], &c, 1) == 1, "the child's writes done");
	for (unsigned long i = 0; i < PAGES; i++)
		check(b[i * PG] == (unsigned char)(0x20 + i), "the parent sees the child's writes");
	page = (void *)b;
	check((pagemap(page) >> 61 & 1) && !(pagemap(page) >> 56 & 1),
	      "pagemap: a page two processes map is a file page, not exclusive");
	check(syscall(SYS_move_pages, 0, 1, &page, &node, &st, MPOL_MF_MOVE_ALL) == 0 && st == 1,
	      "move_pages MOVE_ALL of a shared page to node 1");
	for (unsigned long i = 0; i < PAGES; i++)
		b[i * PG] = (unsigned char)(0x30 + i);
	check(munmap((void *)b, PAGES * PG) == 0, "munmap in the parent");
	check(write(down[1], "u", 1) == 1, "tell the child");
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child saw the parent's writes and kept them after the parent's munmap");
	check(mmap(NULL, PG, PROT_READ, MAP_SHARED, 0, 0) == MAP_FAILED && errno == EINVAL,
	      "MAP_SHARED of a file: EINVAL");
	check(mmap(NULL, 2ul << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0) == MAP_FAILED &&
		      errno == ENOMEM,
	      "MAP_HUGETLB: ENOMEM");
	if (!failed)
		printf("shared: ok\n");
	return failed;
}
