/*
 * knobs.h - the batching configuration every batched path reads.
 *
 * One cap per batching decision (migration has three: queueing, unmap
 * runs, flush grouping): 1 is the unbatched behaviour from before the
 * batching series, N batches at most N PTEs, CAP_MAX batches up to the natural
 * bound (folio, page table, VMA, range); and the switches (gup_walk,
 * contpte). The fields are the knob rows of ptelab/cmdline_keys.h, which
 * say what each does: a field is added there, with its command-line key,
 * or not at all. The guest sets them from its command line
 * (guest/knob_parse.c), benchmarks and tests between runs.
 */
#ifndef MM_KNOBS_H
#define MM_KNOBS_H

#include <stdbool.h>

#include "ptelab/cmdline_keys.h"

#define CAP_MAX 0xffffffffu

/* The grammar's "max" is mm's CAP_MAX: a parsed value goes in unchanged. */
_Static_assert(CMDLINE_CAP_MAX == CAP_MAX, "the command line's max is not mm's CAP_MAX");

/* Each field has its command-line key's name. */
struct batch_caps {
#define BATCH_CAPS_CAP(id, ...) unsigned id;
#define BATCH_CAPS_SWITCH(id, ...) bool id;
	CMDLINE_KNOB_CAPS(BATCH_CAPS_CAP)
	CMDLINE_KNOB_BATCH_SWITCHES(BATCH_CAPS_SWITCH)
	CMDLINE_KNOB_SWITCHES(BATCH_CAPS_SWITCH)
#undef BATCH_CAPS_CAP
#undef BATCH_CAPS_SWITCH
};

extern struct batch_caps mm_caps;

/* Every cap to 1 (@batched false) or to CAP_MAX (true), and the switches
 * that batch (gup_walk) with them; the others keep their value. */
void caps_set_all(bool batched);

/* The batch bound for @nr remaining PTEs under @cap. */
static inline unsigned cap_nr(unsigned cap, unsigned long nr)
{
	return nr < cap ? (unsigned)nr : cap;
}

#endif
