/*
 * sys_file.c - file descriptors: the console (0, 1, 2 at start),
 * read-only initramfs files and the /proc/self files (procfs.h). Writes
 * go to the console only; anything that would change the file table
 * answers -EROFS.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "initramfs.h"
#include "kernel.h"
#include "process.h"
#include "procfs.h"
#include "syscall.h"

#define IO_CHUNK 512
#define IOV_MAX 1024

/* File descriptors are C ints: the upper half of the register is not
 * part of the argument (glibc leaves -100, AT_FDCWD, zero-extended). */
static struct fd *fd_get(long lfd)
{
	int fd = (int)lfd;

	struct process *p = current_process;

	if (fd < 0 || fd >= PROC_NR_FDS || p->fds[fd].kind == FD_NONE)
		return NULL;
	return &p->fds[fd];
}

/* Copy @len user bytes at @buf to the console, a chunk at a time. */
static long console_write(unsigned long buf, size_t len)
{
	char chunk[IO_CHUNK];
	size_t done = 0;

	fflush(stdout); /* the kernel's own lines first */
	while (done < len) {
		size_t n = len - done < sizeof(chunk) ? len - done : sizeof(chunk);

		if (copy_from_user(chunk, buf + done, n))
			return done ? (long)done : -EFAULT;
		arch_console_write(chunk, n);
		done += n;
	}
	return (long)done;
}

/* Up to @len bytes of @f's file at @pos into user @buf. */
static long file_read(const struct fd *f, unsigned long buf, size_t len, uint64_t pos)
{
	const struct ifile *file = f->file;

	if (f->kind == FD_PROC)
		return procfs_read(current_process, f, buf, len, pos);
	if ((file->mode & S_IFMT) == S_IFDIR)
		return -EISDIR;
	if (pos >= file->size)
		return 0;
	if (len > file->size - pos)
		len = (size_t)(file->size - pos);
	if (copy_to_user(buf, file->data + pos, len))
		return -EFAULT;
	return (long)len;
}

static long do_read(long fd, unsigned long buf, size_t len)
{
	struct fd *f = fd_get(fd);
	long n;

	if (!f)
		return -EBADF;
	if (f->kind == FD_CONSOLE)
		return 0; /* no console input: end of file */
	if (f->access == O_WRONLY)
		return -EBADF;
	n = file_read(f, buf, len, f->pos);
	if (n > 0)
		f->pos += (uint64_t)n;
	return n;
}

/* Up to @len bytes from user @buf into @f's file at @pos: only /proc
 * files opened for writing can be written. */
static long file_write(const struct fd *f, unsigned long buf, size_t len, uint64_t pos)
{
	if (f->kind != FD_PROC || f->access == O_RDONLY)
		return -EBADF;
	return procfs_write(current_process, f, buf, len, pos);
}

static long do_write(long fd, unsigned long buf, size_t len)
{
	struct fd *f = fd_get(fd);
	long n;

	if (!f)
		return -EBADF;
	if (f->kind == FD_CONSOLE)
		return console_write(buf, len);
	n = file_write(f, buf, len, f->pos);
	if (n > 0)
		f->pos += (uint64_t)n;
	return n;
}

long sys_read(struct user_regs *r, const long *a)
{
	(void)r;
	return do_read(a[0], (unsigned long)a[1], (size_t)a[2]);
}

long sys_write(struct user_regs *r, const long *a)
{
	(void)r;
	return do_write(a[0], (unsigned long)a[1], (size_t)a[2]);
}

/* readv / writev: each iovec in turn, stopping at a short transfer. */
static long do_iov(long fd, unsigned long iov, long cnt, int write)
{
	long total = 0;

	if (cnt < 0 || cnt > IOV_MAX)
		return -EINVAL;
	for (long i = 0; i < cnt; i++) {
		unsigned long v[2];
		long n;

		if (copy_from_user(v, iov + (unsigned long)i * sizeof(v), sizeof(v)))
			return total ? total : -EFAULT;
		n = write ? do_write(fd, v[0], v[1]) : do_read(fd, v[0], v[1]);
		if (n < 0)
			return total ? total : n;
		total += n;
		if ((unsigned long)n < v[1])
			break;
	}
	return total;
}

long sys_readv(struct user_regs *r, const long *a)
{
	(void)r;
	return do_iov(a[0], (unsigned long)a[1], a[2], 0);
}

long sys_writev(struct user_regs *r, const long *a)
{
	(void)r;
	return do_iov(a[0], (unsigned long)a[1], a[2], 1);
}

/* The file @path names (relative paths start at "/", the only cwd), read
 * from user memory; NULL with *@err set when there is none. */
static const struct ifile *lookup_user(unsigned long upath, long *err)
{
	char path[PROC_PATH_MAX];
	long n = strncpy_from_user(path, upath, sizeof(path));
	const struct ifile *f;

	if (n < 0)
		return *err = n, NULL;
	if (!n)
		return *err = -ENOENT, NULL;
	f = initramfs_lookup(path);
	if (!f)
		*err = -ENOENT;
	return f;
}

/* A free fd of the current process, or -EMFILE. */
static int fd_alloc(void)
{
	for (int fd = 0; fd < PROC_NR_FDS; fd++)
		if (current_process->fds[fd].kind == FD_NONE)
			return fd;
	return -EMFILE;
}

/* Open the /proc file @e: for writing only where it can be written. */
static long open_proc(const struct proc_entry *e, long flags)
{
	int fd = fd_alloc(), err, access = (int)(flags & O_ACCMODE);

	if (access == O_ACCMODE || (access != O_RDONLY && !e->write))
		return -EACCES;
	if (flags & O_DIRECTORY)
		return -ENOTDIR;
	if (fd < 0)
		return fd;
	err = procfs_open(current_process, &current_process->fds[fd], e);
	if (!err)
		current_process->fds[fd].access = access;
	return err ? err : fd;
}

static long do_open(long dirfd, unsigned long upath, long flags)
{
	struct process *p = current_process;
	char path[PROC_PATH_MAX];
	long err = strncpy_from_user(path, upath, sizeof(path));
	const struct proc_entry *e;
	const struct ifile *f;

	if ((int)dirfd != AT_FDCWD && !fd_get(dirfd))
		return -EBADF;
	if (err < 0)
		return err;
	e = procfs_lookup(p, path);
	if (e)
		return open_proc(e, flags);
	f = lookup_user(upath, &err);
	if (!f)
		return (flags & O_CREAT) && err == -ENOENT ? -EROFS : err;
	if ((flags & O_ACCMODE) != 0)
		return (f->mode & S_IFMT) == S_IFDIR ? -EISDIR : -EROFS;
	if ((flags & O_DIRECTORY) && (f->mode & S_IFMT) != S_IFDIR)
		return -ENOTDIR;
	err = fd_alloc();
	if (err >= 0)
		p->fds[err] = (struct fd){ .kind = FD_FILE, .file = f };
	return err;
}

long sys_openat(struct user_regs *r, const long *a)
{
	(void)r;
	return do_open(a[0], (unsigned long)a[1], a[2]);
}

long sys_open(struct user_regs *r, const long *a)
{
	(void)r;
	return do_open(AT_FDCWD, (unsigned long)a[0], a[1]);
}

long sys_close(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);

	(void)r;
	if (!f)
		return -EBADF;
	if (f->kind == FD_PROC)
		procfs_release(f);
	f->kind = FD_NONE;
	return 0;
}

long sys_pread64(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);

	(void)r;
	if (!f)
		return -EBADF;
	if (f->kind == FD_CONSOLE)
		return -ESPIPE;
	if (a[3] < 0)
		return -EINVAL;
	return file_read(f, (unsigned long)a[1], (size_t)a[2], (uint64_t)a[3]);
}

long sys_pwrite64(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);

	(void)r;
	if (!f)
		return -EBADF;
	if (f->kind == FD_CONSOLE)
		return -ESPIPE;
	if (a[3] < 0)
		return -EINVAL;
	return file_write(f, (unsigned long)a[1], (size_t)a[2], (uint64_t)a[3]);
}

long sys_lseek(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);
	long base;

	(void)r;
	if (!f)
		return -EBADF;
	if (f->kind == FD_CONSOLE)
		return -ESPIPE;
	if (a[2] == SEEK_SET)
		base = 0;
	else if (a[2] == SEEK_CUR)
		base = (long)f->pos;
	else if (a[2] == SEEK_END)
		base = f->kind == FD_PROC ? (long)f->text_len : (long)f->file->size;
	else
		return -EINVAL;
	if (base + a[1] < 0)
		return -EINVAL;
	f->pos = (uint64_t)(base + a[1]);
	return (long)f->pos;
}

/* struct stat of @f (NULL: the console, a character device) at @ubuf. */
static long stat_to_user(const struct ifile *f, unsigned long ubuf)
{
	struct kstat ks = { .dev = 1, .nlink = 1, .blksize = 4096 };
	unsigned char out[ARCH_STAT_MAX];
	unsigned long n;

	if (f) {
		ks.ino = f->ino;
		ks.mode = f->mode;
		ks.size = f->size;
		ks.blocks = (f->size + 511) / 512;
	} else {
		ks.ino = 1;
		ks.mode = S_IFCHR | 0620;
		ks.rdev = (5u << 8) | 1; /* /dev/console */
		ks.blksize = 1024;
	}
	n = arch_stat_encode(&ks, out);
	return copy_to_user(ubuf, out, n);
}

/* What fstat() says of @f: its initramfs file, a /proc file (an empty
 * read-only regular file, as Linux shows them), or NULL: the console. */
static const struct ifile *fd_stat_file(const struct fd *f)
{
	static const struct ifile proc_file = { .mode = S_IFREG | 0444, .ino = 2 };

	if (f->kind == FD_PROC)
		return &proc_file;
	return f->kind == FD_FILE ? f->file : NULL;
}

long sys_fstat(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);

	(void)r;
	if (!f)
		return -EBADF;
	return stat_to_user(fd_stat_file(f), (unsigned long)a[1]);
}

long sys_newfstatat(struct user_regs *r, const long *a)
{
	const struct ifile *file;
	char c;
	long err = 0;

	(void)r;
	if (((int)a[3] & AT_EMPTY_PATH) && !copy_from_user(&c, (unsigned long)a[1], 1) && !c) {
		struct fd *f = fd_get(a[0]);

		if (!f)
			return -EBADF;
		return stat_to_user(fd_stat_file(f), (unsigned long)a[2]);
	}
	if ((int)a[0] != AT_FDCWD && !fd_get(a[0]))
		return -EBADF;
	file = lookup_user((unsigned long)a[1], &err);
	return file ? stat_to_user(file, (unsigned long)a[2]) : err;
}

/* No symbolic links (and no /proc yet): every path is "not a link" or
 * missing. */
static long do_readlink(unsigned long upath)
{
	long err = 0;

	return lookup_user(upath, &err) ? -EINVAL : err;
}

long sys_readlink(struct user_regs *r, const long *a)
{
	(void)r;
	return do_readlink((unsigned long)a[0]);
}

long sys_readlinkat(struct user_regs *r, const long *a)
{
	(void)r;
	return do_readlink((unsigned long)a[1]);
}

#define W_OK 2

static long do_access(unsigned long upath, long mode)
{
	char path[PROC_PATH_MAX];
	long err = strncpy_from_user(path, upath, sizeof(path));

	if (err < 0)
		return err;
	err = procfs_access(current_process, path, mode & W_OK);
	if (err != -ENOENT)
		return err;
	if (!lookup_user(upath, &err))
		return err;
	return mode & W_OK ? -EROFS : 0;
}

long sys_access(struct user_regs *r, const long *a)
{
	(void)r;
	return do_access((unsigned long)a[0], a[1]);
}

long sys_faccessat(struct user_regs *r, const long *a)
{
	(void)r;
	return do_access((unsigned long)a[1], a[2]);
}
