/*
 * knobs.h - the batching configuration every batched path reads.
 *
 * One cap per operation: 1 is the unbatched behaviour from before the seed
 * patches, N batches at most N PTEs, CAP_MAX batches up to the natural
 * bound (folio, page table, VMA, range). Set from the guest command line
 * (zap=, mprotect=, fork=, gup_grab=, migrate=, migrate_unmap=,
 * migrate_flush=, batch= for all of them;
 * gup_walk=on|off, contpte=on|off) or by benchmarks between runs.
 */
#ifndef MM_KNOBS_H
#define MM_KNOBS_H

#include <stdbool.h>
#include <stddef.h>

#define CAP_MAX 0xffffffffu

struct batch_caps {
	unsigned zap, mprotect, fork, gup_grab;
	unsigned migrate;	/* PTEs of one folio the migration queue skips in one step */
	unsigned migrate_unmap; /* PTEs migration unmaps / remaps as one run */
	unsigned migrate_flush; /* folios one migration TLB flush covers */
	bool gup_walk;		/* walk every PTE to the table/VMA/end in one call */
	bool contpte;		/* arm64: fold aligned 16-entry runs into contiguous blocks */
};

extern struct batch_caps caps;

struct cmdline;
/* caps_parse - read the knobs from @cl over the defaults (all max, walk on,
 * contpte on). Return: 0, or -1 with the reason in @err. */
int caps_parse(const struct cmdline *cl, char *err, size_t errlen);

/* Every cap to 1 (@batched false) or to CAP_MAX (true). */
void caps_set_all(bool batched);

/* The cap that command-line key @key sets (zap, mprotect, fork, gup_grab,
 * migrate, migrate_unmap, migrate_flush); NULL for any other key. */
unsigned *caps_find(const char *key);

/* The value in @c of the cap that key @key sets; 0 for any other key. */
unsigned caps_value(const struct batch_caps *c, const char *key);

/*
 * cap_parse_value - a cap value: "max" (CAP_MAX) or a number 1..CAP_LIMIT.
 * Return: 0, or -1 with "KEY=VALUE: ..." in @err.
 */
#define CAP_LIMIT 1048576u
int cap_parse_value(const char *key, const char *v, unsigned *out, char *err, size_t errlen);

/* "N" or "max" for @cap in @buf. Return: @buf. */
const char *cap_str(unsigned cap, char *buf, size_t size);

/* A cap as RESULT lines carry it: a JSON number, 0 standing for max
 * (no legal cap is 0, so the value stays a number and max stays distinct). */
static inline unsigned cap_json(unsigned cap)
{
	return cap == CAP_MAX ? 0 : cap;
}

/* The caps in effect as a JSON object body ("zap":1,"fork":0,...,
 * "gup_walk":"on"): caps as cap_json() numbers, switches as "on"/"off". */
int caps_json(const struct batch_caps *c, char *buf, size_t size);

/* The batch bound for @nr remaining PTEs under @cap. */
static inline unsigned cap_nr(unsigned cap, unsigned long nr)
{
	return nr < cap ? (unsigned)nr : cap;
}

#endif
