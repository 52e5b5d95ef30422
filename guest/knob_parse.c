/*
 * knob_parse.c - the batching knobs from the guest command line into mm's
 * struct batch_caps, and back out for RESULT lines (see knob_parse.h).
 * Both walk the knob rows of ptelab/cmdline_keys.h, whose ids are the
 * fields' names.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "knob_parse.h"
#include "ptelab/cmdline.h"

/* A knob: its command-line key and its place in struct batch_caps. */
struct knob_field {
	const char *key;
	size_t off;
	bool batches; /* a switch that batch= sets with the caps */
};

static const struct knob_field cap_fields[] = {
#define CAP_FIELD(id, ...) { #id, offsetof(struct batch_caps, id), true },
	CMDLINE_KNOB_CAPS(CAP_FIELD)
#undef CAP_FIELD
};
#define NR_CAP_FIELDS (int)(sizeof(cap_fields) / sizeof(cap_fields[0]))

static const struct knob_field switch_fields[] = {
#define BATCH_SWITCH_FIELD(id, ...) { #id, offsetof(struct batch_caps, id), true },
#define SWITCH_FIELD(id, ...) { #id, offsetof(struct batch_caps, id), false },
	CMDLINE_KNOB_BATCH_SWITCHES(BATCH_SWITCH_FIELD) CMDLINE_KNOB_SWITCHES(SWITCH_FIELD)
#undef BATCH_SWITCH_FIELD
#undef SWITCH_FIELD
};
#define NR_SWITCH_FIELDS (int)(sizeof(switch_fields) / sizeof(switch_fields[0]))

static unsigned *cap_field(struct batch_caps *c, int i)
{
	return (unsigned *)((char *)c + cap_fields[i].off);
}

static unsigned cap_value(const struct batch_caps *c, int i)
{
	return *(const unsigned *)((const char *)c + cap_fields[i].off);
}

static bool *switch_field(struct batch_caps *c, int i)
{
	return (bool *)((char *)c + switch_fields[i].off);
}

static bool switch_value(const struct batch_caps *c, int i)
{
	return *(const bool *)((const char *)c + switch_fields[i].off);
}

unsigned *caps_find(const char *key)
{
	for (int i = 0; i < NR_CAP_FIELDS; i++)
		if (!strcmp(key, cap_fields[i].key))
			return cap_field(&mm_caps, i);
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

const char *cap_json(unsigned cap, char *buf, size_t size)
{
	if (cap != CAP_MAX)
		return cap_str(cap, buf, size);
	snprintf(buf, size, "\"max\"");
	return buf;
}

int caps_json(const struct batch_caps *c, char *buf, size_t size)
{
	size_t n = 0;
	char v[12];

	for (int i = 0; i < NR_CAP_FIELDS; i++)
		n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
				      "\"%s\":%s,", cap_fields[i].key,
				      cap_json(cap_value(c, i), v, sizeof(v)));
	for (int i = 0; i < NR_SWITCH_FIELDS; i++)
		n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
				      "%s\"%s\":\"%s\"", i ? "," : "", switch_fields[i].key,
				      switch_value(c, i) ? "on" : "off");
	return (int)n;
}

/* batch=@v: every cap, and the switches that batch (on above 1). */
static int batch_parse(const char *v, char *err, size_t errlen)
{
	unsigned all;

	if (cmdline_cap_value("batch", v, &all, err, errlen))
		return -1;
	for (int i = 0; i < NR_CAP_FIELDS; i++)
		*cap_field(&mm_caps, i) = all;
	for (int i = 0; i < NR_SWITCH_FIELDS; i++)
		if (switch_fields[i].batches)
			*switch_field(&mm_caps, i) = all > 1;
	return 0;
}

int caps_parse(const struct cmdline *cl, char *err, size_t errlen)
{
	const char *v = cmdline_get(cl, "batch");

	if (v && batch_parse(v, err, errlen))
		return -1;
	for (int i = 0; i < NR_CAP_FIELDS; i++) {
		v = cmdline_get(cl, cap_fields[i].key);
		if (v &&
		    cmdline_cap_value(cap_fields[i].key, v, cap_field(&mm_caps, i), err, errlen))
			return -1;
	}
	for (int i = 0; i < NR_SWITCH_FIELDS; i++) {
		v = cmdline_get(cl, switch_fields[i].key);
		if (v &&
		    cmdline_onoff(switch_fields[i].key, v, switch_field(&mm_caps, i), err, errlen))
			return -1;
	}
	return 0;
}
