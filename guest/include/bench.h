/*
 * bench.h - the in-guest benchmark harness (run=bench:NAME).
 *
 * A benchmark is a list of cases (a folio size) times variants. A variant
 * is a setting of the benchmark's own batching cap (the knob of the
 * operation it times, e.g. zap= for bench:zap): the defaults are
 * "unbatched" (cap 1) and "batched" (cap max), caps=LIST runs one variant
 * "cap=N" per value, and the cap given on the command line (zap=4, or
 * batch=4) runs that one value. Every other knob keeps its command-line
 * value. For each case and variant the harness runs the benchmark's
 * one-repetition function @reps times, variants interleaved so drift hits
 * them alike, and prints one RESULT line with the median, minimum and
 * maximum time, the caps in effect and the counter deltas of one
 * repetition.
 */
#ifndef GUEST_BENCH_H
#define GUEST_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "ptelab/cmdline.h"

#define BENCH_MAX_VARIANTS CMDLINE_CAPS_MAX

/* One variant: its name and the settings it gives the benchmark's own cap. */
struct bench_variant {
	char name[24]; /* "unbatched", "batched", "cap=16", "walk+grab" */
	unsigned cap;  /* the benchmark's own cap (CAP_MAX = max) */
	int walk;      /* mm_caps.gup_walk for this variant; -1 leaves the knob */
};

struct bench_params {
	unsigned long size; /* bytes each repetition works on (0 in bench_params: the default) */
	int reps;
	const char *folios; /* comma-separated labels to run, NULL = the bench's own */
	const char *caps;   /* caps=LIST, NULL = the default variants */
	bool caps_na;	    /* caps= was given but this bench has no cap (run=bench) */
	bool quiet;	    /* no progress lines */
	unsigned cpus;	    /* cpus=: CPUs doing the timed work at once (1 unless given) */
	const char *clock;  /* what a "us" is: "icount", "host", "kvm", "tcg" */
	const char *backend, *version;
	unsigned active; /* active=K: CPUs 1..K in the mm while CPU 0 times (bench_timed) */
	bool active_na;	 /* active= was given but this bench does not take it (run=bench) */
};

/* Which repetition the harness asks a bench_rep_fn for. */
struct bench_rep {
	const char *variant; /* the variant's name */
	int nr;		     /* 0 .. reps - 1; every variant runs repetition nr before nr + 1 */
};

/* One repetition: set up untimed, then call bench_start()/bench_stop()
 * around the measured part. Return 0, or -1 when it failed. */
typedef int (*bench_rep_fn)(const struct folio_size *fs, const struct bench_rep *r,
			    const struct bench_params *p);

/* Never inlined: tests/bench/iprof.sh finds the timed window by the
 * addresses of these two functions. */
__attribute__((noinline)) void bench_start(void);
__attribute__((noinline)) void bench_stop(void);

/* A benchmark: bench_<id> of a row of CMDLINE_BENCHES
 * (ptelab/cmdline_cmds.h), which says its name and the keys it takes
 * (bench_row()). */
struct bench {
	const char *default_folios;
	const char *const *variants; /* default variant names, NULL-terminated */
	bench_rep_fn rep;
	const char *what; /* one line for the table header */
	/* Optional: set the caps of default variant @variant beyond its row's
	 * cap_key (called after cap_key is set, before the caps are
	 * recorded). */
	void (*apply)(const char *variant);
	/* Optional: the bench's own keys as they apply ("gup_op=pin ..."), for
	 * the RESULT line's "params" (empty without it), so that a CSV mixing
	 * runs of different keys can tell them apart. */
	void (*params)(char *buf, size_t len);
};

/* The row of CMDLINE_BENCHES of @b (guest/bench_cmd.c). */
const struct cmdline_bench *bench_row(const struct bench *b);

/*
 * bench_variants - the variants @b runs under @p and the command line:
 * caps=LIST, else the bench's own knob when given, else the defaults.
 * Context: cmdline_check_run() has passed the command line (caps= only
 * where it applies, never beside the bench's own knob).
 * Return: the number of variants, or -1 with a one-line reason in @err
 * (a bad cap value).
 */
int bench_variants(const struct bench *b, const struct bench_params *p, struct bench_variant *v,
		   char *err, size_t errlen);

/*
 * bench_timed - time @op(@mm, @addr, @p->size) between bench_start() and
 * bench_stop(). With @p->active = K, CPUs 1..K first switch to @mm and read
 * every page of the range, then sleep in @mm (x86 shootdowns interrupt
 * them) until @op has returned (guest/bench_active.c).
 * Return: what @op returned.
 */
struct mm;
int bench_timed(struct mm *mm, unsigned long addr, const struct bench_params *p,
		int (*op)(struct mm *mm, unsigned long addr, unsigned long size));

/*
 * bench_timed_on_cpus - run @fn(cpu, @arg) on CPUs 0 .. @ncpus - 1 at once
 * (smp_run()) and time it as bench_start()/bench_stop() do: from the moment
 * every CPU is ready (they meet at a barrier, CPU 0 starts the clock and
 * lets them go) to the return of the last. The counters are those of all
 * CPUs. @ncpus 1 runs @fn on CPU 0 alone.
 */
void bench_timed_on_cpus(unsigned ncpus, void (*fn)(unsigned cpu, void *arg), void *arg);

/* Run @b over its folios and variants; print RESULT lines and a table.
 * Return a PTELAB_EXIT_* status. */
int bench_run(const struct bench *b, const struct bench_params *p);

/* The variant names most benchmarks use. */
extern const char *const variants_batching[];

/* Map @p->size of anonymous memory for folio size @fs in @mm and return
 * its address (0 on failure); @populate writes every page. */
unsigned long bench_map(struct mm *mm, const struct folio_size *fs, unsigned long size,
			bool populate);

/*
 * bench_rep_populated - one repetition of the common shape: a new mm,
 * @p->size of populated memory of folio size @fs, @prepare (untimed; may
 * be NULL), then @op timed by bench_timed(), the mm put.
 * Return: 0, or -1 when a step failed.
 */
int bench_rep_populated(const struct folio_size *fs, const struct bench_params *p,
			int (*prepare)(struct mm *mm, unsigned long addr, unsigned long size),
			int (*op)(struct mm *mm, unsigned long addr, unsigned long size));

#endif
