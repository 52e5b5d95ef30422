/*
 * trace.c - trace=on (the contract and the formats: trace.h).
 *
 * Each CPU keeps its last event unprinted until its next one (or the end
 * of the operation), then prints it, as a line and as a JSON record, with
 * the counters it changed in between: the counters are per CPU, so the
 * delta is this CPU's work for that event alone.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "folio_walk.h"
#include "kernel.h"
#include "knobs.h"
#include "mm_internal.h"
#include "page.h"
#include "ptelab/abi.h"
#include "smp.h"
#include "swapops.h"
#include "trace.h"

#define TRACE_DEPTH_MAX 8 /* nested operations whose names the records carry */
#define TRACE_JSON_MAX (3 * TRACE_STRIP_MAX + 1024)

bool mm_trace;

static void trace_print(const char *line)
{
	printf("trace: %s\n", line);
}

static void trace_print_json(const char *json)
{
	printf(PTELAB_TRACE_LINE "%s\n", json);
}

void (*mm_trace_sink)(const char *line);
void (*mm_trace_json_sink)(const char *json);

static void sink(const char *line, const char *json)
{
	(mm_trace_sink ? mm_trace_sink : trace_print)(line);
	if (mm_trace_json_sink)
		mm_trace_json_sink(json);
	else if (!mm_trace_sink)
		trace_print_json(json);
}

static struct trace_cpu {
	bool pending;
	bool since_set; /* trace_run_begin() took `since` for the next event */
	unsigned depth; /* operations begun and not ended */
	const char *op[TRACE_DEPTH_MAX];
	struct mm *mm;		  /* the outermost operation's */
	unsigned long lo, hi;	  /* its strip's range; lo == hi: none */
	struct mm_counters since; /* this CPU's counters at the pending event */
	struct mm_counters begun; /* ... at the outermost operation's start */
	char line[256];
	char json[TRACE_JSON_MAX];
} trace_cpus[NR_CPUS];

static void strip_json(const struct trace_cpu *t, bool gone, char *json, size_t size);

bool mm_set_trace(bool on)
{
	if (on && !MM_TRACE_BUILT)
		return false;
	mm_trace = on;
	return true;
}

/* Append to @buf (@size bytes, a string) as snprintf would, never past its end. */
static void __attribute__((format(printf, 3, 4)))
append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* Append " [name+N ...]" to @line and ,"@key":{"name":N,...}} to @json for
 * the counters that grew from @from to now. */
static void add_delta(char *line, size_t lsize, char *json, size_t jsize, const char *key,
		      const struct mm_counters *from)
{
	const struct mm_counters *now = &mm_counters_cpu[smp_processor_id()].c;
	bool any = false;

	append(json, jsize, ",\"%s\":{", key);
#define DELTA(name, meaning)                                                                       \
	if (now->name != from->name) {                                                             \
		unsigned long long d = (unsigned long long)(now->name - from->name);               \
                                                                                                   \
		append(line, lsize, "%s%s+%llu", any ? " " : " [", #name, d);                      \
		append(json, jsize, "%s\"%s\":%llu", any ? "," : "", #name, d);                    \
		any = true;                                                                        \
	}
	MM_COUNTER_LIST(DELTA)
#undef DELTA
	if (any)
		append(line, lsize, "]");
	append(json, jsize, "}}");
}

static void flush_pending(struct trace_cpu *t)
{
	if (!t->pending)
		return;
	add_delta(t->line, sizeof(t->line), t->json, sizeof(t->json), "counters", &t->since);
	sink(t->line, t->json);
	t->pending = false;
}

/* Append @s to @json as a JSON string (quoted, escaped). */
static void json_string(char *json, size_t size, const char *s)
{
	append(json, size, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			append(json, size, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			append(json, size, "\\u%04x", c);
		else
			append(json, size, "%c", c);
	}
	append(json, size, "\"");
}

/* Start this CPU's record: {"trace":@kind,"cpu":N,"depth":D,"op":... */
static void json_begin(struct trace_cpu *t, unsigned cpu, const char *kind)
{
	/* an op record names itself (trace_op_begin() set its slot) */
	unsigned at = strcmp(kind, "op") == 0 ? t->depth + 1 : t->depth;
	const char *op = at && at <= TRACE_DEPTH_MAX ? t->op[at - 1] : "";

	snprintf(t->json, sizeof(t->json),
		 "{\"trace\":\"%s\",\"cpu\":%u,\"depth\":%u,\"op\":", kind, cpu, t->depth);
	json_string(t->json, sizeof(t->json), op);
}

/*
 * Print the pending event; make this one (@kind, its record's members
 * @jfields, its line @fmt) pending, its counters counted from now (or
 * from trace_run_begin()). Outside any operation an event other than an
 * operation's start (@hold) is printed at once, without counters: nothing
 * would end it.
 */
static void emitv(bool hold, bool strip, const char *kind, const char *jfields, const char *fmt,
		  va_list ap)
{
	unsigned cpu = smp_processor_id();
	struct trace_cpu *t = &trace_cpus[cpu];
	int n;

	flush_pending(t);
	n = snprintf(t->line, sizeof(t->line), "cpu%u %*s", cpu, (int)(2 * t->depth), "");
	vsnprintf(t->line + n, sizeof(t->line) - (size_t)n, fmt, ap);
	json_begin(t, cpu, kind);
	append(t->json, sizeof(t->json), "%s", jfields);
	if (strip)
		strip_json(t, false, t->json, sizeof(t->json));
	if (!t->since_set)
		t->since = mm_counters_cpu[cpu].c;
	t->since_set = false;
	if (!t->depth && !hold) {
		append(t->json, sizeof(t->json), ",\"counters\":{}}");
		sink(t->line, t->json);
		return;
	}
	t->pending = true;
}

static void __attribute__((format(printf, 3, 4)))
emit(const char *kind, const char *jfields, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emitv(false, false, kind, jfields, fmt, ap);
	va_end(ap);
}

/* An operation's start, held for its counters like an event inside one;
 * @strip: with the strip of its range (strip_range()). */
static void __attribute__((format(printf, 3, 4)))
emit_op(const char *jfields, bool strip, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emitv(true, strip, "op", jfields, fmt, ap);
	va_end(ap);
}

/* The counters of a run's scan go on the run's line (folio_pte_batch()
 * always ends the scan with trace_run()): the pending event is printed now. */
void trace_run_begin(void)
{
	unsigned cpu = smp_processor_id();
	struct trace_cpu *t = &trace_cpus[cpu];

	flush_pending(t);
	t->since = mm_counters_cpu[cpu].c;
	t->since_set = true;
}

static void cap_text(char *buf, size_t size, char *jbuf, size_t jsize, unsigned cap)
{
	if (cap == CAP_MAX) {
		snprintf(buf, size, " cap=max");
		snprintf(jbuf, jsize, "\"max\"");
	} else if (cap) {
		snprintf(buf, size, " cap=%u", cap);
		snprintf(jbuf, jsize, "%u", cap);
	} else {
		buf[0] = '\0';
		snprintf(jbuf, jsize, "null");
	}
}

/* ---- the strip: the range's entries, one character each --------------- */

/* The entry for @addr, read raw (no counters): a PMD leaf or PMD
 * migration entry comes back as itself in *@pmd_state. */
static pte_t strip_entry(struct mm *mm, unsigned long addr, enum pmd_state *state)
{
	pgd_t *pgdp = pgd_offset_pgd(mm->pgd, addr);
	pud_t pud;
	pmd_t pmd;

	*state = PMD_NONE;
	if (pgd_none(pgdp_get(pgdp)))
		return (pte_t){ 0 };
	pud = pudp_get(pud_offset(pgdp, addr));
	if (pud_none(pud) || pud_leaf(pud))
		return (pte_t){ 0 };
	pmd = pmdp_get(pmd_offset(pud_offset(pgdp, addr), addr));
	*state = pmd_state(pmd);
	if (*state == PMD_TABLE)
		return __ptep_get(&pmd_table(pmd)[pte_index(addr)]);
	return *state == PMD_NONE ? (pte_t){ 0 } : pmd_pte(pmd);
}

/* The strip's character for @pte (as mm_ptstrip() draws it; 'P' and 'M'
 * for an entry under a PMD leaf or PMD migration entry). */
static char strip_char(pte_t pte, enum pmd_state state)
{
	if (state == PMD_LEAF)
		return 'P';
	if (state == PMD_MIGRATION)
		return 'M';
	return pte_strip_char(pte);
}

enum strip_row { STRIP_PTES, STRIP_FOLIOS, STRIP_CONT };

/* Write row @row of the strip of [@lo, @hi) of @mm to @out (a character
 * an entry and a NUL): the entries, the folio letters (a..z, a new one
 * each time the folio changes; '-' none) or 'c' for contpte entries ('-'
 * not). @gone: the mm is gone, every entry none.
 * Context: takes mmap_lock for read, so the tables stay while it reads. */
static void strip_row(struct mm *mm, unsigned long lo, unsigned long hi, enum strip_row row,
		      bool gone, char *out)
{
	const struct folio *last = NULL;
	char letter = 'a';

	if (!gone)
		read_lock(&mm->mmap_lock);
	for (unsigned long addr = lo; addr < hi; addr += PAGE_SIZE) {
		enum pmd_state state = PMD_NONE;
		pte_t pte = gone ? (pte_t){ 0 } : strip_entry(mm, addr, &state);
		bool mapped = state == PMD_LEAF || (state == PMD_TABLE && pte_present(pte));
		struct page *page = mapped ? pfn_to_page(pte_pfn(pte)) : NULL;
		const struct folio *f = page ? page_folio(page) : NULL;

		if (f && f != last && last)
			letter = (char)('a' + (letter - 'a' + 1) % 26);
		if (f)
			last = f;
		if (row == STRIP_PTES)
			*out++ = strip_char(pte, state);
		else if (row == STRIP_FOLIOS)
			*out++ = f ? letter : '-';
		else
			*out++ =
				state == PMD_TABLE && pte_present(pte) && pte_cont(pte) ? 'c' : '-';
	}
	*out = '\0';
	if (!gone)
		read_unlock(&mm->mmap_lock);
}

/* The strip range of [@start, @end) in @mm: clipped to its first VMA's
 * start and last VMA's end, none when that is empty or longer than
 * TRACE_STRIP_MAX entries. Context: takes mmap_lock for read. */
static void strip_range(struct trace_cpu *t, struct mm *mm, unsigned long start, unsigned long end)
{
	unsigned long lo = start, hi = end, first = 0, last = 0;

	read_lock(&mm->mmap_lock);
	for (struct vma *v = mm->vmas; v; v = v->next) {
		first = first ? first : v->start;
		last = v->end;
	}
	read_unlock(&mm->mmap_lock);
	lo = lo > first ? lo : first;
	hi = hi < last ? hi : last;
	if (lo >= hi || (hi - lo) >> PAGE_SHIFT > TRACE_STRIP_MAX)
		lo = hi = 0;
	t->mm = mm;
	t->lo = lo;
	t->hi = hi;
}

/* Append ,"strip":{...} for @t's range of its mm (@gone: the mm is gone,
 * every entry none) to @json, written in place (no copy on the stack). */
static void strip_json(const struct trace_cpu *t, bool gone, char *json, size_t size)
{
	static const char *const key[] = { "ptes", "folios", "cont" };
	size_t n = (t->hi - t->lo) >> PAGE_SHIFT;

	if (t->lo == t->hi)
		return;
	append(json, size, ",\"strip\":{\"start\":\"%#lx\",\"end\":\"%#lx\"", t->lo, t->hi);
	for (int row = STRIP_PTES; row <= STRIP_CONT; row++) {
		size_t len;

		append(json, size, ",\"%s\":\"", key[row]);
		len = strlen(json);
		if (len + n + 3 >= size)
			return; /* cannot happen: TRACE_JSON_MAX has room */
		strip_row(t->mm, t->lo, t->hi, (enum strip_row)row, gone, json + len);
		append(json, size, "\"");
	}
	append(json, size, "}");
}

/* ---- the events ----------------------------------------------------------- */

void trace_op_begin(const char *op, struct mm *mm, unsigned long start, unsigned long end,
		    unsigned cap)
{
	struct trace_cpu *t = &trace_cpus[smp_processor_id()];
	char c[24], jc[24], j[96];
	bool outer = t->depth == 0;

	cap_text(c, sizeof(c), jc, sizeof(jc), cap);
	snprintf(j, sizeof(j), ",\"start\":\"%#lx\",\"end\":\"%#lx\",\"cap\":%s", start, end, jc);
	if (outer)
		strip_range(t, mm, start, end);
	if (t->depth < TRACE_DEPTH_MAX)
		t->op[t->depth] = op;
	emit_op(j, outer, "%s %#lx-%#lx%s", op, start, end, c);
	if (t->depth++ == 0)
		t->begun = t->since;
}

void trace_op_end(const char *op)
{
	unsigned cpu = smp_processor_id();
	struct trace_cpu *t = &trace_cpus[cpu];

	if (!t->depth)
		return; /* trace=on came in the middle of the operation */
	flush_pending(t);
	if (--t->depth)
		return;
	snprintf(t->line, sizeof(t->line), "cpu%u end %s:", cpu, op);
	snprintf(t->json, sizeof(t->json),
		 "{\"trace\":\"end\",\"cpu\":%u,\"depth\":0,\"op\":", cpu);
	json_string(t->json, sizeof(t->json), op);
	/* exit frees the mm before its end: every entry is none by then */
	strip_json(t, strcmp(op, "exit") == 0, t->json, sizeof(t->json));
	add_delta(t->line, sizeof(t->line), t->json, sizeof(t->json), "total", &t->begun);
	sink(t->line, t->json);
}

void trace_run(unsigned long addr, unsigned nr, unsigned limit, unsigned long in_folio,
	       unsigned in_table, unsigned max_nr)
{
	const char *why = nr < limit	      ? "an entry differs"
			  : limit == in_folio ? "folio end"
			  : limit == in_table ? "table end"
					      : "cap or range";
	const char *key = nr < limit	      ? "differs"
			  : limit == in_folio ? "folio"
			  : limit == in_table ? "table"
					      : "cap";
	char j[192];

	snprintf(j, sizeof(j),
		 ",\"addr\":\"%#lx\",\"nr\":%u,\"limit\":%u,\"in_folio\":%lu,\"in_table\":%u,"
		 "\"max_nr\":%u,\"ended_by\":\"%s\"",
		 addr, nr, limit, in_folio, in_table, max_nr, key);
	emit("run", j, "run %#lx +%u (bound %u: folio %lu, table %u, max %u; ended by %s)", addr,
	     nr, limit, in_folio, in_table, max_nr, why);
}

void trace_pmd(unsigned long addr, const char *what)
{
	char j[128];

	snprintf(j, sizeof(j), ",\"addr\":\"%#lx\",\"what\":", addr);
	json_string(j, sizeof(j), what);
	emit("pmd", j, "pmd %#lx: %s (a 2 MiB leaf, one entry)", addr, what);
}

void trace_flush(unsigned long start, unsigned long end, unsigned long pages)
{
	char j[128];

	snprintf(j, sizeof(j), ",\"start\":\"%#lx\",\"end\":\"%#lx\",\"pages\":%lu", start, end,
		 pages);
	emit("flush", j, "flush %#lx-%#lx (%lu pages)", start, end, pages);
}

void trace_flush_how(const char *how)
{
	char j[192];

	snprintf(j, sizeof(j), ",\"how\":");
	json_string(j, sizeof(j), how);
	emit("sent", j, "  sent: %s", how);
}

void trace_cont(unsigned long addr, bool fold)
{
	char j[64];

	snprintf(j, sizeof(j), ",\"addr\":\"%#lx\"", addr);
	emit(fold ? "fold" : "unfold", j, "%s %#lx (contpte block)", fold ? "fold" : "unfold",
	     addr);
}

void trace_gather(unsigned long pages, unsigned long tables)
{
	char j[64];

	snprintf(j, sizeof(j), ",\"pages\":%lu,\"tables\":%lu", pages, tables);
	emit("gather", j, "gather: %lu folio references and %lu page tables given back", pages,
	     tables);
}
