/*
 * explore_mix.h - random concurrent operation mixes for the schedule
 * explorer (tests/mm/test_explore.c): the model the generator and the
 * checks share, the ops, and one schedule's runner.
 *
 * A schedule is a few rounds. Each round gives every CPU a short list of
 * ops over the mms of one fork family (slots 0..MIX_SLOTS-1), runs them
 * with smp_run() and, once the CPUs are joined (a quiescent point),
 * checks every call's result against the model, every page's contents,
 * every pin and the invariant checker. Everything comes from one seed.
 *
 * Contents: CPU c writes only word c of a page, with its own rising
 * sequence numbers, so the last value of each (mm, page, word) is known
 * whatever the interleaving; a child forked during a round sees, in each
 * word, a value between the parent's at the round's start and its last.
 */
#ifndef TESTS_EXPLORE_MIX_H
#define TESTS_EXPLORE_MIX_H

#include "migrate_cases.h"

#define MIX_CPUS 4     /* CPUs a schedule uses at most (and words checked per page) */
#define MIX_SLOTS 3    /* mms of the family */
#define MIX_OPS 6      /* ops per CPU per round at most */
#define MIX_HELD 6     /* pin/get records per CPU */
#define MIX_MAX_RUN 24 /* pages one op touches at most */
#define MIX_AREAS 3
#define MIX_PAGES (16 + 32 + 512) /* the three areas' pages */
/* Where an mremap op moves a run to and back from: past the areas, PMD
 * aligned, at the run's offset in its area (explore_vm.c). */
#define MIX_SCRATCH (0x40000000ul + 4 * PMD_SIZE)

struct mix;
struct mix_op;

/* An area: one VMA of the root mm at a fixed address. */
struct mix_area {
	const char *name;
	unsigned long start;
	unsigned first, npages; /* global page indexes [first, first + npages) */
	unsigned vm_flags;
	unsigned long orders;
};

extern const struct mix_area mix_areas[MIX_AREAS];

/* One kind of op: how to choose its arguments, run it, check its result. */
struct mix_kind {
	const char *name;
	unsigned pass; /* apply order: 0 forks, 1 VMA ops and exits, 2 the rest */
	/* Fill @op's arguments for CPU @cpu; false when it cannot run now. */
	bool (*gen)(struct mix *m, struct mix_op *op, unsigned cpu);
	void (*run)(struct mix_op *op, unsigned cpu);
	/* After the round: problems with @op's result (each printed). */
	int (*check)(struct mix *m, struct mix_op *op, unsigned cpu);
	/* After the round, the checks done: what @op did to the model. */
	void (*apply)(struct mix *m, struct mix_op *op, unsigned cpu);
};

/* A weighted row of a profile's op table. */
struct mix_row {
	const struct mix_kind *kind;
	unsigned weight;
};

/* A mix: its op table and how often each area is chosen. */
struct mix_profile {
	const char *name;
	const struct mix_row *rows;
	unsigned nr_rows;
	unsigned area_weight[MIX_AREAS];
	unsigned rounds;
	bool lock_virt; /* the schedules run with locks taken out of turn */
	bool vm_caps;	/* draw mm_caps.mremap, madvise, numa_hint and pageout too */
	bool cpu_nodes; /* CPU c on node c % nodes (hinting faults move folios) */
	bool lru;	/* a swap pool reserved: folios on the LRU, reclaim can swap */
};

/* A pin or get a CPU holds across rounds. */
struct mix_held {
	bool used;	 /* reserved by the generator */
	bool unpinning;	 /* an unpin of this round will drop it */
	unsigned flags;	 /* FOLL_* (FOLL_PIN or FOLL_GET included) */
	const char *how; /* the op kind that took it */
	int slot;	 /* the mm it was taken in */
	unsigned first;	 /* global page index of pages[0] */
	unsigned round;	 /* when it was taken */
	long n;		 /* pages held (0: none) */
	bool checkable;	 /* a pin whose pages the mm still maps as then */
	struct page *pages[MIX_MAX_RUN];
};

struct mix_op {
	const struct mix_kind *kind;
	int slot, child;   /* the mm; fork: the child's slot */
	unsigned first, n; /* global page range */
	unsigned flags;	   /* FOLL_*, MPOL_MF_*, VM_* as the kind says */
	unsigned mode;	   /* mbind: MPOL_* */
	unsigned long from, to;
	int held;		      /* pin/get/unpin: the record */
	uint32_t seq;		      /* write: the value */
	uint32_t expect[MIX_MAX_RUN]; /* read: the values (0xffffffff: any) */
	int nodes[MIX_MAX_RUN];
	struct mm *mm, *child_mm;
	long ret;
	uint64_t ok;			 /* write/read/unshare: pages that succeeded */
	int status[MIX_MAX_RUN];	 /* move_pages, and each page's call */
	struct page *pages[MIX_MAX_RUN]; /* pin/get: taken; unpin: to drop */
	uint32_t seen[MIX_MAX_RUN];	 /* read: what was read */
};

/* The model of one slot's page. */
struct mix_page {
	bool mapped, writable;
	bool lazy; /* MADV_FREE reached it and no write since: it may read zero */
	uint32_t lo[MIX_CPUS], hi[MIX_CPUS]; /* each word's allowed range */
};

struct mix_slot {
	bool live;
	bool exiting; /* an exit of this round drops its reference */
	bool fresh;   /* forked this round: learn its VMAs at the quiescent point */
	struct mm *mm;
	struct mix_page page[MIX_PAGES];
	/* This round: a VMA op touched the page (its state is uncertain
	 * during the round), and a munmap or remap zeroed it. */
	bool vma_busy[MIX_PAGES];
	bool zeroed[MIX_PAGES];
	/* This round: a write reached the page, a MADV_FREE covered it. */
	bool dirtied[MIX_PAGES];
	bool freed[MIX_PAGES];
	bool vma_op;  /* this round already has a VMA op on this mm */
	bool forking; /* this round forks this mm */
};

struct mix {
	const struct mix_profile *prof;
	uint64_t seed, rng;
	unsigned ncpus, round, nr_ops[MIX_CPUS];
	uint32_t next_seq[MIX_CPUS];
	struct mix_slot slot[MIX_SLOTS];
	struct mix_op ops[MIX_CPUS][MIX_OPS];
	struct mix_held held[MIX_CPUS][MIX_HELD];
	unsigned arrived; /* the round's start barrier */
	bool migrating;	  /* this round has an op that migrates */
	char caps_name[16];
};

/* ---- explore_mix.c: the model and the random choices --------------------- */

uint64_t mix_rand(struct mix *m);
unsigned mix_below(struct mix *m, unsigned n); /* uniform in [0, n) */
unsigned long mix_addr(unsigned page);
const struct mix_area *mix_area_of(unsigned page);
/* A random run of 1..@max pages in an area chosen by the profile. */
void mix_pick_run(struct mix *m, unsigned max, unsigned *first, unsigned *n);
int mix_pick_slot(struct mix *m); /* a live slot that is not exiting */
/* Is the page certainly mapped (and writable, for @write) all round? */
bool mix_certain(struct mix *m, int slot, unsigned page, bool write);
/* Pages from @first a call certainly reaches (the leading certain ones). */
unsigned mix_certain_run(struct mix *m, int slot, unsigned first, unsigned n, bool write);
/* May the page read zero, its folio discarded by a lazyfree reclaim? */
bool mix_may_read_zero(struct mix *m, int slot, unsigned page);
void mix_mark_vma_op(struct mix *m, int slot, unsigned first, unsigned n, bool zero);
int mix_bad(struct mix *m, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- explore_ops.c, explore_pin.c and explore_vm.c: the op kinds -------- */

extern const struct mix_kind mix_k_write, mix_k_read, mix_k_unshare, mix_k_fork, mix_k_exit,
	mix_k_munmap, mix_k_remap, mix_k_mprotect, mix_k_mbind, mix_k_migrate, mix_k_move_pages,
	mix_k_pageout;
extern const struct mix_kind mix_k_mremap, mix_k_dontneed, mix_k_free, mix_k_reclaim, mix_k_cold,
	mix_k_populate, mix_k_numa_scan, mix_k_lru_reclaim;
extern const struct mix_kind mix_k_pin, mix_k_pin_fast, mix_k_get, mix_k_get_fast, mix_k_unpin;

/* The kinds that change nothing in the model, or whose result is free. */
void mix_apply_nothing(struct mix *m, struct mix_op *op, unsigned cpu);
int mix_check_nothing(struct mix *m, struct mix_op *op, unsigned cpu);

/* ---- explore_profiles.c: the mixes ---------------------------------------- */

extern const struct mix_profile mix_profiles[];
extern const unsigned mix_nr_profiles;

/* ---- explore_check.c: the quiescent-point checks ------------------------- */

/* Contents of every live mm's pages, every checkable pin; learn the
 * fresh children's VMAs. Return: problems (each printed). */
int mix_check_contents(struct mix *m);
int mix_check_pins(struct mix *m);
/* A munmap or remap in @slot over pages of held pins: no promise left. */
void mix_pins_forget(struct mix *m, int slot, unsigned first, unsigned n);

/* ---- explore_run.c: one schedule ------------------------------------------ */

/* Run schedule @seed of @prof: its CPUs (2..@max_cpus), caps (every cap
 * 1, every cap max, or random), ops and the explorer's schedule (@mode,
 * an enum explore_mode) all come from @seed. Return: problems found (each
 * printed); a panic ends the runner. */
int mix_run_schedule(const struct mix_profile *prof, uint64_t seed, unsigned max_cpus, int mode);

/* Called before each round's smp_run() with that round's scheduler seed
 * and the mode mix_run_schedule() was given: the host runner's driver
 * (test_explore.c) points it at its schedule explorer; NULL (the guest's
 * run=stress:mm) lets the CPUs run free. */
extern void (*mix_schedule_hook)(uint64_t seed, int mode);

#endif
