/*
 * test_diff.c - differential test of batching: the same seeded sequence
 * of mmap/touch/write/mprotect/munmap run with every cap = 1 and with every
 * cap = max must end in the same observable state: VMAs, memory contents,
 * which pages are mapped, the folio layout behind them (up to which pfns
 * the allocator chose), refcounts and mapcounts.
 */
#include <stdlib.h>

#include "mm_cases.h"

#define DIFF_STEPS 60
#define DIFF_SLOTS 4
#define DIFF_PAGES 2048 /* pages per snapshot, at most */

struct page_state {
	unsigned long va;
	int folio_id; /* folios numbered in order of first appearance */
	unsigned index, order, by_pmd;
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
		for (unsigned long va = v->start; va < v->end && s->nr < DIFF_PAGES; va += PAGE_SIZE) {
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
			ps->refcount = folio_ref_count(f);
			ps->mapcount = p->mapcount;
			ps->hash = page_hash(mm, va);
		}
	}
}

/* One random step on one of DIFF_SLOTS regions. */
static void random_step(struct mm *mm, unsigned long *slot)
{
	static const unsigned long orders[] = { ORDERS(0), ORDERS(2), ORDERS(4) | ORDERS(2),
						ORDERS(PMD_ORDER) | ORDERS(4) };
	unsigned s = rnd(DIFF_SLOTS), op = rnd(5);
	unsigned long len = 4ul << 20, off = (unsigned long)rnd(1024) * PAGE_SIZE;
	unsigned long n = (unsigned long)(1 + rnd(64)) * PAGE_SIZE;
	unsigned char b = (unsigned char)rnd(256);

	if (!slot[s]) {
		long a = mm_mmap(mm, 0, len, RW | (rnd(2) ? VM_NOHUGEPMD : 0), 0, orders[rnd(4)]);
		slot[s] = a > 0 ? (unsigned long)a : 0;
		return;
	}
	if (off + n > len)
		n = len - off;
	switch (op) {
	case 0:
		mm_touch(mm, slot[s] + off, n, true);
		break;
	case 1:
		mm_access(mm, slot[s] + off, &b, 1, true);
		break;
	case 2:
		mm_mprotect(mm, slot[s] + off, n, rnd(2) ? VM_READ : RW);
		break;
	case 3:
		mm_munmap(mm, slot[s] + off, n);
		break;
	case 4:
		mm_touch(mm, slot[s] + off, n, false);
		break;
	}
}

static int steps_failed;

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
	mm_put(mm);
	caps_set_all(true);
}

/* Ten seeds; each compared page by page. */
TEST(batched_equals_unbatched)
{
	static struct snapshot a, b;
	uint64_t free0 = total_free_pages();

	steps_failed = 0;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		run_sequence(seed * 0x9e3779b97f4a7c15ull, false, &a);
		run_sequence(seed * 0x9e3779b97f4a7c15ull, true, &b);
		CHECK_EQ(a.nr, b.nr);
		CHECK_EQ(a.nr_vmas, b.nr_vmas);
		CHECK(memcmp(a.vmas, b.vmas, sizeof(a.vmas[0]) * (size_t)a.nr_vmas) == 0);
		for (int i = 0; i < a.nr && i < b.nr; i++)
			if (memcmp(&a.p[i], &b.p[i], sizeof(a.p[i]))) {
				CHECK_EQ(a.p[i].va, ~0ul); /* report the first difference */
				break;
			}
		CHECK(a.nr > 0);
	}
	CHECK_EQ(steps_failed, 0);
	CHECK_EQ(total_free_pages(), free0);
}

TEST_SUITE(mm_diff, batched_equals_unbatched)
