#define _GNU_SOURCE /* memmem */
/*
 * csv.c - RESULT lines as CSV rows (ptelab --csv), for spreadsheets and
 * gnuplot. The JSON is the guest harness's own (guest/bench.c): flat
 * "key":value pairs plus the "caps" and "counters" objects, no escapes.
 */
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "vmm_console.h"

static const char *const top_keys[] = { "clock",     "arch",	"backend", "version",	"bench",
					"folio",     "variant", "cap",	   "reps",	"size_mb",
					"median_us", "min_us",	"max_us",  "spread_pct" };
#define NR_TOP (sizeof(top_keys) / sizeof(top_keys[0]))

static const char *const counter_keys[] = {
#define CSV_COUNTER_NAME(name, what) #name,
	MM_COUNTER_LIST(CSV_COUNTER_NAME)
#undef CSV_COUNTER_NAME
};
#define NR_COUNTERS (sizeof(counter_keys) / sizeof(counter_keys[0]))

/* The extent of the object value of "@key": in [s, s+len); NULL if none. */
static const char *find_object(const char *s, size_t len, const char *key, size_t *olen)
{
	char pat[40];
	const char *p, *end;

	snprintf(pat, sizeof(pat), "\"%s\":{", key);
	p = memmem(s, len, pat, strlen(pat));
	if (!p)
		return NULL;
	p += strlen(pat);
	end = memchr(p, '}', len - (size_t)(p - s));
	*olen = end ? (size_t)(end - p) : 0;
	return p;
}

/* Write the value of "@key" in [s, s+len) (quotes dropped), @dflt if
 * none. A key counts only at the start of a member (after '{' or ','),
 * so "cap" never matches inside another key. */
static void put_value(FILE *f, const char *s, size_t len, const char *key, const char *dflt)
{
	char pat[40];
	const char *p = s, *end = s + len;
	size_t n;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	for (;;) {
		p = memmem(p, (size_t)(end - p), pat, strlen(pat));
		if (!p) {
			fputs(dflt, f);
			return;
		}
		if (p == s || p[-1] == '{' || p[-1] == ',')
			break;
		p++;
	}
	p += strlen(pat);
	if (*p == '"') {
		p++;
		n = strcspn(p, "\"");
	} else {
		n = strcspn(p, ",}");
	}
	if (p + n > end)
		n = (size_t)(end - p);
	fwrite(p, 1, n, f);
}

/* [s, s+len) without the "caps" and "counters" objects' insides. */
static size_t top_level_len(const char *s, size_t len)
{
	const char *p = memmem(s, len, "\"caps\":{", 8);

	return p ? (size_t)(p - s) : len;
}

int vmm_csv_row(FILE *f, const char *json, size_t len, bool *header_done)
{
	size_t top = top_level_len(json, len), clen = 0;
	const char *counters = find_object(json, len, "counters", &clen);

	if (!*header_done) {
		for (size_t i = 0; i < NR_TOP; i++)
			fprintf(f, "%s%s", i ? "," : "", top_keys[i]);
		for (size_t i = 0; i < NR_COUNTERS; i++)
			fprintf(f, ",%s", counter_keys[i]);
		fputc('\n', f);
		*header_done = true;
	}
	for (size_t i = 0; i < NR_TOP; i++) {
		if (i)
			fputc(',', f);
		put_value(f, json + 1, top ? top - 1 : 0, top_keys[i], "");
	}
	for (size_t i = 0; i < NR_COUNTERS; i++) {
		fputc(',', f);
		put_value(f, counters ? counters : "", clen, counter_keys[i], "0");
	}
	fputc('\n', f);
	fflush(f);
	return ferror(f) ? -1 : 0;
}
