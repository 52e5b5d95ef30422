/*
 * syscall.h - the system-call handlers, one per SYSCALL_LIST name
 * (user_arch.h), and Linux's constants they share.
 */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include "user_arch.h"

struct process;

/* Every handler: the caller's registers and its six arguments; returns
 * the value or -errno user code sees. */
#define SYSCALL_DECL(name) long sys_##name(struct user_regs *r, const long *a);
SYSCALL_LIST(SYSCALL_DECL)
#undef SYSCALL_DECL

/* Print, one line each, the numbers @p asked for that got -ENOSYS, with
 * how often ("exec: unknown system call 334: 1 time(s)"). */
void syscall_print_unknown(const struct process *p);

/* Linux's values, the same on x86_64 and arm64. */
#define AT_FDCWD (-100)
#define AT_EMPTY_PATH 0x1000
#define O_RDONLY 0
#define O_WRONLY 1
#define O_RDWR 2
#define O_ACCMODE 3
#define O_CREAT 0100
#define O_DIRECTORY 0200000
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_HUGETLB 0x40000 /* both arches */
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_NORESERVE 0x4000
#define MAP_POPULATE 0x8000
#define MAP_FIXED_NOREPLACE 0x100000
#define MADV_NORMAL 0
#define MADV_RANDOM 1
#define MADV_SEQUENTIAL 2
#define MADV_WILLNEED 3
#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFCHR 0020000
#define S_IFIFO 0010000

#endif
