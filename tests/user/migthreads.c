/*
 * migthreads.c - what Linux's migration selftest (private_anon,
 * private_anon_thp) does, as a ptelab test that needs neither libnuma nor
 * the kselftest harness (whose test metadata lives in MAP_SHARED memory,
 * which ptelab lacks): NTHREADS threads read a 2 MB private anonymous
 * buffer in a loop with pthread_testcancel(), preempted by the tick,
 * while the main thread moves its first page between nodes 0 and 1 with
 * move_pages(MPOL_MF_MOVE_ALL) for RUNTIME_MS of CLOCK_MONOTONIC; then
 * every thread is cancelled and joined. Each move must succeed (return 0,
 * status the target node), the data must be intact after, and the
 * threads must have run. "thp" aligns the buffer to 2 MB with
 * MADV_HUGEPAGE first (a PMD-mapped THP moves whole).
 *
 * Needs two NUMA nodes (ptelab --nodes 2). Prints "migthreads: MODE ok
 * N moves" and exits 0; 1 on any failure.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TWOMEG (2ul << 20)
#define NTHREADS 3
#define RUNTIME_MS 2000
#define MPOL_MF_MOVE_ALL (1 << 2)

static volatile unsigned long reads[NTHREADS];

static void *access_mem(void *arg)
{
	volatile uint64_t *x = *(uint64_t **)arg;
	long i = (long)((uint64_t **)arg)[1];
	uint64_t y = 0;

	for (;;) {
		pthread_testcancel();
		y += *x;
		reads[i]++;
		__asm__ volatile("" : "+r"(y));
	}
	return NULL;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Move @ptr's page to node @to; 0 when it got there. */
static int move(uint64_t *ptr, int to)
{
	void *pages[1] = { ptr };
	int nodes[1] = { to }, status[1] = { -1 };
	long ret = syscall(SYS_move_pages, 0, 1, pages, nodes, status, MPOL_MF_MOVE_ALL);

	if (ret || status[0] != to) {
		printf("migthreads: move_pages to node %d returned %ld, status %d\n", to, ret,
		       status[0]);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int thp = argc > 1 && !strcmp(argv[1], "thp"), moves = 0;
	pthread_t t[NTHREADS];
	void *args[NTHREADS][2];
	uint64_t *ptr;
	long t0;

	ptr = mmap(NULL, 2 * TWOMEG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptr == MAP_FAILED)
		return 1;
	if (thp) {
		ptr = (uint64_t *)(((uintptr_t)ptr + TWOMEG - 1) & ~(TWOMEG - 1));
		if (madvise(ptr, TWOMEG, MADV_HUGEPAGE))
			return 1;
	}
	memset(ptr, 0xde, TWOMEG);
	for (long i = 0; i < NTHREADS; i++) {
		args[i][0] = ptr;
		args[i][1] = (void *)i;
		if (pthread_create(&t[i], NULL, access_mem, args[i]))
			return 1;
	}
	for (t0 = now_ms(); now_ms() - t0 < RUNTIME_MS; moves++)
		if (move(ptr, (moves & 1) ? 0 : 1))
			return 1;
	for (int i = 0; i < NTHREADS; i++) {
		void *ret;

		if (pthread_cancel(t[i]) || pthread_join(t[i], &ret) || ret != PTHREAD_CANCELED)
			return 1;
		if (!reads[i]) {
			printf("migthreads: thread %d never ran\n", i);
			return 1;
		}
	}
	for (size_t i = 0; i < TWOMEG / 8; i++)
		if (ptr[i] != 0xdedededededededeull) {
			printf("migthreads: word %zu changed\n", i);
			return 1;
		}
	printf("migthreads: %s ok %d moves\n", thp ? "thp" : "anon", moves);
	return 0;
}
