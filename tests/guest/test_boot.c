/*
 * test_boot.c - in-guest checks of what the boot gave the kernel: the
 * machine read from the FDT, the heap, FP/SIMD state, the counter.
 */
#include <stdlib.h>

#include "commands.h"
#include "kernel.h"
#include "test.h"

/* Every node has page-aligned, non-overlapping ranges that add up. */
TEST(machine_ranges_are_sane)
{
	CHECK(machine.nr_nodes >= 1);
	for (int i = 0; i < machine.nr_nodes; i++) {
		const struct numa_node *n = &machine.node[i];
		uint64_t sum = 0;

		CHECK(n->nr_ranges >= 1);
		for (int r = 0; r < n->nr_ranges; r++) {
			CHECK_EQ(n->range[r].base & 0xfff, 0);
			CHECK_EQ(n->range[r].size & 0xfff, 0);
			sum += n->range[r].size;
			for (int j = 0; j < i; j++)
				for (int q = 0; q < machine.node[j].nr_ranges; q++) {
					const struct mem_range *a = &n->range[r];
					const struct mem_range *b = &machine.node[j].range[q];
					CHECK(a->base >= b->base + b->size ||
					      b->base >= a->base + a->size);
				}
		}
		CHECK_EQ(sum, n->size);
	}
}

/* Every cpu names a node that has memory (ptelab and QEMU both do so). */
TEST(cpus_name_known_nodes)
{
	CHECK(machine.nr_cpus >= 1);
	for (int i = 0; i < machine.nr_cpus; i++)
		CHECK(machine_node_index(&machine, machine.cpu_node[i]) >= 0);
	for (int i = 0; i < machine.nr_nodes; i++)
		CHECK_EQ(machine.distance[i][i], 10);
}

/* The command line we run under was parsed and has our own run= item. */
TEST(cmdline_has_run_selftest)
{
	int found = 0;

	for (int i = 0; i < cmdline.nr_run; i++)
		found |= strcmp(cmdline.run[i].name, "selftest") == 0;
	CHECK(found);
	CHECK(cmdline_get(&cmdline, "run") != NULL);
}

/* malloc hands out writable memory from the heap range, and reuses it. */
TEST(heap_malloc_free)
{
	uint64_t start, size;
	unsigned char *p = malloc(1 << 20);
	int bad = 0;

	heap_range(&start, &size);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(virt_to_phys(p) >= start && virt_to_phys(p) + (1 << 20) <= start + size);
	for (int i = 0; i < (1 << 20); i++)
		p[i] = (unsigned char)(i * 7);
	for (int i = 0; i < (1 << 20); i++)
		bad += p[i] != (unsigned char)(i * 7);
	CHECK_EQ(bad, 0);
	free(p);
	CHECK(malloc((size_t)size * 2) == NULL);
}

/* Floating-point formatting needs SSE / FP-SIMD enabled and preserved. */
TEST(printf_floats)
{
	char buf[64];
	volatile double x = 3.14159265;

	snprintf(buf, sizeof(buf), "%.3f %g %e", x, x * 2, x / 1000);
	CHECK_STR(buf, "3.142 6.28319 3.141593e-03");
}

/* The counter runs forward at a plausible rate. */
TEST(counter_runs_forward)
{
	uint64_t a = time_ns(), b;
	volatile unsigned spin = 0;

	while (spin < 100000)
		spin++;
	b = time_ns();
	CHECK(b > a);
	CHECK(counter_hz() >= 1000000);
	CHECK(counter_hz() <= 10000000000ull);
}

/* Overlapping memmove and memset/memcmp behave (newlib's vector paths). */
TEST(string_functions)
{
	char buf[256];

	for (int i = 0; i < 256; i++)
		buf[i] = (char)i;
	memmove(buf + 1, buf, 200);
	CHECK_EQ((unsigned char)buf[1], 0);
	CHECK_EQ((unsigned char)buf[200], 199);
	memset(buf, 0x5a, 64);
	CHECK_EQ((unsigned char)buf[63], 0x5a);
	CHECK(memcmp(buf, buf + 1, 63) == 0);
	CHECK_EQ(strlen("ptelab"), 6);
}

TEST_SUITE(boot, machine_ranges_are_sane, cpus_name_known_nodes, cmdline_has_run_selftest,
	   heap_malloc_free, printf_floats, counter_runs_forward, string_functions)
