/*
 * preempt.c - two processes that spin in user space, each until the
 * other has done its part: a ping-pong of ROUNDS bytes over two
 * non-blocking pipes. Neither ever blocks or yields (a read that finds
 * nothing returns EAGAIN, and the process spins on), so without a timer
 * tick that takes the CPU from user code the first to spin keeps it and
 * the run never ends. With preemption every round completes.
 *
 * Prints "preempt: ok ROUNDS rounds" and exits 0; any error exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
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

int main(void)
{
	int ping[2], pong[2], status;
	pid_t pid;

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
