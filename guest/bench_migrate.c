/*
 * bench_migrate.c - run=bench:migrate: migrate_pages() of populated anon
 * memory from node 0 to node 1 and back (the test of "mempolicy:
 * optimize queue_folios_pte_range by PTE batching": 4 GiB of
 * PTE-mapped order-9 folios, 7.5 s -> 4 s, about -47%, on Linux).
 *
 * Variants: unbatched (every migration cap 1: the per-PTE queue, per-PTE
 * unmap and flush, per-PTE remap), one per batching step alone (queue:
 * migrate=max, the seed; unmap: migrate_unmap=max; flush:
 * migrate_flush=max) and batched (all of them). caps=LIST sweeps
 * migrate= (the queue cap) with the other two as the command line gives
 * them; migrate=, migrate_unmap= or migrate_flush= alone run one variant
 * with exactly the caps given. Besides the RESULT line
 * of the whole round trip, each case prints a "phases" line with the time
 * and counters of queueing and of migrating apart (mm/mempolicy.h's
 * migrate_phase_hook marks the switches). Needs a second node (--nodes 2)
 * with room for @size.
 */
#include <string.h>

#include "bench.h"
#include "kernel.h"
#include "knobs.h"
#include "mempolicy.h"
#include "mm.h"

static const char *const variants_migrate[] = { "unbatched", "queue",	"unmap",
						"flush",     "batched", NULL };

/*
 * The default variants set all three migration caps: unbatched every one
 * at 1, batched every one at max, a step variant (queue, unmap, flush)
 * only its own at max. A caps= variant (cap=N) keeps what the harness set:
 * migrate=N, the other two as the command line gives them.
 */
static void apply_step_variant(const char *variant)
{
	unsigned *cap = NULL;

	if (strncmp(variant, "cap=", 4) == 0)
		return;
	if (strcmp(variant, "queue") == 0)
		cap = &mm_caps.migrate;
	else if (strcmp(variant, "unmap") == 0)
		cap = &mm_caps.migrate_unmap;
	else if (strcmp(variant, "flush") == 0)
		cap = &mm_caps.migrate_flush;
	mm_caps.migrate = mm_caps.migrate_unmap = mm_caps.migrate_flush =
		strcmp(variant, "batched") == 0 ? CAP_MAX : 1;
	if (cap)
		*cap = CAP_MAX;
}

/* Time and counters of the two phases, summed over one repetition. */
static struct {
	bool queueing;
	uint64_t mark, t[2]; /* [0] migrating, [1] queueing */
	struct mm_counters c_mark, c[2];
} ph;

static void counters_add(struct mm_counters *sum, const struct mm_counters *d)
{
#define MM_COUNTER_ADD(name, what) sum->name += d->name;
	MM_COUNTER_LIST(MM_COUNTER_ADD)
#undef MM_COUNTER_ADD
}

/* Close the phase running since the last mark. */
static void phase_close(void)
{
	uint64_t now = time_ns();
	struct mm_counters d;

	mm_counters_since(&d, &ph.c_mark);
	counters_add(&ph.c[ph.queueing], &d);
	ph.t[ph.queueing] += now - ph.mark;
	ph.mark = now;
	ph.c_mark = mm_counters_read();
}

static void phase_switch(bool queueing)
{
	phase_close();
	ph.queueing = queueing;
}

static void print_phases(const struct folio_size *fs, const char *variant)
{
	const struct mm_counters *q = &ph.c[1], *m = &ph.c[0];

	printf("\n  phases %s %s: queue %.1f us (ptep_gets %llu, pt_descents %llu, ptl_takes %llu, "
	       "migrate_queued %llu), migrate %.1f us (folio_copies %llu, tlb_flushes %llu, "
	       "ref_updates %llu, mapcount_updates %llu, cont_unfolds %llu, "
	       "pgmigrate_success %llu, thp_migration_success %llu)\n",
	       fs->label, variant, ph.t[1] / 1000.0, (unsigned long long)q->ptep_gets,
	       (unsigned long long)q->pt_descents, (unsigned long long)q->ptl_takes,
	       (unsigned long long)q->migrate_queued, ph.t[0] / 1000.0,
	       (unsigned long long)m->folio_copies, (unsigned long long)m->tlb_flushes,
	       (unsigned long long)m->ref_updates, (unsigned long long)m->mapcount_updates,
	       (unsigned long long)m->cont_unfolds, (unsigned long long)m->pgmigrate_success,
	       (unsigned long long)m->thp_migration_success);
}

/* The timed part: the round trip, its phases marked. */
static int op_round_trip(struct mm *mm, unsigned long addr, unsigned long size)
{
	long failed;

	(void)addr;
	(void)size;
	ph.mark = time_ns();
	ph.c_mark = mm_counters_read();
	failed = migrate_pages(mm, 1ul << 0, 1ul << 1);
	phase_close();
	failed += migrate_pages(mm, 1ul << 1, 1ul << 0);
	phase_close();
	return failed == 0 ? 0 : -1;
}

/* One repetition: populate on node 0 (untimed), then the round trip. */
static int rep_migrate(const struct folio_size *fs, const struct bench_rep *r,
		       const struct bench_params *p)
{
	struct mm *mm = mm_create();
	unsigned long a = mm ? bench_map(mm, fs, p->size, true) : 0;
	int err = -1;

	memset(&ph, 0, sizeof(ph));
	if (a) {
		migrate_phase_hook = phase_switch;
		err = bench_timed(mm, a, p, op_round_trip);
		migrate_phase_hook = NULL;
	}
	if (mm)
		mm_put(mm);
	if (r->nr == p->reps - 1)
		print_phases(fs, r->variant);
	return err;
}

const struct bench bench_migrate = {
	.default_folios = "4K,16K,64K,2M-pte,2M-pmd",
	.variants = variants_migrate,
	.rep = rep_migrate,
	.what = "migrate_pages node 0 -> 1 -> 0 of populated anon memory",
	.apply = apply_step_variant
};
