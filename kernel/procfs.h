/*
 * procfs.h - the /proc files of the running process, generated from its
 * mm as Linux's fs/proc does: pagemap (binary, read at any 8-byte
 * offset, answered from the page tables at the time of the read), mem
 * (the memory itself, read and written as ptrace does: proc_mem.c), maps
 * and smaps (text, a snapshot taken when the file is opened, as a
 * reader that reads from 0 to the end sees it on Linux).
 *
 * Paths: /proc/self/NAME and /proc/PID/NAME for the current PID; nothing
 * else under /proc exists. The few /sys files a program reads
 * (sysfs_thp.c) are served the same way, by their whole path.
 */
#ifndef KERNEL_PROCFS_H
#define KERNEL_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fd;
struct mm;
struct process;
struct proc_text;

/* One file: how an open fd of it is filled, read and written. */
struct proc_entry {
	const char *name; /* under /proc/self/, or a /sys path without its first '/' */
	/* NULL for files read live (pagemap); else writes the text into @t */
	int (*text)(struct process *p, const struct proc_entry *e, struct proc_text *t);
	/* live files: @len bytes at @pos into user @buf; 0 at the end, or -errno */
	long (*read)(struct process *p, unsigned long buf, size_t len, uint64_t pos);
	/* NULL for read-only files; else @len bytes from user @buf at @pos */
	long (*write)(struct process *p, const struct proc_entry *e, unsigned long buf, size_t len,
		      uint64_t pos);
	/* NULL: -ENOTTY; else the file's ioctl(@cmd, @arg) */
	long (*ioctl)(struct process *p, const struct proc_entry *e, unsigned long cmd,
		      unsigned long arg);
	int arg; /* the file's own parameter (sysfs_thp.c: which setting) */
};

/* A set of /sys files (their names: the path without its first '/'). */
struct sys_table {
	const struct proc_entry *files;
	size_t nr;
};

/* The /sys directories: THP settings (sysfs_thp.c), the gup_test device
 * (gup_test.c). */
extern const struct sys_table sysfs_thp_table, gup_test_table;

/* Files under /proc itself, not a process's: /proc/kpageflags
 * (proc_kpageflags.c), /proc/vmstat (proc_vmstat.c). Their names are
 * whole paths without the first '/', as the /sys tables'. */
extern const struct sys_table proc_kpageflags_table, proc_vmstat_table;

/* A snapshot being written: grows as needed (malloc). */
struct proc_text {
	char *buf;
	size_t len, size;
	int err; /* -ENOMEM once a growth failed; later writes are dropped */
};

/* Append printf-style text to @t. */
/* access() of @path as a /proc or /sys file or /sys directory of @p:
 * 0, -EACCES (@write on something read-only), or -ENOENT (none of them). */
int procfs_access(const struct process *p, const char *path, bool write);

void proc_printf(struct proc_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The entry @path names for process @p, or NULL (not a /proc path of it). */
const struct proc_entry *procfs_lookup(const struct process *p, const char *path);

/*
 * procfs_open - make @f an open fd of @e for @p (a text file's snapshot
 * is taken now). Return: 0, or -ENOMEM with @f untouched.
 * Context: process context of @p; takes @p's mmap_lock for read.
 */
int procfs_open(struct process *p, struct fd *f, const struct proc_entry *e);

/* Up to @len bytes of @f's file at @pos into user @buf: the count, 0 at
 * the end, or -errno. */
long procfs_read(struct process *p, const struct fd *f, unsigned long buf, size_t len,
		 uint64_t pos);

/* @len bytes from user @buf into @f's file at @pos: the count or -errno
 * (-EBADF for a read-only file). */
long procfs_write(struct process *p, const struct fd *f, unsigned long buf, size_t len,
		  uint64_t pos);

/* ioctl() on @f: the file's, or -ENOTTY. */
long procfs_ioctl(struct process *p, const struct fd *f, unsigned long cmd, unsigned long arg);

/* Free what procfs_open() allocated for @f (the fd is being closed). */
void procfs_release(struct fd *f);

/* The files' generators (proc_pagemap.c, proc_maps.c). */
long proc_pagemap_read(struct process *p, unsigned long buf, size_t len, uint64_t pos);
int proc_maps_text(struct process *p, const struct proc_entry *e, struct proc_text *t);
int proc_status_text(struct process *p, const struct proc_entry *e, struct proc_text *t);
int proc_smaps_text(struct process *p, const struct proc_entry *e, struct proc_text *t);
int proc_smaps_rollup_text(struct process *p, const struct proc_entry *e, struct proc_text *t);
long proc_mem_read(struct process *p, unsigned long buf, size_t len, uint64_t pos);
long proc_mem_write(struct process *p, const struct proc_entry *e, unsigned long buf, size_t len,
		    uint64_t pos);

long proc_clear_refs_write(struct process *p, const struct proc_entry *e, unsigned long buf,
			   size_t len, uint64_t pos);

#endif
