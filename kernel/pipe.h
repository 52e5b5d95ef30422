/*
 * pipe.h - an anonymous pipe: a ring of page buffers (PIPE_SIZE bytes of
 * written data, or pages vmsplice() handed over) with counted read and
 * write ends (each fd slot that holds an end is one count; fork and
 * dup add one). sys_file.c makes them (pipe, pipe2) and routes read,
 * write and close of FD_PIPE fds here.
 */
#ifndef KERNEL_PIPE_H
#define KERNEL_PIPE_H

#include <stdbool.h>
#include <stddef.h>

struct mm;
struct pipe;

#define PIPE_SIZE (64u << 10) /* Linux's default: 16 pages */
#define PIPE_BUF 4096	      /* writes up to this size are not split */

/* A new pipe with one read and one write end. Return: it, or NULL. */
struct pipe *pipe_create(void);

/* One more (@write: write, else read) end; one less: the last end of
 * either kind wakes whoever waits on the other, the last of all frees
 * the pipe. */
void pipe_get(struct pipe *pp, bool write);
void pipe_put(struct pipe *pp, bool write);

/*
 * pipe_read - up to @len bytes into user @buf: what is there (a partial
 * read), blocking while the pipe is empty and has a writer (-EAGAIN
 * instead with @nonblock). Return: the bytes read, 0 at end of file (no
 * writer left), -EAGAIN or -EFAULT.
 * pipe_write - @len bytes from user @buf, all of them, blocking while the
 * pipe is full and has a reader; with @nonblock as much as fits now
 * (-EAGAIN for none). Return: the bytes written, -EPIPE when no reader
 * is left (SIGPIPE is the signal code's), -EAGAIN or -EFAULT.
 * Context: the current process's system call; may switch (sched_sleep()).
 */
long pipe_read(struct pipe *pp, unsigned long buf, size_t len, bool nonblock);
long pipe_write(struct pipe *pp, unsigned long buf, size_t len, bool nonblock);

/*
 * pipe_splice_user - vmsplice() into the pipe: a buffer per page of
 * [@addr, @addr + @len) in @mm, each holding a reference on the page
 * (get_user_pages(), no FOLL_WRITE, no pin) instead of a copy, as many
 * as there are free buffers: it blocks only while every buffer is in use
 * and nothing was handed over yet (-EAGAIN with @nonblock).
 * Return: the bytes handed over (short when the pipe filled up), -EPIPE
 * (no reader), -EFAULT (the first page cannot be taken) or -EAGAIN.
 * Context: as pipe_write().
 */
long pipe_splice_user(struct pipe *pp, struct mm *mm, unsigned long addr, size_t len,
		      bool nonblock);

#endif
