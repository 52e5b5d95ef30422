/*
 * bench_cmd.c - run=bench[:NAME] and its parameters from the command line:
 * the guest's table of benchmarks, made from CMDLINE_BENCHES, whose rows
 * cmdline_check_run() has checked the command line against.
 */
#include <string.h>

#include "bench.h"
#include "ptelab/cmdline.h"
#include "commands.h"
#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "ptelab/abi.h"

/* bench_<id> of every row of CMDLINE_BENCHES, at the row's index: a row
 * without its bench does not link. */
#define BENCH_DECLARE(id, ...) extern const struct bench bench_##id;
CMDLINE_BENCHES(BENCH_DECLARE)
#undef BENCH_DECLARE

static const struct bench *const benches[NR_CMDLINE_BENCHES] = {
#define BENCH_ENTRY(id, ...) [CMDLINE_BENCH_##id] = &bench_##id,
	CMDLINE_BENCHES(BENCH_ENTRY)
#undef BENCH_ENTRY
};

const struct cmdline_bench *bench_row(const struct bench *b)
{
	for (int i = 0; i < NR_CMDLINE_BENCHES; i++)
		if (benches[i] == b)
			return &cmdline_benches[i];
	panic("bench_row: %p is no bench of the table", (const void *)b);
}

/* The default size of @b: size='s default, halved until the machine's
 * RAM holds what cmdline_bench_mem() says it needs (the rule ptelab checks
 * size= with). */
static unsigned long default_size(const struct cmdline_bench *b)
{
	bool every_node = b->every_node;
	uint64_t ram = 0;
	unsigned mb = (unsigned)cmdline_uint(cmdline_keys[CMDLINE_KEY_size].dflt);

	for (int i = 0; i < nr_pglists; i++)
		ram += pglists[i].present_pages << PAGE_SHIFT;
	while (mb > 2 && cmdline_bench_mem(mb, (unsigned)nr_pglists, every_node) > ram)
		mb /= 2;
	return (unsigned long)mb << 20;
}

/* size=, reps=, folios=, caps=, cpus=, active= (cmdline_check() has
 * checked their form; an absent one takes its row's default), and what
 * ptelab says about the clock. */
static void bench_params(struct bench_params *p)
{
	const struct cmdline *cl = &cmdline;

	memset(p, 0, sizeof(*p));
	/* 0: the bench's default (default_size()) */
	p->size = cmdline_get(cl, "size") ? (unsigned long)cmdline_num(cl, CMDLINE_KEY_size) << 20
					  : 0;
	p->reps = (int)cmdline_num(cl, CMDLINE_KEY_reps);
	p->folios = cmdline_value(cl, CMDLINE_KEY_folios);
	p->caps = cmdline_value(cl, CMDLINE_KEY_caps);
	p->cpus = cmdline_num(cl, CMDLINE_KEY_cpus);
	p->active = cmdline_num(cl, CMDLINE_KEY_active);
	p->quiet = cmdline_on(cl, CMDLINE_KEY_ptelab_quiet);
	p->clock = cmdline_value(cl, CMDLINE_KEY_ptelab_clock) ?: "unknown";
	p->backend = cmdline_value(cl, CMDLINE_KEY_ptelab_backend) ?: "unknown";
	p->version = cmdline_value(cl, CMDLINE_KEY_ptelab_version) ?: "unknown";
}

int cmd_bench(const char *arg)
{
	struct bench_params p;
	int status = PTELAB_EXIT_OK;

	mm_init();
	bench_params(&p);
	mm_debug_poison = false; /* measure a production kernel */
	mm_set_debug_vm(false);
	for (int i = 0; i < NR_CMDLINE_BENCHES && status == PTELAB_EXIT_OK; i++) {
		const struct cmdline_bench *row = &cmdline_benches[i];
		struct bench_params one = p;

		if (!cmdline_bench_selected(&cmdline, row, arg))
			continue;
		if (!one.size)
			one.size = default_size(row);
		if (p.caps && !row->cap_key) {
			one.caps = NULL;
			one.caps_na = true;
		}
		if (p.active && !row->takes_active) {
			one.active = 0;
			one.active_na = true;
		}
		status = bench_run(benches[i], &one);
	}
	mm_debug_poison = true;
	mm_set_debug_vm(true);
	return status;
}
