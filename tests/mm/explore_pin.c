/*
 * explore_pin.c - the GUP ops of a mix: pins and gets (slow and fast,
 * R/O and R/W, LONGTERM pins) kept in a per-CPU record across rounds,
 * and the unpin that drops one.
 *
 * Context: as explore_ops.c; a record is written only by its CPU's ops
 * during a round and read by CPU 0 between rounds.
 */
#include "explore_mix.h"

typedef long (*gup_fn)(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		       struct page **pages);

static struct mix_held *held_of(struct mix *m, unsigned cpu, const struct mix_op *op)
{
	return &m->held[cpu][op->held];
}

/* Reserve a free record of @cpu for a call taking FOLL_PIN or FOLL_GET. */
static bool gen_gup(struct mix *m, struct mix_op *op, unsigned cpu, unsigned take, bool fast)
{
	struct mix_held *h;

	for (op->held = 0; op->held < MIX_HELD; op->held++)
		if (!m->held[cpu][op->held].used)
			break;
	op->slot = mix_pick_slot(m);
	if (op->held == MIX_HELD || op->slot < 0)
		return false;
	mix_pick_run(m, MIX_MAX_RUN, &op->first, &op->n);
	op->flags = (mix_below(m, 3) ? FOLL_WRITE : 0) | (mix_below(m, 4) ? 0 : FOLL_TOUCH);
	if (take == FOLL_PIN && mix_below(m, 2))
		op->flags |= FOLL_LONGTERM;
	if (fast && !mix_below(m, 3))
		op->flags |= FOLL_FAST_ONLY;
	h = held_of(m, cpu, op);
	*h = (struct mix_held){ .used = true,
				.flags = op->flags | take,
				.how = op->kind->name,
				.slot = op->slot,
				.first = op->first,
				.round = m->round };
	return true;
}

static bool gen_pin(struct mix *m, struct mix_op *op, unsigned cpu)
{
	return gen_gup(m, op, cpu, FOLL_PIN, false);
}

static bool gen_pin_fast(struct mix *m, struct mix_op *op, unsigned cpu)
{
	return gen_gup(m, op, cpu, FOLL_PIN, true);
}

static bool gen_get(struct mix *m, struct mix_op *op, unsigned cpu)
{
	return gen_gup(m, op, cpu, FOLL_GET, false);
}

static bool gen_get_fast(struct mix *m, struct mix_op *op, unsigned cpu)
{
	return gen_gup(m, op, cpu, FOLL_GET, true);
}

/* The pages go to the op's own array; apply copies them to the record. */
static void run_gup(struct mix_op *op, gup_fn fn)
{
	op->ret = fn(op->mm, mix_addr(op->first), op->n, op->flags, op->pages);
}

static void run_pin(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	run_gup(op, pin_user_pages);
}

static void run_pin_fast(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	run_gup(op, pin_user_pages_fast);
}

static void run_get(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	run_gup(op, get_user_pages);
}

static void run_get_fast(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	run_gup(op, get_user_pages_fast);
}

/*
 * FOLL_FAST_ONLY takes 0..n. Otherwise every page the round left mapped
 * with the access must be taken: all n when all are; else the leading
 * sure ones at least (a page after them may have gone), or -EFAULT when
 * even the first may have.
 */
static int check_gup(struct mix *m, struct mix_op *op, unsigned cpu)
{
	unsigned lead = mix_certain_run(m, op->slot, op->first, op->n, op->flags & FOLL_WRITE);
	long lo = lead ? lead : 1;
	bool ok;

	(void)cpu;
	if (op->flags & FOLL_FAST_ONLY)
		ok = op->ret >= 0 && op->ret <= op->n;
	else if (lead == op->n)
		ok = op->ret == op->n;
	else
		ok = (op->ret >= lo && op->ret <= op->n) || (!lead && op->ret == -EFAULT);
	if (ok)
		return 0;
	return mix_bad(m, op->kind->name, "mm %d [%#lx, +%u pages) flags %#x: %ld (%u sure)",
		       op->slot, mix_addr(op->first), op->n, op->flags, op->ret, lead);
}

/* A R/W pin promises the pages stay the ones the mm maps (cow.c), unless
 * the round unmapped or remapped one of them. */
static bool pin_checkable(struct mix *m, const struct mix_held *h)
{
	if (!(h->flags & FOLL_PIN) || !(h->flags & FOLL_WRITE) || h->n <= 0)
		return false;
	if (!m->slot[h->slot].live)
		return false;
	for (long i = 0; i < h->n; i++)
		if (m->slot[h->slot].zeroed[h->first + i])
			return false;
	return true;
}

static void apply_gup(struct mix *m, struct mix_op *op, unsigned cpu)
{
	struct mix_held *h = held_of(m, cpu, op);

	h->n = op->ret > 0 ? op->ret : 0;
	for (long i = 0; i < h->n; i++)
		h->pages[i] = op->pages[i];
	h->checkable = pin_checkable(m, h);
}

/* Drop a record taken in an earlier round. */
static bool gen_unpin(struct mix *m, struct mix_op *op, unsigned cpu)
{
	unsigned start = mix_below(m, MIX_HELD);

	for (unsigned k = 0; k < MIX_HELD; k++) {
		struct mix_held *h = &m->held[cpu][(start + k) % MIX_HELD];

		if (h->used && !h->unpinning && h->round < m->round) {
			h->unpinning = true;
			op->held = (int)((start + k) % MIX_HELD);
			op->n = (unsigned)h->n;
			op->flags = h->flags;
			for (long i = 0; i < h->n; i++)
				op->pages[i] = h->pages[i];
			return true;
		}
	}
	return false;
}

static void run_unpin(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	if (!op->n)
		return;
	if (op->flags & FOLL_PIN)
		unpin_user_pages(op->pages, op->n);
	else
		put_user_pages(op->pages, op->n);
}

static void apply_unpin(struct mix *m, struct mix_op *op, unsigned cpu)
{
	*held_of(m, cpu, op) = (struct mix_held){ 0 };
}

const struct mix_kind mix_k_pin = { "pin", 2, gen_pin, run_pin, check_gup, apply_gup };
const struct mix_kind mix_k_pin_fast = { "pin_fast",   2,	  gen_pin_fast,
					 run_pin_fast, check_gup, apply_gup };
const struct mix_kind mix_k_get = { "get", 2, gen_get, run_get, check_gup, apply_gup };
const struct mix_kind mix_k_get_fast = { "get_fast",   2,	  gen_get_fast,
					 run_get_fast, check_gup, apply_gup };
const struct mix_kind mix_k_unpin = { "unpin",		 2,	     gen_unpin, run_unpin,
				      mix_check_nothing, apply_unpin };
