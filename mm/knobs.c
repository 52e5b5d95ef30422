/*
 * knobs.c - parsing and defaults of the batching caps (see knobs.h).
 */
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "knobs.h"

struct batch_caps caps = { .zap = CAP_MAX,
			   .mprotect = CAP_MAX,
			   .fork = CAP_MAX,
			   .gup_grab = CAP_MAX,
			   .migrate = CAP_MAX,
			   .migrate_unmap = CAP_MAX,
			   .migrate_flush = CAP_MAX,
			   .gup_walk = true,
			   .contpte = true };

const char *const caps_keys[] = {
	"batch",	 "zap",		  "mprotect", "fork",	 "gup_grab", "migrate",
	"migrate_unmap", "migrate_flush", "gup_walk", "contpte", NULL
};

void caps_set_all(bool batched)
{
	unsigned v = batched ? CAP_MAX : 1;

	caps.zap = caps.mprotect = caps.fork = caps.gup_grab = caps.migrate = v;
	caps.migrate_unmap = caps.migrate_flush = v;
	caps.gup_walk = batched;
}

/* A cap value: "max" or a number >= 1. */
static int parse_cap(const char *key, const char *v, unsigned *out, char *err, size_t errlen)
{
	int n = cmdline_uint(v);

	if (strcmp(v, "max") == 0) {
		*out = CAP_MAX;
		return 0;
	}
	if (n < 1)
		return snprintf(err, errlen, "%s=%s: want a number >= 1 or 'max'", key, v), -1;
	*out = (unsigned)n;
	return 0;
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
	struct {
		const char *key;
		unsigned *cap;
	} const tab[] = { { "zap", &caps.zap },
			  { "mprotect", &caps.mprotect },
			  { "fork", &caps.fork },
			  { "gup_grab", &caps.gup_grab },
			  { "migrate", &caps.migrate },
			  { "migrate_unmap", &caps.migrate_unmap },
			  { "migrate_flush", &caps.migrate_flush } };
	const char *v = cmdline_get(cl, "batch");
	unsigned all;

	if (v) {
		if (parse_cap("batch", v, &all, err, errlen))
			return -1;
		for (unsigned i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			*tab[i].cap = all;
		caps.gup_walk = all > 1;
	}
	for (unsigned i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		v = cmdline_get(cl, tab[i].key);
		if (v && parse_cap(tab[i].key, v, tab[i].cap, err, errlen))
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
