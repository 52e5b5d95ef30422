/*
 * exec.h - loading a static ELF64 program into an mm, and the initial
 * stack Linux gives it (argc, argv, envp, auxv: docs/user.md).
 */
#ifndef KERNEL_EXEC_H
#define KERNEL_EXEC_H

#include <stddef.h>
#include <stdint.h>

struct mm;
struct ifile;

/* auxv types (Linux's numbers, the same on every arch) */
#define AT_NULL 0
#define AT_PHDR 3
#define AT_PHENT 4
#define AT_PHNUM 5
#define AT_PAGESZ 6
#define AT_BASE 7
#define AT_FLAGS 8
#define AT_ENTRY 9
#define AT_UID 11
#define AT_EUID 12
#define AT_GID 13
#define AT_EGID 14
#define AT_PLATFORM 15
#define AT_HWCAP 16
#define AT_CLKTCK 17
#define AT_SECURE 23
#define AT_RANDOM 25
#define AT_HWCAP2 26
#define AT_EXECFN 31
#define AT_MINSIGSTKSZ 51

#define EXEC_AUXV_MAX 24 /* entries the caller may pass, AT_NULL excluded */

/* What exec_stack_build() lays out. @auxv holds the caller's entries
 * (type, value); the builder appends AT_RANDOM, AT_EXECFN, AT_PLATFORM
 * (when @platform) pointing at the bytes it stores, then AT_NULL. */
struct exec_stack_args {
	int argc, envc;
	char *const *argv, *const *envp;
	const char *execfn;
	const char *platform;  /* NULL: no AT_PLATFORM */
	const uint8_t *random; /* 16 bytes */
	int nr_auxv;
	unsigned long auxv[EXEC_AUXV_MAX][2];
};

/*
 * exec_stack_build - write the initial stack into @buf, which stands for
 * the user bytes [@top - @size, @top): from the top down the execfn,
 * envp and argv strings, the platform string and the 16 random bytes,
 * then (16-byte aligned) argc, argv[], NULL, envp[], NULL, auxv pairs.
 * Return: the user stack pointer (at argc, 16-byte aligned), or -E2BIG
 * when @size is too small. Pure: no mm, so the host runner tests it.
 */
long exec_stack_build(uint8_t *buf, size_t size, unsigned long top,
		      const struct exec_stack_args *a);

/* Where a loaded program starts. */
struct exec_start {
	unsigned long entry; /* e_entry */
	unsigned long sp;    /* at argc */
	unsigned long brk;   /* the first page above the highest segment */
};

#define EXEC_STACK_TOP 0x7ffffffff000ul /* the stack VMA's end */
#define EXEC_STACK_SIZE (8ul << 20)	/* its length (RLIMIT_STACK's 8 MiB) */
#define EXEC_ARGS_MAX (64u << 10)	/* strings, pointers and auxv together */

/*
 * exec_load - map @file's PT_LOAD segments into the empty @mm (contents
 * copied, bss zero, each segment's protection), map the stack (executable
 * only when PT_GNU_STACK asks) and write the initial stack with @argv and
 * @envp (NULL-terminated).
 * Return: 0 with *@start filled, or a negative errno with a one-line
 * reason in @err (-ENOEXEC: not a static ELF64 for this arch, truncated,
 * or a segment outside user space; -ENOMEM; -E2BIG). On error @mm may
 * hold part of the image: the caller drops the mm.
 */
int exec_load(struct mm *mm, const struct ifile *file, char *const argv[], char *const envp[],
	      struct exec_start *start, char *err, size_t errlen);

#endif
