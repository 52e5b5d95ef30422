/*
 * knob_parse.h - the guest's side of the batching knobs (guest/knob_parse.c):
 * reading them from the command line into mm's struct batch_caps
 * (mm/knobs.h), finding a cap by its key, and writing them for RESULT
 * lines. The keys and value grammar are ptelab/cmdline.h's.
 */
#ifndef GUEST_KNOB_PARSE_H
#define GUEST_KNOB_PARSE_H

#include <stddef.h>

#include "knobs.h"

struct cmdline;

/* caps_parse - read the knobs (ptelab/cmdline_keys.h's knob rows, and
 * batch=) from @cl over their values. Return: 0, or -1 with the reason in
 * @err. */
int caps_parse(const struct cmdline *cl, char *err, size_t errlen);

/* The cap that command-line key @key sets (a CAP row of
 * ptelab/cmdline_keys.h); NULL for any other key. */
unsigned *caps_find(const char *key);

/* The value in @c of the cap that key @key sets; 0 for any other key. */
unsigned caps_value(const struct batch_caps *c, const char *key);

/* "N" or "max" for @cap in @buf. Return: @buf. */
const char *cap_str(unsigned cap, char *buf, size_t size);

/* A cap as RESULT lines carry it, in @buf: a JSON number, or the string
 * "max" (as trace=on's op lines write it). Return: @buf. */
const char *cap_json(unsigned cap, char *buf, size_t size);

/* The knobs in effect as a JSON object body ("zap":1,"fork":0,...,
 * "gup_walk":"on"), one member a knob row: caps as cap_json() writes them,
 * switches as "on"/"off". The RESULT lines' "caps" (and so the --csv
 * columns mm_caps.zap, ...). */
int caps_json(const struct batch_caps *c, char *buf, size_t size);

#endif
