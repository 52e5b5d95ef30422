/*
 * parse.c - the guest command line split into words and the run= list
 * (ptelab/cmdline.h); what a key's value may be is keys.c's.
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/cmdline.h"

static int word_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* Copy [s, s+n) into @dst of @size as a string; -1 if it does not fit. */
static int copy_token(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return -1;
	memcpy(dst, s, n);
	dst[n] = 0;
	return 0;
}

/* Split one run item "NAME" or "NAME:ARG" of length @n. */
static int parse_run_item(struct run_item *it, const char *s, size_t n, char *err, size_t errlen)
{
	const char *colon = memchr(s, ':', n);
	size_t nlen = colon ? (size_t)(colon - s) : n;

	if (nlen == 0 || copy_token(it->name, sizeof(it->name), s, nlen))
		return snprintf(err, errlen, "run=: bad command name '%.*s'", (int)n, s), -1;
	it->has_arg = colon != NULL;
	if (colon && copy_token(it->arg, sizeof(it->arg), colon + 1, n - nlen - 1))
		return snprintf(err, errlen, "run=: argument too long in '%.*s'", (int)n, s), -1;
	if (!colon)
		it->arg[0] = 0;
	return 0;
}

static int parse_run_list(struct cmdline *cl, const char *v, char *err, size_t errlen)
{
	while (1) {
		const char *comma = strchr(v, ',');
		size_t n = comma ? (size_t)(comma - v) : strlen(v);

		if (n == 0)
			return snprintf(err, errlen, "run=: empty command in the list"), -1;
		if (cl->nr_run == CMDLINE_MAX_RUN)
			return snprintf(err, errlen, "run=: more than %d commands",
					CMDLINE_MAX_RUN),
			       -1;
		if (parse_run_item(&cl->run[cl->nr_run++], v, n, err, errlen))
			return -1;
		if (!comma)
			return 0;
		v = comma + 1;
	}
}

/* Parse one word [s, s+n) into the next slot. */
static int parse_word(struct cmdline *cl, const char *s, size_t n, char *err, size_t errlen)
{
	const char *eq = memchr(s, '=', n);
	size_t klen = eq ? (size_t)(eq - s) : n;
	struct cmdline_word *w;

	if (cl->nr_words == CMDLINE_MAX_WORDS)
		return snprintf(err, errlen, "more than %d words", CMDLINE_MAX_WORDS), -1;
	w = &cl->word[cl->nr_words];
	for (size_t i = 0; i < klen; i++)
		if (!word_char_ok(s[i]))
			return snprintf(err, errlen, "malformed word '%.*s'", (int)n, s), -1;
	if (klen == 0 || copy_token(w->key, sizeof(w->key), s, klen))
		return snprintf(err, errlen, "malformed word '%.*s'", (int)n, s), -1;
	if (cmdline_get(cl, w->key))
		return snprintf(err, errlen, "'%s' given twice", w->key), -1;
	if (copy_token(w->val, sizeof(w->val), eq ? eq + 1 : s + n, eq ? n - klen - 1 : 0))
		return snprintf(err, errlen, "value of '%s' too long", w->key), -1;
	if (eq && !w->val[0])
		return snprintf(err, errlen, "'%s=' has no value", w->key), -1;
	cl->nr_words++;
	if (strcmp(w->key, "run") == 0)
		return parse_run_list(cl, w->val, err, errlen);
	return 0;
}

int cmdline_parse(const char *args, struct cmdline *cl, char *err, size_t errlen)
{
	const char *p = args;

	memset(cl, 0, sizeof(*cl));
	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		n = strcspn(p, " \t\n");
		if (n && parse_word(cl, p, n, err, errlen))
			return -1;
		p += n;
	}
	return 0;
}

const char *cmdline_get(const struct cmdline *cl, const char *key)
{
	for (int i = 0; i < cl->nr_words; i++)
		if (strcmp(cl->word[i].key, key) == 0)
			return cl->word[i].val;
	return NULL;
}

int cmdline_uint(const char *s)
{
	long v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > 0x7fffffff)
			return -1;
	}
	return (int)v;
}
