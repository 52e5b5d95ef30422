/*
 * explore_run.c - one schedule of a mix (explore_mix.h): set up the
 * family's first mm, then rounds of generated ops run by smp_run() under
 * the explorer, each followed by the checks, then the teardown and the
 * check that every page is free again.
 */
#include "explore_mix.h"
#include "swap.h"

static struct mix mix_now; /* one schedule at a time; big for a stack */

/* ---- setup and teardown ---------------------------------------------------- */

static unsigned random_cap(struct mix *m)
{
	static const unsigned caps_choice[] = { 1, 2, 4, 16, 64, CAP_MAX };

	return caps_choice[mix_below(m, 6)];
}

static void pick_caps(struct mix *m)
{
	unsigned kind = mix_below(m, 3);

	caps_set_all(kind == 1);
	snprintf(m->caps_name, sizeof(m->caps_name), "%s",
		 kind == 2 ? "random"
		 : kind	   ? "max"
			   : "1");
	if (kind != 2)
		return;
	/* One draw a knob, in this order, so that a seed replays the caps it
	 * found; the knobs of mremap, madvise, NUMA hinting and pageout are
	 * drawn last and only by the mixes that use them (vm_caps), so the
	 * other mixes' seeds (the found list) keep their draws. */
	mm_caps.zap = random_cap(m);
	mm_caps.mprotect = random_cap(m);
	mm_caps.fork = random_cap(m);
	mm_caps.gup_grab = random_cap(m);
	mm_caps.migrate = random_cap(m);
	mm_caps.migrate_unmap = random_cap(m);
	mm_caps.migrate_flush = random_cap(m);
	mm_caps.gup_walk = mix_below(m, 2);
	mm_caps.contpte = mix_below(m, 2);
	mm_caps.mremap = 1;
	mm_caps.madvise = CAP_MAX;
	mm_caps.numa_hint = CAP_MAX;
	mm_caps.mremap = mm_caps.zap;
	if (!m->prof->vm_caps)
		return;
	mm_caps.mremap = random_cap(m);
	mm_caps.madvise = random_cap(m);
	mm_caps.numa_hint = random_cap(m);
	mm_caps.pageout = random_cap(m);
}

/* cpu_nodes mixes: CPU c on node c % nodes for the schedule, so that a
 * hinting fault moves the folio to the faulting CPU's node; what was
 * there comes back at the end. */
static int saved_nid[MIX_CPUS];

static void set_cpu_nodes(const struct mix_profile *prof, bool on)
{
	for (unsigned c = 0; prof->cpu_nodes && c < MIX_CPUS; c++) {
		if (on)
			saved_nid[c] = cpu_nid[c];
		cpu_nid[c] = on ? (int)(c % (unsigned)nr_pglists) : saved_nid[c];
	}
}

/* The areas in the family's first mm; most of them written by CPU 0. */
static int setup_root(struct mix *m)
{
	struct mix_slot *s = &m->slot[0];
	uint32_t seq = ++m->next_seq[0];

	s->mm = mm_create();
	s->live = s->mm != NULL;
	if (!s->mm)
		return mix_bad(m, "setup", "mm_create failed");
	for (int i = 0; i < MIX_AREAS; i++) {
		const struct mix_area *a = &mix_areas[i];
		bool fill = mix_below(m, 4) != 0;

		if (mm_mmap(s->mm, a->start, a->npages * PAGE_SIZE, a->vm_flags, MAP_FIXED_ADDR,
			    a->orders) != (long)a->start)
			return mix_bad(m, "setup", "mmap of the %s area failed", a->name);
		for (unsigned p = a->first; p < a->first + a->npages; p++) {
			s->page[p] = (struct mix_page){ .mapped = true, .writable = true };
			if (fill && mm_access(s->mm, mix_addr(p), &seq, sizeof(seq), true))
				return mix_bad(m, "setup", "write of page %#lx failed",
					       mix_addr(p));
			s->page[p].lo[0] = s->page[p].hi[0] = fill ? seq : 0;
		}
	}
	switch_mm(NULL);
	return 0;
}

/* Drop every record left and every mm: all memory must come back. */
static int teardown(struct mix *m, uint64_t free0)
{
	int bad = 0;

	for (unsigned c = 0; c < MIX_CPUS; c++)
		for (unsigned k = 0; k < MIX_HELD; k++) {
			struct mix_held *h = &m->held[c][k];

			if (h->n > 0 && (h->flags & FOLL_PIN))
				unpin_user_pages(h->pages, (unsigned long)h->n);
			else if (h->n > 0)
				put_user_pages(h->pages, (unsigned long)h->n);
		}
	for (int s = 0; s < MIX_SLOTS; s++)
		if (m->slot[s].live)
			mm_put(m->slot[s].mm);
	if (mm_check(NULL))
		bad += mix_bad(m, "mm_check", "after the teardown");
	if (total_free_pages() != free0)
		bad += mix_bad(m, "free pages", "%llu free after exit and unpin, %llu at the start",
			       (unsigned long long)total_free_pages(), (unsigned long long)free0);
	caps_set_all(true);
	return bad;
}

/* ---- a round ------------------------------------------------------------------ */

static const struct mix_kind *pick_kind(struct mix *m)
{
	const struct mix_profile *pr = m->prof;
	unsigned total = 0, r;

	for (unsigned i = 0; i < pr->nr_rows; i++)
		total += pr->rows[i].weight;
	r = mix_below(m, total);
	for (unsigned i = 0; i < pr->nr_rows; i++) {
		if (r < pr->rows[i].weight)
			return pr->rows[i].kind;
		r -= pr->rows[i].weight;
	}
	return pr->rows[0].kind;
}

/* Each CPU's ops; a kind that cannot run now (no free slot, no record)
 * gives its place to another draw. */
static void gen_round(struct mix *m)
{
	for (int s = 0; s < MIX_SLOTS; s++) {
		struct mix_slot *sl = &m->slot[s];

		memset(sl->vma_busy, 0, sizeof(sl->vma_busy));
		memset(sl->zeroed, 0, sizeof(sl->zeroed));
		memset(sl->dirtied, 0, sizeof(sl->dirtied));
		memset(sl->freed, 0, sizeof(sl->freed));
		sl->vma_op = sl->exiting = sl->forking = false;
	}
	m->migrating = false;
	for (unsigned cpu = 0; cpu < m->ncpus; cpu++) {
		unsigned want = 1 + mix_below(m, MIX_OPS);

		m->nr_ops[cpu] = 0;
		for (unsigned i = 0, tries = 0; i < want && tries < 4 * MIX_OPS; tries++) {
			struct mix_op *op = &m->ops[cpu][i];

			memset(op, 0, sizeof(*op));
			op->kind = pick_kind(m);
			if (op->kind->gen(m, op, cpu))
				m->nr_ops[cpu] = ++i;
		}
	}
}

static void run_ops(unsigned cpu, void *arg)
{
	struct mix *m = arg;

	__atomic_fetch_add(&m->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&m->arrived, __ATOMIC_ACQUIRE) < m->ncpus)
		arch_cpu_relax();
	for (unsigned i = 0; i < m->nr_ops[cpu]; i++)
		m->ops[cpu][i].kind->run(&m->ops[cpu][i], cpu);
	switch_mm(NULL);
}

void (*mix_schedule_hook)(uint64_t seed, int mode);

/* The round holds a reference on every live mm, so an exit's mm_put
 * while other CPUs use the mm frees nothing until the round is over. */
static void run_round(struct mix *m, int mode)
{
	struct mm *ref[MIX_SLOTS];

	for (int s = 0; s < MIX_SLOTS; s++) {
		ref[s] = m->slot[s].live ? m->slot[s].mm : NULL;
		if (ref[s])
			mm_get(ref[s]);
	}
	for (unsigned cpu = 0; cpu < m->ncpus; cpu++)
		for (unsigned i = 0; i < m->nr_ops[cpu]; i++)
			m->ops[cpu][i].mm = ref[m->ops[cpu][i].slot];
	m->arrived = 0;
	if (mix_schedule_hook)
		mix_schedule_hook(m->seed * 1000003u + m->round, mode);
	smp_run(m->ncpus, run_ops, m);
	for (int s = 0; s < MIX_SLOTS; s++)
		if (ref[s])
			mm_put(ref[s]);
}

/* A failed round's ops, per CPU in program order: what to read beside
 * the replay command. */
static void print_round(const struct mix *m)
{
	printf("    round %u ops (caps: %s):\n", m->round, m->caps_name);
	for (unsigned cpu = 0; cpu < m->ncpus; cpu++)
		for (unsigned i = 0; i < m->nr_ops[cpu]; i++) {
			const struct mix_op *op = &m->ops[cpu][i];

			printf("      cpu%u %-10s mm %d pages %u+%u flags %#x child %d ret %ld\n",
			       cpu, op->kind->name, op->slot, op->first, op->n, op->flags,
			       op->child, op->ret);
		}
}

/* Every result, then the model moves on: forks, VMA ops and exits,
 * then the rest (explore_mix.h, struct mix_kind's pass). */
static int finish_round(struct mix *m)
{
	int bad = 0;

	for (unsigned cpu = 0; cpu < m->ncpus; cpu++)
		for (unsigned i = 0; i < m->nr_ops[cpu]; i++)
			bad += m->ops[cpu][i].kind->check(m, &m->ops[cpu][i], cpu);
	for (unsigned pass = 0; pass < 3; pass++)
		for (unsigned cpu = 0; cpu < m->ncpus; cpu++)
			for (unsigned i = 0; i < m->nr_ops[cpu]; i++)
				if (m->ops[cpu][i].kind->pass == pass)
					m->ops[cpu][i].kind->apply(m, &m->ops[cpu][i], cpu);
	if (mm_check(NULL))
		bad += mix_bad(m, "mm_check", "the invariant checker failed (above)");
	bad += mix_check_contents(m);
	bad += mix_check_pins(m);
	if (bad)
		print_round(m);
	return bad;
}

/* lru mixes: a swap pool for every page of the mix, which keeps folios on
 * the LRU (lru_kept) and gives reclaim slots without taking free pages. */
static void set_lru(const struct mix_profile *prof, bool on)
{
	if (!prof->lru)
		return;
	if (on)
		swap_reserve(MIX_SLOTS * MIX_PAGES);
	else
		swap_unreserve();
}

int mix_run_schedule(const struct mix_profile *prof, uint64_t seed, unsigned max_cpus, int mode)
{
	struct mix *m = &mix_now;
	uint64_t free0;
	int bad;

	set_lru(prof, true);
	free0 = total_free_pages();

	memset(m, 0, sizeof(*m));
	m->prof = prof;
	m->seed = m->rng = seed;
	m->ncpus = 2 + mix_below(m, max_cpus - 1);
	pick_caps(m);
	set_cpu_nodes(prof, true);
	bad = setup_root(m);
	for (m->round = 1; !bad && m->round <= prof->rounds; m->round++) {
		gen_round(m);
		run_round(m, mode);
		bad += finish_round(m);
	}
	set_cpu_nodes(prof, false);
	bad += teardown(m, free0);
	set_lru(prof, false);
	return bad;
}
