/*
 * bench_cmd.c - run=bench[:NAME] and its parameters from the command line.
 */
#include <string.h>

#include "bench.h"
#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "ptelab_abi.h"

extern const struct bench bench_zap, bench_mprotect, bench_fault;
extern const struct bench bench_fork, bench_fork_exit;
extern const struct bench bench_gup, bench_gup_put;
extern const struct bench bench_migrate;

static const struct bench *const benches[] = { &bench_fault,   &bench_zap,	 &bench_mprotect,
					       &bench_fork,    &bench_fork_exit, &bench_gup,
					       &bench_gup_put, &bench_migrate };
#define NR_BENCHES (int)(sizeof(benches) / sizeof(benches[0]))

/* size= (MiB, default 1024), reps= (default 5), folios= (labels). */
static int bench_params(struct bench_params *p)
{
	const char *s = cmdline_get(&cmdline, "size");
	const char *r = cmdline_get(&cmdline, "reps");
	int v;

	p->size = 1024ul << 20;
	p->reps = 5;
	p->folios = cmdline_get(&cmdline, "folios");
	if (s) {
		v = cmdline_uint(s);
		if (v < 2 || v > 65536 || v % 2)
			return printf("guest: size=%s: want an even number of MiB, 2..65536\n", s),
			       -1;
		p->size = (unsigned long)v << 20;
	}
	if (r) {
		v = cmdline_uint(r);
		if (v < 1 || v > 64)
			return printf("guest: reps=%s: want 1..64\n", r), -1;
		p->reps = v;
	}
	return 0;
}

int cmd_bench(const char *arg)
{
	struct bench_params p;
	int status = PTELAB_EXIT_OK, found = 0;

	if (bench_params(&p))
		return PTELAB_EXIT_USAGE;
	mm_init();
	mm_debug_poison = mm_debug_vm = false; /* measure a production kernel */
	for (int i = 0; i < NR_BENCHES && status == PTELAB_EXIT_OK; i++) {
		if (arg && strcmp(arg, benches[i]->name) != 0)
			continue;
		found = 1;
		status = bench_run(benches[i], &p);
	}
	mm_debug_poison = mm_debug_vm = true;
	if (!found) {
		printf("guest: no benchmark '%s' (have:", arg);
		for (int i = 0; i < NR_BENCHES; i++)
			printf(" %s", benches[i]->name);
		printf(")\n");
		return PTELAB_EXIT_USAGE;
	}
	return status;
}
