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

void caps_set_all(bool batched)
{
	unsigned v = batched ? CAP_MAX : 1;

	caps.zap = caps.mprotect = caps.fork = caps.gup_grab = caps.migrate = v;
	caps.migrate_unmap = caps.migrate_flush = v;
	caps.gup_walk = batched;
}

int cap_parse_value(const char *key, const char *v, unsigned *out, char *err, size_t errlen)
{
	int n = cmdline_uint(v);

	if (strcmp(v, "max") == 0) {
		*out = CAP_MAX;
		return 0;
	}
	if (n < 1 || (unsigned)n > CAP_LIMIT)
		return snprintf(err, errlen, "%s=%s: a cap is a number 1..%u or 'max'", key, v,
				CAP_LIMIT),
		       -1;
	*out = (unsigned)n;
	return 0;
}

unsigned *caps_find(const char *key)
{
	if (!strcmp(key, "zap"))
		return &caps.zap;
	if (!strcmp(key, "mprotect"))
		return &caps.mprotect;
	if (!strcmp(key, "fork"))
		return &caps.fork;
	if (!strcmp(key, "gup_grab"))
		return &caps.gup_grab;
	if (!strcmp(key, "migrate"))
		return &caps.migrate;
	if (!strcmp(key, "migrate_unmap"))
		return &caps.migrate_unmap;
	if (!strcmp(key, "migrate_flush"))
		return &caps.migrate_flush;
	return NULL;
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
	char z[12], m[12], f[12], g[12], mi[12], mu[12], mf[12];

	return snprintf(buf, size,
			"\"zap\":\"%s\",\"mprotect\":\"%s\",\"fork\":\"%s\",\"gup_grab\":\"%s\","
			"\"migrate\":\"%s\",\"migrate_unmap\":\"%s\",\"migrate_flush\":\"%s\","
			"\"gup_walk\":\"%s\",\"contpte\":\"%s\"",
			cap_str(c->zap, z, sizeof(z)), cap_str(c->mprotect, m, sizeof(m)),
			cap_str(c->fork, f, sizeof(f)), cap_str(c->gup_grab, g, sizeof(g)),
			cap_str(c->migrate, mi, sizeof(mi)),
			cap_str(c->migrate_unmap, mu, sizeof(mu)),
			cap_str(c->migrate_flush, mf, sizeof(mf)), c->gup_walk ? "on" : "off",
			c->contpte ? "on" : "off");
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
	static const char *const cap_keys[] = { "zap",		"mprotect", "fork",
						"gup_grab",	"migrate",  "migrate_unmap",
						"migrate_flush" };
	const char *v = cmdline_get(cl, "batch");
	unsigned all;

	if (v) {
		if (cap_parse_value("batch", v, &all, err, errlen))
			return -1;
		for (unsigned i = 0; i < sizeof(cap_keys) / sizeof(cap_keys[0]); i++)
			*caps_find(cap_keys[i]) = all;
		caps.gup_walk = all > 1;
	}
	for (unsigned i = 0; i < sizeof(cap_keys) / sizeof(cap_keys[0]); i++) {
		v = cmdline_get(cl, cap_keys[i]);
		if (v && cap_parse_value(cap_keys[i], v, caps_find(cap_keys[i]), err, errlen))
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
