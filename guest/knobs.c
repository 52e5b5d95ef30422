/*
 * knobs.c - the batching knobs from the guest command line into mm's
 * struct batch_caps, and back out for RESULT lines (see knob_parse.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "knob_parse.h"
#include "ptelab/cmdline.h"

/* The grammar's "max" is mm's CAP_MAX: a parsed value goes in unchanged. */
_Static_assert(CMDLINE_CAP_MAX == CAP_MAX, "the command line's max is not mm's CAP_MAX");

/* Every cap: its command-line key (ptelab/cmdline.h's list) and its place in
 * struct batch_caps, whose field has the key's name. */
static const struct {
	const char *key;
	size_t off;
} cap_fields[] = {
#define CAP_FIELD(key, help) { #key, offsetof(struct batch_caps, key) },
	CMDLINE_CAP_KEYS(CAP_FIELD)
#undef CAP_FIELD
};
#define NR_CAP_FIELDS (int)(sizeof(cap_fields) / sizeof(cap_fields[0]))

static unsigned *cap_field(struct batch_caps *c, int i)
{
	return (unsigned *)((char *)c + cap_fields[i].off);
}

static unsigned cap_value(const struct batch_caps *c, int i)
{
	return *(const unsigned *)((const char *)c + cap_fields[i].off);
}

unsigned *caps_find(const char *key)
{
	for (int i = 0; i < NR_CAP_FIELDS; i++)
		if (!strcmp(key, cap_fields[i].key))
			return cap_field(&caps, i);
	return NULL;
}

unsigned caps_value(const struct batch_caps *c, const char *key)
{
	for (int i = 0; i < NR_CAP_FIELDS; i++)
		if (!strcmp(key, cap_fields[i].key))
			return cap_value(c, i);
	return 0;
}

const char *cap_str(unsigned cap, char *buf, size_t size)
{
	if (cap == CAP_MAX)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%u", cap);
	return buf;
}

int caps_json(const struct batch_caps *c, char *buf, size_t size)
{
	size_t n = 0;

	for (int i = 0; i < NR_CAP_FIELDS; i++)
		n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
				      "\"%s\":%u,", cap_fields[i].key, cap_json(cap_value(c, i)));
	n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
			      "\"gup_walk\":\"%s\",\"contpte\":\"%s\"", c->gup_walk ? "on" : "off",
			      c->contpte ? "on" : "off");
	return (int)n;
}

static int parse_onoff(const char *key, const char *v, bool *out, char *err, size_t errlen)
{
	if (strcmp(v, "on") == 0 || strcmp(v, "off") == 0) {
		*out = v[1] == 'n';
		return 0;
	}
	return snprintf(err, errlen, "%s=%s: want on or off", key, v), -1;
}

int caps_parse(const struct cmdline *cl, char *err, size_t errlen)
{
	const char *v = cmdline_get(cl, "batch");
	unsigned all;

	if (v) {
		if (cmdline_cap_value("batch", v, &all, err, errlen))
			return -1;
		for (int i = 0; i < NR_CAP_FIELDS; i++)
			*cap_field(&caps, i) = all;
		caps.gup_walk = all > 1;
	}
	for (int i = 0; i < NR_CAP_FIELDS; i++) {
		v = cmdline_get(cl, cap_fields[i].key);
		if (v && cmdline_cap_value(cap_fields[i].key, v, cap_field(&caps, i), err, errlen))
			return -1;
	}
	v = cmdline_get(cl, "gup_walk");
	if (v && parse_onoff("gup_walk", v, &caps.gup_walk, err, errlen))
		return -1;
	v = cmdline_get(cl, "contpte");
	if (v && parse_onoff("contpte", v, &caps.contpte, err, errlen))
		return -1;
	return 0;
}
