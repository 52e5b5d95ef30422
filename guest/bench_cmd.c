/*
 * bench_cmd.c - run=bench[:NAME] and its parameters from the command line.
 */
#include <string.h>

#include "bench.h"
#include "ptelab/cmdline.h"
#include "commands.h"
#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "ptelab/abi.h"

extern const struct bench bench_zap, bench_mprotect, bench_fault;
extern const struct bench bench_fork, bench_fork_exit;
extern const struct bench bench_gup, bench_gup_put;
extern const struct bench bench_migrate, bench_move_pages;
extern const struct bench bench_mremap, bench_numa_hint, bench_pageout, bench_swapin, bench_young;
extern const struct bench bench_reclaim;
extern const struct bench bench_madvise_free, bench_madvise_dontneed, bench_madvise_populate;

static const struct bench *const benches[] = { &bench_fault,
					       &bench_zap,
					       &bench_mprotect,
					       &bench_fork,
					       &bench_fork_exit,
					       &bench_gup,
					       &bench_gup_put,
					       &bench_migrate,
					       &bench_move_pages,
					       &bench_mremap,
					       &bench_madvise_free,
					       &bench_madvise_dontneed,
					       &bench_madvise_populate,
					       &bench_numa_hint,
					       &bench_pageout,
					       &bench_swapin,
					       &bench_reclaim,
					       &bench_young };
#define NR_BENCHES (int)(sizeof(benches) / sizeof(benches[0]))

/* The bench named @name, or the first of the group @name. */
static const struct bench *bench_find(const char *name)
{
	for (int i = 0; i < NR_BENCHES; i++)
		if (!strcmp(benches[i]->name, name) ||
		    (benches[i]->group && !strcmp(benches[i]->group, name)))
			return benches[i];
	return NULL;
}

/* Does run=bench[:@arg] run @b? A bench of a group runs by its own name,
 * and by the group's (or with every bench) when advice= lists it. */
static bool bench_selected(const struct bench *b, const char *arg)
{
	const char *list = cmdline_value(&cmdline, CMDLINE_KEY_advice);

	if (arg && !strcmp(arg, b->name))
		return true;
	if (arg && (!b->group || strcmp(arg, b->group)))
		return false;
	return !b->group || cmdline_word_index(list, b->choice, strlen(b->choice)) >= 0;
}

/* The default size of @b: size='s default, halved until the machine's
 * RAM holds what cmdline_bench_mem() says it needs (the rule ptelab checks
 * size= with). */
static unsigned long default_size(const struct bench *b)
{
	bool every_node = cmdline_bench_every_node(b->name);
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

/* Can @b run its variants under the command line's caps= (@caps)? When it
 * is one of all (@named false), caps= is skipped where @b has no cap, as
 * cmd_bench() does. Return: 0, or -1 with @err set. */
static int bench_check_one(const struct bench *b, const char *caps, bool named, char *err,
			   size_t errlen)
{
	struct bench_variant v[BENCH_MAX_VARIANTS];
	struct bench_params p;

	bench_params(&p);
	p.caps = named || b->cap_key ? caps : NULL;
	if (!named && !b->takes_active)
		p.active = 0;
	if (bench_active_check(b, p.active, err, errlen))
		return -1;
	return bench_variants(b, &p, v, err, errlen) < 0 ? -1 : 0;
}

/* cpus= (when given) against the bench named (@b, NULL: all, where
 * benches without cpus= ignore it). Return: 0, or -1 with @err set. */
static int bench_check_cpus(const struct bench *b, char *err, size_t errlen)
{
	const char *c = cmdline_get(&cmdline, "cpus");

	if (!c)
		return 0;
	if (b && !b->smp)
		return snprintf(err, errlen,
				"bench %s: cpus= does not apply (it runs on CPU 0; cpus= is for "
				"bench fault, gup, gup_put)",
				b->name),
		       -1;
	return 0; /* against the machine's CPUs: cmdline_check_machine() */
}

int bench_cmd_check(const char *arg, char *err, size_t errlen)
{
	const char *caps = cmdline_get(&cmdline, "caps");
	const struct bench *b = arg ? bench_find(arg) : NULL;
	int off;

	if (arg && !b) {
		off = snprintf(err, errlen, "no benchmark '%s' (have:", arg);
		for (int i = 0; i < NR_BENCHES && off > 0 && (size_t)off < errlen; i++)
			off += snprintf(err + off, errlen - (size_t)off, " %s", benches[i]->name);
		if (off > 0 && (size_t)off < errlen)
			snprintf(err + off, errlen - (size_t)off, ")");
		return -1;
	}
	if (bench_check_cpus(b, err, errlen))
		return -1;
	for (int i = 0; i < NR_BENCHES; i++)
		if (bench_selected(benches[i], arg) &&
		    bench_check_one(benches[i], caps, arg != NULL, err, errlen))
			return -1;
	return 0;
}

int cmd_bench(const char *arg)
{
	struct bench_params p;
	int status = PTELAB_EXIT_OK;

	mm_init();
	bench_params(&p);
	mm_debug_poison = false; /* measure a production kernel */
	mm_set_debug_vm(false);
	for (int i = 0; i < NR_BENCHES && status == PTELAB_EXIT_OK; i++) {
		struct bench_params one = p;

		if (!bench_selected(benches[i], arg))
			continue;
		if (!one.size)
			one.size = default_size(benches[i]);
		if (p.caps && !benches[i]->cap_key) {
			one.caps = NULL;
			one.caps_na = true;
		}
		if (p.active && !benches[i]->takes_active) {
			one.active = 0;
			one.active_na = true;
		}
		status = bench_run(benches[i], &one);
	}
	mm_debug_poison = true;
	mm_set_debug_vm(true);
	return status;
}
