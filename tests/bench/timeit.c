/*
 * timeit - run a command N times and print whole-process wall times.
 *
 * usage: timeit N LABEL CMD [ARGS...]
 * Runs CMD N times with posix_spawn (stdin, stdout, stderr on /dev/null), checks that every run
 * exits 0, and prints one RESULT line for bench "boot" with the median,
 * minimum and maximum in microseconds. Exit status 1 if any run failed.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Run argv once; return its wall time in us, or -1 if it did not exit 0. */
static double run_once(char **argv)
{
	posix_spawn_file_actions_t fa;
	double t0;
	int status, r;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	for (int fd = 0; fd < 3; fd++)
		posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_RDWR, 0);
	t0 = now_us();
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		return -1;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return now_us() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[1]) : 0;
	double *t;

	if (n < 1) {
		fprintf(stderr, "usage: timeit N LABEL CMD [ARGS...]\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	for (int i = 0; i < n; i++) {
		t[i] = run_once(argv + 3);
		if (t[i] < 0) {
			fprintf(stderr, "timeit: run %d of '%s' failed\n", i + 1, argv[3]);
			return 1;
		}
		fprintf(stderr, "\r  %s: %d/%d", argv[2], i + 1, n);
	}
	fprintf(stderr, "\n");
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("RESULT {\"bench\":\"boot\",\"folio\":\"-\",\"variant\":\"%s\",\"reps\":%d,"
	       "\"median_us\":%.1f,\"min_us\":%.1f,\"max_us\":%.1f,\"counters\":{}}\n",
	       argv[2], n, n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2, t[0], t[n - 1]);
	free(t);
	return 0;
}
