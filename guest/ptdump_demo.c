/*
 * ptdump_demo.c - run=ptdump: a small address space built step by step,
 * with the page tables dumped after each step, so a reader can watch runs
 * of PTEs form, break and go away (docs/mm-core.md walks through it).
 *
 * Steps: 256 KiB of 64 KiB folios and 2 MiB of PMD THP, faulted in by
 * writes; an mprotect that cuts through one 64 KiB folio; a munmap of it
 * all, with the counters the batched zap spent. Honours the batching caps
 * of the command line (e.g. zap=1 shows the unbatched zap's counters).
 *
 * run=ptdump:OP (munmap, mprotect, fork, gup, migrate) instead: 512 KiB
 * of the first size folios= names (default 64K), written, then OP over
 * all of it but its first 3 and last 5 pages (so the end folios are cut),
 * with the PTE strip before and after and the counters OP spent.
 */
#include <errno.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#include "ptelab/cmdline.h"
#include "gup.h"
#include "commands.h"
#include "kernel.h"
#include "mempolicy.h"
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

#define OP_LEN (512ul << 10)
#define OP_START (DEMO_BASE + 3 * PAGE_SIZE)
#define OP_END (DEMO_BASE + OP_LEN - 5 * PAGE_SIZE)

/* The folio order of folios='s first size, 4K..1M; -1 if it is not one. */
static int strip_order(void)
{
	const char *v = cmdline_get(&cmdline, "folios");
	char *end;
	unsigned long kib = v ? strtoul(v, &end, 10) : 64;

	if (v && *end == 'M')
		kib <<= 10, end++;
	else if (v && *end == 'K')
		end++;
	if (v && *end && *end != ',')
		return -1;
	for (int order = 0; order <= 8; order++)
		if (kib == 4ul << order)
			return order;
	return -1;
}

static void print_counters(const char *what, const struct mm_counters *before)
{
	struct mm_counters delta;
	char json[768];

	mm_counters_since(&delta, before);
	mm_counters_json(&delta, json, sizeof(json));
	printf("counters of the %s: %s\n", what, json);
}

/* OP on [OP_START, OP_END) of @mm. Return: 0 or a negative errno. */
static int strip_op(struct mm *mm, const char *op, struct mm **child)
{
	unsigned long n = (OP_END - OP_START) >> PAGE_SHIFT;

	if (!strcmp(op, "munmap"))
		return mm_munmap(mm, OP_START, OP_END - OP_START);
	if (!strcmp(op, "mprotect"))
		return mm_mprotect(mm, OP_START, OP_END - OP_START, VM_READ);
	if (!strcmp(op, "fork")) {
		int err = 0;

		*child = mm_fork(mm, &err);
		return err;
	}
	if (!strcmp(op, "gup")) {
		struct page **pages = malloc(n * sizeof(*pages));
		long got = pages ? pin_user_pages(mm, OP_START, n, FOLL_WRITE, pages) : -ENOMEM;

		if (got > 0)
			unpin_user_pages(pages, (unsigned long)got);
		free(pages);
		return got < 0 ? (int)got : 0;
	}
	return mbind(mm, OP_START, OP_END - OP_START, MPOL_BIND, 1ul << 1, MPOL_MF_MOVE);
}

static int ptdump_op(const char *op)
{
	int order = strip_order();
	struct mm_counters before;
	struct mm *mm, *child = NULL;
	long a;
	int err;

	if (order < 0)
		return printf("ptdump: folios=%s: one size of 4K..1M\n",
			      cmdline_get(&cmdline, "folios")),
		       PTELAB_EXIT_USAGE;
	mm_init();
	if (!strcmp(op, "migrate") && nr_pglists < 2)
		return printf("ptdump: migrate needs two nodes (--nodes 2)\n"), PTELAB_EXIT_USAGE;
	mm = mm_create();
	if (!mm)
		return printf("ptdump: out of memory\n"), PTELAB_EXIT_FAIL;
	a = mm_mmap(mm, DEMO_BASE, OP_LEN, VM_READ | VM_WRITE | VM_NOHUGEPMD, MAP_FIXED_ADDR,
		    (1ul << order) | 1);
	err = a < 0 ? (int)a : mm_touch(mm, DEMO_BASE, OP_LEN, true);
	if (!err) {
		printf("-- 512 KiB of %luK folios, written; %s of %#lx-%#lx next\n", 4ul << order,
		       op, OP_START, OP_END);
		mm_ptstrip(mm, DEMO_BASE, DEMO_BASE + OP_LEN);
		before = mm_counters_read();
		err = strip_op(mm, op, &child);
	}
	if (!err) {
		print_counters(op, &before);
		printf("-- after the %s\n", op);
		mm_ptstrip(mm, DEMO_BASE, DEMO_BASE + OP_LEN);
		if (child) {
			printf("-- the child\n");
			mm_ptstrip(child, DEMO_BASE, DEMO_BASE + OP_LEN);
		}
		if (mm_check(mm) || (child && mm_check(child)))
			panic("ptdump: invariant check failed after %s", op);
	}
	if (child)
		mm_put(child);
	mm_put(mm);
	if (err)
		printf("ptdump: %s failed with %d\n", op, err);
	return err ? PTELAB_EXIT_FAIL : PTELAB_EXIT_OK;
}

int cmd_ptdump(const char *arg)
{
	struct mm_counters before, delta;
	char json[768];
	struct mm *mm;
	int err;

	if (arg && *arg)
		return ptdump_op(arg);
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
