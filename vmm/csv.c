/*
 * csv.c - RESULT lines as CSV rows (see vmm_csv.h): the JSON object is
 * flattened into (column name, value) pairs, and the first line's pairs
 * name the columns.
 */
#include <stdio.h>
#include <string.h>

#include "vmm_csv.h"

/* One flattened member: its column name and its raw value text. */
struct csv_field {
	char name[VMM_CSV_NAME_MAX];
	const char *val; /* a string's inside (no quotes), or the literal */
	size_t len;
};

struct json_cursor {
	const char *p, *end;
	struct csv_field *out;
	int n, max;
};

static void skip_space(struct json_cursor *c)
{
	while (c->p < c->end && strchr(" \t\r\n", *c->p))
		c->p++;
}

/* A string at c->p (its opening quote): its inside in @s, @len. */
static int take_string(struct json_cursor *c, const char **s, size_t *len)
{
	const char *q = ++c->p;

	while (q < c->end && *q != '"')
		q += *q == '\\' && q + 1 < c->end ? 2 : 1;
	if (q >= c->end)
		return -1;
	*s = c->p;
	*len = (size_t)(q - c->p);
	c->p = q + 1;
	return 0;
}

/* A number, true, false or null: up to the next ',', '}' or space. */
static int take_literal(struct json_cursor *c, const char **s, size_t *len)
{
	const char *q = c->p;

	while (q < c->end && !strchr(",} \t\r\n", *q))
		q++;
	if (q == c->p || *c->p == '[')
		return -1;
	*s = c->p;
	*len = q - c->p == 4 && !strncmp(c->p, "null", 4) ? 0 : (size_t)(q - c->p);
	c->p = q;
	return 0;
}

static int take_object(struct json_cursor *c, const char *prefix);

/* One member "key":value of an object whose columns start with @prefix. */
static int take_member(struct json_cursor *c, const char *prefix)
{
	char name[VMM_CSV_NAME_MAX];
	struct csv_field *f;
	const char *k;
	size_t klen;

	if (*c->p != '"' || take_string(c, &k, &klen))
		return -1;
	if ((size_t)snprintf(name, sizeof(name), "%s%s%.*s", prefix, *prefix ? "." : "", (int)klen,
			     k) >= sizeof(name))
		return -1;
	skip_space(c);
	if (c->p >= c->end || *c->p++ != ':')
		return -1;
	skip_space(c);
	if (c->p < c->end && *c->p == '{')
		return take_object(c, name);
	if (c->n == c->max)
		return -1;
	f = &c->out[c->n++];
	memcpy(f->name, name, sizeof(name));
	if (c->p < c->end && *c->p == '"')
		return take_string(c, &f->val, &f->len);
	return take_literal(c, &f->val, &f->len);
}

/* An object at c->p (its '{'), members flattened under @prefix. */
static int take_object(struct json_cursor *c, const char *prefix)
{
	c->p++;
	skip_space(c);
	if (c->p < c->end && *c->p == '}')
		return c->p++, 0;
	for (;;) {
		skip_space(c);
		if (take_member(c, prefix))
			return -1;
		skip_space(c);
		if (c->p >= c->end)
			return -1;
		if (*c->p == '}')
			return c->p++, 0;
		if (*c->p++ != ',')
			return -1;
	}
}

/* Flatten @json into @out. Return: the number of fields, or -1. */
static int flatten(const char *json, size_t len, struct csv_field *out, int max)
{
	struct json_cursor c = { json, json + len, out, 0, max };

	skip_space(&c);
	if (c.p >= c.end || *c.p != '{' || take_object(&c, ""))
		return -1;
	skip_space(&c);
	return c.p == c.end ? c.n : -1;
}

/* One field, CSV-quoted when it holds a comma, a quote or a newline. */
static void put_field(FILE *f, const char *s, size_t n)
{
	if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\n', n)) {
		fwrite(s, 1, n, f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

static void write_header(struct vmm_csv *csv, const struct csv_field *fields, int n)
{
	for (int i = 0; i < n; i++) {
		memcpy(csv->col[i], fields[i].name, VMM_CSV_NAME_MAX);
		fprintf(csv->f, "%s%s", i ? "," : "", fields[i].name);
	}
	fputc('\n', csv->f);
	csv->ncols = n;
}

int vmm_csv_row(struct vmm_csv *csv, const char *json, size_t len)
{
	struct csv_field fields[VMM_CSV_MAX_COLS];
	int n = flatten(json, len, fields, VMM_CSV_MAX_COLS);

	if (n <= 0)
		return -1;
	if (!csv->ncols)
		write_header(csv, fields, n);
	for (int i = 0; i < csv->ncols; i++) {
		int k = i < n && !strcmp(fields[i].name, csv->col[i]) ? i : 0;

		while (k < n && strcmp(fields[k].name, csv->col[i]))
			k++;
		if (i)
			fputc(',', csv->f);
		if (k < n)
			put_field(csv->f, fields[k].val, fields[k].len);
	}
	fputc('\n', csv->f);
	fflush(csv->f);
	return ferror(csv->f) ? -1 : 0;
}
