/*
 * bench.c - the benchmark harness (see bench.h): variants, repetitions,
 * RESULT lines and the table.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "commands.h"
#include "kernel.h"
#include "knob_parse.h"
#include "mm.h"
#include "ptelab/abi.h"
#include "smp.h"
#include "spinlock.h" /* arch_cpu_relax() */

const char *const variants_batching[] = { "unbatched", "batched", NULL };

/* A default variant by name: unbatched is every cap of the bench at 1 and
 * GUP's walk off, walk is the walk with one grab per page, batched and
 * walk+grab are the caps at max. */
static void variant_default(struct bench_variant *v, const char *name)
{
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->cap = strcmp(name, "unbatched") && strcmp(name, "walk") ? CAP_MAX : 1;
	v->walk = strcmp(name, "unbatched") != 0;
}

int bench_variants(const struct bench *b, const struct bench_params *p, struct bench_variant *v,
		   char *err, size_t errlen)
{
	unsigned list[BENCH_MAX_VARIANTS];
	char cap[12];
	int n = 0;

	if (p->caps) {
		n = cmdline_caps_list(p->caps, list, BENCH_MAX_VARIANTS, err, errlen);
		for (int i = 0; i < n; i++) {
			snprintf(v[i].name, sizeof(v[i].name), "cap=%s",
				 cap_str(list[i], cap, sizeof(cap)));
			v[i].cap = list[i];
			v[i].walk = -1;
		}
		return n;
	}
	if (cmdline_bench_knob_given(&cmdline, bench_row(b))) {
		v[0].cap = *caps_find(bench_row(b)->cap_key); /* caps_parse() read it */
		v[0].walk = -1;
		snprintf(v[0].name, sizeof(v[0].name), "cap=%s",
			 cap_str(v[0].cap, cap, sizeof(cap)));
		return 1;
	}
	while (b->variants[n] && n < BENCH_MAX_VARIANTS) {
		variant_default(&v[n], b->variants[n]);
		n++;
	}
	return n;
}

/* The knobs as the command line set them; each variant starts from these. */
static struct batch_caps caps_cmdline;

static void apply_variant(const struct bench *b, const struct bench_variant *v)
{
	mm_caps = caps_cmdline;
	if (bench_row(b)->cap_key) {
		*caps_find(bench_row(b)->cap_key) = v->cap;
		if (v->walk >= 0)
			mm_caps.gup_walk = v->walk;
	}
	if (b->apply)
		b->apply(v->name);
}

static uint64_t t_start, t_elapsed;
static struct mm_counters c_start, c_delta;

void bench_start(void)
{
	c_start = mm_counters_read();
	t_start = time_ns();
}

void bench_stop(void)
{
	t_elapsed = time_ns() - t_start;
	mm_counters_since(&c_delta, &c_start);
}

/* What bench_timed_on_cpus() hands each CPU. */
struct timed_run {
	void (*fn)(unsigned cpu, void *arg);
	void *arg;
	unsigned ncpus;
	unsigned arrived; /* CPUs at the barrier */
	unsigned go;	  /* set by CPU 0 once the clock runs */
};

static void timed_cpu(unsigned cpu, void *arg)
{
	struct timed_run *t = arg;

	__atomic_fetch_add(&t->arrived, 1, __ATOMIC_ACQ_REL);
	if (cpu == 0) {
		while (__atomic_load_n(&t->arrived, __ATOMIC_ACQUIRE) < t->ncpus)
			arch_cpu_relax();
		bench_start();
		__atomic_store_n(&t->go, 1, __ATOMIC_RELEASE);
	}
	while (!__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	t->fn(cpu, t->arg);
}

void bench_timed_on_cpus(unsigned ncpus, void (*fn)(unsigned cpu, void *arg), void *arg)
{
	struct timed_run t = { .fn = fn, .arg = arg, .ncpus = ncpus };

	smp_run(ncpus, timed_cpu, &t);
	bench_stop();
}

unsigned long bench_map(struct mm *mm, const struct folio_size *fs, unsigned long size,
			bool populate)
{
	unsigned long orders = (1ul << fs->order) | 1;
	long a = mm_mmap(mm, 0, size, VM_READ | VM_WRITE | (fs->pmd ? 0 : VM_NOHUGEPMD), 0, orders);

	if (a <= 0)
		return 0;
	if (populate && mm_touch(mm, (unsigned long)a, size, true))
		return 0;
	return (unsigned long)a;
}

int bench_rep_populated(const struct folio_size *fs, const struct bench_params *p,
			int (*prepare)(struct mm *mm, unsigned long addr, unsigned long size),
			int (*op)(struct mm *mm, unsigned long addr, unsigned long size))
{
	struct mm *mm = mm_create();
	unsigned long a = mm ? bench_map(mm, fs, p->size, true) : 0;
	int err = -1;

	if (a && (!prepare || !prepare(mm, a, p->size)))
		err = bench_timed(mm, a, p, op);
	if (mm)
		mm_put(mm);
	return err ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct variant_result {
	uint64_t t[64];
	struct mm_counters counters;
	struct batch_caps caps; /* in effect during the repetitions */
	uint64_t median;
	double spread; /* (max - min) / median, in % */
};

/* Every counter of @c, zeros too, as a JSON object body: the RESULT lines
 * of a run then have the same members, so the CSV columns ptelab takes
 * from the first line (vmm/vmm_csv.h) fit every row. */
static void counters_json_all(const struct mm_counters *c, char *buf, size_t size)
{
	size_t n = 0;

#define BENCH_COUNTER_JSON(name, what)                                                             \
	n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0,                \
			      "%s\"%s\":%llu", n ? "," : "", #name, (unsigned long long)c->name);
	MM_COUNTER_LIST(BENCH_COUNTER_JSON)
#undef BENCH_COUNTER_JSON
}

static void print_result(const struct bench *b, const struct folio_size *fs,
			 const struct bench_variant *v, const struct bench_params *p,
			 struct variant_result *r)
{
	const struct cmdline_bench *row = bench_row(b);
	char counters[2048], capjson[512], cap[12] = "null", params[160] = "";

	qsort(r->t, (size_t)p->reps, sizeof(r->t[0]), cmp_u64);
	r->median =
		p->reps % 2 ? r->t[p->reps / 2] : (r->t[p->reps / 2 - 1] + r->t[p->reps / 2]) / 2;
	r->spread =
		r->median ? 100.0 * (double)(r->t[p->reps - 1] - r->t[0]) / (double)r->median : 0;
	counters_json_all(&r->counters, counters, sizeof(counters));
	BUG_ON(caps_json(&r->caps, capjson, sizeof(capjson)) >= (int)sizeof(capjson));
	if (row->cap_key)
		cap_json(caps_value(&r->caps, row->cap_key), cap, sizeof(cap));
	if (b->params)
		b->params(params, sizeof(params));
	printf("RESULT "
	       "{\"bench\":\"%s\",\"arch\":\"%s\",\"backend\":\"%s\",\"clock\":\"%s\","
	       "\"version\":\"%s\",\"folio\":\"%s\",\"variant\":\"%s\",\"cap\":%s,\"active\":%u,"
	       "\"reps\":%d,\"size_mb\":%lu,\"median_us\":%.1f,\"min_us\":%.1f,\"max_us\":%.1f,"
	       "\"spread_pct\":%.1f,\"cpus\":%u,\"workers\":%u,\"params\":\"%s\","
	       "\"caps\":{%s},\"counters\":{%s}}\n",
	       row->name, arch_name, p->backend, p->clock, p->version, fs->label, v->name, cap,
	       p->active, p->reps, p->size >> 20, r->median / 1000.0, r->t[0] / 1000.0,
	       r->t[p->reps - 1] / 1000.0, r->spread, smp_nr_cpus(), row->smp ? p->cpus : 1, params,
	       capjson, counters);
}

/* Is @label in the comma-separated @list? */
static bool in_list(const char *list, const char *label)
{
	size_t n = strlen(label);

	for (const char *s = list; s && *s;) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (len == n && strncmp(s, label, n) == 0)
			return true;
		s = e ? e + 1 : NULL;
	}
	return false;
}

/* All variants of one folio size, interleaved. Progress: a dot per
 * repetition, flushed at once (ptelab passes a partial line on), on a line
 * of its own so RESULT lines stay at the start of a line. */
static int bench_one_size(const struct bench *b, const struct folio_size *fs,
			  const struct bench_params *p, const struct bench_variant *vs, int nv,
			  struct variant_result *res)
{
	uint64_t t0 = time_ns();

	if (!p->quiet)
		printf("  %s %s: ", bench_row(b)->name, fs->label);
	fflush(stdout);
	for (int rep = 0; rep < p->reps; rep++) {
		for (int v = 0; v < nv; v++) {
			struct bench_rep r = { vs[v].name, rep };

			apply_variant(b, &vs[v]);
			res[v].caps = mm_caps;
			if (b->rep(fs, &r, p)) {
				printf("\nbench %s: %s %s failed (out of memory? try a larger "
				       "--mem or a smaller size=)\n",
				       bench_row(b)->name, fs->label, vs[v].name);
				mm_caps = caps_cmdline;
				return -1;
			}
			res[v].t[rep] = t_elapsed;
			res[v].counters = c_delta;
		}
		if (!p->quiet)
			printf(".");
		fflush(stdout);
	}
	mm_caps = caps_cmdline;
	if (!p->quiet)
		printf(" %d rep%s in %.1f s\n", p->reps, p->reps == 1 ? "" : "s",
		       (double)(time_ns() - t0) / 1e9);
	for (int v = 0; v < nv; v++)
		print_result(b, fs, &vs[v], p, &res[v]);
	return 0;
}

/* One table row per folio size: the medians, then how many times faster
 * the last variant is than the first, or (one variant) the rate in 4 KiB
 * pages per second. */
static void print_row(const struct folio_size *fs, struct variant_result *res, int nv,
		      const struct bench_params *p)
{
	printf("  %-8s", fs->label);
	for (int v = 0; v < nv; v++)
		printf(" %12.1f", res[v].median / 1000.0);
	if (nv >= 2)
		printf("   %6.2fx", (double)res[0].median / (double)(res[nv - 1].median ?: 1));
	else
		printf(" %14.0f", (double)(p->size >> PAGE_SHIFT) * 1e9 / (double)res[0].median);
	printf("\n");
}

/* One table row per folio size and variant (a caps= sweep). */
static void print_rows_long(const struct folio_size *fs, const struct bench_variant *vs,
			    struct variant_result *res, int nv)
{
	for (int v = 0; v < nv; v++)
		printf("  %-8s %-12s %12.1f %8.1f%% %9.2fx\n", fs->label, vs[v].name,
		       res[v].median / 1000.0, res[v].spread,
		       (double)res[0].median / (double)(res[v].median ?: 1));
}

/* What one "us" in the table is. */
static const char *clock_meaning(const char *clock)
{
	if (!strcmp(clock, "icount"))
		return "1 us = 1000 guest instructions, exact";
	if (!strcmp(clock, "host"))
		return "real time of the mm code on the host CPU, simulated MMU, no TLB cost";
	if (!strcmp(clock, "kvm"))
		return "real time on KVM, real MMU";
	if (!strcmp(clock, "tcg"))
		return "WARNING: wall time of an emulator; differences are noise, use --accel "
		       "icount";
	return "unknown clock";
}

static void print_table(const struct bench_params *p, const struct bench_variant *vs, int nv,
			const int *rows, int nrows,
			struct variant_result (*res)[BENCH_MAX_VARIANTS])
{
	printf("  clock %s: %s\n", p->clock, clock_meaning(p->clock));
	if (p->caps) {
		printf("  %-8s %-12s %12s %9s %10s\n", "folio", "variant", "median_us", "spread",
		       "vs first");
		for (int r = 0; r < nrows; r++)
			print_rows_long(&folio_sizes[rows[r]], vs, res[r], nv);
		return;
	}
	printf("  %-8s", "folio");
	for (int v = 0; v < nv; v++)
		printf(" %12s", vs[v].name);
	printf(nv >= 2 ? "   speedup\n" : "        pages/s\n");
	for (int r = 0; r < nrows; r++)
		print_row(&folio_sizes[rows[r]], res[r], nv, p);
}

/* Counter @i of @c, in MM_COUNTER_LIST order. */
static uint64_t counter_at(const struct mm_counters *c, int i)
{
	int k = 0;

#define COUNTER_AT(name, meaning)                                                                  \
	if (k++ == i)                                                                              \
		return c->name;
	MM_COUNTER_LIST(COUNTER_AT)
#undef COUNTER_AT
	return 0;
}

static const char *const counter_names[] = {
#define COUNTER_NAME(name, meaning) #name,
	MM_COUNTER_LIST(COUNTER_NAME)
#undef COUNTER_NAME
};

/*
 * Under the table, what each variant did: per folio size, one row per
 * counter that is not 0 in some variant, one column per variant, the
 * counts of the last repetition (each repetition does the same work, so
 * the counts are those of any one of them).
 */
static void print_counters(const struct bench_variant *vs, int nv, const int *rows, int nrows,
			   struct variant_result (*res)[BENCH_MAX_VARIANTS])
{
	int n = (int)(sizeof(counter_names) / sizeof(counter_names[0]));

	printf("  counters of one repetition (those not 0):\n");
	for (int r = 0; r < nrows; r++) {
		printf("  %-8s %-20s", folio_sizes[rows[r]].label, "");
		for (int v = 0; v < nv; v++)
			printf(" %12s", vs[v].name);
		printf("\n");
		for (int i = 0; i < n; i++) {
			bool any = false;

			for (int v = 0; v < nv; v++)
				any |= counter_at(&res[r][v].counters, i) != 0;
			if (!any)
				continue;
			printf("  %-8s %-20s", "", counter_names[i]);
			for (int v = 0; v < nv; v++)
				printf(" %12llu",
				       (unsigned long long)counter_at(&res[r][v].counters, i));
			printf("\n");
		}
	}
}

/* With active=K: the shootdowns and IPIs of one repetition per variant. */
static void print_ipis(const struct bench_params *p, const struct bench_variant *vs, int nv,
		       const int *rows, int nrows, struct variant_result (*res)[BENCH_MAX_VARIANTS])
{
	printf("  %-8s %-12s %12s %14s %10s (one repetition, active=%u)\n", "folio", "variant",
	       "tlb_flushes", "tlb_shootdowns", "tlb_ipis", p->active);
	for (int r = 0; r < nrows; r++)
		for (int v = 0; v < nv; v++) {
			const struct mm_counters *c = &res[r][v].counters;

			printf("  %-8s %-12s %12llu %14llu %10llu\n", folio_sizes[rows[r]].label,
			       vs[v].name, (unsigned long long)c->tlb_flushes,
			       (unsigned long long)c->tlb_shootdowns,
			       (unsigned long long)c->tlb_ipis);
		}
}

int bench_run(const struct bench *b, const struct bench_params *p)
{
	static struct variant_result res[16][BENCH_MAX_VARIANTS];
	struct bench_variant vs[BENCH_MAX_VARIANTS];
	const struct cmdline_bench *row = bench_row(b);
	const char *folios = p->folios ? p->folios : b->default_folios;
	int nv, rows[16], nrows = 0;
	char err[160];

	caps_cmdline = mm_caps;
	nv = bench_variants(b, p, vs, err, sizeof(err));
	if (nv < 0)
		return printf("guest: %s\n", err), PTELAB_EXIT_USAGE;
	printf("== bench %s: %s, %lu MiB, %d rep%s (median us, clock %s)%s%s%s", row->name, b->what,
	       p->size >> 20, p->reps, p->reps == 1 ? "" : "s", p->clock,
	       p->caps_na ? "; caps= does not apply (no batching cap)" : "",
	       p->cpus > 1 && !row->smp ? "; cpus= does not apply (runs on CPU 0)" : "",
	       p->active_na ? "; active= does not apply" : "");
	if (smp_nr_cpus() > 1)
		printf(", on %u of %u CPUs", row->smp ? p->cpus : 1, smp_nr_cpus());
	printf("\n");
	if (p->active)
		printf("  active=%u: cpu1..cpu%u read the range, then sleep in the mm while cpu0 "
		       "times\n",
		       p->active, p->active);
	if (!strcmp(p->clock, "tcg"))
		printf("  WARNING: clock tcg is an emulator's wall time; its differences are noise "
		       "(use --accel icount)\n");
	for (int i = 0; i < nr_folio_sizes; i++) {
		if (!in_list(folios, folio_sizes[i].label))
			continue;
		if (bench_one_size(b, &folio_sizes[i], p, vs, nv, res[nrows]))
			return PTELAB_EXIT_FAIL;
		rows[nrows++] = i;
	}
	print_table(p, vs, nv, rows, nrows, res);
	print_counters(vs, nv, rows, nrows, res);
	if (p->active)
		print_ipis(p, vs, nv, rows, nrows, res);
	return PTELAB_EXIT_OK;
}
