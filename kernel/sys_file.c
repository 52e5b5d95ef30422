/*
 * sys_file.c - file descriptors: the console (0, 1, 2 at start),
 * read-only initramfs files, the /proc/self files (procfs.h) and pipes
 * (pipe.h). Writes go to the console and pipes only; anything that would
 * change the file table answers -EROFS. The fd table itself: dup, dup2,
 * dup3, fcntl, and its copy for fork.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "initramfs.h"
#include "kernel.h"
#include "pipe.h"
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

	struct process *p = process_group(current_process);

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
		return procfs_read(process_group(current_process), f, buf, len, pos);
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
	if (f->kind == FD_PIPE)
		return f->pipe_write ? -EBADF : pipe_read(f->pipe, buf, len, f->flags & O_NONBLOCK);
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
	return procfs_write(process_group(current_process), f, buf, len, pos);
}

static long do_write(long fd, unsigned long buf, size_t len)
{
	struct fd *f = fd_get(fd);
	long n;

	if (!f)
		return -EBADF;
	if (f->kind == FD_PIPE)
		return f->pipe_write ? pipe_write(f->pipe, buf, len, f->flags & O_NONBLOCK)
				     : -EBADF;
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

#define SPLICE_F_NONBLOCK 2

/* vmsplice(): into a pipe's write end, the user pages themselves (a
 * reference each, pipe_splice_user()); out of a read end, a copy as
 * readv. Each iovec in turn, stopping at a short transfer. */
long sys_vmsplice(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);
	long total = 0, cnt = a[2];

	(void)r;
	if (!f || f->kind != FD_PIPE)
		return -EBADF;
	if ((unsigned long)cnt > IOV_MAX)
		return -EINVAL;
	for (long i = 0; i < cnt; i++) {
		unsigned long v[2];
		bool nonblock = (a[3] & SPLICE_F_NONBLOCK) || (f->flags & O_NONBLOCK);
		long n;

		if (copy_from_user(v, (unsigned long)a[1] + (unsigned long)i * sizeof(v),
				   sizeof(v)))
			return total ? total : -EFAULT;
		n = f->pipe_write ? pipe_splice_user(f->pipe, process_group(current_process)->mm,
						     v[0], v[1], nonblock)
				  : pipe_read(f->pipe, v[0], v[1], nonblock);
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
		if (process_group(current_process)->fds[fd].kind == FD_NONE)
			return fd;
	return -EMFILE;
}

/* Open the /proc file @e: for writing only where it can be written. */
static long open_proc(const struct proc_entry *e, long flags)
{
	int fd = fd_alloc(), err, access = (int)(flags & O_ACCMODE);

	if (access == O_ACCMODE || (access != O_RDONLY && !e->write && !e->ioctl))
		return -EACCES;
	if (flags & O_DIRECTORY)
		return -ENOTDIR;
	if (fd < 0)
		return fd;
	err = procfs_open(process_group(current_process), &process_group(current_process)->fds[fd],
			  e);
	if (!err)
		process_group(current_process)->fds[fd].access = access;
	return err ? err : fd;
}

static long do_open(long dirfd, unsigned long upath, long flags)
{
	struct process *p = process_group(current_process);
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

/* Empty the slot @f, dropping what it holds. */
static void fd_close(struct fd *f)
{
	if (f->kind == FD_PROC)
		procfs_release(f);
	if (f->kind == FD_PIPE)
		pipe_put(f->pipe, f->pipe_write);
	*f = (struct fd){ .kind = FD_NONE };
}

long sys_close(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);

	(void)r;
	if (!f)
		return -EBADF;
	fd_close(f);
	return 0;
}

/* pread64 / pwrite64: at the offset given, the fd's own untouched. */
static long do_pio(const long *a, bool write)
{
	struct fd *f = fd_get(a[0]);

	if (!f)
		return -EBADF;
	if (f->kind == FD_CONSOLE || f->kind == FD_PIPE)
		return -ESPIPE;
	if (a[3] < 0)
		return -EINVAL;
	return write ? file_write(f, (unsigned long)a[1], (size_t)a[2], (uint64_t)a[3])
		     : file_read(f, (unsigned long)a[1], (size_t)a[2], (uint64_t)a[3]);
}

long sys_pread64(struct user_regs *r, const long *a)
{
	(void)r;
	return do_pio(a, false);
}

long sys_pwrite64(struct user_regs *r, const long *a)
{
	(void)r;
	return do_pio(a, true);
}

long sys_lseek(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);
	long base;

	(void)r;
	if (!f)
		return -EBADF;
	if (f->kind == FD_CONSOLE || f->kind == FD_PIPE)
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
 * read-only regular file, as Linux shows them), a FIFO for a pipe end,
 * or NULL: the console. */
static const struct ifile *fd_stat_file(const struct fd *f)
{
	static const struct ifile proc_file = { .mode = S_IFREG | 0444, .ino = 2 };
	static const struct ifile pipe_file = { .mode = S_IFIFO | 0600, .ino = 3 };

	if (f->kind == FD_PROC)
		return &proc_file;
	if (f->kind == FD_PIPE)
		return &pipe_file;
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
	err = procfs_access(process_group(current_process), path, mode & W_OK);
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

/* ---- the fd table: pipes, dup, fcntl, fork --------------------------------- */

/* @dst (empty) becomes another slot for what @src holds. Return: 0, or
 * -ENOMEM (a /proc snapshot could not be copied; @dst stays empty). */
static int fd_copy(struct fd *dst, const struct fd *src)
{
	*dst = *src;
	if (src->kind == FD_PIPE)
		pipe_get(src->pipe, src->pipe_write);
	if (src->kind == FD_PROC && src->text) {
		dst->text = malloc(src->text_len ? src->text_len : 1);
		if (!dst->text) {
			*dst = (struct fd){ .kind = FD_NONE };
			return -ENOMEM;
		}
		memcpy(dst->text, src->text, src->text_len);
	}
	return 0;
}

void fd_close_all(struct process *p)
{
	for (int fd = 0; fd < PROC_NR_FDS; fd++)
		if (p->fds[fd].kind != FD_NONE)
			fd_close(&p->fds[fd]);
}

int fd_table_copy(struct process *dst, const struct process *src)
{
	for (int fd = 0; fd < PROC_NR_FDS; fd++)
		dst->fds[fd] = (struct fd){ .kind = FD_NONE };
	for (int fd = 0; fd < PROC_NR_FDS; fd++)
		if (src->fds[fd].kind != FD_NONE && fd_copy(&dst->fds[fd], &src->fds[fd])) {
			fd_close_all(dst);
			return -ENOMEM;
		}
	return 0;
}

/* pipe2's flags: O_CLOEXEC, O_NONBLOCK (O_DIRECT packet mode: not here). */
static long do_pipe2(unsigned long ufds, long flags)
{
	struct process *p = process_group(current_process);
	struct pipe *pp;
	int fds[2];

	if (flags & ~(long)(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	fds[0] = fd_alloc();
	if (fds[0] < 0)
		return fds[0];
	p->fds[fds[0]].kind = FD_CONSOLE; /* held while the second is found */
	fds[1] = fd_alloc();
	p->fds[fds[0]].kind = FD_NONE;
	if (fds[1] < 0)
		return fds[1];
	if (copy_to_user(ufds, fds, sizeof(fds)))
		return -EFAULT;
	pp = pipe_create();
	if (!pp)
		return -ENOMEM;
	for (int i = 0; i < 2; i++)
		p->fds[fds[i]] = (struct fd){ .kind = FD_PIPE,
					      .pipe = pp,
					      .pipe_write = i == 1,
					      .flags = (unsigned)flags & O_NONBLOCK,
					      .cloexec = flags & O_CLOEXEC };
	return 0;
}

long sys_pipe2(struct user_regs *r, const long *a)
{
	(void)r;
	return do_pipe2((unsigned long)a[0], a[1]);
}

long sys_pipe(struct user_regs *r, const long *a)
{
	(void)r;
	return do_pipe2((unsigned long)a[0], 0);
}

/* Make @newfd (closed first if open) a copy of @oldfd, with FD_CLOEXEC
 * as @cloexec says. */
static long dup_into(struct fd *old, int newfd, bool cloexec)
{
	struct fd *nf = &process_group(current_process)->fds[newfd];
	int err;

	if (nf->kind != FD_NONE)
		fd_close(nf);
	err = fd_copy(nf, old);
	if (err)
		return err;
	nf->cloexec = cloexec;
	return newfd;
}

/* The lowest free fd at or above @min, or -EMFILE (-EINVAL: @min out of range). */
static int fd_alloc_from(long min)
{
	if (min < 0 || min >= PROC_NR_FDS)
		return -EINVAL;
	for (int fd = (int)min; fd < PROC_NR_FDS; fd++)
		if (process_group(current_process)->fds[fd].kind == FD_NONE)
			return fd;
	return -EMFILE;
}

long sys_dup(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);
	int fd = fd_alloc();

	(void)r;
	if (!f)
		return -EBADF;
	return fd < 0 ? fd : dup_into(f, fd, false);
}

static long do_dup3(long oldfd, long newfd, long flags)
{
	struct fd *f = fd_get(oldfd);

	if (flags & ~(long)O_CLOEXEC)
		return -EINVAL;
	if (!f)
		return -EBADF;
	if ((int)newfd < 0 || (int)newfd >= PROC_NR_FDS)
		return -EBADF;
	return dup_into(f, (int)newfd, flags & O_CLOEXEC);
}

long sys_dup3(struct user_regs *r, const long *a)
{
	(void)r;
	if ((int)a[0] == (int)a[1])
		return -EINVAL;
	return do_dup3(a[0], a[1], a[2]);
}

long sys_dup2(struct user_regs *r, const long *a)
{
	(void)r;
	if ((int)a[0] == (int)a[1])
		return fd_get(a[0]) ? (int)a[1] : -EBADF;
	return do_dup3(a[0], a[1], 0);
}

#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define O_RDONLY 0
#define O_WRONLY 1
#define O_RDWR 2

/* F_GETFL: the access mode the fd was opened with, and O_NONBLOCK. */
static long fd_getfl(const struct fd *f)
{
	long mode = f->kind == FD_CONSOLE		  ? O_RDWR
		    : f->kind == FD_PIPE && f->pipe_write ? O_WRONLY
							  : O_RDONLY;

	return mode | (long)f->flags;
}

long sys_fcntl(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);
	int fd;

	(void)r;
	if (!f)
		return -EBADF;
	switch ((int)a[1]) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		fd = fd_alloc_from(a[2]);
		return fd < 0 ? fd : dup_into(f, fd, (int)a[1] == F_DUPFD_CLOEXEC);
	case F_GETFD:
		return f->cloexec ? FD_CLOEXEC : 0;
	case F_SETFD:
		f->cloexec = a[2] & FD_CLOEXEC;
		return 0;
	case F_GETFL:
		return fd_getfl(f);
	case F_SETFL:
		f->flags = (unsigned)a[2] & O_NONBLOCK; /* the only flag it may change here */
		return 0;
	}
	return -EINVAL;
}

/* ioctl: a /proc or /sys file's own (the gup_test device); else -ENOTTY
 * (so stdout is not a terminal: glibc buffers it fully). */
long sys_ioctl(struct user_regs *r, const long *a)
{
	struct fd *f = fd_get(a[0]);

	(void)r;
	if (!f)
		return -EBADF;
	if (f->kind != FD_PROC)
		return -ENOTTY;
	return procfs_ioctl(process_group(current_process), f, (unsigned long)a[1],
			    (unsigned long)a[2]);
}
