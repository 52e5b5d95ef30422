/*
 * bench.c - the benchmark harness (see bench.h) and run=bench:NAME.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "kernel.h"
#include "knobs.h"
#include "mm.h"
#include "ptelab_abi.h"

const struct folio_size folio_sizes[] = {
	{ "4K", 0, false },	{ "16K", 2, false },   { "32K", 3, false },  { "64K", 4, false },
	{ "128K", 5, false },	{ "256K", 6, false },  { "512K", 7, false }, { "1M", 8, false },
	{ "2M-pte", 9, false }, { "2M-pmd", 9, true },
};
const int nr_folio_sizes = sizeof(folio_sizes) / sizeof(folio_sizes[0]);

const char *const variants_batching[] = { "unbatched", "batched", NULL };

void bench_apply_variant(const char *variant)
{
	caps_set_all(strcmp(variant, "unbatched") != 0);
}

static uint64_t t_start, t_elapsed;
static struct mm_counters c_start, c_delta;

void bench_start(void)
{
	c_start = mm_counters;
	t_start = time_ns();
}

void bench_stop(void)
{
	t_elapsed = time_ns() - t_start;
	mm_counters_delta(&c_delta, &c_start, &mm_counters);
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct variant_result {
	uint64_t t[64];
	struct mm_counters counters;
	uint64_t median;
};

static void print_result(const struct bench *b, const struct folio_size *fs, const char *variant,
			 const struct bench_params *p, struct variant_result *r)
{
	char counters[768];

	qsort(r->t, (size_t)p->reps, sizeof(r->t[0]), cmp_u64);
	r->median =
		p->reps % 2 ? r->t[p->reps / 2] : (r->t[p->reps / 2 - 1] + r->t[p->reps / 2]) / 2;
	mm_counters_json(&r->counters, counters, sizeof(counters));
	printf("RESULT "
	       "{\"bench\":\"%s\",\"arch\":\"%s\",\"folio\":\"%s\",\"variant\":\"%s\",\"reps\":%d,"
	       "\"size_mb\":%lu,\"median_us\":%.1f,\"min_us\":%.1f,\"max_us\":%.1f,"
	       "\"counters\":{%s}}\n",
	       b->name, arch_name, fs->label, variant, p->reps, p->size >> 20, r->median / 1000.0,
	       r->t[0] / 1000.0, r->t[p->reps - 1] / 1000.0, counters);
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

/* All variants of one folio size, interleaved. Progress: one dot per
 * repetition on a line of its own (logs stay readable, RESULT lines stay
 * at the start of a line). */
static int bench_one_size(const struct bench *b, const struct folio_size *fs,
			  const struct bench_params *p, struct variant_result *res, int nv)
{
	uint64_t t0 = time_ns();

	printf("  %s %s: ", b->name, fs->label);
	fflush(stdout);
	for (int rep = 0; rep < p->reps; rep++) {
		for (int v = 0; v < nv; v++) {
			bench_apply_variant(b->variants[v]);
			if (b->rep(fs, b->variants[v], p)) {
				printf("\nbench %s: %s %s failed (out of memory? try a larger "
				       "--mem)\n",
				       b->name, fs->label, b->variants[v]);
				caps_set_all(true);
				return -1;
			}
			res[v].t[rep] = t_elapsed;
			res[v].counters = c_delta;
		}
		printf(".");
		fflush(stdout);
	}
	caps_set_all(true);
	printf(" %d reps in %.1f s\n", p->reps, (double)(time_ns() - t0) / 1e9);
	for (int v = 0; v < nv; v++)
		print_result(b, fs, b->variants[v], p, &res[v]);
	return 0;
}

/* One table row: the medians, then the change from the first variant to
 * the last, or (one variant) the rate in 4 KiB pages per second. */
static void print_row(const struct folio_size *fs, struct variant_result *res, int nv,
		      const struct bench_params *p)
{
	printf("  %-8s", fs->label);
	for (int v = 0; v < nv; v++)
		printf(" %12.1f", res[v].median / 1000.0);
	if (nv >= 2)
		printf("   %+6.1f%%", 100.0 * ((double)res[nv - 1].median - (double)res[0].median) /
					      (double)res[0].median);
	else
		printf(" %14.0f", (double)(p->size >> PAGE_SHIFT) * 1e9 / (double)res[0].median);
	printf("\n");
}

int bench_run(const struct bench *b, const struct bench_params *p)
{
	static struct variant_result res[16][8];
	const char *folios = p->folios ? p->folios : b->default_folios;
	int nv = 0, rows[16], nrows = 0;

	while (b->variants[nv])
		nv++;
	printf("== bench %s: %s, %lu MiB, %d reps (median us)\n", b->name, b->what, p->size >> 20,
	       p->reps);
	for (int i = 0; i < nr_folio_sizes; i++) {
		if (!in_list(folios, folio_sizes[i].label))
			continue;
		if (bench_one_size(b, &folio_sizes[i], p, res[nrows], nv))
			return PTELAB_EXIT_FAIL;
		rows[nrows++] = i;
	}
	printf("  %-8s", "folio");
	for (int v = 0; v < nv; v++)
		printf(" %12s", b->variants[v]);
	printf(nv >= 2 ? "   change\n" : "        pages/s\n");
	for (int r = 0; r < nrows; r++)
		print_row(&folio_sizes[rows[r]], res[r], nv, p);
	return PTELAB_EXIT_OK;
}
