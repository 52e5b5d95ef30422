/*
 * trace.c - trace=on (the contract and the format: trace.h).
 *
 * Each CPU keeps its last event unprinted until its next one (or the end
 * of the operation), then prints it with the counters it changed in
 * between: the counters are per CPU, so the delta is this CPU's work for
 * that event alone.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "kernel.h"
#include "knobs.h"
#include "page.h"
#include "smp.h"
#include "trace.h"

bool mm_trace;

static void trace_print(const char *line)
{
	printf("trace: %s\n", line);
}

void (*mm_trace_sink)(const char *line);

static void sink(const char *line)
{
	(mm_trace_sink ? mm_trace_sink : trace_print)(line);
}

static struct trace_cpu {
	bool pending;
	bool since_set;		  /* trace_run_begin() took `since` for the next event */
	unsigned depth;		  /* operations begun and not ended */
	struct mm_counters since; /* this CPU's counters at the pending event */
	struct mm_counters begun; /* ... at the outermost operation's start */
	char line[256];
} trace_cpus[NR_CPUS];

bool mm_set_trace(bool on)
{
	if (on && !MM_TRACE_BUILT)
		return false;
	mm_trace = on;
	return true;
}

/* Append " [name+N ...]" for the counters that grew from @from to now. */
static void add_delta(char *buf, size_t size, const struct mm_counters *from)
{
	const struct mm_counters *now = &mm_counters_cpu[smp_processor_id()].c;
	size_t len = strlen(buf);
	bool any = false;

#define DELTA(name, meaning)                                                                       \
	if (now->name != from->name && len + 2 < size) {                                           \
		len += (size_t)snprintf(buf + len, size - len, "%s%s+%llu", any ? " " : " [",      \
					#name, (unsigned long long)(now->name - from->name));      \
		any = true;                                                                        \
	}
	MM_COUNTER_LIST(DELTA)
#undef DELTA
	if (any && len + 2 < size)
		snprintf(buf + len, size - len, "]");
}

static void flush_pending(struct trace_cpu *t)
{
	if (!t->pending)
		return;
	add_delta(t->line, sizeof(t->line), &t->since);
	sink(t->line);
	t->pending = false;
}

/*
 * Print the pending event; make this one pending, its counters counted
 * from now (or from trace_run_begin()). Outside any operation an event
 * is printed at once, without counters: nothing would end it.
 */
static void __attribute__((format(printf, 1, 2))) emit(const char *fmt, ...)
{
	unsigned cpu = smp_processor_id();
	struct trace_cpu *t = &trace_cpus[cpu];
	int n;
	va_list ap;

	flush_pending(t);
	n = snprintf(t->line, sizeof(t->line), "cpu%u %*s", cpu, (int)(2 * t->depth), "");
	va_start(ap, fmt);
	vsnprintf(t->line + n, sizeof(t->line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (!t->since_set)
		t->since = mm_counters_cpu[cpu].c;
	t->since_set = false;
	if (!t->depth) {
		sink(t->line);
		return;
	}
	t->pending = true;
}

void trace_run_begin(void)
{
	unsigned cpu = smp_processor_id();
	struct trace_cpu *t = &trace_cpus[cpu];

	flush_pending(t);
	t->since = mm_counters_cpu[cpu].c;
	t->since_set = true;
}

static void cap_text(char *buf, size_t size, unsigned cap)
{
	if (cap == CAP_MAX)
		snprintf(buf, size, " cap=max");
	else if (cap)
		snprintf(buf, size, " cap=%u", cap);
	else
		buf[0] = '\0';
}

void trace_op_begin(const char *op, struct mm *mm, unsigned long start, unsigned long end,
		    unsigned cap)
{
	struct trace_cpu *t = &trace_cpus[smp_processor_id()];
	char c[24];

	(void)mm;
	cap_text(c, sizeof(c), cap);
	emit("%s %#lx-%#lx%s", op, start, end, c);
	if (t->depth++ == 0)
		t->begun = t->since;
}

void trace_op_end(const char *op)
{
	struct trace_cpu *t = &trace_cpus[smp_processor_id()];

	if (!t->depth)
		return; /* trace=on came in the middle of the operation */
	flush_pending(t);
	if (--t->depth)
		return;
	snprintf(t->line, sizeof(t->line), "cpu%u end %s:", smp_processor_id(), op);
	add_delta(t->line, sizeof(t->line), &t->begun);
	sink(t->line);
}

void trace_run(unsigned long addr, unsigned nr, unsigned limit, unsigned long in_folio,
	       unsigned in_table, unsigned max_nr)
{
	const char *why = nr < limit	      ? "an entry differs"
			  : limit == in_folio ? "folio end"
			  : limit == in_table ? "table end"
					      : "cap or range";

	emit("run %#lx +%u (bound %u: folio %lu, table %u, max %u; ended by %s)", addr, nr, limit,
	     in_folio, in_table, max_nr, why);
}

void trace_pmd(unsigned long addr, const char *what)
{
	emit("pmd %#lx: %s (a 2 MiB leaf, one entry)", addr, what);
}

void trace_flush(unsigned long start, unsigned long end, unsigned long pages)
{
	emit("flush %#lx-%#lx (%lu pages)", start, end, pages);
}

void trace_flush_how(const char *how)
{
	emit("  sent: %s", how);
}

void trace_cont(unsigned long addr, bool fold)
{
	emit("%s %#lx (contpte block)", fold ? "fold" : "unfold", addr);
}

void trace_gather(unsigned long pages, unsigned long tables)
{
	emit("gather: %lu folio references and %lu page tables given back", pages, tables);
}
