/*
 * syscalls.c - the system-call stubs newlib needs, over the boot console.
 *
 * newlib for x86_64-elf calls write, sbrk, ... (MISSING_SYSCALL_NAMES);
 * for aarch64-elf it calls _write, _sbrk, ... Both spellings are defined
 * here so generic code needs no arch #ifdef. Only stdout and stderr exist.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "ptelab/abi.h"

#define BOTH(ret, name, params, args)                                                              \
	ret name params;                                                                           \
	ret _##name params;                                                                        \
	ret _##name params                                                                         \
	{                                                                                          \
		return name args;                                                                  \
	}

int write(int fd, const void *buf, size_t len)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	arch_console_write(buf, len);
	return (int)len;
}
BOTH(int, write, (int fd, const void *buf, size_t len), (fd, buf, len))

int read(int fd, void *buf, size_t len)
{
	(void)fd, (void)buf, (void)len;
	errno = EBADF;
	return -1;
}
BOTH(int, read, (int fd, void *buf, size_t len), (fd, buf, len))

int close(int fd)
{
	(void)fd;
	errno = EBADF;
	return -1;
}
BOTH(int, close, (int fd), (fd))

int fstat(int fd, struct stat *st)
{
	if (fd < 0 || fd > 2) {
		errno = EBADF;
		return -1;
	}
	st->st_mode = S_IFCHR;
	st->st_blksize = 0;
	return 0;
}
BOTH(int, fstat, (int fd, struct stat *st), (fd, st))

int isatty(int fd)
{
	return fd >= 0 && fd <= 2;
}
BOTH(int, isatty, (int fd), (fd))

off_t lseek(int fd, off_t off, int whence)
{
	(void)fd, (void)off, (void)whence;
	errno = ESPIPE;
	return -1;
}
BOTH(off_t, lseek, (int fd, off_t off, int whence), (fd, off, whence))

int kill(int pid, int sig)
{
	(void)pid, (void)sig;
	errno = EINVAL;
	return -1;
}
BOTH(int, kill, (int pid, int sig), (pid, sig))

int getpid(void)
{
	return 1;
}
BOTH(int, getpid, (void), ())

/* newlib's exit() and abort() end here. */
void _exit(int status)
{
	fflush(stdout);
	arch_exit(status);
}
