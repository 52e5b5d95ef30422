/*
 * json.c - the strict JSON reader of vmm_json.h. It keeps an explicit
 * stack of open containers instead of recursing, so a guest's line costs
 * the same small stack however it nests, and it stops at the first byte
 * the grammar does not allow.
 */
#include <string.h>

#include "vmm_json.h"

struct json_reader {
	const char *p, *end;
	vmm_json_leaf_fn leaf; /* NULL: check only */
	void *arg;
	int depth;			 /* open containers */
	int arrays;			 /* of which arrays */
	char kind[VMM_JSON_MAX_DEPTH];	 /* '{' or '[' */
	size_t base[VMM_JSON_MAX_DEPTH]; /* name length of the member holding it */
	char name[VMM_JSON_NAME_MAX];	 /* the dotted name of the current member */
	size_t nlen;
};

static int peek(const struct json_reader *r)
{
	return r->p < r->end ? (unsigned char)*r->p : -1;
}

static void skip_space(struct json_reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The length of the well-formed UTF-8 sequence at @p (no overlong forms,
 * no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : lo, hi = c == 0xed ? 0x9f : hi;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : lo, hi = c == 0xf4 ? 0x8f : hi;
	else
		return 0;
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* An escape at r->p (its backslash). */
static const char *take_escape(struct json_reader *r)
{
	if (++r->p >= r->end)
		return "an unfinished escape";
	if (*r->p && strchr("\"\\/bfnrt", *r->p)) {
		r->p++;
		return NULL;
	}
	if (*r->p != 'u' || r->end - r->p < 5)
		return "an invalid escape";
	for (int i = 1; i <= 4; i++)
		if (!is_hex((unsigned char)r->p[i]))
			return "an invalid \\u escape";
	r->p += 5;
	return NULL;
}

/* A string at r->p (its opening quote): its inside in *@s, *@n. */
static const char *take_string(struct json_reader *r, const char **s, size_t *n)
{
	const char *why;
	size_t u;

	*s = ++r->p;
	while (r->p < r->end && *r->p != '"') {
		if ((unsigned char)*r->p < 0x20)
			return "a control character in a string";
		if (*r->p == '\\') {
			if ((why = take_escape(r)))
				return why;
			continue;
		}
		u = utf8_len((const unsigned char *)r->p, (const unsigned char *)r->end);
		if (!u)
			return "invalid UTF-8 in a string";
		r->p += u;
	}
	if (r->p >= r->end)
		return "an unterminated string";
	*n = (size_t)(r->p++ - *s);
	return NULL;
}

static bool take_digits(struct json_reader *r)
{
	const char *start = r->p;

	while (is_digit(peek(r)))
		r->p++;
	return r->p > start;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static const char *take_number(struct json_reader *r)
{
	if (peek(r) == '-')
		r->p++;
	if (peek(r) == '0')
		r->p++;
	else if (!take_digits(r))
		return "an invalid number";
	if (peek(r) == '.' && (r->p++, !take_digits(r)))
		return "an invalid number";
	if (peek(r) == 'e' || peek(r) == 'E') {
		r->p++;
		if (peek(r) == '+' || peek(r) == '-')
			r->p++;
		if (!take_digits(r))
			return "an invalid number";
	}
	return NULL;
}

static const char *take_literal(struct json_reader *r)
{
	static const char *const lit[] = { "true", "false", "null" };

	for (int i = 0; i < 3; i++) {
		size_t n = strlen(lit[i]);

		if ((size_t)(r->end - r->p) >= n && memcmp(r->p, lit[i], n) == 0) {
			r->p += n;
			return NULL;
		}
	}
	return "not a JSON value";
}

/* A string, number or literal at r->p, passed to the leaf callback. */
static const char *take_scalar(struct json_reader *r)
{
	enum vmm_json_type type = VMM_JSON_NUMBER;
	const char *start = r->p, *why, *s = r->p;
	size_t n = 0;
	int c = peek(r);

	if (c == '"')
		why = take_string(r, &s, &n), type = VMM_JSON_STRING;
	else if (c == '-' || is_digit(c))
		why = take_number(r);
	else
		why = take_literal(r), type = VMM_JSON_LITERAL;
	if (why || !r->leaf)
		return why;
	if (type != VMM_JSON_STRING)
		n = (size_t)(r->p - start);
	r->name[r->nlen] = 0;
	return r->leaf(r->arg, r->name, s, n, type, r->arrays > 0);
}

/* A key and its ':' inside the innermost (object) container; with a leaf
 * callback it also names the member. */
static const char *take_key(struct json_reader *r)
{
	size_t base = r->base[r->depth - 1], sep = base ? 1 : 0, n;
	const char *why, *k;

	skip_space(r);
	if (peek(r) != '"')
		return "expected a key";
	if ((why = take_string(r, &k, &n)))
		return why;
	if (r->leaf && !n)
		return "an empty key";
	if (r->leaf && base + sep + n >= sizeof(r->name))
		return "a dotted key name too long for a column";
	if (r->leaf) {
		r->name[base] = '.';
		memcpy(r->name + base + sep, k, n);
		r->nlen = base + sep + n;
	}
	skip_space(r);
	if (peek(r) != ':')
		return "expected ':'";
	r->p++;
	return NULL;
}

static char closer(char kind)
{
	return kind == '{' ? '}' : ']';
}

static void pop(struct json_reader *r)
{
	r->depth--;
	r->arrays -= r->kind[r->depth] == '[';
	r->nlen = r->base[r->depth];
}

/* One value at r->p. *@more: it opened a container whose first value
 * comes next. */
static const char *take_value(struct json_reader *r, bool *more)
{
	int c;

	skip_space(r);
	c = peek(r);
	*more = false;
	if (c != '{' && c != '[')
		return take_scalar(r);
	if (r->depth == VMM_JSON_MAX_DEPTH)
		return "nested too deep";
	r->kind[r->depth] = (char)c;
	r->base[r->depth++] = r->nlen;
	r->arrays += c == '[';
	r->p++;
	skip_space(r);
	if (peek(r) == closer((char)c)) {
		r->p++;
		pop(r);
		return NULL;
	}
	*more = true;
	return c == '{' ? take_key(r) : NULL;
}

/* After a complete value: close what ends here. *@more: another value
 * follows (after a ',', its key taken). */
static const char *take_next(struct json_reader *r, bool *more)
{
	*more = false;
	while (r->depth) {
		char kind = r->kind[r->depth - 1];

		skip_space(r);
		if (peek(r) == ',') {
			r->p++;
			*more = true;
			return kind == '{' ? take_key(r) : NULL;
		}
		if (peek(r) != closer(kind))
			return kind == '{' ? "expected ',' or '}'" : "expected ',' or ']'";
		r->p++;
		pop(r);
	}
	return NULL;
}

static const char *walk(struct json_reader *r)
{
	const char *why;
	bool more;

	skip_space(r);
	if (peek(r) != '{')
		return "not a JSON object";
	do {
		if ((why = take_value(r, &more)))
			return why;
		if (!more && (why = take_next(r, &more)))
			return why;
	} while (more);
	skip_space(r);
	return r->p == r->end ? NULL : "text after the object";
}

const char *vmm_json_walk(const char *s, size_t len, vmm_json_leaf_fn leaf, void *arg, size_t *at)
{
	static const struct json_reader zero;
	struct json_reader r = zero;
	const char *why;

	r.p = s;
	r.end = s + len;
	r.leaf = leaf;
	r.arg = arg;
	why = walk(&r);
	*at = (size_t)(r.p - s);
	return why;
}
