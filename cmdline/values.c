/*
 * values.c - what a value of each kind of key may be (enum cmdline_kind):
 * numbers in their range, caps, on/off, choices, folio sizes. One reader
 * per kind, with the one message the user sees for a bad value.
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/cmdline.h"

int cmdline_word_index(const char *words, const char *s, size_t len)
{
	int i = 0;

	for (const char *c = words;; i++) {
		size_t n = strcspn(c, ",");

		if (n == len && !strncmp(c, s, n))
			return i;
		if (!c[n])
			return -1;
		c += n + 1;
	}
}

int cmdline_onoff(const char *key, const char *v, bool *out, char *err, size_t errlen)
{
	if (strcmp(v, "on") && strcmp(v, "off"))
		return snprintf(err, errlen, "%s=%s: want on or off", key, v), -1;
	*out = v[1] == 'n';
	return 0;
}

int cmdline_cap_value(const char *key, const char *v, unsigned *out, char *err, size_t errlen)
{
	int n = cmdline_uint(v);

	if (strcmp(v, "max") == 0) {
		*out = CMDLINE_CAP_MAX;
		return 0;
	}
	if (n < 1 || (unsigned)n > CMDLINE_CAP_LIMIT)
		return snprintf(err, errlen, "%s=%s: a cap is a number 1..%u or 'max'", key, v,
				CMDLINE_CAP_LIMIT),
		       -1;
	*out = (unsigned)n;
	return 0;
}

int cmdline_caps_list(const char *list, unsigned *out, int max, char *err, size_t errlen)
{
	char one[16];
	int n = 0;

	for (const char *s = list;;) {
		size_t len = strcspn(s, ",");

		if (len >= sizeof(one) || n == max) {
			snprintf(err, errlen, "caps=%s: at most %d values, each N or max", list,
				 max);
			return -1;
		}
		memcpy(one, s, len);
		one[len] = 0;
		if (cmdline_cap_value("caps", one, &out[n], err, errlen))
			return -1;
		for (int i = 0; i < n; i++)
			if (out[i] == out[n]) {
				snprintf(err, errlen, "caps=%s: '%s' is given twice", list, one);
				return -1;
			}
		n++;
		if (!s[len])
			return n;
		s += len + 1;
	}
}

/* Every comma-separated item of @v is one of @r's words. */
static int choices_check(const struct cmdline_key *r, const char *v, char *err, size_t errlen)
{
	for (const char *s = v;; s++) {
		size_t n = strcspn(s, ",");

		if (cmdline_word_index(r->what, s, n) < 0)
			return snprintf(err, errlen, "%s=%s: want a list of %s", r->name, v,
					r->what),
			       -1;
		s += n;
		if (!*s)
			return 0;
	}
}

/* A NUM or EVEN value: a decimal number in r->lo..r->hi (even for EVEN). */
static int number_check(const struct cmdline_key *r, const char *v, char *err, size_t errlen)
{
	int n = cmdline_uint(v);
	bool even = r->kind == CMDLINE_EVEN;

	if (n >= 0 && (unsigned)n >= r->lo && (unsigned)n <= r->hi && (!even || n % 2 == 0))
		return 0;
	if (even)
		return snprintf(err, errlen, "%s=%s: want an even number of %s, %u..%u", r->name, v,
				r->what, r->lo, r->hi),
		       -1;
	if (r->what)
		return snprintf(err, errlen, "%s=%s: want %u..%u %s", r->name, v, r->lo, r->hi,
				r->what),
		       -1;
	return snprintf(err, errlen, "%s=%s: want a number %u..%u", r->name, v, r->lo, r->hi), -1;
}

int cmdline_value_check(const struct cmdline_key *r, const char *v, char *err, size_t errlen)
{
	unsigned scratch[CMDLINE_CAPS_MAX], cap;
	bool on;

	switch (r->kind) {
	case CMDLINE_NUM:
	case CMDLINE_EVEN:
		return number_check(r, v, err, errlen);
	case CMDLINE_CAP:
	case CMDLINE_BATCH:
		return cmdline_cap_value(r->name, v, &cap, err, errlen);
	case CMDLINE_CAPS:
		return cmdline_caps_list(v, scratch, CMDLINE_CAPS_MAX, err, errlen) < 0 ? -1 : 0;
	case CMDLINE_SWITCH:
	case CMDLINE_ONOFF:
		return cmdline_onoff(r->name, v, &on, err, errlen);
	case CMDLINE_CHOICE:
		if (cmdline_word_index(r->what, v, strlen(v)) >= 0)
			return 0;
		return snprintf(err, errlen, "%s=%s: want one of %s", r->name, v, r->what), -1;
	case CMDLINE_CHOICES:
		return choices_check(r, v, err, errlen);
	case CMDLINE_FOLIOS:
		return folios_check(v, err, errlen);
	case CMDLINE_RUN:
	case CMDLINE_TEXT:
		break;
	}
	return 0;
}
