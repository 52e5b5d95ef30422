/*
 * explore_vm.c - the ops of a mix that change what backs a range but not
 * what it reads (explore_mix.h): mremap (a run moved away and back),
 * madvise (DONTNEED, FREE and the reclaim that discards lazyfree folios,
 * COLD, POPULATE_READ/WRITE) and NUMA hinting (the scan's PROT_NONE
 * change; the hinting faults, and the migrations they ask for, are the
 * other ops' accesses).
 *
 * Context: as explore_ops.c.
 */
#include "explore_mix.h"
#include "madvise.h"
#include "vmscan.h"

/* A run and a slot with no VMA op yet this round. */
static bool gen_vm_run(struct mix *m, struct mix_op *op, unsigned max)
{
	op->slot = mix_pick_slot(m);
	if (op->slot < 0 || m->slot[op->slot].vma_op)
		return false;
	mix_pick_run(m, max, &op->first, &op->n);
	return true;
}

/* Is every page of the run mapped with access at the round's start? */
static bool run_mapped(struct mix *m, int slot, unsigned first, unsigned n)
{
	for (unsigned p = first; p < first + n; p++)
		if (!m->slot[slot].page[p].mapped)
			return false;
	return true;
}

/* ---- mremap: away to MIX_SCRATCH and back ----------------------------------- */

static unsigned long scratch_addr(unsigned page)
{
	const struct mix_area *a = mix_area_of(page);

	return MIX_SCRATCH + (mix_addr(page) - a->start);
}

/*
 * A run, or a quarter of the time a whole area (the PMD area's moves by
 * its PMD entry), with MREMAP_DONTUNMAP half of the time. The result is
 * known now: -EFAULT unless one VMA holds the run (an earlier mprotect or
 * mremap split the area). With DONTUNMAP, an access between the moves
 * faults a fresh page into the emptied VMA, which the move back unmaps:
 * a write there is lost, a pin there no longer the mm's (zero: the words
 * lie in [0, the last write], the round's pins are not checked).
 */
static bool gen_mremap(struct mix *m, struct mix_op *op, unsigned cpu)
{
	struct vma *v;

	(void)cpu;
	if (!gen_vm_run(m, op, MIX_MAX_RUN))
		return false;
	if (!mix_below(m, 4)) {
		const struct mix_area *a = &mix_areas[mix_below(m, MIX_AREAS)];

		op->first = a->first;
		op->n = a->npages;
	}
	op->flags = mix_below(m, 2) ? MREMAP_DONTUNMAP : 0;
	v = find_vma(m->slot[op->slot].mm, mix_addr(op->first));
	op->from = v && mix_addr(op->first + op->n - 1) < v->end ? 0 : (unsigned long)-EFAULT;
	mix_mark_vma_op(m, op->slot, op->first, op->n, op->flags & MREMAP_DONTUNMAP);
	return true;
}

/* op->ret: the first move's result; op->to: the move back's. */
static void run_mremap(struct mix_op *op, unsigned cpu)
{
	unsigned long len = op->n * PAGE_SIZE, old = mix_addr(op->first);
	unsigned long tmp = scratch_addr(op->first);
	unsigned flags = MREMAP_MAYMOVE | MREMAP_FIXED;

	(void)cpu;
	op->ret = mm_mremap(op->mm, old, len, len, flags | op->flags, tmp);
	op->to = op->ret == (long)tmp ? (unsigned long)mm_mremap(op->mm, tmp, len, len, flags, old)
				      : old;
	op->ret = op->ret == (long)tmp ? 0 : op->ret;
}

/* As gen said, or -ENOMEM (a table), or -EFAULT in a round whose mbind
 * may have split the VMA; a run moved away comes back. */
static int check_mremap(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	if (op->ret == 0 && op->to != mix_addr(op->first))
		return mix_bad(m, "mremap", "mm %d [%#lx, +%u pages): the move back returned %ld",
			       op->slot, mix_addr(op->first), op->n, (long)op->to);
	if (op->ret == (long)op->from || op->ret == -ENOMEM || (op->ret == -EFAULT && m->migrating))
		return 0;
	return mix_bad(m, "mremap", "mm %d [%#lx, +%u pages) flags %#x: %ld, expected %ld",
		       op->slot, mix_addr(op->first), op->n, op->flags, op->ret, (long)op->from);
}

const struct mix_kind mix_k_mremap = { "mremap",	 1, gen_mremap, run_mremap, check_mremap,
				       mix_apply_nothing };

/* ---- madvise: one call on a run ---------------------------------------------- */

static void run_madvise(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->ret = mm_madvise(op->mm, mix_addr(op->first), op->n * PAGE_SIZE, (int)op->mode);
}

/* 0, or -ENOMEM where the run may have a hole. */
static int check_madvise(struct mix *m, struct mix_op *op, unsigned cpu)
{
	bool sure = mix_certain_run(m, op->slot, op->first, op->n, false) == op->n;

	(void)cpu;
	if (op->ret == 0 || (!sure && op->ret == -ENOMEM))
		return 0;
	return mix_bad(m, "madvise", "mm %d [%#lx, +%u pages) advice %u: %ld", op->slot,
		       mix_addr(op->first), op->n, op->mode, op->ret);
}

/* DONTNEED: one per mm and round as a VMA op (the pages read zero after
 * it, so a read of the round cannot say what it must see). */
static bool gen_dontneed(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->mode = MADV_DONTNEED;
	if (!gen_vm_run(m, op, MIX_MAX_RUN))
		return false;
	mix_mark_vma_op(m, op->slot, op->first, op->n, true);
	return true;
}

/* Exact: DONTNEED's hole is one the round started with. */
static int check_dontneed(struct mix *m, struct mix_op *op, unsigned cpu)
{
	long want = run_mapped(m, op->slot, op->first, op->n) ? 0 : -ENOMEM;

	(void)cpu;
	if (op->ret == want)
		return 0;
	return mix_bad(m, "dontneed", "mm %d [%#lx, +%u pages): %ld, expected %ld", op->slot,
		       mix_addr(op->first), op->n, op->ret, want);
}

/* Before the round's writes (pass 1): the words start again from zero.
 * -ENOMEM too: as Linux's, the advice applies to the mapped parts of a
 * range with a hole and the call says so after it (a model that took
 * -ENOMEM for "nothing done" saw LOST WRITEs once munmap made holes). */
static void apply_dontneed(struct mix *m, struct mix_op *op, unsigned cpu)
{
	struct mix_slot *s = &m->slot[op->slot];
	bool done = op->ret == 0 || op->ret == -ENOMEM;

	(void)cpu;
	mix_pins_forget(m, op->slot, op->first, op->n);
	for (unsigned p = op->first; done && p < op->first + op->n; p++) {
		memset(s->page[p].lo, 0, sizeof(s->page[p].lo));
		memset(s->page[p].hi, 0, sizeof(s->page[p].hi));
		s->page[p].lazy = false;
	}
}

static bool gen_advice(struct mix *m, struct mix_op *op, unsigned advice)
{
	op->mode = advice;
	op->slot = mix_pick_slot(m);
	if (op->slot < 0)
		return false;
	mix_pick_run(m, MIX_MAX_RUN, &op->first, &op->n);
	return true;
}

/* FREE: the pages keep their words until a reclaim discards a clean
 * folio; from then they read zero (mix_may_read_zero()). Marked now, as
 * a VMA op marks its pages: a fork of the round applies before it. */
static bool gen_free(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	if (!gen_advice(m, op, MADV_FREE))
		return false;
	for (unsigned p = op->first; p < op->first + op->n; p++)
		m->slot[op->slot].freed[p] = true;
	return true;
}

static bool gen_cold(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	return gen_advice(m, op, MADV_COLD);
}

/* POPULATE_READ or _WRITE: -EINVAL too where a page may lack the access. */
static bool gen_populate(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	return gen_advice(m, op, mix_below(m, 2) ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
}

static int check_populate(struct mix *m, struct mix_op *op, unsigned cpu)
{
	bool write = op->mode == MADV_POPULATE_WRITE;
	bool sure = mix_certain_run(m, op->slot, op->first, op->n, write) == op->n;

	(void)cpu;
	if (op->ret == 0 || (!sure && (op->ret == -ENOMEM || op->ret == -EINVAL)))
		return 0;
	return mix_bad(m, "populate", "mm %d [%#lx, +%u pages) %s: %ld (%s)", op->slot,
		       mix_addr(op->first), op->n, write ? "write" : "read", op->ret,
		       sure ? "mapped with the access all round" : "maybe not");
}

const struct mix_kind mix_k_dontneed = { "dontneed",	 1,
					 gen_dontneed,	 run_madvise,
					 check_dontneed, apply_dontneed };
const struct mix_kind mix_k_free = { "free",	       2, gen_free, run_madvise, check_madvise,
				     mix_apply_nothing };
const struct mix_kind mix_k_cold = { "cold",	       2, gen_cold, run_madvise, check_madvise,
				     mix_apply_nothing };
const struct mix_kind mix_k_populate = { "populate",	 2,
					 gen_populate,	 run_madvise,
					 check_populate, mix_apply_nothing };

/* ---- the lazyfree reclaim of one mm ------------------------------------------ */

static bool gen_reclaim(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->slot = mix_pick_slot(m);
	return op->slot >= 0;
}

static void run_reclaim(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->ret = (long)mm_reclaim_lazyfree(op->mm);
}

const struct mix_kind mix_k_reclaim = { "reclaim",	   2,
					gen_reclaim,	   run_reclaim,
					mix_check_nothing, mix_apply_nothing };

/* ---- direct reclaim from the LRU, as a fault below a watermark ----------- */

/* A node and how many pages to free (@op->mode, @op->n). The reclaim of
 * a shared folio leaves migration entries for a moment, as a migration
 * does (an access there may fail once, check_pages()). */
static bool gen_lru_reclaim(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	m->migrating = true;
	op->slot = mix_pick_slot(m);
	op->mode = mix_below(m, (unsigned)nr_pglists);
	op->n = 1 + mix_below(m, 64);
	return op->slot >= 0;
}

/* reclaim_node() as __reclaim_before_fault() calls it: under the mm's
 * mmap_lock for read. The contents are checked at the quiescent point. */
static void run_lru_reclaim(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	read_lock(&op->mm->mmap_lock);
	op->ret = (long)reclaim_node(op->mm, (int)op->mode, op->n);
	read_unlock(&op->mm->mmap_lock);
}

const struct mix_kind mix_k_lru_reclaim = { "lru_reclaim",     2,
					    gen_lru_reclaim,   run_lru_reclaim,
					    mix_check_nothing, mix_apply_nothing };

/* ---- NUMA hinting: the scan of a run --------------------------------------- */

/* The hinting faults of the round's accesses may migrate. */
static bool gen_numa_scan(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	m->migrating = true;
	op->mode = mix_below(m, (unsigned)nr_pglists);
	return gen_advice(m, op, op->mode);
}

static void run_numa_scan(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->ret = change_prot_numa(op->mm, mix_addr(op->first),
				   mix_addr(op->first) + op->n * PAGE_SIZE, (int)op->mode);
}

/* Entries marked: at most the run's, a PMD leaf's 512 for each of its
 * pages at most (a leaf the run covers in part counts whole). */
static int check_numa_scan(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	if (op->ret >= 0 && op->ret <= (long)op->n * PTRS_PER_TABLE)
		return 0;
	return mix_bad(m, "numa_scan", "mm %d [%#lx, +%u pages) node %u: %ld", op->slot,
		       mix_addr(op->first), op->n, op->mode, op->ret);
}

const struct mix_kind mix_k_numa_scan = { "numa_scan",	   2,
					  gen_numa_scan,   run_numa_scan,
					  check_numa_scan, mix_apply_nothing };
