/*
 * sim.c - simulated physical memory and machine for the host runner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "explore.h"
#include "kernel.h"
#include "spinlock.h"

uint8_t *host_ram;
uint64_t host_ram_size;
struct machine machine;
static struct boot_info host_boot_info;
struct boot_info *boot_info = &host_boot_info;

void host_bad_phys(uint64_t pa)
{
	panic("phys_to_virt: %#llx is outside simulated RAM", (unsigned long long)pa);
}

uint64_t host_virt_to_phys(const void *va)
{
	const uint8_t *p = va;

	if (p < host_ram || p >= host_ram + host_ram_size)
		panic("virt_to_phys: %p is not in simulated RAM", va);
	return HOST_RAM_BASE + (uint64_t)(p - host_ram);
}

void host_machine_init(int nodes, unsigned node_mb)
{
	uint64_t node_size = (uint64_t)node_mb << 20;

	if (host_ram)
		munmap(host_ram, host_ram_size);
	host_ram_size = node_size * (uint64_t)nodes;
	host_ram = mmap(NULL, host_ram_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (host_ram == MAP_FAILED) {
		perror("host_machine_init: mmap");
		exit(1);
	}
	memset(&machine, 0, sizeof(machine));
	machine.nr_nodes = nodes;
	for (int i = 0; i < nodes; i++) {
		machine.node[i].id = i;
		machine.node[i].nr_ranges = 1;
		machine.node[i].range[0].base = HOST_RAM_BASE + node_size * (uint64_t)i;
		machine.node[i].range[0].size = node_size;
		machine.node[i].size = node_size;
		for (int j = 0; j < nodes; j++)
			machine.distance[i][j] = i == j ? 10 : 20;
	}
	machine.nr_cpus = 1;
	machine.timebase_hz = 1000000000;
}

/* Per thread: a panic on a CPU thread of smp_run() ends the runner. */
static __thread jmp_buf *panic_jmp;
static __thread char *panic_msg;
static __thread size_t panic_msg_size;

void panic(const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (panic_jmp) {
		snprintf(panic_msg, panic_msg_size, "%s", buf);
		longjmp(*panic_jmp, 1);
	}
	fflush(stdout);
	explore_report();
	fprintf(stderr, "panic: %s\n", buf);
	abort();
}

int host_catch_panic(void (*fn)(void *), void *arg, char *msg, size_t size)
{
	jmp_buf jb, *saved = panic_jmp;
	unsigned depth = lock_held_depth();

	panic_msg = msg;
	panic_msg_size = size;
	panic_jmp = &jb;
	if (setjmp(jb)) {
		panic_jmp = saved;
		lock_held_truncate(depth); /* the locks stay held: the caller's to drop */
		return 1;
	}
	fn(arg);
	panic_jmp = saved;
	return 0;
}

uint64_t time_ns(void)
{
	struct timespec ts;

	if (__atomic_load_n(&explore_running, __ATOMIC_RELAXED))
		return explore_clock_ns();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t counter_hz(void)
{
	return 1000000000;
}
