/*
 * threads.c - glibc's threads on ptelab: pthread_create and join (each
 * thread its own tid, the process one pid), a mutex-protected counter
 * across 4 threads with a long critical section (most ticks land in it,
 * so the others wait on the futex: about 100 waits a run), pthread_cancel of a
 * thread spinning in pthread_testcancel() (as migration.c's access_mem),
 * tgkill to one thread (its handler runs in that thread), a futex wait
 * that times out, fork and wait4 from a thread (the child has the one mm
 * copied), sched_getaffinity, and exit from a thread ending the whole
 * process (exit_group) while its main thread waits in pthread_join (the
 * thread's -ENOSYS count of call 1000 printed with the process's).
 *
 * Each case prints "threads: NAME ok" or the first check that failed;
 * then "threads: N failed", the exit status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS 4
#define INCREMENTS 2000

static const char *cur;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("threads: %s: FAILED at line %d: %s\n", cur, __LINE__, #cond);      \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static pid_t tids[NTHREADS];

static void *report_tid(void *arg)
{
	long i = (long)arg;

	tids[i] = gettid_();
	return (void *)(i * 10 + (getpid() == tids[i] ? 1000 : 0));
}

static int case_create_join(void)
{
	pthread_t t[NTHREADS];

	for (long i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&t[i], NULL, report_tid, (void *)i) == 0);
	for (long i = 0; i < NTHREADS; i++) {
		void *ret;

		CHECK(pthread_join(t[i], &ret) == 0);
		CHECK((long)ret == i * 10); /* getpid() is the process's, not the tid */
		CHECK(tids[i] != getpid() && tids[i] > 0);
		for (long j = 0; j < i; j++)
			CHECK(tids[i] != tids[j]);
	}
	return 0;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long counter;

static void *add(void *arg)
{
	(void)arg;
	for (int i = 0; i < INCREMENTS; i++) {
		pthread_mutex_lock(&lock);
		long v = counter;

		for (volatile int s = 0; s < 20000; s++) /* most ticks land in here: contention */
			;
		counter = v + 1;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static int case_mutex(void)
{
	pthread_t t[NTHREADS];

	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&t[i], NULL, add, NULL) == 0);
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	CHECK(counter == (long)NTHREADS * INCREMENTS);
	return 0;
}

static volatile int spinning;

static void *spin_cancel(void *arg)
{
	(void)arg;
	spinning = 1;
	for (;;)
		pthread_testcancel();
	return NULL;
}

static int case_cancel(void)
{
	pthread_t t;
	void *ret;

	CHECK(pthread_create(&t, NULL, spin_cancel, NULL) == 0);
	while (!spinning)
		; /* the tick lets the thread run */
	CHECK(pthread_cancel(t) == 0);
	CHECK(pthread_join(t, &ret) == 0);
	CHECK(ret == PTHREAD_CANCELED);
	return 0;
}

static volatile pid_t handled_in, target_tid;

static void on_usr1(int sig)
{
	(void)sig;
	handled_in = gettid_();
}

static void *wait_usr1(void *arg)
{
	(void)arg;
	target_tid = gettid_();
	while (!handled_in)
		;
	return NULL;
}

static int case_tgkill(void)
{
	pthread_t t;

	CHECK(signal(SIGUSR1, on_usr1) != SIG_ERR);
	CHECK(pthread_create(&t, NULL, wait_usr1, NULL) == 0);
	while (!target_tid)
		;
	CHECK(syscall(SYS_tgkill, getpid(), target_tid, SIGUSR1) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(handled_in == target_tid);
	CHECK(syscall(SYS_tgkill, getpid() + 1000, target_tid, SIGUSR1) == -1 && errno == ESRCH);
	return 0;
}

static int case_futex_timeout(void)
{
	int word = 0;
	struct timespec ts = { 0, 20 * 1000 * 1000 }, t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0) == -1);
	CHECK(errno == ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec >= 20000000L);
	CHECK(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0) == -1);
	CHECK(errno == EAGAIN);
	return 0;
}

static volatile int shared_var = 1;

static void *fork_from_thread(void *arg)
{
	int status;
	pid_t pid;

	(void)arg;
	pid = fork();
	if (pid == 0) {
		shared_var = 2;
		_exit(shared_var + 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return (void *)1;
	return (void *)(long)(WIFEXITED(status) && WEXITSTATUS(status) == 3 ? 0 : 2);
}

static int case_fork(void)
{
	pthread_t t;
	void *ret;

	CHECK(pthread_create(&t, NULL, fork_from_thread, NULL) == 0);
	CHECK(pthread_join(t, &ret) == 0);
	CHECK(ret == NULL);
	CHECK(shared_var == 1);
	return 0;
}

static int case_affinity(void)
{
	cpu_set_t set;

	CHECK(sched_getaffinity(0, sizeof(set), &set) == 0);
	CHECK(CPU_COUNT(&set) >= 1);
	printf("threads: sched_getaffinity: %d CPU(s)\n", CPU_COUNT(&set));
	return 0;
}

/* An unknown call first: its -ENOSYS count is the process's, printed
 * when the process ends. */
static void *exit_five(void *arg)
{
	(void)arg;
	syscall(1000);
	exit(5);
}

static int case_exit_group(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, exit_five, NULL) == 0)
			pthread_join(t, NULL); /* never returns: exit(5) ends us */
		_exit(1);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 5);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} cases[] = {
	{ "create_join", case_create_join },
	{ "mutex", case_mutex },
	{ "cancel", case_cancel },
	{ "tgkill", case_tgkill },
	{ "futex_timeout", case_futex_timeout },
	{ "fork", case_fork },
	{ "affinity", case_affinity },
	{ "exit_group", case_exit_group },
};

int main(void)
{
	int failed = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cur = cases[i].name;
		if (cases[i].fn())
			failed++;
		else
			printf("threads: %s ok\n", cur);
	}
	printf("threads: %d failed\n", failed);
	return failed;
}
