/*
 * explore_ops.c - the ops of a mix (explore_mix.h): for each kind, how
 * the generator picks its arguments, how a CPU runs it, which results a
 * sequential order of the round's calls allows, and what it does to the
 * model. Then the profiles: weighted tables of these kinds.
 *
 * Context: gen, check and apply run on CPU 0 between rounds; run on the
 * op's CPU inside smp_run(), reading only its op and its own records.
 */
#include "explore_mix.h"
#include "madvise.h"

#define MIX_ANY 0xffffffffu

static unsigned long word_addr(unsigned page, unsigned cpu)
{
	return mix_addr(page) + cpu * sizeof(uint32_t);
}

static unsigned long random_nodes(struct mix *m)
{
	unsigned long all = (1ul << nr_pglists) - 1;

	return 1 + mix_below(m, (unsigned)all);
}

static bool gen_run(struct mix *m, struct mix_op *op, unsigned max)
{
	op->slot = mix_pick_slot(m);
	if (op->slot < 0)
		return false;
	mix_pick_run(m, max, &op->first, &op->n);
	return true;
}

/* ---- write, read, unshare: one call per page ------------------------------ */

static bool gen_write(struct mix *m, struct mix_op *op, unsigned cpu)
{
	op->seq = ++m->next_seq[cpu];
	return gen_run(m, op, 8);
}

static void run_write(struct mix_op *op, unsigned cpu)
{
	for (unsigned i = 0; i < op->n; i++) {
		uint32_t v = op->seq;

		op->status[i] =
			mm_access(op->mm, word_addr(op->first + i, cpu), &v, sizeof(v), true);
	}
}

/*
 * A page call's status: 0, or -EFAULT where the round may have unmapped
 * the page or taken the access away. The host's access retries a fault
 * once (arch/host/uaccess.c), so -EFAULT is allowed too where another CPU
 * may change the entry again before that retry: in a round that migrates
 * (a fault on a migration entry returns at once, mm/fault.c) or that
 * forks the mm (write-protecting it again).
 */
static int check_pages(struct mix *m, struct mix_op *op, bool write)
{
	int bad = 0;

	for (unsigned i = 0; i < op->n; i++) {
		unsigned p = op->first + i;
		bool certain = mix_certain(m, op->slot, p, write) && !m->migrating &&
			       !m->slot[op->slot].forking;

		if (op->status[i] && (certain || op->status[i] != -EFAULT))
			bad += mix_bad(m, op->kind->name, "mm %d page %#lx: %d (%s all round)",
				       op->slot, mix_addr(p), op->status[i],
				       certain ? "mapped with the access" : "maybe unmapped");
	}
	return bad;
}

static int check_write(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	return check_pages(m, op, true);
}

/* The writes that reached a page decide its word (a munmap or remap in
 * the round may have come after them: then zero). */
static void apply_write(struct mix *m, struct mix_op *op, unsigned cpu)
{
	struct mix_slot *s = &m->slot[op->slot];

	for (unsigned i = 0; i < op->n; i++) {
		unsigned p = op->first + i;

		if (op->status[i])
			continue;
		s->dirtied[p] = true;
		s->page[p].hi[cpu] = op->seq;
		s->page[p].lo[cpu] = s->zeroed[p] ? 0 : op->seq;
	}
}

static void run_read(struct mix_op *op, unsigned cpu)
{
	for (unsigned i = 0; i < op->n; i++) {
		op->seen[i] = 0;
		op->status[i] = mm_access(op->mm, word_addr(op->first + i, cpu), &op->seen[i],
					  sizeof(uint32_t), false);
	}
}

/* What CPU @cpu's own word of @page in @slot holds when @upto runs: its
 * last write to it earlier in the round, or the value at the start. */
static uint32_t own_word(struct mix *m, unsigned cpu, const struct mix_op *upto, int slot,
			 unsigned page)
{
	uint32_t v = m->slot[slot].page[page].lo[cpu];

	for (const struct mix_op *o = m->ops[cpu]; o < upto; o++)
		if (o->kind->run == run_write && o->slot == slot && page >= o->first &&
		    page < o->first + o->n && !o->status[page - o->first])
			v = o->seq;
	return v;
}

static int check_read(struct mix *m, struct mix_op *op, unsigned cpu)
{
	int bad = check_pages(m, op, false);

	for (unsigned i = 0; i < op->n; i++) {
		unsigned p = op->first + i;
		uint32_t want = own_word(m, cpu, op, op->slot, p);

		if (!op->status[i] && mix_certain(m, op->slot, p, false) && op->seen[i] != want &&
		    !(op->seen[i] == 0 && mix_may_read_zero(m, op->slot, p)))
			bad += mix_bad(m, "read",
				       "mm %d page %#lx word %u: %#x, wrote %#x: LOST WRITE",
				       op->slot, mix_addr(p), cpu, op->seen[i], want);
	}
	return bad;
}

static void run_unshare(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	for (unsigned i = 0; i < op->n; i++)
		op->status[i] = handle_mm_fault(op->mm, mix_addr(op->first + i), FAULT_UNSHARE);
}

static int check_read_pages(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	return check_pages(m, op, false);
}

static bool gen_pages(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	return gen_run(m, op, 8);
}

void mix_apply_nothing(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)m, (void)op, (void)cpu;
}

/* ---- pageout: MADV_PAGEOUT of a run (the contents stay what they were) ---- */

static void run_pageout(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->ret = mm_madvise(op->mm, mix_addr(op->first), op->n * PAGE_SIZE, MADV_PAGEOUT);
}

/* 0, or -ENOMEM when a VMA op of the round left a hole: the contents are
 * what the reads, writes and the end-of-round check look at. */
static int check_pageout(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	if (op->ret == 0 || op->ret == -ENOMEM)
		return 0;
	return mix_bad(m, "pageout", "mm %d [%#lx, +%u pages): %ld", op->slot, mix_addr(op->first),
		       op->n, op->ret);
}

const struct mix_kind mix_k_pageout = { "pageout",	  2, gen_pages, run_pageout, check_pageout,
					mix_apply_nothing };

const struct mix_kind mix_k_write = { "write", 2, gen_write, run_write, check_write, apply_write };
const struct mix_kind mix_k_read = {
	"read", 2, gen_pages, run_read, check_read, mix_apply_nothing
};
const struct mix_kind mix_k_unshare = { "unshare",	  2,
					gen_pages,	  run_unshare,
					check_read_pages, mix_apply_nothing };

/* ---- fork and exit ---------------------------------------------------------- */

static bool gen_fork(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->slot = mix_pick_slot(m);
	for (op->child = 0; op->child < MIX_SLOTS; op->child++)
		if (!m->slot[op->child].live && !m->slot[op->child].fresh)
			break;
	if (op->slot < 0 || op->child == MIX_SLOTS)
		return false;
	m->slot[op->child].fresh = true; /* reserved */
	m->slot[op->slot].forking = true;
	return true;
}

static void run_fork(struct mix_op *op, unsigned cpu)
{
	int err = 0;

	(void)cpu;
	op->child_mm = mm_fork(op->mm, &err);
	op->ret = op->child_mm ? 0 : err;
}

static int check_fork(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	if (op->ret == 0 || op->ret == -ENOMEM)
		return 0;
	return mix_bad(m, "fork", "mm %d: %ld", op->slot, op->ret);
}

/* The highest value CPU @cpu wrote this round to @page of @slot. */
static uint32_t round_high(struct mix *m, unsigned cpu, int slot, unsigned page)
{
	uint32_t v = m->slot[slot].page[page].hi[cpu];

	for (unsigned i = 0; i < m->nr_ops[cpu]; i++) {
		const struct mix_op *o = &m->ops[cpu][i];

		if (o->kind->run == run_write && o->slot == slot && page >= o->first &&
		    page < o->first + o->n && !o->status[page - o->first] && o->seq > v)
			v = o->seq;
	}
	return v;
}

/* The child's words lie between the parent's at the round's start (or
 * zero, after a munmap) and the parent's last write. Its VMAs are
 * learned at the quiescent point. */
static void apply_fork(struct mix *m, struct mix_op *op, unsigned cpu)
{
	struct mix_slot *c = &m->slot[op->child], *p = &m->slot[op->slot];

	(void)cpu;
	if (!op->child_mm) {
		c->fresh = false;
		return;
	}
	c->live = true;
	c->mm = op->child_mm;
	for (unsigned pg = 0; pg < MIX_PAGES; pg++) {
		c->page[pg].lazy = p->page[pg].lazy || p->freed[pg];
		for (unsigned w = 0; w < MIX_CPUS; w++) {
			c->page[pg].lo[w] = p->zeroed[pg] ? 0 : p->page[pg].lo[w];
			c->page[pg].hi[w] = round_high(m, w, op->slot, pg);
		}
	}
}

static bool gen_exit(struct mix *m, struct mix_op *op, unsigned cpu)
{
	unsigned staying = 0;

	(void)cpu;
	for (int s = 0; s < MIX_SLOTS; s++)
		staying += m->slot[s].live && !m->slot[s].fresh && !m->slot[s].exiting;
	op->slot = mix_pick_slot(m);
	if (op->slot < 0 || staying < 2 || m->slot[op->slot].exiting)
		return false;
	m->slot[op->slot].exiting = true;
	return true;
}

/* The slot's own reference: the round holds another until it ends. */
static void run_exit(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	mm_put(op->mm);
}

int mix_check_nothing(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)m, (void)op, (void)cpu;
	return 0;
}

static void apply_exit(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	mix_pins_forget(m, op->slot, 0, MIX_PAGES);
	m->slot[op->slot].live = false;
	m->slot[op->slot].mm = NULL;
}

const struct mix_kind mix_k_fork = { "fork", 0, gen_fork, run_fork, check_fork, apply_fork };
const struct mix_kind mix_k_exit = { "exit", 1, gen_exit, run_exit, mix_check_nothing, apply_exit };

/* ---- munmap, remap, mprotect: one VMA op per mm per round ------------------ */

static bool gen_vma_op(struct mix *m, struct mix_op *op, bool zero)
{
	if (!gen_run(m, op, MIX_MAX_RUN) || m->slot[op->slot].vma_op)
		return false;
	mix_mark_vma_op(m, op->slot, op->first, op->n, zero);
	return true;
}

static bool gen_zeroing(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	return gen_vma_op(m, op, true);
}

static void run_munmap(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->ret = mm_munmap(op->mm, mix_addr(op->first), op->n * PAGE_SIZE);
}

static void run_remap(struct mix_op *op, unsigned cpu)
{
	const struct mix_area *a = mix_area_of(op->first);
	unsigned long addr = mix_addr(op->first);
	long r = mm_mmap(op->mm, addr, op->n * PAGE_SIZE, a->vm_flags, MAP_FIXED_ADDR, a->orders);

	(void)cpu;
	op->ret = r == (long)addr ? 0 : r;
}

static int check_zero_ret(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	if (op->ret == 0)
		return 0;
	return mix_bad(m, op->kind->name, "mm %d [%#lx, +%u pages): %ld", op->slot,
		       mix_addr(op->first), op->n, op->ret);
}

static void apply_zeroing(struct mix *m, struct mix_op *op, bool mapped)
{
	struct mix_slot *s = &m->slot[op->slot];

	mix_pins_forget(m, op->slot, op->first, op->n);
	for (unsigned p = op->first; p < op->first + op->n; p++) {
		s->page[p] = (struct mix_page){ .mapped = mapped, .writable = mapped };
	}
}

static void apply_munmap(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	apply_zeroing(m, op, false);
}

static void apply_remap(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	apply_zeroing(m, op, true);
}

/* mprotect of a range with a hole fails (-ENOMEM) and changes nothing. */
static bool gen_mprotect(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->flags = mix_below(m, 2) ? VM_READ : RW;
	if (!gen_vma_op(m, op, false))
		return false;
	op->from = 0;
	for (unsigned p = op->first; p < op->first + op->n; p++)
		if (!m->slot[op->slot].page[p].mapped)
			op->from = (unsigned long)-ENOMEM;
	return true;
}

static void run_mprotect(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->ret = mm_mprotect(op->mm, mix_addr(op->first), op->n * PAGE_SIZE, op->flags);
}

static int check_mprotect(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	if (op->ret == (long)op->from)
		return 0;
	return mix_bad(m, "mprotect", "mm %d [%#lx, +%u pages): %ld, expected %ld", op->slot,
		       mix_addr(op->first), op->n, op->ret, (long)op->from);
}

static void apply_mprotect(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	for (unsigned p = op->first; op->ret == 0 && p < op->first + op->n; p++)
		m->slot[op->slot].page[p].writable = op->flags & VM_WRITE;
}

const struct mix_kind mix_k_munmap = { "munmap",       1,	    gen_zeroing, run_munmap,
				       check_zero_ret, apply_munmap };
const struct mix_kind mix_k_remap = { "remap",	      1,	  gen_zeroing, run_remap,
				      check_zero_ret, apply_remap };
const struct mix_kind mix_k_mprotect = { "mprotect",	 1,
					 gen_mprotect,	 run_mprotect,
					 check_mprotect, apply_mprotect };

/* ---- mbind, migrate_pages, move_pages -------------------------------------- */

static unsigned random_move(struct mix *m)
{
	return mix_below(m, 2) ? MPOL_MF_MOVE : MPOL_MF_MOVE_ALL;
}

static bool gen_mbind(struct mix *m, struct mix_op *op, unsigned cpu)
{
	static const unsigned modes[] = { MPOL_BIND, MPOL_PREFERRED, MPOL_INTERLEAVE };

	(void)cpu;
	m->migrating = true;
	op->mode = modes[mix_below(m, 3)];
	op->to = random_nodes(m);
	op->flags = random_move(m);
	return gen_run(m, op, MIX_MAX_RUN);
}

static void run_mbind(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->ret =
		mbind(op->mm, mix_addr(op->first), op->n * PAGE_SIZE, op->mode, op->to, op->flags);
}

/* 0, -ENOMEM (a split), or -EFAULT when a page may be unmapped. */
static int check_mbind(struct mix *m, struct mix_op *op, unsigned cpu)
{
	bool hole = mix_certain_run(m, op->slot, op->first, op->n, false) < op->n;

	(void)cpu;
	if (op->ret == 0 || op->ret == -ENOMEM || (hole && op->ret == -EFAULT))
		return 0;
	return mix_bad(m, "mbind", "mm %d [%#lx, +%u pages) mode %u nodes %#lx: %ld", op->slot,
		       mix_addr(op->first), op->n, op->mode, op->to, op->ret);
}

static bool gen_migrate(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	m->migrating = true;
	op->slot = mix_pick_slot(m);
	op->from = random_nodes(m);
	op->to = random_nodes(m);
	op->flags = random_move(m);
	return op->slot >= 0;
}

static void run_migrate(struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	op->ret = mm_migrate_pages(op->mm, op->from, op->to, op->flags);
}

/* Pages not moved: whole folios (mempolicy.h), so a folio the mm maps
 * only in part (after a munmap or remap of part of it, kept alive by a
 * pin or another mm) counts every page: at most the areas' pages plus
 * one PMD folio's and the mTHP area's beyond them. */
#define MIX_MIGRATE_MAX (MIX_PAGES + 512 + 32)

static int check_migrate(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	if (op->ret >= 0 && op->ret <= MIX_MIGRATE_MAX)
		return 0;
	return mix_bad(m, "migrate_pages", "mm %d %#lx -> %#lx: %ld not moved, at most %d",
		       op->slot, op->from, op->to, op->ret, MIX_MIGRATE_MAX);
}

static bool gen_move_pages(struct mix *m, struct mix_op *op, unsigned cpu)
{
	(void)cpu;
	m->migrating = true;
	op->flags = random_move(m);
	if (!gen_run(m, op, 16))
		return false;
	for (unsigned i = 0; i < op->n; i++)
		op->nodes[i] = (int)mix_below(m, (unsigned)nr_pglists);
	return true;
}

static void run_move_pages(struct mix_op *op, unsigned cpu)
{
	unsigned long addrs[MIX_MAX_RUN];

	(void)cpu;
	for (unsigned i = 0; i < op->n; i++)
		addrs[i] = mix_addr(op->first + i);
	op->ret = move_pages(op->mm, op->n, addrs, op->nodes, op->status, op->flags);
}

static bool status_allowed(struct mix *m, struct mix_op *op, unsigned i)
{
	int st = op->status[i];

	if (st >= 0)
		return st < nr_pglists;
	if (st == -EFAULT)
		return !mix_certain(m, op->slot, op->first + i, false);
	return st == -ENOENT || st == -EACCES || st == -EBUSY || st == -ENOMEM;
}

/* The return counts the -EBUSY and -ENOMEM statuses (not -EACCES: a
 * shared folio left in place is no failed migration, as in Linux). */
static int check_move_pages(struct mix *m, struct mix_op *op, unsigned cpu)
{
	long failed = 0;
	int bad = 0;

	(void)cpu;
	for (unsigned i = 0; i < op->n; i++) {
		int st = op->status[i];

		failed += st == -EBUSY || st == -ENOMEM;
		if (!status_allowed(m, op, i))
			bad += mix_bad(m, "move_pages", "mm %d page %#lx: status %d", op->slot,
				       mix_addr(op->first + i), st);
	}
	if (op->ret != failed)
		bad += mix_bad(m, "move_pages", "mm %d: returned %ld, %ld statuses failed",
			       op->slot, op->ret, failed);
	return bad;
}

const struct mix_kind mix_k_mbind = { "mbind",	 2,	      gen_mbind,
				      run_mbind, check_mbind, mix_apply_nothing };
const struct mix_kind mix_k_migrate = { "migrate_pages", 2,
					gen_migrate,	 run_migrate,
					check_migrate,	 mix_apply_nothing };
const struct mix_kind mix_k_move_pages = { "move_pages",     2,
					   gen_move_pages,   run_move_pages,
					   check_move_pages, mix_apply_nothing };
