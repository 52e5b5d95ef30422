/*
 * bench.h - the in-guest benchmark harness (run=bench:NAME).
 *
 * A benchmark is a list of cases (a folio size) times variants (unbatched,
 * batched, ...). For each case and variant the harness runs the
 * benchmark's one-repetition function @reps times, variants interleaved so
 * drift hits them alike, and prints one RESULT line with the median,
 * minimum and maximum time and the counter deltas of one repetition.
 */
#ifndef GUEST_BENCH_H
#define GUEST_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"

struct folio_size {
	const char *label; /* "4K" ... "2M-pte", "2M-pmd" */
	unsigned order;
	bool pmd; /* mapped by a PMD leaf */
};

extern const struct folio_size folio_sizes[];
extern const int nr_folio_sizes;

struct bench_params {
	unsigned long size; /* bytes of memory each repetition works on */
	int reps;
	const char *folios; /* comma-separated labels to run, NULL = the bench's own */
};

/* One repetition: set up untimed, then call bench_start()/bench_stop()
 * around the measured part. Return 0, or -1 when it failed. */
typedef int (*bench_rep_fn)(const struct folio_size *fs, const char *variant,
			    const struct bench_params *p);

void bench_start(void);
void bench_stop(void);

struct bench {
	const char *name;
	const char *default_folios;
	const char *const *variants; /* NULL-terminated */
	bench_rep_fn rep;
	const char *what; /* one line for the table header */
};

/* Run @b over its folios and variants; print RESULT lines and a table.
 * Return a PTELAB_EXIT_* status. */
int bench_run(const struct bench *b, const struct bench_params *p);

/* The variant names most benchmarks use, and how they set the knobs. */
extern const char *const variants_batching[];
void bench_apply_variant(const char *variant);

/* Map @p->size of anonymous memory for folio size @fs in @mm and return
 * its address (0 on failure); @populate writes every page. */
struct mm;
unsigned long bench_map(struct mm *mm, const struct folio_size *fs, unsigned long size,
			bool populate);

#endif
