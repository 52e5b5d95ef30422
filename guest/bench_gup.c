/*
 * bench_gup.c - benchmarks of get_user_pages / pin_user_pages, the
 * equivalent of Linux's gup_test (tools/testing/selftests/mm/gup_test.c
 * with mm/gup_test.c), which the two GUP batching series measured:
 *
 *   gup_test -L -m 256 -n 65536 -r 16 -t
 *     = run=bench:gup size=256 gup_nr=65536 reps=16 (gup_op=longterm,
 *       gup_write=on are the defaults, as in gup_test)
 *
 * gup:     the get (or pin) calls over @size of populated, written anon
 *          memory, @gup_nr pages per call, as gup_test's "get" time;
 * gup_put: the release of all those pages in one put_user_pages() or
 *          unpin_user_pages() call, gup_test's "put" time.
 * Variants: unbatched (gup_walk=off gup_grab=1: one PTE per call, as
 * before the seeds), walk (the first seed: one descent and one lock per
 * page table, one grab per page), walk+grab (both seeds: one grab per run
 * of a folio); caps=LIST sweeps gup_grab with the walk on. The harness
 * sets the knobs. Each repetition maps and writes a fresh mm (untimed).
 * cpus=K: K CPUs each get (or pin) all of the memory at once, into arrays
 * of their own: every folio's refcount (and pincount) cache line is then
 * shared by K CPUs, which is where one add per folio run saves most.
 *
 * Parameters (besides size=, reps=, folios=; their ranges and defaults
 * are their rows' in ptelab/cmdline_keys.h, gup_test's own):
 *   gup_nr=N       pages per call (0 = all of size)
 *   gup_op=OP      get, pin, longterm, get-fast, pin-fast
 *   gup_write=on   FOLL_WRITE
 *   gup_touch=on   FOLL_TOUCH (by default as Linux: on for get, whose
 *                  get_user_pages() adds it, off for the pins)
 *   gup_keep=K     what the pinner keeps: pages (the page array,
 *                  released with unpin_user_pages()) or ranges
 *                  (as io_uring keeps a registered buffer: the array is
 *                  coalesced into runs of consecutive pages of one folio
 *                  inside the timed get, and each run is released with
 *                  unpin_user_page_range_dirty_lock(), one update a folio)
 *   cpus=K         CPUs doing it at once
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ptelab/cmdline.h"
#include "gup.h"
#include "commands.h"
#include "kernel.h"
#include "knobs.h"
#include "mm.h"
#include "smp.h"

static const char *const variants_gup[] = { "unbatched", "walk", "walk+grab", NULL };

/* The gup_op= and gup_keep= words, in the order of their rows' words in
 * ptelab/cmdline_keys.h (cmdline_choice() is the index). */
enum gup_op { OP_GET, OP_PIN, OP_LONGTERM, OP_GET_FAST, OP_PIN_FAST };
enum gup_keep { KEEP_PAGES, KEEP_RANGES };

struct gup_params {
	unsigned long nr; /* pages per call, 0 = all */
	enum gup_op op;
	unsigned flags; /* FOLL_WRITE, FOLL_TOUCH, FOLL_LONGTERM */
	bool ranges;	/* gup_keep=ranges */
};

/* The gup_* keys, or their rows' defaults (cmdline_check() has checked
 * them). gup_touch's default depends on gup_op, as Linux's: on for get,
 * whose get_user_pages() adds FOLL_TOUCH, off for the pins. */
static void gup_params(struct gup_params *gp)
{
	const struct cmdline *cl = &cmdline;
	bool touch;

	gp->nr = cmdline_num(cl, CMDLINE_KEY_gup_nr);
	gp->op = (enum gup_op)cmdline_choice(cl, CMDLINE_KEY_gup_op);
	gp->ranges = cmdline_choice(cl, CMDLINE_KEY_gup_keep) == KEEP_RANGES;
	touch = gp->op == OP_GET || gp->op == OP_GET_FAST;
	if (cmdline_get(cl, "gup_touch"))
		touch = cmdline_on(cl, CMDLINE_KEY_gup_touch);
	gp->flags = (cmdline_on(cl, CMDLINE_KEY_gup_write) ? FOLL_WRITE : 0) |
		    (touch ? FOLL_TOUCH : 0) | (gp->op == OP_LONGTERM ? FOLL_LONGTERM : 0);
}

static bool op_pins(enum gup_op op)
{
	return op != OP_GET && op != OP_GET_FAST;
}

static long gup_one_call(const struct gup_params *gp, struct mm *mm, unsigned long a,
			 unsigned long n, struct page **pages)
{
	switch (gp->op) {
	case OP_GET:
		return get_user_pages(mm, a, n, gp->flags, pages);
	case OP_GET_FAST:
		return get_user_pages_fast(mm, a, n, gp->flags, pages);
	case OP_PIN_FAST:
		return pin_user_pages_fast(mm, a, n, gp->flags, pages);
	default:
		return pin_user_pages(mm, a, n, gp->flags, pages);
	}
}

/* All of [a, a + @total pages) in calls of gp->nr pages, as gup_test's
 * get loop. Return: 0, or -1 when a call came back short. */
static int gup_all(const struct gup_params *gp, struct mm *mm, unsigned long a, unsigned long total,
		   struct page **pages)
{
	unsigned long per = gp->nr ? gp->nr : total;

	for (unsigned long done = 0; done < total;) {
		unsigned long n = total - done < per ? total - done : per;
		long got = gup_one_call(gp, mm, a + done * PAGE_SIZE, n, pages + done);

		if (got != (long)n) {
			printf("bench gup: %s of %lu pages at %#lx returned %ld\n",
			       cmdline_value(&cmdline, CMDLINE_KEY_gup_op), n, a + done * PAGE_SIZE,
			       got);
			if (got > 0)
				done += (unsigned long)got;
			op_pins(gp->op) ? unpin_user_pages(pages, done)
					: put_user_pages(pages, done);
			return -1;
		}
		done += n;
	}
	return 0;
}

/* A run of consecutive pages of one folio, as gup_keep=ranges keeps it. */
struct gup_range {
	struct page *page;
	unsigned long nr;
};

/* pages[0 .. @n) as runs of consecutive pages of one folio, into @r (what
 * io_uring's io_check_coalesce_buffer() builds). Return: the runs. */
static unsigned long gup_coalesce(struct page **pages, unsigned long n, struct gup_range *r)
{
	unsigned long runs = 0;

	for (unsigned long i = 0, k; i < n; i += k) {
		struct page *p = pages[i];
		struct folio *f = page_folio(p);
		unsigned long lim = folio_pages_from(f, p);

		if (lim > n - i)
			lim = n - i;
		for (k = 1; k < lim && pages[i + k] == p + k; k++)
			;
		r[runs++] = (struct gup_range){ p, k };
	}
	return runs;
}

/* Release what gup_coalesce() kept: one call per run. */
static void gup_put_ranges(const struct gup_range *r, unsigned long runs, bool pins)
{
	for (unsigned long i = 0; i < runs; i++)
		pins ? unpin_user_page_range_dirty_lock(r[i].page, r[i].nr, false)
		     : put_user_page_range(r[i].page, r[i].nr);
}

/* One repetition's work for the CPUs: each gets (or pins) all of
 * [a, a + total pages) into its own array, so every CPU grabs the same
 * folios and their refcount cache lines are shared. */
struct gup_run {
	struct gup_params gp;
	struct mm *mm;
	unsigned long a, total;
	struct page **pages[NR_CPUS];
	struct gup_range *ranges[NR_CPUS]; /* gup_keep=ranges */
	unsigned long nranges[NR_CPUS];
	int err[NR_CPUS]; /* gup_all()'s; a failed CPU has released its grabs */
};

static void gup_cpu(unsigned cpu, void *arg)
{
	struct gup_run *g = arg;

	g->err[cpu] = gup_all(&g->gp, g->mm, g->a, g->total, g->pages[cpu]);
	if (!g->err[cpu] && g->gp.ranges)
		g->nranges[cpu] = gup_coalesce(g->pages[cpu], g->total, g->ranges[cpu]);
}

static void put_cpu(unsigned cpu, void *arg)
{
	struct gup_run *g = arg;

	if (g->err[cpu])
		return;
	if (g->gp.ranges)
		gup_put_ranges(g->ranges[cpu], g->nranges[cpu], op_pins(g->gp.op));
	else
		op_pins(g->gp.op) ? unpin_user_pages(g->pages[cpu], g->total)
				  : put_user_pages(g->pages[cpu], g->total);
}

/* *@buf with room for @n entries of @size bytes, kept from one repetition
 * to the next (*@cap entries). Return: 0 or -1 (no memory). */
static int gup_array(void **buf, unsigned long *cap, unsigned long n, size_t size)
{
	if (*cap >= n)
		return 0;
	free(*buf);
	*buf = malloc(n * size);
	*cap = *buf ? n : 0;
	return *buf ? 0 : -1;
}

/* A page array of @total entries for each of CPUs 0 .. @ncpus - 1 (and
 * as many ranges for gup_keep=ranges). Return: 0 or -1 (no memory). */
static int gup_arrays(struct gup_run *g, unsigned ncpus)
{
	static void *pages[NR_CPUS], *ranges[NR_CPUS];
	static unsigned long cap[NR_CPUS], rcap[NR_CPUS];

	for (unsigned i = 0; i < ncpus; i++) {
		if (gup_array(&pages[i], &cap[i], g->total, sizeof(struct page *)) ||
		    (g->gp.ranges &&
		     gup_array(&ranges[i], &rcap[i], g->total, sizeof(struct gup_range))))
			return -1;
		g->pages[i] = pages[i];
		g->ranges[i] = ranges[i];
	}
	return 0;
}

/*
 * One repetition: a fresh mm with @p->size populated for @fs (untimed),
 * the gets on p->cpus CPUs (each over all of it), the release of each
 * CPU's pages in one call per CPU, the teardown (untimed). @timed_put says
 * which of the two middle steps is timed; the other runs on the same CPUs.
 */
static int rep_gup_common(const struct folio_size *fs, const struct bench_params *p, bool timed_put)
{
	struct gup_run g = { .total = p->size >> PAGE_SHIFT };
	int err = 0;

	gup_params(&g.gp);
	if (gup_arrays(&g, p->cpus))
		return -1;
	g.mm = mm_create();
	g.a = g.mm ? bench_map(g.mm, fs, p->size, true) : 0;
	if (g.a) {
		if (timed_put)
			smp_run(p->cpus, gup_cpu, &g);
		else
			bench_timed_on_cpus(p->cpus, gup_cpu, &g);
		if (timed_put)
			bench_timed_on_cpus(p->cpus, put_cpu, &g);
		else
			smp_run(p->cpus, put_cpu, &g);
		for (unsigned i = 0; i < p->cpus; i++)
			err |= g.err[i];
	}
	if (g.mm)
		mm_put(g.mm);
	return g.a && !err ? 0 : -1;
}

static int rep_gup(const struct folio_size *fs, const struct bench_rep *r,
		   const struct bench_params *p)
{
	(void)r;
	return rep_gup_common(fs, p, false);
}

static int rep_gup_put(const struct folio_size *fs, const struct bench_rep *r,
		       const struct bench_params *p)
{
	(void)r;
	return rep_gup_common(fs, p, true);
}

/* The gup_* keys as they apply, for the RESULT line (bench.h). */
static void gup_params_text(char *buf, size_t len)
{
	struct gup_params gp;

	gup_params(&gp);
	snprintf(buf, len, "gup_op=%s gup_keep=%s gup_write=%s gup_touch=%s gup_nr=%lu",
		 cmdline_value(&cmdline, CMDLINE_KEY_gup_op),
		 cmdline_value(&cmdline, CMDLINE_KEY_gup_keep),
		 gp.flags & FOLL_WRITE ? "on" : "off", gp.flags & FOLL_TOUCH ? "on" : "off", gp.nr);
}

/* Both time a part of GUP whose gets the variant sets: gup_grab= is the
 * cap; unbatched also turns gup_walk off (walk and walk+grab keep it on). */

const struct bench bench_gup = {
	.default_folios = "4K,64K,2M-pmd",
	.variants = variants_gup,
	.rep = rep_gup,
	.what = "get/pin calls over populated memory (gup_test's get time)",
	.params = gup_params_text
};
const struct bench bench_gup_put = { .default_folios = "4K,64K,2M-pmd",
				     .variants = variants_gup,
				     .rep = rep_gup_put,
				     .what = "release of the pinned pages (gup_test's put time)",
				     .params = gup_params_text };
