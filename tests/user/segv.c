/*
 * segv.c - a store to a page mprotect made read-only: mm/ cannot resolve
 * the fault, so the process ends with SIGSEGV (status 139) and the kernel
 * goes on (tests/user/run.sh checks both).
 */
#include <stdio.h>
#include <sys/mman.h>

int main(void)
{
	volatile char *p =
		mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	p[0] = 1;
	mprotect((void *)p, 4096, PROT_READ);
	printf("segv: storing to a read-only page\n");
	fflush(stdout);
	p[1] = 2;
	printf("segv: the store did not fault\n");
	return 0;
}
