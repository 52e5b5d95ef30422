/*
 * test_diff.c - differential test of batching: the same seeded sequence
 * of mmap/touch/write/mprotect/munmap/fork run with every cap = 1 and with
 * every cap = max must end in the same observable state: VMAs, memory
 * contents, which pages are mapped, the folio layout behind them (up to
 * which pfns the allocator chose), write permission, AnonExclusive,
 * refcounts and mapcounts. (Young and dirty are not compared: a batch
 * ORs them over its run, as Linux does.) The checker runs after every
 * step of both runs.
 */
#include <stdlib.h>

#include "mm_cases.h"

#define DIFF_STEPS 150
#define DIFF_SLOTS 4
#define DIFF_SEEDS 16
#define DIFF_SLOT_PAGES 512			  /* 2 MiB per slot */
#define DIFF_PAGES (DIFF_SLOTS * DIFF_SLOT_PAGES) /* pages per snapshot, at most */

struct page_state {
	unsigned long va;
	int folio_id; /* folios numbered in order of first appearance */
	unsigned index, order, by_pmd, writable, excl;
	int refcount, mapcount;
	uint32_t hash;
};

struct snapshot {
	int nr;
	struct page_state p[DIFF_PAGES];
	unsigned long vmas[32][3];
	int nr_vmas;
};

static uint64_t rng;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static uint32_t page_hash(struct mm *mm, unsigned long va)
{
	static unsigned char buf[4096];
	uint32_t h = 2166136261u;

	if (mm_access(mm, va, buf, sizeof(buf), false))
		return 0;
	for (int i = 0; i < 4096; i++)
		h = (h ^ buf[i]) * 16777619u;
	return h;
}

static int folio_id(struct folio **seen, int *nr, struct folio *f)
{
	for (int i = 0; i < *nr; i++)
		if (seen[i] == f)
			return i;
	seen[*nr] = f;
	return (*nr)++;
}

static void take_snapshot(struct mm *mm, struct snapshot *s)
{
	static struct folio *seen[DIFF_PAGES];
	int nseen = 0;

	s->nr = 0;
	s->nr_vmas = 0;
	for (struct vma *v = mm->vmas; v; v = v->next) {
		if (s->nr_vmas < 32) {
			s->vmas[s->nr_vmas][0] = v->start;
			s->vmas[s->nr_vmas][1] = v->end;
			s->vmas[s->nr_vmas++][2] = v->flags;
		}
		for (unsigned long va = v->start; va < v->end && s->nr < DIFF_PAGES;
		     va += PAGE_SIZE) {
			bool by_pmd;
			pte_t pte;
			struct page *p = page_at(mm, va, &by_pmd, &pte);
			struct page_state *ps = &s->p[s->nr++];
			struct folio *f;

			memset(ps, 0, sizeof(*ps));
			ps->va = va;
			ps->folio_id = -1;
			if (!p)
				continue;
			f = page_folio(p);
			ps->folio_id = folio_id(seen, &nseen, f);
			ps->index = (unsigned)(p - &f->page);
			ps->order = folio_order(f);
			ps->by_pmd = by_pmd;
			ps->writable = pte_write(pte);
			ps->excl = PageAnonExclusive(p);
			ps->refcount = folio_ref_count(f);
			ps->mapcount = p->mapcount;
			ps->hash = page_hash(mm, va);
		}
	}
}

static struct mm *child; /* a fork child that lives for a few steps */

/* Fork a child, or have the child write a byte and exit. */
static void fork_step(struct mm *mm, unsigned long addr)
{
	unsigned char b = 0xc5;

	if (!child) {
		child = mm_fork(mm, NULL);
		return;
	}
	mm_access(child, addr, &b, 1, true);
	mm_put(child);
	child = NULL;
}

/* A new mapping of the slot with random flags and folio orders; @addr
 * and @len replace part of an existing one (MAP_FIXED) when @len != 0. */
static unsigned long map_step(struct mm *mm, unsigned long addr, unsigned long len)
{
	static const unsigned long orders[] = { ORDERS(0), ORDERS(2), ORDERS(4) | ORDERS(2),
						ORDERS(PMD_ORDER) | ORDERS(4) };
	unsigned flags = RW | (rnd(2) ? VM_NOHUGEPMD : 0);
	long a = mm_mmap(mm, addr, len ? len : DIFF_SLOT_PAGES * PAGE_SIZE, flags,
			 len ? MAP_FIXED_ADDR : 0, orders[rnd(4)]);

	return a > 0 ? (unsigned long)a : 0;
}

/* One random step on one of DIFF_SLOTS regions. Forks are frequent so
 * that pages lose and regain AnonExclusive one by one, which is where a
 * batch has to be cut. */
static void random_step(struct mm *mm, unsigned long *slot)
{
	unsigned s = rnd(DIFF_SLOTS), op = rnd(16);
	unsigned long len = DIFF_SLOT_PAGES * PAGE_SIZE;
	unsigned long off = (unsigned long)rnd(DIFF_SLOT_PAGES) * PAGE_SIZE;
	unsigned long n = (unsigned long)(1 + rnd(128)) * PAGE_SIZE;
	unsigned char b = (unsigned char)rnd(256);

	if (!slot[s]) {
		slot[s] = map_step(mm, 0, 0);
		return;
	}
	if (off + n > len)
		n = len - off;
	if (op < 2)
		mm_touch(mm, slot[s] + off, n, true);
	else if (op < 6)
		mm_access(mm, slot[s] + off, &b, 1, true);
	else if (op < 7)
		mm_mprotect(mm, slot[s] + off, n, VM_READ);
	else if (op < 10)
		mm_mprotect(mm, slot[s] + off, n, RW);
	else if (op < 11)
		mm_munmap(mm, slot[s] + off, n / 4);
	else if (op < 12)
		mm_touch(mm, slot[s] + off, n, false);
	else if (op < 13)
		fork_step(mm, slot[s] + off);
	else if (op < 15)
		mm_put(mm_fork(mm, NULL));
	else
		map_step(mm, slot[s] + off, n);
}

static int steps_failed;

static void print_state(const char *run, const struct page_state *p)
{
	printf("    %s: va %#lx folio %d page %u order %u pmd %u w %u excl %u ref %d map %d "
	       "hash %#x\n",
	       run, p->va, p->folio_id, p->index, p->order, p->by_pmd, p->writable, p->excl,
	       p->refcount, p->mapcount, (unsigned)p->hash);
}

static void run_sequence(uint64_t seed, bool batched, struct snapshot *out)
{
	struct mm *mm = mm_create();
	unsigned long slot[DIFF_SLOTS] = { 0 };

	caps_set_all(batched);
	rng = seed;
	for (int i = 0; i < DIFF_STEPS; i++) {
		random_step(mm, slot);
		if (mm_check(NULL))
			steps_failed++;
	}
	take_snapshot(mm, out);
	if (child)
		mm_put(child);
	child = NULL;
	mm_put(mm);
	caps_set_all(true);
}

/* DIFF_SEEDS seeds; each compared page by page. */
TEST(batched_equals_unbatched)
{
	static struct snapshot a, b;
	uint64_t free0 = total_free_pages();

	steps_failed = 0;
	for (uint64_t seed = 1; seed <= DIFF_SEEDS; seed++) {
		run_sequence(seed * 0x9e3779b97f4a7c15ull, false, &a);
		run_sequence(seed * 0x9e3779b97f4a7c15ull, true, &b);
		CHECK_EQ(a.nr, b.nr);
		CHECK_EQ(a.nr_vmas, b.nr_vmas);
		CHECK(memcmp(a.vmas, b.vmas, sizeof(a.vmas[0]) * (size_t)a.nr_vmas) == 0);
		for (int i = 0; i < a.nr && i < b.nr; i++)
			if (memcmp(&a.p[i], &b.p[i], sizeof(a.p[i]))) {
				print_state("unbatched", &a.p[i]);
				print_state("batched", &b.p[i]);
				CHECK(!"the states differ"); /* the first difference only */
				break;
			}
		CHECK(a.nr > 0);
	}
	CHECK_EQ(steps_failed, 0);
	CHECK_EQ(total_free_pages(), free0);
}

TEST_SUITE(mm_diff, batched_equals_unbatched)
