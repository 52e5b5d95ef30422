/*
 * preempt.c - two processes that spin in user space, each until the
 * other has done its part: a ping-pong of ROUNDS bytes over two
 * non-blocking pipes. Neither ever blocks or yields (a read that finds
 * nothing returns EAGAIN, and the process spins on), so without a timer
 * tick that takes the CPU from user code the first to spin keeps it and
 * the run never ends. With preemption every round completes.
 *
 * Prints "preempt: ok ROUNDS rounds" and exits 0; any error exits 1.
 *
 * `preempt fifo`: a SCHED_FIFO parent is not preempted by the tick: its
 * child, which would write a byte at once, does not run while the parent
 * spins for FIFO_MS (polling the pipe, in user space and system calls),
 * only once the parent blocks in waitpid. Prints "preempt: fifo ok".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 20
#define SPIN 100000

static volatile unsigned long sink;

/* Pure user-mode work between two polls. */
static void spin(void)
{
	for (unsigned long i = 0; i < SPIN; i++)
		sink += i;
}

/* Spin until one byte comes from @fd; return it. */
static int spin_read(int fd)
{
	char c;

	for (;;) {
		ssize_t n = read(fd, &c, 1);

		if (n == 1)
			return (unsigned char)c;
		if (n == 0 || errno != EAGAIN) {
			printf("preempt: read returned %zd errno %d\n", n, errno);
			exit(1);
		}
		spin();
	}
}

static void put(int fd, int v)
{
	char c = (char)v;

	if (write(fd, &c, 1) != 1) {
		printf("preempt: write failed errno %d\n", errno);
		exit(1);
	}
}

#define FIFO_MS 300

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int fifo(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	int p[2], status;
	char c;
	pid_t pid;

	if (pipe2(p, O_NONBLOCK) || sched_setscheduler(0, SCHED_FIFO, &sp))
		return 1;
	pid = fork();
	if (pid == 0) {
		put(p[1], 1);
		_exit(0);
	}
	for (long t0 = now_ms(); now_ms() - t0 < FIFO_MS;) {
		if (read(p[0], &c, 1) != -1) {
			printf("preempt: the child ran while its SCHED_FIFO parent spun\n");
			return 1;
		}
		spin();
	}
	if (waitpid(pid, &status, 0) != pid || read(p[0], &c, 1) != 1)
		return 1;
	printf("preempt: fifo ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	int ping[2], pong[2], status;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "fifo"))
		return fifo();

	if (pipe2(ping, O_NONBLOCK) || pipe2(pong, O_NONBLOCK)) {
		printf("preempt: pipe2 failed errno %d\n", errno);
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (int i = 0; i < ROUNDS; i++)
			put(pong[1], spin_read(ping[0]) + 1);
		_exit(0);
	}
	for (int i = 0; i < ROUNDS; i++) {
		put(ping[1], i);
		if (spin_read(pong[0]) != i + 1) {
			printf("preempt: round %d: wrong answer\n", i);
			return 1;
		}
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("preempt: child status %#x\n", status);
		return 1;
	}
	printf("preempt: ok %d rounds\n", ROUNDS);
	return 0;
}
