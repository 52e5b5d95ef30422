/*
 * pipe.c - anonymous pipes (pipe.h): a ring of PIPE_BUFFERS buffers of
 * at most a page each, as Linux's pipe_inode_info has them, between the
 * fds of processes that share it by fork or dup.
 *
 * A buffer holds either bytes a write() copied into a kernel page of the
 * pipe's own, or a user page that vmsplice() took a reference on with
 * GUP (FOLL_GET, as Linux's vmsplice does: no pin, no unshare). A reader
 * copies out of the page either way; the reference is dropped when the
 * buffer is used up. So what a reader gets from a spliced buffer is the
 * page's contents at the time of the read: which page that is, after a
 * fork and a write, is what Linux's selftest cow.c checks.
 *
 * Readers and writers sleep on the pipe itself (sched_sleep(pp)); every
 * change a waiter may be waiting for (data in, room made, an end closed)
 * wakes all of them, and each checks its own condition again.
 * Context: the scheduler's (scheduler.c): one CPU, and kernel code is
 * never preempted, so no lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "gup.h"
#include "kernel.h"
#include "ksignal.h"
#include "page.h"
#include "pipe.h"
#include "process.h"
#include "scheduler.h"

#define PIPE_BUFFERS (PIPE_SIZE / PAGE_SIZE)

struct pipe_buffer {
	char *data;	   /* the page's bytes: page_address(page) or the pipe's own */
	struct page *page; /* vmsplice: the user page GUP took a reference on; else NULL */
	unsigned off, len; /* the unread bytes: data[off, off + len) */
};

struct pipe {
	unsigned head, nr; /* the first buffer to read, buffers in use (wrapping) */
	int readers, writers;
	struct pipe_buffer bufs[PIPE_BUFFERS];
};

struct pipe *pipe_create(void)
{
	struct pipe *pp = calloc(1, sizeof(*pp));

	if (!pp)
		return NULL;
	pp->readers = pp->writers = 1;
	return pp;
}

void pipe_get(struct pipe *pp, bool write)
{
	if (write)
		pp->writers++;
	else
		pp->readers++;
}

static void buf_release(struct pipe_buffer *b)
{
	if (b->page)
		put_user_pages(&b->page, 1);
	else
		free(b->data);
	*b = (struct pipe_buffer){ 0 };
}

void pipe_put(struct pipe *pp, bool write)
{
	int *n = write ? &pp->writers : &pp->readers;

	BUG_ON(*n <= 0);
	--*n;
	if (!pp->readers && !pp->writers) {
		for (; pp->nr; pp->nr--, pp->head = (pp->head + 1) % PIPE_BUFFERS)
			buf_release(&pp->bufs[pp->head]);
		free(pp);
		return;
	}
	if (!*n)
		sched_wakeup(pp);
}

/* The last buffer in use, or NULL. */
static struct pipe_buffer *last_buf(struct pipe *pp)
{
	return pp->nr ? &pp->bufs[(pp->head + pp->nr - 1) % PIPE_BUFFERS] : NULL;
}

/* Bytes a write() may still add: the free buffers, and the room after
 * the last one when it is the pipe's own page. */
static size_t pipe_room(struct pipe *pp)
{
	struct pipe_buffer *b = last_buf(pp);
	size_t room = (PIPE_BUFFERS - pp->nr) * PAGE_SIZE;

	if (b && !b->page)
		room += PAGE_SIZE - b->off - b->len;
	return room;
}

/* Copy out of the first buffer: at most @len bytes; a used-up buffer is released. */
static long buf_out(struct pipe *pp, unsigned long buf, size_t len)
{
	struct pipe_buffer *b = &pp->bufs[pp->head];
	size_t n = len < b->len ? len : b->len;

	if (copy_to_user(buf, b->data + b->off, n))
		return -EFAULT;
	b->off += (unsigned)n;
	b->len -= (unsigned)n;
	if (!b->len) {
		buf_release(b);
		pp->head = (pp->head + 1) % PIPE_BUFFERS;
		pp->nr--;
	}
	return (long)n;
}

/* Copy into the last buffer's room, or a new buffer: at most @len bytes. */
static long buf_in(struct pipe *pp, unsigned long buf, size_t len)
{
	struct pipe_buffer *b = last_buf(pp);
	bool fresh = !b || b->page || b->off + b->len == PAGE_SIZE;
	size_t n;

	if (fresh) {
		char *data = malloc(PAGE_SIZE);

		if (!data)
			return -ENOMEM;
		b = &pp->bufs[(pp->head + pp->nr++) % PIPE_BUFFERS];
		*b = (struct pipe_buffer){ .data = data };
	}
	n = PAGE_SIZE - b->off - b->len;
	n = len < n ? len : n;
	if (copy_from_user(b->data + b->off + b->len, buf, n)) {
		if (fresh) {
			buf_release(b);
			pp->nr--;
		}
		return -EFAULT;
	}
	b->len += (unsigned)n;
	return (long)n;
}

long pipe_read(struct pipe *pp, unsigned long buf, size_t len, bool nonblock)
{
	size_t done = 0;

	while (!pp->nr) {
		if (!pp->writers || !len)
			return 0;
		if (nonblock)
			return -EAGAIN;
		sched_sleep(pp);
	}
	while (done < len && pp->nr) {
		long n = buf_out(pp, buf + done, len - done);

		if (n < 0) {
			if (!done)
				return n;
			break;
		}
		done += (size_t)n;
	}
	sched_wakeup(pp); /* room for writers */
	return (long)done;
}

/* A write found no reader left: SIGPIPE to the writer (delivered on the
 * way out of the call, which fails with -EPIPE or returns what it wrote). */
static void pipe_no_reader(void)
{
	struct linux_siginfo info = { .code = 0 }; /* SI_USER, as Linux's send_sig() */

	info.kill.pid = current_process->pid;
	signal_send(SIGPIPE, &info);
}

/* May a write of @left more bytes (of @len) go on now? Writes up to
 * PIPE_BUF wait for room for all of them, longer ones for any room. */
static bool write_fits(struct pipe *pp, size_t left, size_t len)
{
	size_t room = pipe_room(pp);

	return len <= PIPE_BUF ? room >= left : room > 0;
}

/* Wait until the pipe can take more (@splice: a free buffer; else
 * write_fits()). Return: 0, -EPIPE (no reader: SIGPIPE sent) or -EAGAIN. */
static long wait_room(struct pipe *pp, size_t left, size_t len, bool splice, bool nonblock)
{
	for (;;) {
		if (!pp->readers) {
			pipe_no_reader();
			return -EPIPE;
		}
		if (splice ? pp->nr < PIPE_BUFFERS : write_fits(pp, left, len))
			return 0;
		if (nonblock)
			return -EAGAIN;
		sched_sleep(pp);
	}
}

long pipe_write(struct pipe *pp, unsigned long buf, size_t len, bool nonblock)
{
	size_t done = 0;

	while (done < len) {
		long n = wait_room(pp, len - done, len, false, nonblock);

		if (!n)
			n = buf_in(pp, buf + done, len - done);
		if (n < 0)
			return done ? (long)done : n;
		done += (size_t)n;
		sched_wakeup(pp); /* data for readers */
	}
	return (long)done;
}

long pipe_splice_user(struct pipe *pp, struct mm *mm, unsigned long addr, size_t len, bool nonblock)
{
	size_t done = 0;

	while (done < len) {
		unsigned long a = addr + done, off = a & (PAGE_SIZE - 1);
		size_t n = PAGE_SIZE - off < len - done ? PAGE_SIZE - off : len - done;
		struct page *page;
		long err;

		if (done && pp->nr == PIPE_BUFFERS)
			break; /* as Linux: wait for room only before the first buffer */
		err = wait_room(pp, 0, 0, true, nonblock);

		if (!err && get_user_pages(mm, a - off, 1, 0, &page) != 1)
			err = -EFAULT;
		if (err)
			return done ? (long)done : err;
		pp->bufs[(pp->head + pp->nr++) % PIPE_BUFFERS] =
			(struct pipe_buffer){ .data = page_address(page),
					      .page = page,
					      .off = (unsigned)off,
					      .len = (unsigned)n };
		done += n;
		sched_wakeup(pp); /* data for readers */
	}
	return (long)done;
}
