/*
 * csv.c - RESULT lines as CSV rows (see vmm_csv.h): vmm_json_walk() checks
 * the JSON object and hands over its scalars under dotted names, and the
 * first line's names are the columns. Every field a spreadsheet or a CSV
 * reader could misread is quoted or neutralised here, since the guest
 * chooses the text.
 */
#include <stdio.h>
#include <string.h>

#include "vmm_csv.h"
#include "vmm_json.h"

/* One flattened member: its column name and its value text. */
struct csv_field {
	char name[VMM_CSV_NAME_MAX];
	const char *val; /* a string's inside (no quotes), or the literal */
	size_t len;
	bool string;
};

struct csv_fields {
	struct csv_field f[VMM_CSV_MAX_COLS];
	int n;
};

_Static_assert(VMM_CSV_NAME_MAX == VMM_JSON_NAME_MAX, "a column name is a JSON dotted name");

/* vmm_json_leaf_fn: keep one scalar as a field. */
static const char *add_field(void *arg, const char *name, const char *val, size_t len,
			     enum vmm_json_type type, bool in_array)
{
	struct csv_fields *fs = arg;
	struct csv_field *f;

	if (in_array)
		return "an array (no column can hold it)";
	if (fs->n == VMM_CSV_MAX_COLS)
		return "more members than CSV columns";
	f = &fs->f[fs->n++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->string = type == VMM_JSON_STRING;
	f->val = val;
	f->len = type == VMM_JSON_LITERAL && len == 4 && !memcmp(val, "null", 4) ? 0 : len;
	return NULL;
}

/* Would a spreadsheet take a string starting with @c for a formula? */
static bool formula_lead(char c)
{
	return c && strchr("=+-@\t\r", c);
}

/* One field: quoted when @quote or when it holds a comma, a quote, CR or
 * LF; a string a spreadsheet would run as a formula gets a leading '. */
static void put_field(FILE *f, const char *s, size_t n, bool string, bool quote)
{
	bool neutral = string && n && formula_lead(s[0]);

	quote = quote || memchr(s, ',', n) || memchr(s, '"', n) || memchr(s, '\n', n) ||
		memchr(s, '\r', n);
	if (quote)
		fputc('"', f);
	if (neutral)
		fputc('\'', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	if (quote)
		fputc('"', f);
}

static void write_header(struct vmm_csv *csv, const struct csv_fields *fs)
{
	for (int i = 0; i < fs->n; i++) {
		memcpy(csv->col[i], fs->f[i].name, VMM_CSV_NAME_MAX);
		if (i)
			fputc(',', csv->f);
		put_field(csv->f, fs->f[i].name, strlen(fs->f[i].name), false, true);
	}
	fputc('\n', csv->f);
	csv->ncols = fs->n;
}

/* The index of the field named @col, looked for first at @hint. */
static int find_field(const struct csv_fields *fs, const char *col, int hint)
{
	if (hint < fs->n && !strcmp(fs->f[hint].name, col))
		return hint;
	for (int k = 0; k < fs->n; k++)
		if (!strcmp(fs->f[k].name, col))
			return k;
	return -1;
}

const char *vmm_csv_row(struct vmm_csv *csv, const char *json, size_t len, size_t *at)
{
	struct csv_fields fs; /* 14 KiB: fits the vCPU threads' stacks */
	const char *why;

	fs.n = 0;
	why = vmm_json_walk(json, len, add_field, &fs, at);
	if (why)
		return why;
	if (!fs.n)
		return "no members";
	if (!csv->ncols)
		write_header(csv, &fs);
	for (int i = 0; i < csv->ncols; i++) {
		int k = find_field(&fs, csv->col[i], i);

		if (i)
			fputc(',', csv->f);
		if (k >= 0)
			put_field(csv->f, fs.f[k].val, fs.f[k].len, fs.f[k].string, false);
	}
	fputc('\n', csv->f);
	fflush(csv->f);
	return ferror(csv->f) ? "writing the file failed" : NULL;
}
