/*
 * ptelab/cmdline_keys.h - every key the guest command line takes, one row
 * each. The one place a key is added: ptelab's check and -h text, the
 * guest's check, parser, run=help text and RESULT "caps" object (whose
 * members are the --csv columns) and mm's struct batch_caps are all made
 * from these rows (cmdline/keys.c, guest/knob_parse.c, mm/knobs.h).
 *
 * A row is X(id, name, kind, lo, hi, what, dflt, takers, arch, help):
 *   id      a C name: CMDLINE_KEY_<id>, and for a knob its batch_caps field
 *   name    the key as typed: the id, but for ptelab's own ptelab.* keys
 *           (a knob's row is CMDLINE_KNOB(X, id, ...), whose name is #id)
 *   kind    how the value reads (enum cmdline_kind, without CMDLINE_):
 *           RUN     the run= list (cmdline.h)
 *           NUM     a decimal number lo..hi
 *           EVEN    an even decimal number lo..hi
 *           CAP     a cap: 1..CMDLINE_CAP_LIMIT or max (a batch_caps field)
 *           BATCH   a cap, set on every CAP knob at once
 *           CAPS    a list of at most CMDLINE_CAPS_MAX distinct caps
 *           SWITCH  on or off (a batch_caps field)
 *           ONOFF   on or off
 *           CHOICE  one of @what's comma-separated words
 *           CHOICES a list of @what's words
 *           FOLIOS  a list of folio sizes (folio_sizes[])
 *           TEXT    anything (ptelab's own words)
 *   lo, hi  the range of NUM and EVEN (0 for the others)
 *   what    NUM, EVEN: the unit (NULL: a plain number); CHOICE, CHOICES:
 *           the words, in the order the guest's enum of them has
 *   dflt    the value taken when the key is absent, as a bare token
 *           (stringified for the help and the getters); empty when the
 *           default is not one value (the help says what it is)
 *   takers  the run= commands that read the key, comma-separated: NAME
 *           (every NAME[:ARG]) or NAME:ARG (that one, and NAME alone,
 *           which runs them all); NULL: every command (the knobs)
 *   arch    the one arch the key exists on ("arm64" also means
 *           host-arm64); NULL: every arch
 *   help    what the key does, without its range or default
 */
#ifndef PTELAB_CMDLINE_KEYS_H
#define PTELAB_CMDLINE_KEYS_H

#include "ptelab/abi.h"

/* A cap value: "max" (CMDLINE_CAP_MAX, which is mm's CAP_MAX) or a number
 * 1..CMDLINE_CAP_LIMIT. */
#define CMDLINE_CAP_MAX 0xffffffffu
#define CMDLINE_CAP_LIMIT 1048576u
/* At most this many values in caps= (a benchmark's variants). */
#define CMDLINE_CAPS_MAX 16
/* cpus=: the guest's NR_CPUS and ptelab's --cpus limit. */
#define CMDLINE_CPUS_MAX PTELAB_MAX_CPUS

/* A cap or switch row's dflt token as a value (a default that is no cap,
 * or neither on nor off, does not compile). */
#define CMDLINE_DFLT_CAP_max CMDLINE_CAP_MAX
#define CMDLINE_DFLT_SWITCH_on 1
#define CMDLINE_DFLT_SWITCH_off 0

/* A knob's row: its key is its batch_caps field's name. */
#define CMDLINE_KNOB(X, id, ...) X(id, #id, __VA_ARGS__)

/* The batching caps: each a field of struct batch_caps. */
#define CMDLINE_KNOB_CAPS(X)                                                                       \
	CMDLINE_KNOB(X, zap, CAP, 0, 0, NULL, max, NULL, NULL,                                     \
		     "cap of the batched zap (munmap, exit)")                                      \
	CMDLINE_KNOB(X, mprotect, CAP, 0, 0, NULL, max, NULL, NULL, "cap of the batched mprotect") \
	CMDLINE_KNOB(X, mremap, CAP, 0, 0, NULL, max, NULL, NULL,                                  \
		     "PTEs of one folio mremap moves as one run")                                  \
	CMDLINE_KNOB(X, fork, CAP, 0, 0, NULL, max, NULL, NULL, "cap of fork's batched PTE copy")  \
	CMDLINE_KNOB(X, gup_grab, CAP, 0, 0, NULL, max, NULL, NULL,                                \
		     "cap of GUP's batched folio grab")                                            \
	CMDLINE_KNOB(X, migrate, CAP, 0, 0, NULL, max, NULL, NULL,                                 \
		     "cap of migration's queueing (a folio's PTEs skipped as one run)")            \
	CMDLINE_KNOB(X, migrate_unmap, CAP, 0, 0, NULL, max, NULL, NULL,                           \
		     "PTEs migration unmaps and remaps as one run")                                \
	CMDLINE_KNOB(X, migrate_flush, CAP, 0, 0, NULL, max, NULL, NULL,                           \
		     "folios sharing one migration TLB flush (1: none deferred)")                  \
	CMDLINE_KNOB(X, madvise, CAP, 0, 0, NULL, max, NULL, NULL,                                 \
		     "MADV_FREE entries cleared of young and dirty as one run")                    \
	CMDLINE_KNOB(X, numa_hint, CAP, 0, 0, NULL, max, NULL, NULL,                               \
		     "PTEs of one folio NUMA hinting marks or restores as one run")                \
	CMDLINE_KNOB(X, pageout, CAP, 0, 0, NULL, max, NULL, NULL,                                 \
		     "PTEs MADV_PAGEOUT's unmap clears as one run")                                \
	CMDLINE_KNOB(X, swapin, CAP, 0, 0, NULL, max, NULL, NULL,                                  \
		     "pages a swap-in fault reads and maps as one folio (1: 4 KiB folios)")        \
	CMDLINE_KNOB(X, young, CAP, 0, 0, NULL, max, NULL, NULL,                                   \
		     "PTEs of one folio aging tests, clears and flushes as one run")

/* The switches that batch: batch= and caps_set_all() turn them on (cap
 * above 1) and off with the caps. Each a field of struct batch_caps. */
#define CMDLINE_KNOB_BATCH_SWITCHES(X)                                                             \
	CMDLINE_KNOB(X, gup_walk, SWITCH, 0, 0, NULL, on, NULL, NULL,                              \
		     "GUP walks every PTE of a table in one call")

/* The other switches: batch= leaves them alone. Each a field of struct
 * batch_caps. */
#define CMDLINE_KNOB_SWITCHES(X)                                                                   \
	CMDLINE_KNOB(X, contpte, SWITCH, 0, 0, NULL, on, NULL, "arm64",                            \
		     "fold aligned 16-PTE runs into contiguous blocks")

/* Every key, in the order the help lists them. */
#define CMDLINE_KEYS(X)                                                                            \
	X(run, "run", RUN, 0, 0, NULL, , NULL, NULL, "the commands to run (run=list lists them)")  \
	X(size, "size", EVEN, 2, 65536, "MiB", 256, "bench", NULL,                                 \
	  "memory per repetition (the default halves until the benchmark fits in RAM)")            \
	X(reps, "reps", NUM, 1, 64, NULL, 5, "bench", NULL, "repetitions per variant")             \
	X(folios, "folios", FOLIOS, 0, 0, NULL, , "bench,ptdump", NULL,                            \
	  "the folio sizes to run (default: each benchmark's own; ptdump:OP: the first, 4K..1M, "  \
	  "default 64K)")                                                                          \
	X(caps, "caps", CAPS, 0, 0, NULL, , "bench", NULL,                                         \
	  "a variant per cap of the timed operation, e.g. 1,4,max")                                \
	X(batch, "batch", BATCH, 0, 0, NULL, , NULL, NULL,                                         \
	  "every cap below at once (1 = unbatched, gup_walk off)")                                 \
	CMDLINE_KNOB_CAPS(X)                                                                       \
	CMDLINE_KNOB_BATCH_SWITCHES(X)                                                             \
	CMDLINE_KNOB_SWITCHES(X)                                                                   \
	X(reclaim_low, "reclaim_low", NUM, 0, 16777216, "pages", 0, NULL, NULL,                    \
	  "every node's watermark: a fault that finds a node's free pages below it reclaims "      \
	  "first (0: never; bench reclaim: default half its range below the free pages, "          \
	  "reclaim_shared a quarter)")                                                             \
	X(numa_scan, "numa_scan", NUM, 0, 1000000, "faults", 0, NULL, NULL,                        \
	  "NUMA balancing's periodic scan: every N faults of an mm, mark the next MiB of its "     \
	  "VMAs for hinting faults (0: never)")                                                    \
	X(trace, "trace", ONOFF, 0, 0, NULL, off, NULL, NULL,                                      \
	  "one line per batch decision (runs, flushes, folds); ptelab boots guest-trace.elf for "  \
	  "on")                                                                                    \
	X(active, "active", NUM, 0, PTELAB_MAX_CPUS - 1, "other CPUs", 0, "bench", NULL,           \
	  "bench zap, mprotect, migrate, madvise: other CPUs in the mm while cpu0 times "          \
	  "(needs --cpus K+1)")                                                                    \
	X(cpus, "cpus", NUM, 1, CMDLINE_CPUS_MAX, NULL, 1, "bench,stress", NULL,                   \
	  "bench fault, gup, gup_put: CPUs doing the timed work at once (at most --cpus); "        \
	  "stress:mm: CPUs the mixes run on (there the default is all)")                           \
	X(seconds, "seconds", NUM, 1, 86400, NULL, 10, "stress", NULL, "seconds of mixes")         \
	X(gup_nr, "gup_nr", NUM, 0, 16777216, "pages", 65536, "bench:gup,bench:gup_put", NULL,     \
	  "pages per call (0 = all)")                                                              \
	X(gup_op, "gup_op", CHOICE, 0, 0, "get,pin,longterm,get-fast,pin-fast", longterm,          \
	  "bench:gup,bench:gup_put", NULL, "the call that gets the pages")                         \
	X(gup_write, "gup_write", ONOFF, 0, 0, NULL, on, "bench:gup,bench:gup_put", NULL,          \
	  "FOLL_WRITE")                                                                            \
	X(gup_touch, "gup_touch", ONOFF, 0, 0, NULL, , "bench:gup,bench:gup_put", NULL,            \
	  "FOLL_TOUCH (default on for get, off for the pins, as Linux)")                           \
	X(gup_keep, "gup_keep", CHOICE, 0, 0, "pages,ranges", pages, "bench:gup,bench:gup_put",    \
	  NULL, "what the pinner keeps: the page array or runs of one folio")                      \
	X(advice, "advice", CHOICES, 0, 0, "free,dontneed,populate", free, "bench:madvise", NULL,  \
	  "the advices bench madvise runs")                                                        \
	X(mm_debug, "mm_debug", ONOFF, 0, 0, NULL, on, "exec", NULL,                               \
	  "mm's debug checks while the program runs: poison on free, contract checks (off: as "    \
	  "run=bench, a production kernel)")                                                       \
	X(ptelab_clock, "ptelab.clock", TEXT, 0, 0, NULL, , NULL, NULL,                            \
	  "set by ptelab: the clock (icount, host, kvm, tcg)")                                     \
	X(ptelab_backend, "ptelab.backend", TEXT, 0, 0, NULL, , NULL, NULL,                        \
	  "set by ptelab: the backend")                                                            \
	X(ptelab_version, "ptelab.version", TEXT, 0, 0, NULL, , NULL, NULL,                        \
	  "set by ptelab: its version")                                                            \
	X(ptelab_quiet, "ptelab.quiet", ONOFF, 0, 0, NULL, off, NULL, NULL,                        \
	  "set by ptelab --quiet: no progress lines")                                              \
	X(ptelab_verbose, "ptelab.verbose", ONOFF, 0, 0, NULL, off, NULL, NULL,                    \
	  "set by ptelab --verbose: the boot map (mm: lines)")

#endif
