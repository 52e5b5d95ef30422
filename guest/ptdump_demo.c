/*
 * ptdump_demo.c - run=ptdump: a small address space built step by step,
 * with the page tables dumped after each step, so a reader can watch runs
 * of PTEs form, break and go away (docs/mm-core.md walks through it).
 *
 * Steps: 256 KiB of 64 KiB folios and 2 MiB of PMD THP, faulted in by
 * writes; an mprotect that cuts through one 64 KiB folio; a munmap of it
 * all, with the counters the batched zap spent. Honours the batching caps
 * of the command line (e.g. zap=1 shows the unbatched zap's counters).
 */
#include <errno.h>
#include <stdio.h>

#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "ptelab/abi.h"

#define DEMO_BASE 0x200000000ul
#define SMALL_LEN (256ul << 10)
#define HUGE_BASE (DEMO_BASE + (4ul << 20))
#define HUGE_LEN (2ul << 20)
#define CUT_ADDR (DEMO_BASE + 0x18000) /* the middle of the second 64K folio */
#define CUT_LEN 0x4000

static void step(struct mm *mm, const char *what)
{
	printf("\n-- %s\n", what);
	mm_ptdump(mm);
	if (mm_check(mm))
		panic("ptdump demo: invariant check failed after '%s'", what);
}

/* Map and fault in the two regions. Return: 0 or a negative errno. */
static int build(struct mm *mm)
{
	long a = mm_mmap(mm, DEMO_BASE, SMALL_LEN, VM_READ | VM_WRITE | VM_NOHUGEPMD,
			 MAP_FIXED_ADDR, (1ul << 4) | 1);
	long b = a < 0 ? a
		       : mm_mmap(mm, HUGE_BASE, HUGE_LEN, VM_READ | VM_WRITE, MAP_FIXED_ADDR,
				 (1ul << 9) | 1);

	if (b < 0)
		return (int)b;
	if (mm_touch(mm, DEMO_BASE, SMALL_LEN, true) || mm_touch(mm, HUGE_BASE, HUGE_LEN, true))
		return -EFAULT;
	return 0;
}

int cmd_ptdump(const char *arg)
{
	struct mm_counters before, delta;
	char json[768];
	struct mm *mm;
	int err;

	(void)arg;
	mm_init();
	mm = mm_create();
	if (!mm)
		return printf("ptdump: out of memory\n"), PTELAB_EXIT_FAIL;
	err = build(mm);
	if (!err) {
		step(mm, "256 KiB of 64K folios and 2 MiB of PMD THP, written");
		err = mm_mprotect(mm, CUT_ADDR, CUT_LEN, VM_READ);
	}
	if (!err) {
		step(mm, "mprotect(RO) of 16 KiB inside the second 64K folio");
		before = mm_counters_read();
		err = mm_munmap(mm, DEMO_BASE, HUGE_BASE + HUGE_LEN - DEMO_BASE);
		mm_counters_since(&delta, &before);
		mm_counters_json(&delta, json, sizeof(json));
		step(mm, "munmap of everything");
		printf("counters of the munmap: %s\n", json);
	}
	mm_put(mm);
	if (err)
		printf("ptdump: a step failed with %d\n", err);
	return err ? PTELAB_EXIT_FAIL : PTELAB_EXIT_OK;
}
