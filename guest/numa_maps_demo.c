/*
 * numa_maps_demo.c - run=numa_maps: a small address space on node 0 (64
 * pages of 4K, 256 KiB of 64K folios, a 2 MiB PMD THP), printed as Linux's
 * numa_maps would show it, then after each of: an mbind(BIND node 1,
 * MOVE) of the 64K region, a migrate_pages(0 -> 1) of everything, and a
 * move_pages() of four 4K pages back to node 0; each with the counters it
 * spent (docs/migrate.md walks through it). Honours the batching caps of
 * the command line (migrate=1 migrate_unmap=1 migrate_flush=1 shows the
 * unbatched counters). Needs two nodes.
 */
#include <stdio.h>

#include "kernel.h"
#include "mempolicy.h"
#include "mm.h"
#include "page.h"
#include "ptelab/abi.h"

#define DEMO_BASE 0x200000000ul
#define SMALL_LEN (256ul << 10)
#define MTHP_BASE (DEMO_BASE + (1ul << 20))
#define HUGE_BASE (DEMO_BASE + (4ul << 20))
#define HUGE_LEN (2ul << 20)

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("  %s\n", line);
}

/* Print the view and the counters since @before; panic on a broken
 * invariant. */
static void show(struct mm *mm, const char *what, const struct mm_counters *before)
{
	struct mm_counters d;
	char json[768];

	mm_counters_since(&d, before);
	mm_counters_json(&d, json, sizeof(json));
	printf("\n-- %s\n", what);
	mm_numa_maps_to(mm, print_line, NULL);
	printf("  counters: %s\n", json);
	if (mm_check(mm))
		panic("numa_maps demo: invariant check failed after '%s'", what);
}

static long build(struct mm *mm)
{
	long r = mm_mmap(mm, DEMO_BASE, SMALL_LEN, VM_READ | VM_WRITE | VM_NOHUGEPMD,
			 MAP_FIXED_ADDR, 1);

	if (r >= 0)
		r = mm_mmap(mm, MTHP_BASE, SMALL_LEN, VM_READ | VM_WRITE | VM_NOHUGEPMD,
			    MAP_FIXED_ADDR, (1ul << 4) | 1);
	if (r >= 0)
		r = mm_mmap(mm, HUGE_BASE, HUGE_LEN, VM_READ | VM_WRITE, MAP_FIXED_ADDR,
			    (1ul << 9) | 1);
	if (r >= 0)
		r = mm_touch(mm, DEMO_BASE, SMALL_LEN, true) ?: mm_touch(mm, MTHP_BASE, SMALL_LEN, true)
			?: mm_touch(mm, HUGE_BASE, HUGE_LEN, true);
	return r < 0 ? r : 0;
}

static long steps(struct mm *mm)
{
	unsigned long addrs[4] = { DEMO_BASE, DEMO_BASE + 0x1000, DEMO_BASE + 0x2000,
				   DEMO_BASE + 0x3000 };
	int nodes[4] = { 0, 0, 0, 0 }, status[4];
	struct mm_counters before = mm_counters_read();
	long r = build(mm);

	if (r)
		return r;
	show(mm, "64 x 4K, 256 KiB of 64K folios and a 2 MiB PMD THP, written (node 0)", &before);
	before = mm_counters_read();
	r = mbind(mm, MTHP_BASE, SMALL_LEN, MPOL_BIND, 1ul << 1, MPOL_MF_MOVE | MPOL_MF_STRICT);
	if (r)
		return r;
	show(mm, "mbind(64K region, MPOL_BIND node 1, MPOL_MF_MOVE | MPOL_MF_STRICT)", &before);
	before = mm_counters_read();
	r = migrate_pages(mm, 1ul << 0, 1ul << 1);
	if (r)
		return r;
	show(mm, "migrate_pages(from node 0, to node 1)", &before);
	before = mm_counters_read();
	r = move_pages(mm, 4, addrs, nodes, status, MPOL_MF_MOVE);
	if (r)
		return r;
	show(mm, "move_pages(the first four 4K pages, to node 0)", &before);
	printf("  status: %d %d %d %d\n", status[0], status[1], status[2], status[3]);
	return 0;
}

int cmd_numa_maps(const char *arg)
{
	struct mm *mm;
	long err;

	(void)arg;
	mm_init();
	mm = mm_create();
	if (!mm)
		return printf("numa_maps: out of memory\n"), PTELAB_EXIT_FAIL;
	err = steps(mm);
	mm_put(mm);
	if (err)
		printf("numa_maps: a step failed with %ld\n", err);
	return err ? PTELAB_EXIT_FAIL : PTELAB_EXIT_OK;
}
