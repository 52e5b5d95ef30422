/*
 * test_diff.c - differential test of batching: the same seeded sequence
 * of mmap/touch/write/mprotect (PROT_NONE too)/munmap/madvise/fork/exit/
 * pin/unpin/mbind/migrate_pages/move_pages/NUMA hinting scans/MADV_FREE/
 * MADV_DONTNEED/lazyfree discard run
 * with every cap = 1 and with every cap = max must end in the same
 * observable state: for every mm of the family (the first mm, the
 * children it forked, theirs), the VMAs, memory contents, which pages are
 * mapped, the folio layout behind them (up to which pfns the allocator
 * chose), the node of each page, write permission, AnonExclusive, refcounts, mapcounts and pins;
 * and what the pinned pages hold. (Young and dirty are not compared: a
 * batch ORs them over its run, as Linux does.) The checker runs after
 * every step of both runs.
 *
 * Each step picks a live mm of the family and works on one of its slots,
 * fixed 2 MiB ranges at the same address in every mm, so a child inherits
 * its parent's slots and both go on changing them. Forks, exits and pins
 * are frequent so that pages lose and regain AnonExclusive one by one and
 * pinned folios meet fork, which is where a batch has to be cut.
 */
#include <stdlib.h>

#include "gup.h"
#include "madvise.h"
#include "mempolicy.h"
#include "mm_cases.h"

#define DIFF_STEPS 150
#define DIFF_SLOTS 4
#define DIFF_MMS 3  /* mms alive at once, at most */
#define DIFF_PINS 4 /* pinned ranges held at once, at most */
#define DIFF_PIN_PAGES 16
#define DIFF_SLOT_PAGES 512 /* 2 MiB per slot */
#define DIFF_SLOT_BASE 0x200000000ul
#define DIFF_SLOT_STRIDE (4ul << 20)			     /* a 2 MiB slot every 4 MiB */
#define DIFF_PAGES (DIFF_MMS * DIFF_SLOTS * DIFF_SLOT_PAGES) /* per snapshot, at most */
#define DIFF_VMAS (DIFF_MMS * 32)

/* The host runner runs many seeds; the guest, where every step's checker
 * call walks all of RAM's memmap under QEMU TCG, a few. */
#ifdef HOST_PTE_FORMAT
#define DIFF_SEEDS 16
#else
#define DIFF_SEEDS 4
#endif

struct page_state {
	unsigned long va;
	int mm_index;
	int folio_id; /* folios numbered in order of first appearance */
	unsigned index, order, by_pmd, writable, user, excl, node;
	int refcount, mapcount, pincount;
	uint32_t hash;
};

struct snapshot {
	int nr, nr_vmas;
	struct page_state p[DIFF_PAGES];
	unsigned long vmas[DIFF_VMAS][4]; /* mm index, start, end, flags */
	uint32_t pin_hash[DIFF_PINS];
};

/* The family and its pins during one run. */
struct family {
	struct mm *mm[DIFF_MMS];
	struct page *pin[DIFF_PINS][DIFF_PIN_PAGES];
	long nr_pinned[DIFF_PINS];
};

static uint64_t rng;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static uint32_t hash_bytes(const unsigned char *b, unsigned long n, uint32_t h)
{
	for (unsigned long i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static uint32_t page_hash(struct mm *mm, unsigned long va)
{
	static unsigned char buf[4096];

	if (mm_access(mm, va, buf, sizeof(buf), false))
		return 0;
	return hash_bytes(buf, sizeof(buf), 2166136261u);
}

/* Folio numbering: a folio's id is the order of its first appearance. */
#define SEEN_SIZE 16384 /* a power of two above DIFF_PAGES */
struct seen {
	struct folio *f[SEEN_SIZE];
	int id[SEEN_SIZE];
	int nr;
};

static int folio_id(struct seen *t, struct folio *f)
{
	unsigned h = (unsigned)((uintptr_t)f / sizeof(struct page) * 2654435761u);

	for (h &= SEEN_SIZE - 1; t->f[h] && t->f[h] != f; h = (h + 1) & (SEEN_SIZE - 1))
		;
	if (!t->f[h]) {
		t->f[h] = f;
		t->id[h] = t->nr++;
	}
	return t->id[h];
}

/* Record the page at @va of @mm (index @k) in the next slot of @s. */
static void record_page(struct snapshot *s, struct mm *mm, int k, unsigned long va,
			struct seen *seen)
{
	bool by_pmd;
	pte_t pte;
	struct page *p = page_at(mm, va, &by_pmd, &pte);
	struct page_state *ps = &s->p[s->nr++];
	struct folio *f;

	memset(ps, 0, sizeof(*ps));
	ps->va = va;
	ps->mm_index = k;
	ps->folio_id = -1;
	if (!p)
		return;
	f = page_folio(p);
	ps->folio_id = folio_id(seen, f);
	ps->index = (unsigned)(p - &f->page);
	ps->order = folio_order(f);
	ps->node = f->page.node;
	ps->by_pmd = by_pmd;
	ps->writable = pte_write(pte);
	ps->user = pte_user(pte); /* PROT_NONE and NUMA hinting entries are not */
	ps->excl = PageAnonExclusive(p);
	ps->refcount = folio_ref_count(f);
	ps->mapcount = p->mapcount;
	ps->pincount = folio_pincount(f);
	ps->hash = page_hash(mm, va);
}

static void take_snapshot(struct family *fam, struct snapshot *s)
{
	static struct seen seen;

	memset(&seen, 0, sizeof(seen));
	memset(s->vmas, 0, sizeof(s->vmas));
	s->nr = s->nr_vmas = 0;
	for (int k = 0; k < DIFF_MMS; k++) {
		if (!fam->mm[k])
			continue;
		for (struct vma *v = fam->mm[k]->vmas; v; v = v->next) {
			if (s->nr_vmas < DIFF_VMAS) {
				unsigned long *e = s->vmas[s->nr_vmas++];

				e[0] = (unsigned long)k, e[1] = v->start, e[2] = v->end;
				e[3] = v->flags;
			}
			for (unsigned long va = v->start; va < v->end && s->nr < DIFF_PAGES;
			     va += PAGE_SIZE)
				record_page(s, fam->mm[k], k, va, &seen);
		}
	}
	for (int i = 0; i < DIFF_PINS; i++) {
		s->pin_hash[i] = (uint32_t)fam->nr_pinned[i];
		for (long j = 0; j < fam->nr_pinned[i]; j++)
			s->pin_hash[i] =
				hash_bytes(page_address(fam->pin[i][j]), PAGE_SIZE, s->pin_hash[i]);
	}
}

static unsigned long slot_addr(unsigned s)
{
	return DIFF_SLOT_BASE + s * DIFF_SLOT_STRIDE;
}

/* A new mapping at @addr with random flags and folio orders (@len = 0:
 * the whole slot), replacing what is there. */
static void map_step(struct mm *mm, unsigned long addr, unsigned long len)
{
	static const unsigned long orders[] = { ORDERS(0), ORDERS(2), ORDERS(4) | ORDERS(2),
						ORDERS(PMD_ORDER) | ORDERS(4) };
	unsigned flags = RW | (rnd(2) ? VM_NOHUGEPMD : 0);

	mm_mmap(mm, addr, len ? len : DIFF_SLOT_PAGES * PAGE_SIZE, flags, MAP_FIXED_ADDR,
		orders[rnd(4)]);
}

static int live_mms(struct family *fam)
{
	int n = 0;

	for (int k = 0; k < DIFF_MMS; k++)
		n += fam->mm[k] != NULL;
	return n;
}

/* Fork @k into a free place of the family (or fork and exit at once). */
static void fork_step(struct family *fam, int k)
{
	for (int j = 0; j < DIFF_MMS; j++)
		if (!fam->mm[j]) {
			fam->mm[j] = mm_fork(fam->mm[k], NULL);
			return;
		}
	mm_put(mm_fork(fam->mm[k], NULL));
}

/* The last mm of the family never exits. */
static void exit_step(struct family *fam, int k)
{
	if (live_mms(fam) > 1) {
		mm_put(fam->mm[k]);
		fam->mm[k] = NULL;
	}
}

static void unpin_set(struct family *fam, int i)
{
	if (fam->nr_pinned[i] > 0)
		unpin_user_pages(fam->pin[i], (unsigned long)fam->nr_pinned[i]);
	fam->nr_pinned[i] = 0;
}

/* Pin up to DIFF_PIN_PAGES pages from @addr (R/W or R/O) into a free pin
 * set, or release a random set when none is free. */
static void pin_step(struct family *fam, struct mm *mm, unsigned long addr)
{
	unsigned flags = FOLL_LONGTERM | (rnd(2) ? FOLL_WRITE : 0);
	unsigned long n = 1 + rnd(DIFF_PIN_PAGES);

	for (int i = 0; i < DIFF_PINS; i++)
		if (!fam->nr_pinned[i]) {
			fam->nr_pinned[i] = pin_user_pages(mm, addr, n, flags, fam->pin[i]);
			if (fam->nr_pinned[i] < 0)
				fam->nr_pinned[i] = 0;
			return;
		}
	unpin_set(fam, (int)rnd(DIFF_PINS));
}

/* mbind with a random policy and MOVE or MOVE_ALL, migrate_pages
 * between the two nodes, or move_pages of a few pages to random nodes. */
static void numa_step(struct mm *mm, unsigned long a, unsigned long n)
{
	static const unsigned modes[] = { MPOL_DEFAULT, MPOL_BIND, MPOL_PREFERRED,
					  MPOL_INTERLEAVE };
	unsigned mode = modes[rnd(4)], flags = rnd(2) ? MPOL_MF_MOVE : MPOL_MF_MOVE_ALL;
	unsigned long nodes = mode == MPOL_DEFAULT ? 0 : mode == MPOL_INTERLEAVE ? 3 : 1ul + rnd(2);
	unsigned long addrs[8];
	int to[8], status[8];

	if (nr_pglists < 2)
		return;
	switch (rnd(4)) {
	case 0:
		mbind(mm, a, n, mode, nodes, flags);
		break;
	case 3:
		change_prot_numa(mm, a, a + n, (int)rnd(2));
		break;
	case 1:
		mm_migrate_pages(mm, 1ul << rnd(2), 1ul << rnd(2), flags);
		break;
	default:
		for (int i = 0; i < 8; i++) {
			addrs[i] = a + (unsigned long)rnd(32) * PAGE_SIZE;
			to[i] = (int)rnd(2);
		}
		move_pages(mm, 8, addrs, to, status, flags);
	}
}

/* MADV_FREE, MADV_DONTNEED, the lazyfree discard, or MADV_FREE of the
 * whole slot and the discard at once (other steps write, fork and pin
 * often enough that few folios would stay clean and exclusive). */
static void madvise_step(struct mm *mm, unsigned long a, unsigned long n)
{
	switch (rnd(4)) {
	case 0:
		mm_madvise(mm, a, n, MADV_FREE);
		break;
	case 1:
		mm_madvise(mm, a, n, MADV_DONTNEED);
		break;
	case 2:
		mm_reclaim_lazyfree(mm);
		break;
	default:
		mm_madvise(mm, a & ~(DIFF_SLOT_PAGES * PAGE_SIZE - 1), DIFF_SLOT_PAGES * PAGE_SIZE,
			   MADV_FREE);
		mm_reclaim_lazyfree(mm);
	}
}

/* One random step on one slot of one live mm of the family. */
static void random_step(struct family *fam)
{
	int k = (int)rnd(DIFF_MMS);
	unsigned s = rnd(DIFF_SLOTS), op = rnd(24);
	unsigned long off = (unsigned long)rnd(DIFF_SLOT_PAGES) * PAGE_SIZE;
	unsigned long n = (unsigned long)(1 + rnd(128)) * PAGE_SIZE, a = slot_addr(s) + off;
	unsigned char b = (unsigned char)rnd(256);
	unsigned set = rnd(2) ? VM_DONTCOPY : 0, clear = set ? 0 : VM_DONTCOPY;
	struct vma *v;
	struct mm *mm;

	while (!fam->mm[k])
		k = (k + 1) % DIFF_MMS;
	mm = fam->mm[k];
	v = find_vma_from(mm, slot_addr(s));
	if (!v || v->start >= slot_addr(s) + DIFF_SLOT_PAGES * PAGE_SIZE) {
		map_step(mm, slot_addr(s), 0);
		return;
	}
	if (off + n > DIFF_SLOT_PAGES * PAGE_SIZE)
		n = DIFF_SLOT_PAGES * PAGE_SIZE - off;
	if (op < 2)
		mm_touch(mm, a, n, true);
	else if (op < 6)
		mm_access(mm, a, &b, 1, true);
	else if (op < 7)
		mm_mprotect(mm, a, n, rnd(2) ? VM_READ : 0); /* PROT_NONE too */
	else if (op < 9)
		mm_mprotect(mm, a, n, RW);
	else if (op < 10)
		mm_munmap(mm, a, n / 4);
	else if (op < 11)
		mm_touch(mm, a, n, false);
	else if (op < 13)
		fork_step(fam, k);
	else if (op < 14)
		exit_step(fam, k);
	else if (op < 16)
		pin_step(fam, mm, a);
	else if (op < 17)
		unpin_set(fam, (int)rnd(DIFF_PINS));
	else if (op < 18)
		mm_madvise_flags(mm, a, n, set, clear);
	else if (op < 19)
		mm_put(mm_fork(mm, NULL));
	else if (op < 20)
		map_step(mm, a, n);
	else if (op < 22)
		madvise_step(mm, a, n);
	else
		numa_step(mm, a, n);
}

static int steps_failed;

static void print_state(const char *run, const struct page_state *p)
{
	printf("    %s: mm %d va %#lx folio %d page %u order %u node %u pmd %u w %u user %u "
	       "excl %u ref %d map %d pins %d hash %#x\n",
	       run, p->mm_index, p->va, p->folio_id, p->index, p->order, p->node, p->by_pmd,
	       p->writable, p->user, p->excl, p->refcount, p->mapcount, p->pincount,
	       (unsigned)p->hash);
}

static void run_sequence(uint64_t seed, bool batched, struct snapshot *out)
{
	struct family fam = { .mm = { mm_create() } };

	caps_set_all(batched);
	rng = seed;
	for (int i = 0; i < DIFF_STEPS; i++) {
		random_step(&fam);
		if (diff_check_due(i, DIFF_STEPS) && mm_check(NULL))
			steps_failed++;
	}
	take_snapshot(&fam, out);
	for (int i = 0; i < DIFF_PINS; i++)
		unpin_set(&fam, i);
	for (int k = 0; k < DIFF_MMS; k++)
		if (fam.mm[k])
			mm_put(fam.mm[k]);
	caps_set_all(true);
}

/* The first difference between @a and @b, printed; 0 if none. */
static int compare(const struct snapshot *a, const struct snapshot *b)
{
	if (a->nr != b->nr || a->nr_vmas != b->nr_vmas ||
	    memcmp(a->vmas, b->vmas, sizeof(a->vmas)) != 0) {
		printf("    VMAs differ: %d pages in %d VMAs unbatched, %d in %d batched\n", a->nr,
		       a->nr_vmas, b->nr, b->nr_vmas);
		return 1;
	}
	for (int i = 0; i < a->nr; i++)
		if (memcmp(&a->p[i], &b->p[i], sizeof(a->p[i]))) {
			print_state("unbatched", &a->p[i]);
			print_state("batched", &b->p[i]);
			return 1;
		}
	return memcmp(a->pin_hash, b->pin_hash, sizeof(a->pin_hash)) != 0;
}

/* DIFF_SEEDS seeds; each compared page by page. */
TEST(batched_equals_unbatched)
{
	struct snapshot *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	uint64_t free0 = total_free_pages(), moved0 = mm_counters_read().pgmigrate_success;
	uint64_t freed0 = mm_counters_read().madv_free_runs;
	uint64_t discarded0 = mm_counters_read().lazyfree_discarded;
	uint64_t hinted0 = mm_counters_read().numa_pte_updates;
	int differ = 0, pages = 0;

	CHECK(a && b);
	steps_failed = 0;
	for (uint64_t seed = 1; a && b && seed <= DIFF_SEEDS; seed++) {
		run_sequence(seed * 0x9e3779b97f4a7c15ull, false, a);
		run_sequence(seed * 0x9e3779b97f4a7c15ull, true, b);
		if (compare(a, b)) {
			printf("    seed %llu: the states differ\n", (unsigned long long)seed);
			differ++;
		}
		pages += a->nr;
	}
	CHECK_EQ(differ, 0);
	CHECK(pages > 0);
	CHECK_EQ(steps_failed, 0);
	CHECK(nr_pglists < 2 ||
	      mm_counters_read().pgmigrate_success > moved0);	   /* the NUMA steps ran */
	CHECK(mm_counters_read().madv_free_runs > freed0);	   /* MADV_FREE cleared runs */
	CHECK(mm_counters_read().lazyfree_discarded > discarded0); /* and some were discarded */
	CHECK(nr_pglists < 2 || mm_counters_read().numa_pte_updates > hinted0); /* scans marked */
	CHECK_EQ(total_free_pages(), free0);
	free(a);
	free(b);
}

TEST_SUITE(mm_diff, batched_equals_unbatched)
