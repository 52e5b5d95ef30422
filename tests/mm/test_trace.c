/*
 * test_trace.c - trace=on (mm/trace.h): the lines one munmap prints, in
 * order, with the counters on them; and nothing while it is off. In an
 * image without the trace built in (the default guest) the cases skip.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_cases.h"
#include "trace.h"

#define TRACE_LINES 64

static char trace_lines[TRACE_LINES][256];
static unsigned trace_nr;

static void trace_capture(const char *line)
{
	if (trace_nr < TRACE_LINES)
		snprintf(trace_lines[trace_nr], sizeof(trace_lines[0]), "%s", line);
	trace_nr++;
}

/* How many captured lines contain @s. */
static unsigned lines_with(const char *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < trace_nr && i < TRACE_LINES; i++)
		n += strstr(trace_lines[i], s) != NULL;
	return n;
}

/* The first captured line containing @s, or "". */
static const char *line_with(const char *s)
{
	for (unsigned i = 0; i < trace_nr && i < TRACE_LINES; i++)
		if (strstr(trace_lines[i], s))
			return trace_lines[i];
	return "";
}

/* munmap of one 64K folio under zap=4, traced: 4 runs of 4, the last
 * ended by the folio, one flush, one gather of 16 references, and the
 * end line's counters are the operation's. */
TEST(trace_of_a_capped_munmap)
{
	uint64_t free0;
	struct mm *mm;
	struct batch_caps saved = mm_caps;
	struct mm_counters c0, d;
	bool was = mm_trace;
	unsigned long a;
	char want[96];

	if (!MM_TRACE_BUILT)
		SKIP_CASE("this image has no trace built in (guest-trace.elf has)");
	mm = mm_case_begin(&free0);
	a = test_mmap(mm, 64 << 10, RW, ORDERS(4));
	CHECK_EQ(mm_touch(mm, a, 64 << 10, true), 0);
	mm_caps.zap = 4;
	trace_nr = 0;
	mm_trace_sink = trace_capture;
	CHECK(mm_set_trace(true));
	c0 = mm_counters_read();
	CHECK_EQ(mm_munmap(mm, a, 64 << 10), 0);
	d = counters_since(&c0);
	mm_set_trace(was);
	mm_caps = saved;
	for (unsigned i = 0; i < trace_nr && i < TRACE_LINES; i++)
		printf("    %s\n", trace_lines[i]);
	snprintf(want, sizeof(want), "munmap %#lx-%#lx cap=4", a, a + (64 << 10));
	CHECK(strstr(trace_lines[0], want) != NULL);
	CHECK_EQ(lines_with(" run "), 4);
	CHECK_EQ(lines_with(" +4 (bound 4:"), 4);
	CHECK_EQ(lines_with("ended by cap or range"), 3);
	CHECK_EQ(lines_with("ended by folio end"), 1);
	CHECK(lines_with("flush ") >= 1);
	CHECK_EQ(lines_with("gather: 16 folio references"), 1);
	/* arm64: cap 4 cuts the block, so it is unfolded first; one line each */
	CHECK_EQ(lines_with("unfold "), d.cont_unfolds);
	CHECK_EQ(d.mapcount_updates, 4);
	snprintf(want, sizeof(want), "mapcount_updates+%llu",
		 (unsigned long long)d.mapcount_updates);
	CHECK(strstr(line_with("end munmap:"), want) != NULL);
	snprintf(want, sizeof(want), "tlb_flushes+%llu", (unsigned long long)d.tlb_flushes);
	CHECK(strstr(line_with("end munmap:"), want) != NULL);
	mm_trace_sink = NULL;
	mm_case_end(mm, free0);
}

/* Few and short: the guest image links these tests, and a large .bss
 * would move its layout. */
#define TRACE_JSON_LINES 24

static char trace_json[TRACE_JSON_LINES][1024];
static unsigned trace_json_nr;

static void trace_json_capture(const char *json)
{
	if (trace_json_nr < TRACE_JSON_LINES)
		snprintf(trace_json[trace_json_nr], sizeof(trace_json[0]), "%s", json);
	trace_json_nr++;
}

/* The value of the member "@name": in @json (the first), 0 if none. */
static unsigned long long json_num(const char *json, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\":", name);
	p = strstr(json, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* The same munmap as JSON records: one a line, in order; the first and
 * the end record carry the strip before (16 written entries of one
 * folio) and after (none); the counters of the records add up to the
 * end record's total, which is the operation's. */
TEST(trace_json_of_a_capped_munmap)
{
	uint64_t free0;
	struct mm *mm;
	struct batch_caps saved = mm_caps;
	struct mm_counters c0, d;
	bool was = mm_trace;
	unsigned long long sum = 0;
	unsigned long a;
	const char *end;

	if (!MM_TRACE_BUILT)
		SKIP_CASE("this image has no trace built in (guest-trace.elf has)");
	mm = mm_case_begin(&free0);
	a = test_mmap(mm, 64 << 10, RW, ORDERS(4));
	CHECK_EQ(mm_touch(mm, a, 64 << 10, true), 0);
	mm_caps.zap = 4;
	trace_nr = trace_json_nr = 0;
	mm_trace_sink = trace_capture;
	mm_trace_json_sink = trace_json_capture;
	CHECK(mm_set_trace(true));
	c0 = mm_counters_read();
	CHECK_EQ(mm_munmap(mm, a, 64 << 10), 0);
	d = counters_since(&c0);
	mm_set_trace(was);
	mm_caps = saved;
	mm_trace_sink = NULL;
	mm_trace_json_sink = NULL;
	CHECK_EQ(trace_json_nr, trace_nr);
	CHECK(trace_json_nr >= 2 && trace_json_nr <= TRACE_JSON_LINES);
	if (trace_json_nr < 2 || trace_json_nr > TRACE_JSON_LINES)
		goto out;
	printf("    %s\n", trace_json[0]);
	CHECK(strstr(trace_json[0], "{\"trace\":\"op\",\"cpu\":") == trace_json[0]);
	CHECK(strstr(trace_json[0], "\"op\":\"munmap\"") != NULL);
	CHECK(strstr(trace_json[0], "\"cap\":4") != NULL);
	CHECK(strstr(trace_json[0], "\"ptes\":\"WWWWWWWWWWWWWWWW\"") != NULL);
	CHECK(strstr(trace_json[0], "\"folios\":\"aaaaaaaaaaaaaaaa\"") != NULL);
	CHECK(strstr(trace_json[1], "\"trace\":\"run\"") != NULL);
	CHECK(strstr(trace_json[1], "\"nr\":4,\"limit\":4") != NULL);
	CHECK(strstr(trace_json[1], "\"ended_by\":\"cap\"") != NULL);
	end = trace_json[trace_json_nr - 1];
	printf("    %s\n", end);
	CHECK(strstr(end, "{\"trace\":\"end\"") == end);
	CHECK(strstr(end, "\"ptes\":\"................\"") != NULL);
	CHECK_EQ(json_num(end, "mapcount_updates"), d.mapcount_updates);
	CHECK_EQ(json_num(end, "tlb_pages"), d.tlb_pages);
	for (unsigned i = 0; i + 1 < trace_json_nr; i++)
		sum += json_num(trace_json[i], "mapcount_updates");
	CHECK_EQ(sum, d.mapcount_updates);
	/* the walk before the first run is on the operation's own record */
	CHECK_EQ(json_num(trace_json[0], "pt_descents"), d.pt_descents);
out:
	mm_case_end(mm, free0);
}

/* With trace off, the same munmap prints nothing. */
TEST(trace_off_prints_nothing)
{
	uint64_t free0;
	struct mm *mm;
	bool was = mm_trace;
	unsigned long a;

	if (!MM_TRACE_BUILT)
		SKIP_CASE("this image has no trace built in (guest-trace.elf has)");
	mm = mm_case_begin(&free0);
	a = test_mmap(mm, 64 << 10, RW, ORDERS(4));
	CHECK_EQ(mm_touch(mm, a, 64 << 10, true), 0);
	trace_nr = 0;
	mm_trace_sink = trace_capture;
	mm_set_trace(false);
	CHECK_EQ(mm_munmap(mm, a, 64 << 10), 0);
	mm_set_trace(was);
	CHECK_EQ(trace_nr, 0);
	mm_trace_sink = NULL;
	mm_case_end(mm, free0);
}

TEST_SUITE(trace, trace_of_a_capped_munmap, trace_json_of_a_capped_munmap, trace_off_prints_nothing)
