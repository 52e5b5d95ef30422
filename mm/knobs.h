/*
 * knobs.h - the batching configuration every batched path reads.
 *
 * One cap per batching decision (migration has three: queueing, unmap
 * runs, flush grouping): 1 is the unbatched behaviour from before the
 * batching series, N batches at most N PTEs, CAP_MAX batches up to the natural
 * bound (folio, page table, VMA, range). The guest sets them from its
 * command line (guest/knobs.c: zap=, mprotect=, fork=, gup_grab=,
 * migrate=, migrate_unmap=, migrate_flush=, mremap=, madvise=, numa_hint=, batch= for
 * all of them;
 * gup_walk=on|off, contpte=on|off), benchmarks and tests between runs.
 */
#ifndef MM_KNOBS_H
#define MM_KNOBS_H

#include <stdbool.h>

#define CAP_MAX 0xffffffffu

/* Each cap's field has its command-line key's name (ptelab/cmdline.h's
 * CMDLINE_CAP_KEYS lists them). */
struct batch_caps {
	unsigned zap, mprotect, fork, gup_grab;
	unsigned migrate;	/* PTEs of one folio the migration queue skips in one step */
	unsigned migrate_unmap; /* PTEs migration unmaps / remaps as one run */
	unsigned migrate_flush; /* folios one migration TLB flush covers */
	bool gup_walk;		/* walk every PTE to the table/VMA/end in one call */
	bool contpte;		/* arm64: fold aligned 16-entry runs into contiguous blocks */
	unsigned mremap;	/* PTEs of one folio mremap moves as one run */
	unsigned madvise;	/* MADV_FREE entries of one folio cleared as one run */
	unsigned numa_hint;	/* PTEs of one folio NUMA hinting marks or restores as one run */
};

extern struct batch_caps caps;

/* Every cap to 1 (@batched false) or to CAP_MAX (true); gup_walk with them. */
void caps_set_all(bool batched);

/* The batch bound for @nr remaining PTEs under @cap. */
static inline unsigned cap_nr(unsigned cap, unsigned long nr)
{
	return nr < cap ? (unsigned)nr : cap;
}

#endif
