/*
 * forktest.c - processes from user space, each case checked by the
 * parent: fork and copy-on-write (each side keeps its own value, the
 * child's exit status 3 through waitpid), a pipe carrying 200 KiB from a
 * child (partial reads, end of file only when every write end is closed),
 * 20 children reaped by wait(-1), a child killed by a fault while the
 * parent lives, a zombie reaped after the parent yielded, WNOHANG,
 * ECHILD, dup2 of a pipe onto stdout, fcntl, EPIPE, vfork, clone's tid
 * pointers, clone with CLONE_VM but not CLONE_THREAD (-ENOSYS), an orphan
 * adopted by pid 1.
 *
 * `forktest` runs every case but "late", "stuck" (pid 1 exits before
 * its children there) and "stuck_init" (pid 1 blocks for good);
 * `forktest NAME...` runs the ones named. Each prints "forktest: NAME ok" or the first check that failed; the exit
 * status is the number of failed cases.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KIB 1024

static const char *cur;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("forktest: %s: FAILED at line %d: %s\n", cur, __LINE__, #cond);     \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

/* In a child: exit with 99 when @cond fails (the parent checks the status). */
#define CHILD_CHECK(cond)                                                                          \
	do {                                                                                       \
		if (!(cond))                                                                       \
			_exit(99);                                                                 \
	} while (0)

/* fork after the buffered output is out, so a child does not print it again. */
static pid_t xfork(void)
{
	fflush(stdout);
	return fork();
}

/* The child writes the page the parent wrote: each then sees its own. */
static int case_cow(void)
{
	volatile char *p =
		mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t parent = getpid(), pid;
	int st;

	CHECK(p != MAP_FAILED);
	p[0] = 'P';
	pid = xfork();
	CHECK(pid >= 0);
	if (!pid) {
		CHILD_CHECK(p[0] == 'P' && getppid() == parent && getpid() != parent);
		p[0] = 'C';
		CHILD_CHECK(p[0] == 'C');
		_exit(3);
	}
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	CHECK(p[0] == 'P');
	p[0] = 'Q'; /* the parent's page is writable again */
	CHECK(p[0] == 'Q');
	return 0;
}

#define PIPE_TOTAL (200 * KIB)

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + i / 4096);
}

/* The child writes PIPE_TOTAL bytes in one call; the parent reads them
 * back in reads that come back short, then end of file. */
static int case_pipe(void)
{
	static unsigned char buf[PIPE_TOTAL], in[100 * KIB];
	size_t got = 0, partial = 0;
	int fds[2], st;
	pid_t pid;

	CHECK(pipe(fds) == 0);
	pid = xfork();
	CHECK(pid >= 0);
	if (!pid) {
		close(fds[0]);
		for (size_t i = 0; i < PIPE_TOTAL; i++)
			buf[i] = pattern(i);
		CHILD_CHECK(write(fds[1], buf, PIPE_TOTAL) == PIPE_TOTAL);
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n = read(fds[0], in, sizeof(in));

		CHECK(n >= 0);
		if (!n)
			break;
		for (ssize_t i = 0; i < n; i++)
			CHECK(in[i] == pattern(got + (size_t)i));
		got += (size_t)n;
		partial += (size_t)n < sizeof(in);
	}
	CHECK(got == PIPE_TOTAL);
	CHECK(partial > 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[0]);
	return 0;
}

/* A write end kept by a second process holds end of file back. */
static int case_pipe_refcount(void)
{
	int fds[2], st;
	char c;
	pid_t pid;

	CHECK(pipe(fds) == 0);
	pid = xfork();
	CHECK(pid >= 0);
	if (!pid) {
		close(fds[0]);
		sched_yield(); /* the parent closes its write end and reads */
		CHILD_CHECK(write(fds[1], "x", 1) == 1);
		_exit(0);
	}
	close(fds[1]);
	CHECK(read(fds[0], &c, 1) == 1 && c == 'x');
	CHECK(read(fds[0], &c, 1) == 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[0]);
	return 0;
}

#define NCHILD 20

/* 20 children, each exiting with its index, reaped by wait(-1) in any
 * order; then there is nobody left to wait for. */
static int case_many(void)
{
	pid_t pids[NCHILD];
	unsigned seen = 0;

	for (int i = 0; i < NCHILD; i++) {
		pids[i] = xfork();
		CHECK(pids[i] >= 0);
		if (!pids[i])
			_exit(i + 10);
	}
	for (int i = 0; i < NCHILD; i++) {
		int st, k;
		pid_t pid = wait(&st);

		CHECK(pid > 0 && WIFEXITED(st));
		k = WEXITSTATUS(st) - 10;
		CHECK(k >= 0 && k < NCHILD && pids[k] == pid && !(seen & (1u << k)));
		seen |= 1u << k;
	}
	CHECK(seen == (1u << NCHILD) - 1);
	CHECK(wait(NULL) == -1 && errno == ECHILD);
	return 0;
}

/* A child's fault ends the child (SIGSEGV); the parent goes on. */
static int case_segv(void)
{
	volatile char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int st;
	pid_t pid;

	CHECK(ro != MAP_FAILED);
	pid = xfork();
	CHECK(pid >= 0);
	if (!pid) {
		ro[0] = 1;
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV && !WCOREDUMP(st));
	return 0;
}

/* The child exits while the parent yields; the zombie is there to reap
 * at once (WNOHANG finds it). */
static int case_zombie(void)
{
	int st;
	pid_t pid = xfork();

	CHECK(pid >= 0);
	if (!pid)
		_exit(7);
	for (int i = 0; i < 3; i++)
		sched_yield();
	CHECK(waitpid(pid, &st, WNOHANG) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	return 0;
}

/* WNOHANG with a child that has not exited: 0; then the child is let go. */
static int case_wnohang(void)
{
	int fds[2], st;
	char c;
	pid_t pid;

	CHECK(pipe(fds) == 0);
	pid = xfork();
	CHECK(pid >= 0);
	if (!pid) {
		close(fds[1]);
		CHILD_CHECK(read(fds[0], &c, 1) == 1);
		_exit(0);
	}
	close(fds[0]);
	sched_yield(); /* the child blocks in read */
	CHECK(waitpid(pid, &st, WNOHANG) == 0);
	CHECK(waitpid(-1, &st, WNOHANG) == 0);
	CHECK(write(fds[1], "go", 1) == 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[1]);
	return 0;
}

static int case_echild(void)
{
	CHECK(waitpid(-1, NULL, 0) == -1 && errno == ECHILD);
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
	CHECK(waitpid(12345, NULL, 0) == -1 && errno == ECHILD);
	return 0;
}

/* The child's stdout is the pipe (dup2); its printf arrives in the parent. */
static int case_dup2(void)
{
	char in[64] = { 0 };
	int fds[2], st, n = 0;
	ssize_t r;
	pid_t pid;

	CHECK(pipe(fds) == 0);
	pid = xfork();
	CHECK(pid >= 0);
	if (!pid) {
		close(fds[0]);
		CHILD_CHECK(dup2(fds[1], 1) == 1);
		close(fds[1]);
		printf("through the pipe %d\n", 42);
		fflush(stdout);
		_exit(0);
	}
	close(fds[1]);
	while ((r = read(fds[0], in + n, sizeof(in) - 1 - (size_t)n)) > 0)
		n += (int)r;
	CHECK(!strcmp(in, "through the pipe 42\n"));
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[0]);
	return 0;
}

/* O_NONBLOCK, FD_CLOEXEC, dup, and a write with no reader left. */
static int case_fcntl(void)
{
	int fds[2], d;
	char c;

	CHECK(pipe2(fds, O_CLOEXEC) == 0);
	CHECK(fcntl(fds[0], F_GETFD) == FD_CLOEXEC);
	CHECK(fcntl(fds[0], F_SETFD, 0) == 0 && fcntl(fds[0], F_GETFD) == 0);
	CHECK((fcntl(fds[0], F_GETFL) & O_ACCMODE) == O_RDONLY);
	CHECK((fcntl(fds[1], F_GETFL) & O_ACCMODE) == O_WRONLY);
	CHECK(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0);
	CHECK(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
	CHECK(read(fds[0], &c, 1) == -1 && errno == EAGAIN);
	d = dup(fds[1]);
	CHECK(d > fds[1]);
	close(fds[1]);
	CHECK(write(d, "y", 1) == 1);
	CHECK(read(fds[0], &c, 1) == 1 && c == 'y');
	close(d);
	CHECK(read(fds[0], &c, 1) == 0); /* no writer: end of file, not EAGAIN */
	CHECK(pipe(fds) == 0);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	CHECK(write(fds[1], "z", 1) == -1 && errno == EPIPE);
	close(fds[1]);
	CHECK(dup2(fds[1], 5) == -1 && errno == EBADF);
	return 0;
}

static int case_vfork(void)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = vfork();
	if (!pid)
		_exit(5);
	CHECK(pid > 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 5);
	return 0;
}

/* clone's tid pointers, in each arch's argument order: the child's tid
 * lands in the child's memory (CLONE_CHILD_SETTID) and the parent's
 * (CLONE_PARENT_SETTID); CLONE_VM without CLONE_VFORK or CLONE_THREAD (a
 * process sharing its parent's memory, not supported): ENOSYS. Threads
 * are threads.c's. */
static volatile int ctid, ptid;

static long raw_clone(unsigned long flags, volatile int *parent_tid, volatile int *child_tid)
{
#ifdef __aarch64__
	return syscall(SYS_clone, flags, 0, parent_tid, 0, child_tid);
#else
	return syscall(SYS_clone, flags, 0, parent_tid, child_tid, 0);
#endif
}

static int case_clone(void)
{
	int st;
	long pid;

	fflush(stdout);
	pid = raw_clone(CLONE_CHILD_SETTID | CLONE_PARENT_SETTID | SIGCHLD, &ptid, &ctid);
	if (!pid)
		_exit(ctid == syscall(SYS_getpid) ? 0 : 99);
	CHECK(pid > 0);
	CHECK(waitpid((pid_t)pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(ctid == 0 && ptid == pid);
	CHECK(raw_clone(CLONE_VM | SIGCHLD, NULL, NULL) == -1 && errno == ENOSYS);
	return 0;
}

/* A grandchild whose parent exits goes to pid 1 (getppid says 1), and
 * pid 1's wait(-1) reaps it. Needs to run as pid 1. */
static int case_orphan(void)
{
	int fds[2], st;
	pid_t mid, grand = 0;
	char c;

	CHECK(getpid() == 1);
	CHECK(pipe(fds) == 0);
	mid = xfork();
	CHECK(mid >= 0);
	if (!mid) {
		grand = fork();
		if (!grand) {
			close(fds[1]);
			CHILD_CHECK(read(fds[0], &c, 1) == 1); /* until its parent is gone */
			_exit(getppid() == 1 ? 21 : 99);
		}
		_exit(grand > 0 ? 20 : 99);
	}
	close(fds[0]);
	CHECK(waitpid(mid, &st, 0) == mid && WIFEXITED(st) && WEXITSTATUS(st) == 20);
	CHECK(write(fds[1], "o", 1) == 1);
	CHECK(wait(&st) > mid && WIFEXITED(st) && WEXITSTATUS(st) == 21);
	close(fds[1]);
	return 0;
}

/* Not in the default set (tests/user/run.sh runs them by name): pid 1
 * ends first, and the kernel waits for its children. "late" leaves one
 * that prints after pid 1 has exited; "stuck" one blocked for good on a
 * pipe it holds both ends of (the kernel kills it when nothing else can
 * run). */
static int case_late(void)
{
	pid_t pid = xfork();

	CHECK(pid >= 0);
	if (!pid) {
		for (int i = 0; i < 3; i++)
			sched_yield();
		printf("forktest: late child %d ran after pid 1 exited, parent %d\n", (int)getpid(),
		       (int)getppid());
		fflush(stdout);
		_exit(0);
	}
	return 0;
}

static int case_stuck(void)
{
	int fds[2];
	char c;
	pid_t pid;

	CHECK(pipe(fds) == 0);
	pid = xfork();
	CHECK(pid >= 0);
	if (!pid) {
		CHILD_CHECK(read(fds[0], &c, 1) == 1);
		_exit(0);
	}
	return 0;
}

/* pid 1 itself blocks for good: the run ends with SIGKILL's 137. */
static int case_stuck_init(void)
{
	int fds[2];
	char c;

	CHECK(pipe(fds) == 0);
	fflush(stdout);
	read(fds[0], &c, 1);
	printf("forktest: stuck_init: read returned\n");
	return 1;
}

static volatile int chld_count, chld_pid, chld_code, pipe_count;

static void on_sigchld(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	chld_count++;
	chld_pid = si->si_pid;
	chld_code = si->si_code;
}

/* A child's exit raises SIGCHLD in the parent: CLD_EXITED, the child's
 * pid; a child killed by a signal: CLD_KILLED. */
static int case_sigchld(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigchld, .sa_flags = SA_SIGINFO };
	pid_t pid;

	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
	pid = xfork();
	if (!pid)
		_exit(5);
	CHECK(waitpid(pid, NULL, 0) == pid);
	CHECK(chld_count == 1 && chld_pid == pid && chld_code == CLD_EXITED);
	pid = xfork();
	if (!pid)
		*(volatile char *)0 = 1;
	CHECK(waitpid(pid, NULL, 0) == pid);
	CHECK(chld_count == 2 && chld_pid == pid && chld_code == CLD_KILLED);
	signal(SIGCHLD, SIG_DFL);
	return 0;
}

static void on_sigpipe(int sig)
{
	(void)sig;
	pipe_count++;
}

/* A write to a pipe with no reader: SIGPIPE, then -EPIPE; SIG_IGN: only
 * -EPIPE. */
static int case_sigpipe(void)
{
	int fds[2];
	char c = 'x';

	CHECK(pipe(fds) == 0 && close(fds[0]) == 0);
	CHECK(signal(SIGPIPE, on_sigpipe) != SIG_ERR);
	errno = 0;
	CHECK(write(fds[1], &c, 1) == -1 && errno == EPIPE && pipe_count == 1);
	CHECK(signal(SIGPIPE, SIG_IGN) != SIG_ERR);
	CHECK(write(fds[1], &c, 1) == -1 && errno == EPIPE && pipe_count == 1);
	signal(SIGPIPE, SIG_DFL);
	close(fds[1]);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
	int by_name_only;
} cases[] = {
	{ "cow", case_cow, 0 },
	{ "pipe", case_pipe, 0 },
	{ "pipe_refcount", case_pipe_refcount, 0 },
	{ "many", case_many, 0 },
	{ "segv", case_segv, 0 },
	{ "zombie", case_zombie, 0 },
	{ "wnohang", case_wnohang, 0 },
	{ "echild", case_echild, 0 },
	{ "dup2", case_dup2, 0 },
	{ "fcntl", case_fcntl, 0 },
	{ "vfork", case_vfork, 0 },
	{ "clone", case_clone, 0 },
	{ "orphan", case_orphan, 0 },
	{ "sigchld", case_sigchld, 0 },
	{ "sigpipe", case_sigpipe, 0 },
	{ "late", case_late, 1 },
	{ "stuck", case_stuck, 1 },
	{ "stuck_init", case_stuck_init, 1 },
};

int main(int argc, char **argv)
{
	int failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int run = argc < 2 && !cases[i].by_name_only;

		for (int a = 1; a < argc; a++)
			run |= !strcmp(argv[a], cases[i].name);
		if (!run)
			continue;
		cur = cases[i].name;
		if (cases[i].fn())
			failed++;
		else
			printf("forktest: %s ok\n", cur);
	}
	printf("forktest: %d failed\n", failed);
	return failed;
}
