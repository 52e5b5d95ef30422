/*
 * enosys.c - system calls the kernel does not have: each returns -ENOSYS
 * (never a hang or a crash) and is counted; the kernel prints the counts
 * at exit (tests/user/run.sh checks them).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(void)
{
	long a = syscall(1000), b = syscall(1000);
	int ea = errno;
	long c = syscall(100000);

	printf("enosys: syscall(1000) = %ld, %ld errno %d; syscall(100000) = %ld errno %d\n", a, b,
	       ea, c, errno);
	return a == -1 && b == -1 && ea == ENOSYS && c == -1 && errno == ENOSYS ? 0 : 1;
}
