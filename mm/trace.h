/*
 * trace.h - trace=on: one line per batch decision, for a student who wants
 * to see a batched operation step by step rather than its totals
 * (docs/mm-core.md, "Tracing").
 *
 * The events: an operation's start (its range and cap) and end (its
 * counters), each run folio_pte_batch() finds (its first address, its
 * length and what ended it), each TLB flush (its range and how the arch
 * sent it), each contpte fold and unfold, each gather's release. Each
 * line ends with the counters this CPU changed between that event and the
 * next one, so a run's line carries the reference, mapcount and pincount
 * updates its caller made for it. The format (stable; tests and
 * docs/mm-core.md rely on it):
 *
 *   trace: cpuN [indent]EVENT FIELDS [counter+N ...]
 *
 * and each line also as one JSON record on a line of its own, after
 * PTELAB_TRACE_LINE (ptelab/abi.h), which ptelab writes to --results and
 * --trace-html and does not show (the schema: docs/mm-core.md, "The trace
 * as JSON"). An outermost operation's first and last records carry the
 * strip of its range (as mm_ptstrip() draws it, clipped to the mm's VMAs,
 * at most TRACE_STRIP_MAX entries) before and after it.
 *
 * Built only into the images made for it (PTELAB_TRACE: guest-trace.elf,
 * which ptelab boots for trace=on, and the host runners): in the default
 * image every TRACE() folds away, so trace=on costs the measured kernel
 * nothing, not even the test of a flag. (A flag tested once a run, or one
 * more argument to the run's cold contract check, moved icount figures
 * by up to 2% through the hot loops' register allocation.)
 */
#ifndef MM_TRACE_H
#define MM_TRACE_H

#include <stdbool.h>

struct mm;

extern bool mm_trace;

/* Turn tracing on or off; false when this image has no trace. */
bool mm_set_trace(bool on);

#ifdef PTELAB_TRACE
#define MM_TRACE_BUILT true
#else
#define MM_TRACE_BUILT false
#endif

/* Where the lines go: printf while NULL (the tests capture them). */
extern void (*mm_trace_sink)(const char *line);
/* Where the JSON records go: when NULL, printf after PTELAB_TRACE_LINE
 * while mm_trace_sink is NULL too, else nowhere. */
extern void (*mm_trace_json_sink)(const char *json);

/* The longest range an operation's strip covers, in entries. */
#define TRACE_STRIP_MAX 1024

/* Is trace=on? Constant false in an image without the trace. */
static inline bool mm_tracing(void)
{
	return MM_TRACE_BUILT && __builtin_expect(mm_trace, 0);
}

#define TRACE(call)                                                                                \
	do {                                                                                       \
		if (mm_tracing())                                                                  \
			call;                                                                      \
	} while (0)

/* Operation @op over [@start, @end) of @mm with batch cap @cap (CAP_MAX:
 * "max"; 0: the operation has no cap) begins; ends. */
void trace_op_begin(const char *op, struct mm *mm, unsigned long start, unsigned long end,
		    unsigned cap);
void trace_op_end(const char *op);

/* A run's scan begins (its reads count on the run's line). */
void trace_run_begin(void);

/* A run of @nr entries from @addr: @limit was its bound (the least of
 * @in_folio, @in_table and @max_nr); a run shorter than it ended at an
 * entry that differs. */
void trace_run(unsigned long addr, unsigned nr, unsigned limit, unsigned long in_folio,
	       unsigned in_table, unsigned max_nr);

/* A PMD leaf at @addr taken as one entry by the operation (@what). */
void trace_pmd(unsigned long addr, const char *what);

/* A flush of [@start, @end) (@pages pages), and how the arch sent it. */
void trace_flush(unsigned long start, unsigned long end, unsigned long pages);
void trace_flush_how(const char *how);

/* A contpte block at @addr folded (@fold) or unfolded. */
void trace_cont(unsigned long addr, bool fold);

/* A gather gives back @pages folio references and @tables page tables. */
void trace_gather(unsigned long pages, unsigned long tables);

#endif
