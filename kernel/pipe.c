/*
 * pipe.c - anonymous pipes (pipe.h): a ring buffer between the fds of
 * processes that share it by fork or dup.
 *
 * Readers and writers sleep on the pipe itself (sched_sleep(pp)); every
 * change a waiter may be waiting for (data in, room made, an end closed)
 * wakes all of them, and each checks its own condition again.
 * Context: the scheduler's (sched.c): one CPU, cooperative, so no lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "ksignal.h"
#include "pipe.h"
#include "process.h"
#include "sched.h"

struct pipe {
	size_t head; /* the next byte to read */
	size_t len;  /* bytes in the buffer, from head (wrapping) */
	int readers, writers;
	char buf[PIPE_SIZE];
};

struct pipe *pipe_create(void)
{
	struct pipe *pp = malloc(sizeof(*pp));

	if (!pp)
		return NULL;
	pp->head = pp->len = 0;
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

void pipe_put(struct pipe *pp, bool write)
{
	int *n = write ? &pp->writers : &pp->readers;

	BUG_ON(*n <= 0);
	--*n;
	if (!pp->readers && !pp->writers) {
		free(pp);
		return;
	}
	if (!*n)
		sched_wakeup(pp);
}

/* Copy out of the ring: at most @len bytes in one contiguous piece. */
static long ring_out(struct pipe *pp, unsigned long buf, size_t len)
{
	size_t n = PIPE_SIZE - pp->head;

	if (n > pp->len)
		n = pp->len;
	if (n > len)
		n = len;
	if (copy_to_user(buf, pp->buf + pp->head, n))
		return -EFAULT;
	pp->head = (pp->head + n) % PIPE_SIZE;
	pp->len -= n;
	return (long)n;
}

/* Copy into the ring: at most @len bytes in one contiguous piece. */
static long ring_in(struct pipe *pp, unsigned long buf, size_t len)
{
	size_t tail = (pp->head + pp->len) % PIPE_SIZE;
	size_t n = tail >= pp->head ? PIPE_SIZE - tail : pp->head - tail;

	if (pp->len == PIPE_SIZE)
		n = 0;
	if (n > len)
		n = len;
	if (copy_from_user(pp->buf + tail, buf, n))
		return -EFAULT;
	pp->len += n;
	return (long)n;
}

long pipe_read(struct pipe *pp, unsigned long buf, size_t len, bool nonblock)
{
	size_t done = 0;

	while (!pp->len) {
		if (!pp->writers || !len)
			return 0;
		if (nonblock)
			return -EAGAIN;
		sched_sleep(pp);
	}
	while (done < len && pp->len) {
		long n = ring_out(pp, buf + done, len - done);

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
static bool write_fits(const struct pipe *pp, size_t left, size_t len)
{
	size_t room = PIPE_SIZE - pp->len;

	return len <= PIPE_BUF ? room >= left : room > 0;
}

long pipe_write(struct pipe *pp, unsigned long buf, size_t len, bool nonblock)
{
	size_t done = 0;

	while (done < len) {
		long n;

		if (!pp->readers) {
			pipe_no_reader();
			return done ? (long)done : -EPIPE;
		}
		if (!write_fits(pp, len - done, len)) {
			if (nonblock)
				return done ? (long)done : -EAGAIN;
			sched_sleep(pp);
			continue;
		}
		n = ring_in(pp, buf + done, len - done);
		if (n < 0)
			return done ? (long)done : n;
		done += (size_t)n;
		sched_wakeup(pp); /* data for readers */
	}
	return (long)done;
}
