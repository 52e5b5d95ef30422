/*
 * test_mremap.c - mm_mremap(): Linux's errnos, shrink and grow in place,
 * moves of every folio size to aligned and misaligned destinations with
 * exact counters at cap 1 and max (arm64: blocks kept folded where the
 * destination is aligned), partial folios, after fork, with pins, and
 * MREMAP_DONTUNMAP. Every case checks the contents page by page and ends
 * with the invariant checker and a leak check.
 */
#include <stdlib.h>
#include <string.h>

#include "gup.h"
#include "mm_cases.h"

static uint64_t free_before;

static struct mm *begin(void)
{
	return mm_case_begin(&free_before);
}

static void end(struct mm *mm)
{
	mm_case_end(mm, free_before);
}

/* Write page i of [a, a + len) with the tag @seed + i (its first word). */
static void fill(struct mm *mm, unsigned long a, unsigned long len, uint64_t seed)
{
	for (unsigned long i = 0; i < len / PAGE_SIZE; i++) {
		uint64_t v = seed + i;

		CHECK_EQ(mm_access(mm, a + i * PAGE_SIZE, &v, sizeof(v), true), 0);
	}
}

/* Does every page of [a, a + len) hold fill()'s tag? Return: the pages
 * that do not (0: all do). */
static unsigned long bad_pages(struct mm *mm, unsigned long a, unsigned long len, uint64_t seed)
{
	unsigned long bad = 0;

	for (unsigned long i = 0; i < len / PAGE_SIZE; i++) {
		uint64_t v = ~0ull;

		if (mm_access(mm, a + i * PAGE_SIZE, &v, sizeof(v), false) || v != seed + i)
			bad++;
	}
	return bad;
}

/* A free address: 2 MiB aligned, plus @off, above anything mapped. */
static unsigned long free_dest(struct mm *mm, unsigned long off)
{
	long a = mm_mmap(mm, 0, 8 << 20, VM_READ, 0, ORDERS(PMD_ORDER));

	CHECK(a > 0);
	CHECK_EQ(mm_munmap(mm, (unsigned long)a, 8 << 20), 0);
	return (unsigned long)a + (2 << 20) + off;
}

/* Argument errors are Linux's and change nothing. */
TEST(mremap_errnos)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 1 << 20, RW, ORDERS(4)), d = free_dest(mm, 0);
	const unsigned long M = MREMAP_MAYMOVE, F = MREMAP_FIXED, D = MREMAP_DONTUNMAP;
	const struct {
		unsigned long old, old_len, new_len, flags, new_addr;
		long want;
	} cases[] = {
		{ a, 4096, 8192, 8, 0, -EINVAL },	     /* unknown flag */
		{ a + 1, 4096, 8192, M, 0, -EINVAL },	     /* old not page aligned */
		{ a, 4096, 4096, F, d, -EINVAL },	     /* FIXED without MAYMOVE */
		{ a, 4096, 4096, D, 0, -EINVAL },	     /* DONTUNMAP without MAYMOVE */
		{ a, 4096, 8192, M | D, 0, -EINVAL },	     /* DONTUNMAP resizing */
		{ a, 4096, 0, M, 0, -EINVAL },		     /* new_len 0 */
		{ a, 4096, 4096, M | F, d + 1, -EINVAL },    /* new_addr not aligned */
		{ a, 8192, 8192, M | F, a + 4096, -EINVAL }, /* overlapping */
		{ a, 4096, -4095ul, M, 0, -EINVAL },	     /* new_len wraps when rounded */
		{ d, 4096, 8192, M, 0, -EFAULT },	     /* nothing mapped at old */
		{ a, 2 << 20, 4 << 20, M, 0, -EFAULT },	     /* old range past its VMA */
		{ a, 0, 8192, M, 0, -EINVAL },		     /* old_len 0 (shared maps only) */
		{ a, 1 << 20, 2 << 20, 0, 0, 0 },	     /* grows in place: room after it */
	};

	CHECK_EQ(mm_mmap(mm, a + (3 << 20), PAGE_SIZE, VM_READ, MAP_FIXED_ADDR, 1),
		 (long)(a + (3 << 20)));
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long r = mm_mremap(mm, cases[i].old, cases[i].old_len, cases[i].new_len,
				   (unsigned)cases[i].flags, cases[i].new_addr);

		if (r != (cases[i].want ? cases[i].want : (long)cases[i].old))
			printf("case %u: got %ld\n", i, r);
		CHECK_EQ(r, cases[i].want ? cases[i].want : (long)cases[i].old);
	}
	/* grown to 2 MiB; the VMA at +3 MiB blocks growing to 4 MiB in place */
	CHECK_EQ(find_vma(mm, a)->end, a + (2 << 20));
	CHECK_EQ(mm_mremap(mm, a, 2 << 20, 4 << 20, 0, 0), -ENOMEM);
	CHECK_MM_OK();
	end(mm);
}

/* Shrink unmaps the tail; grow in place keeps the pages where they are;
 * grow with MREMAP_MAYMOVE where there is no room moves them. */
TEST(mremap_shrink_grow_move)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 256 << 10, RW, ORDERS(4)), b;
	struct folio *f;
	long r;

	fill(mm, a, 256 << 10, 100);
	f = folio_at(mm, a);
	CHECK_EQ(mm_mremap(mm, a, 256 << 10, 128 << 10, 0, 0), (long)a);
	CHECK_EQ(find_vma(mm, a)->end, a + (128 << 10));
	CHECK(folio_at(mm, a + (128 << 10)) == NULL);
	CHECK_EQ(mm_mremap(mm, a, 128 << 10, 512 << 10, 0, 0), (long)a);
	CHECK(folio_at(mm, a) == f);
	CHECK_EQ(bad_pages(mm, a, 128 << 10, 100), 0);
	b = a + (512 << 10);
	CHECK_EQ(mm_mmap(mm, b, PAGE_SIZE, VM_READ, MAP_FIXED_ADDR, 1), (long)b);
	r = mm_mremap(mm, a, 512 << 10, 1 << 20, MREMAP_MAYMOVE, 0);
	CHECK(r > 0 && (unsigned long)r != a);
	CHECK(find_vma(mm, a) == NULL);
	CHECK_EQ(find_vma(mm, (unsigned long)r)->end, (unsigned long)r + (1 << 20));
	CHECK(folio_at(mm, (unsigned long)r) == f);
	CHECK_EQ(bad_pages(mm, (unsigned long)r, 128 << 10, 100), 0);
	CHECK_EQ(mm_touch(mm, (unsigned long)r + (900 << 10), PAGE_SIZE, true), 0);
	CHECK_MM_OK();
	end(mm);
}

/* The folio sizes of the bench: order, PMD-mapped. */
static const struct {
	const char *label;
	unsigned order;
	bool pmd;
} sizes[] = { { "4K", 0, false },
	      { "16K", 2, false },
	      { "64K", 4, false },
	      { "2M-pte", PMD_ORDER, false },
	      { "2M-pmd", PMD_ORDER, true } };

/* What one 4 MiB move did. */
struct moved {
	struct mm_counters d;
	unsigned long bad;
};

/* Map 4 MiB of @order, fill it, move it to a free 2 MiB boundary + @off
 * under @cap; check the contents and that the new range maps the same
 * folios (and the old range nothing). */
static struct moved move_4m(unsigned order, bool pmd, unsigned long off, unsigned cap)
{
	struct mm *mm = begin();
	unsigned long len = 4 << 20;
	unsigned long a = test_mmap(mm, len, RW | (pmd ? 0 : VM_NOHUGEPMD), ORDERS(order));
	unsigned long d = free_dest(mm, off);
	struct folio *f0, *f1;
	struct mm_counters c0;
	struct moved m;

	fill(mm, a, len, 7);
	f0 = folio_at(mm, a);
	f1 = folio_at(mm, a + len - PAGE_SIZE);
	mm_caps.mremap = cap;
	c0 = mm_counters_read();
	CHECK_EQ(mm_mremap(mm, a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, d), (long)d);
	m.d = counters_since(&c0);
	CHECK_MM_OK();
	CHECK(folio_at(mm, d) == f0 && folio_at(mm, d + len - PAGE_SIZE) == f1);
	CHECK(folio_at(mm, a) == NULL && find_vma(mm, a) == NULL);
	m.bad = bad_pages(mm, d, len, 7);
	end(mm);
	return m;
}

/*
 * Every folio size, to an aligned destination and to one 64 KiB past a
 * 2 MiB boundary, at cap 1 and max: the contents arrive; the counters
 * are exact. Aligned: a PMD leaf moves by its entry, a PTE table whole.
 * At +64K: runs are batched where the arch has blocks (arm64, folios of
 * 64 KiB and up), a folio's run cut at the destination's table ends (a
 * 2 MiB folio's run in two); elsewhere every entry is its own run at any
 * cap. One flush, except on arm64 at cap 1, where the per-PTE path
 * unfolds and refolds every block (two flushes each) while the batched
 * one keeps them folded.
 */
TEST(mremap_every_size_counters)
{
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t blocks = arch_has_pte_blocks() && sizes[s].order >= 4 ? 1024 / 16 : 0;
		uint64_t split = sizes[s].pmd ? 2 : 0;

		for (unsigned cap1 = 0; cap1 < 2; cap1++) {
			struct moved al =
				move_4m(sizes[s].order, sizes[s].pmd, 0, cap1 ? 1 : CAP_MAX);
			struct moved mis =
				move_4m(sizes[s].order, sizes[s].pmd, 64 << 10, cap1 ? 1 : CAP_MAX);
			uint64_t runs = cap1 || !blocks ? 1024 : sizes[s].order == 4 ? 64 : 4;

			printf("  %s cap %s: aligned pmd %llu tables %llu; +64K runs %llu ptes "
			       "%llu flushes %llu folds %llu unfolds %llu\n",
			       sizes[s].label, cap1 ? "1" : "max",
			       (unsigned long long)al.d.mremap_pmd_moves,
			       (unsigned long long)al.d.mremap_table_moves,
			       (unsigned long long)mis.d.mremap_runs,
			       (unsigned long long)mis.d.mremap_ptes_moved,
			       (unsigned long long)mis.d.tlb_flushes,
			       (unsigned long long)mis.d.cont_folds,
			       (unsigned long long)mis.d.cont_unfolds);
			CHECK_EQ(al.bad, 0);
			CHECK_EQ(mis.bad, 0);
			CHECK_EQ(al.d.mremap_pmd_moves, sizes[s].pmd ? 2 : 0);
			CHECK_EQ(al.d.mremap_table_moves, sizes[s].pmd ? 0 : 2);
			CHECK_EQ(al.d.mremap_ptes_moved, 0);
			CHECK_EQ(al.d.tlb_flushes, 1);
			CHECK_EQ(al.d.tlb_pages, 1024);
			CHECK_EQ(mis.d.mremap_ptes_moved, 1024);
			/* 2M at +64K: each folio's run is cut where the destination's
			 * table ends, once (2 folios, 2 runs each: 4). */
			CHECK_EQ(mis.d.mremap_runs, runs);
			/* a PMD leaf at +64K is split first: one flush, a mapcount
			 * update for its PTEs and one for the PMD, and on arm64
			 * its 32 blocks folded */
			CHECK_EQ(mis.d.tlb_flushes, 1 + split + (cap1 ? 2 * blocks : 0));
			CHECK_EQ(mis.d.cont_folds, blocks + (split ? blocks : 0));
			CHECK_EQ(mis.d.cont_unfolds, cap1 ? blocks : 0);
			CHECK_EQ(mis.d.mapcount_updates, 2 * split);
		}
	}
}

/* A move to a destination 4 KiB off its folios' alignment: no block can
 * fold there, and the source blocks go unfolded (arm64); contents and
 * folios arrive all the same, at cap 1 and max alike. */
TEST(mremap_misaligned_4k)
{
	for (unsigned cap1 = 0; cap1 < 2; cap1++) {
		struct moved m = move_4m(4, false, PAGE_SIZE, cap1 ? 1 : CAP_MAX);

		CHECK_EQ(m.bad, 0);
		CHECK_EQ(m.d.mremap_ptes_moved, 1024);
		CHECK_EQ(m.d.cont_folds, 0);
		CHECK_EQ(m.d.mremap_runs, cap1 || !arch_has_pte_blocks() ? 1024 : 64 + 2);
	}
}

/* Part of a 64K folio (pages 3..12) moves; the rest stays; the folio
 * is mapped in two places by one mm, and both parts read right. */
TEST(mremap_partial_folio)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 64 << 10, RW, ORDERS(4)), d = free_dest(mm, 0);
	struct folio *f;

	fill(mm, a, 64 << 10, 300);
	f = folio_at(mm, a);
	CHECK_EQ(mm_mremap(mm, a + 3 * PAGE_SIZE, 10 * PAGE_SIZE, 10 * PAGE_SIZE,
			   MREMAP_MAYMOVE | MREMAP_FIXED, d + 3 * PAGE_SIZE),
		 (long)(d + 3 * PAGE_SIZE));
	CHECK_MM_OK();
	CHECK(folio_at(mm, d + 3 * PAGE_SIZE) == f && folio_at(mm, a) == f);
	CHECK(folio_at(mm, a + 3 * PAGE_SIZE) == NULL);
	CHECK_EQ(folio_mapcount(f), 16);
	CHECK_EQ(bad_pages(mm, a, 3 * PAGE_SIZE, 300), 0);
	CHECK_EQ(bad_pages(mm, d + 3 * PAGE_SIZE, 10 * PAGE_SIZE, 303), 0);
	CHECK_EQ(bad_pages(mm, a + 13 * PAGE_SIZE, 3 * PAGE_SIZE, 313), 0);
	/* and a partial PMD leaf: the middle 1 MiB of a 2 MiB THP */
	CHECK_EQ(mm_munmap(mm, a, 64 << 10), 0);
	CHECK_EQ(mm_munmap(mm, d + 3 * PAGE_SIZE, 10 * PAGE_SIZE), 0);
	a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER));
	fill(mm, a, 2 << 20, 500);
	CHECK_EQ(mm_mremap(mm, a + (512 << 10), 1 << 20, 1 << 20, MREMAP_MAYMOVE | MREMAP_FIXED, d),
		 (long)d);
	CHECK_MM_OK();
	CHECK_EQ(bad_pages(mm, d, 1 << 20, 500 + 128), 0);
	CHECK_EQ(bad_pages(mm, a, 512 << 10, 500), 0);
	CHECK_EQ(bad_pages(mm, a + (1536 << 10), 512 << 10, 500 + 384), 0);
	end(mm);
}

/* After fork the folios are shared read-only: the parent moves its
 * range; the child keeps its own view; a write on either side after the
 * move copies, and neither sees the other's write. */
TEST(mremap_after_fork)
{
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct mm *mm = begin(), *child;
		unsigned long len = 4 << 20;
		unsigned long a = test_mmap(mm, len, RW | (sizes[s].pmd ? 0 : VM_NOHUGEPMD),
					    ORDERS(sizes[s].order));
		unsigned long d = free_dest(mm, 64 << 10);
		uint64_t v = 999;
		int err;

		fill(mm, a, len, 11);
		child = mm_fork(mm, &err);
		CHECK(child != NULL);
		CHECK_EQ(mm_mremap(mm, a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, d), (long)d);
		CHECK_MM_OK();
		CHECK_EQ(bad_pages(mm, d, len, 11), 0);
		CHECK_EQ(bad_pages(child, a, len, 11), 0);
		CHECK_EQ(mm_access(mm, d + 5 * PAGE_SIZE, &v, sizeof(v), true), 0);
		CHECK_EQ(bad_pages(child, a, len, 11), 0);
		CHECK_EQ(mm_access(child, a + 6 * PAGE_SIZE, &v, sizeof(v), true), 0);
		CHECK_EQ(bad_pages(mm, d + 6 * PAGE_SIZE, PAGE_SIZE, 17), 0);
		CHECK_MM_OK();
		mm_put(child);
		end(mm);
	}
}

/*
 * A folio a fork shares, moved by mremap in the parent: the parent maps
 * it at another address than the child. A MOVE_ALL migration from
 * either side (the rmap walks each member at the migrating mm's address)
 * moves it or leaves it busy, never a mapping behind: the explorer's
 * mremap mix, seed 10, found the panic ("still mapped after the unmap").
 */
TEST(mremap_then_migrate_from_either_member)
{
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct mm *mm = begin(), *child;
		unsigned long len = 4 << 20;
		unsigned long a = test_mmap(mm, len, RW | (sizes[s].pmd ? 0 : VM_NOHUGEPMD),
					    ORDERS(sizes[s].order));
		unsigned long d = free_dest(mm, 0), ca = a + 8 * PAGE_SIZE, pa = d + 40 * PAGE_SIZE;
		int node = 1, status = 0, err;

		fill(mm, a, len, 11);
		child = mm_fork(mm, &err);
		CHECK(child != NULL);
		CHECK_EQ(mm_mremap(mm, a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, d), (long)d);
		move_pages(child, 1, &ca, &node, &status, MPOL_MF_MOVE_ALL);
		CHECK(status == 1 || status == -EBUSY);
		move_pages(mm, 1, &pa, &node, &status, MPOL_MF_MOVE_ALL);
		CHECK(status == 1 || status == -EBUSY);
		CHECK_MM_OK();
		CHECK_EQ(bad_pages(mm, d, len, 11), 0);
		CHECK_EQ(bad_pages(child, a, len, 11), 0);
		mm_put(child);
		end(mm);
	}
}

/* Pinned pages move with their entries: after the move the new range
 * maps exactly the pinned pages (a pin is on a page the mm maps), still
 * AnonExclusive, and the checker's pin rules hold; then unpin. */
TEST(mremap_with_pins)
{
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct mm *mm = begin();
		unsigned long len = 4 << 20, n = 64;
		unsigned long a = test_mmap(mm, len, RW | (sizes[s].pmd ? 0 : VM_NOHUGEPMD),
					    ORDERS(sizes[s].order));
		unsigned long d = free_dest(mm, 64 << 10);
		struct page *pages[64];

		fill(mm, a, len, 21);
		CHECK_EQ(pin_user_pages(mm, a + (1 << 20), n, FOLL_WRITE | FOLL_LONGTERM, pages),
			 (long)n);
		CHECK_EQ(mm_mremap(mm, a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, d), (long)d);
		CHECK_MM_OK();
		for (unsigned long i = 0; i < n; i++) {
			bool by_pmd;
			pte_t pte;

			CHECK(page_at(mm, d + (1 << 20) + i * PAGE_SIZE, &by_pmd, &pte) ==
			      pages[i]);
			CHECK(PageAnonExclusive(pages[i]));
		}
		CHECK_EQ(bad_pages(mm, d, len, 21), 0);
		unpin_user_pages(pages, n);
		CHECK_MM_OK();
		end(mm);
	}
}

/* MREMAP_DONTUNMAP: the pages move, the old range stays a VMA with
 * nothing mapped (it reads zero: a fresh fault), and the new range holds
 * the contents. */
TEST(mremap_dontunmap)
{
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct mm *mm = begin();
		unsigned long len = 4 << 20;
		unsigned long a = test_mmap(mm, len, RW | (sizes[s].pmd ? 0 : VM_NOHUGEPMD),
					    ORDERS(sizes[s].order));
		struct folio *f;
		uint64_t v = 1;
		long r;

		fill(mm, a, len, 31);
		f = folio_at(mm, a);
		r = mm_mremap(mm, a, len, len, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 0);
		CHECK(r > 0);
		CHECK_MM_OK();
		CHECK(find_vma(mm, a) != NULL && find_vma(mm, a)->end == a + len);
		CHECK(folio_at(mm, a) == NULL && folio_at(mm, (unsigned long)r) == f);
		CHECK_EQ(bad_pages(mm, (unsigned long)r, len, 31), 0);
		CHECK_EQ(mm_access(mm, a + PAGE_SIZE, &v, sizeof(v), false), 0);
		CHECK_EQ(v, 0);
		CHECK_MM_OK();
		end(mm);
	}
}

/* A folio whose entries differ in the write bit (after fork and the
 * child's exit, a write reuses its one page in place): the batched move
 * cuts its runs there, and every entry arrives with its own write bit. */
TEST(mremap_keeps_write_bits)
{
	struct mm *mm = begin(), *child;
	unsigned long a = test_mmap(mm, 64 << 10, RW, ORDERS(4)), d = free_dest(mm, 0);
	bool w[16];
	uint64_t v = 5;
	int err;

	fill(mm, a, 64 << 10, 40);
	child = mm_fork(mm, &err);
	CHECK(child != NULL);
	mm_put(child);
	CHECK_EQ(mm_access(mm, a + 6 * PAGE_SIZE, &v, sizeof(v), true), 0);
	for (int i = 0; i < 16; i++)
		w[i] = pte_write(pte_at(mm, a + i * PAGE_SIZE));
	CHECK(folio_at(mm, a) == folio_at(mm, a + 6 * PAGE_SIZE)); /* reused, not copied */
	CHECK(w[6] && !w[5] && !w[7]);
	CHECK_EQ(mm_mremap(mm, a, 64 << 10, 64 << 10, MREMAP_MAYMOVE | MREMAP_FIXED, d), (long)d);
	CHECK_MM_OK();
	for (int i = 0; i < 16; i++)
		CHECK_EQ(pte_write(pte_at(mm, d + i * PAGE_SIZE)), w[i]);
	end(mm);
}

/* ---- differential: cap 1 against max ------------------------------------ */

#define DIFF_SEEDS 8
#define DIFF_STEPS 60
#define DIFF_BASE 0x300000000ul
#define DIFF_SLOT (4ul << 20) /* four 2 MiB areas, 2 MiB apart */
#define DIFF_SNAP 8192	      /* page records per run, at most */

/* What a run leaves behind, page by page, and what its calls returned. */
struct diff_state {
	int nr;
	uint64_t results; /* every call's return value, hashed */
	struct {
		unsigned long va;
		int mm, folio; /* folio: order of first appearance, -1 if none */
		unsigned index, order, pmd, write, excl;
		int ref, map, pins;
		uint64_t word; /* the page's first word */
	} p[DIFF_SNAP];
};

static uint64_t drng;

static unsigned drnd(unsigned n)
{
	drng ^= drng << 13, drng ^= drng >> 7, drng ^= drng << 17;
	return (unsigned)(drng % n);
}

/* An address in the areas: 2 MiB, 64 KiB or 4 KiB granular. */
static unsigned long diff_addr(void)
{
	unsigned long base = DIFF_BASE + drnd(4) * DIFF_SLOT;

	switch (drnd(3)) {
	case 0:
		return base;
	case 1:
		return base + drnd(32) * (64ul << 10);
	default:
		return base + drnd(512) * PAGE_SIZE;
	}
}

static unsigned long diff_len(void)
{
	switch (drnd(3)) {
	case 0:
		return 2ul << 20;
	case 1:
		return (1 + drnd(32)) * (64ul << 10);
	default:
		return (1 + drnd(128)) * PAGE_SIZE;
	}
}

static void diff_result(struct diff_state *st, long r)
{
	st->results = (st->results ^ (uint64_t)r) * 0x100000001b3ull;
}

/* Move *@a into a random VMA of @mm (its start, or 64 KiB or 4 KiB in)
 * and cut *@n to its end, so that most mremaps find one VMA. */
static void diff_pick_vma(struct mm *mm, unsigned long *a, unsigned long *n)
{
	struct vma *v = mm->vmas;
	unsigned long off;

	for (unsigned k = drnd(8); v && k; k--)
		v = v->next ? v->next : mm->vmas;
	if (!v)
		return;
	off = *a & ((2ul << 20) - 1);
	*a = v->start + (off < v->end - v->start ? off : 0);
	if (*n > v->end - *a)
		*n = v->end - *a;
}

/* One random step on @mms[k] (the others share its folios after a fork). */
static void diff_step(struct diff_state *st, struct mm **mms, struct page **pins, long *npins)
{
	static const unsigned long orders[] = { ORDERS(0), ORDERS(2), ORDERS(4),
						ORDERS(PMD_ORDER) | ORDERS(4) };
	struct mm *mm = mms[mms[1] && drnd(2)];
	unsigned long a = diff_addr(), n = diff_len(), d = diff_addr();
	unsigned op = drnd(14), flags = MREMAP_MAYMOVE;
	uint64_t v = drng;

	if (op < 2) {
		diff_result(st, mm_mmap(mm, a, n, RW | (drnd(2) ? VM_NOHUGEPMD : 0), MAP_FIXED_ADDR,
					orders[drnd(4)]));
	} else if (op < 4) {
		diff_pick_vma(mm, &a, &n);
		diff_result(st, mm_touch(mm, a, n, true));
	} else if (op < 7) {
		diff_pick_vma(mm, &a, &n);
		a += (n / PAGE_SIZE > 1 ? drnd((unsigned)(n / PAGE_SIZE)) : 0) * PAGE_SIZE;
		diff_result(st, mm_access(mm, a, &v, sizeof(v), true));
	} else if (op < 11) {
		diff_pick_vma(mm, &a, &n);
		flags |= drnd(3) ? MREMAP_FIXED : 0;
		flags |= drnd(4) ? 0 : MREMAP_DONTUNMAP;
		diff_result(st, mm_mremap(mm, a, n, flags & MREMAP_DONTUNMAP ? n : diff_len(),
					  flags, d));
	} else if (op < 12) {
		if (!mms[1])
			mms[1] = mm_fork(mms[0], NULL);
		else if (drnd(2))
			mm_put(mms[1]), mms[1] = NULL;
	} else if (op < 13) {
		if (*npins > 0)
			unpin_user_pages(pins, (unsigned long)*npins);
		*npins = pin_user_pages(mm, a, 1 + drnd(16), FOLL_LONGTERM | FOLL_WRITE, pins);
		diff_result(st, *npins);
		if (*npins < 0)
			*npins = 0;
	} else {
		diff_result(st, mm_munmap(mm, a, n));
	}
}

/* Record every page of every VMA of @mms into @st. */
static void diff_snapshot(struct diff_state *st, struct mm **mms)
{
	struct folio *seen[256];
	int nseen = 0;

	st->nr = 0;
	for (int k = 0; k < 2 && mms[k]; k++)
		for (struct vma *v = mms[k]->vmas; v; v = v->next)
			for (unsigned long va = v->start; va < v->end && st->nr < DIFF_SNAP;
			     va += PAGE_SIZE) {
				bool by_pmd;
				pte_t pte;
				struct page *p = page_at(mms[k], va, &by_pmd, &pte);
				struct folio *f = p ? page_folio(p) : NULL;
				int i = st->nr++, id = -1;

				memset(&st->p[i], 0, sizeof(st->p[i]));
				st->p[i].va = va ^ (unsigned long)v->flags << 48;
				st->p[i].mm = k;
				for (int j = 0; f && j < nseen && id < 0; j++)
					id = seen[j] == f ? j : -1;
				if (f && id < 0 && nseen < 256)
					seen[id = nseen++] = f;
				st->p[i].folio = id;
				if (!p)
					continue;
				st->p[i].index = (unsigned)(p - &f->page);
				st->p[i].order = folio_order(f);
				st->p[i].pmd = by_pmd;
				st->p[i].write = pte_write(pte);
				st->p[i].excl = PageAnonExclusive(p);
				st->p[i].ref = folio_ref_count(f);
				st->p[i].map = page_mapcount(p);
				st->p[i].pins = folio_pincount(f);
				st->p[i].word = *(uint64_t *)page_address(p);
			}
}

static int diff_failed;

static void diff_run(uint64_t seed, unsigned cap, struct diff_state *st)
{
	struct mm *mms[2] = { mm_create(), NULL };
	struct page *pins[16];
	long npins = 0;

	mm_caps.mremap = cap;
	drng = seed;
	st->results = 0;
	for (int i = 0; i < DIFF_STEPS; i++) {
		diff_step(st, mms, pins, &npins);
		diff_failed += diff_check_due(i, DIFF_STEPS) && mm_check(NULL) != 0;
	}
	diff_snapshot(st, mms);
	if (npins > 0)
		unpin_user_pages(pins, (unsigned long)npins);
	for (int k = 0; k < 2; k++)
		if (mms[k])
			mm_put(mms[k]);
	mm_caps.mremap = CAP_MAX;
}

/* The same seeded steps (mmap, touch, write, mremap of every kind at
 * 2 MiB, 64 KiB and 4 KiB offsets, fork, exit, pin, munmap) at cap 1 and
 * at max: same return values, same VMAs, pages, folios, permissions,
 * AnonExclusive, counts and contents. */
TEST(mremap_cap1_equals_max)
{
	struct diff_state *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	uint64_t free0 = total_free_pages(), moved0 = mm_counters_read().mremap_ptes_moved;
	int differ = 0, pages = 0;
	struct mm_counters c0, dmax = { 0 }, d;

	CHECK(a && b);
	diff_failed = 0;
	for (uint64_t seed = 1; a && b && seed <= DIFF_SEEDS; seed++) {
		diff_run(seed * 0x9e3779b97f4a7c15ull, 1, a);
		c0 = mm_counters_read();
		diff_run(seed * 0x9e3779b97f4a7c15ull, CAP_MAX, b);
		d = counters_since(&c0);
		dmax.mremap_ptes_moved += d.mremap_ptes_moved, dmax.mremap_runs += d.mremap_runs;
		dmax.mremap_pmd_moves += d.mremap_pmd_moves;
		dmax.mremap_table_moves += d.mremap_table_moves;
		if (a->results != b->results || a->nr != b->nr ||
		    memcmp(a->p, b->p, sizeof(a->p[0]) * (size_t)a->nr)) {
			printf("    seed %llu: cap 1 and max differ (%d and %d pages)\n",
			       (unsigned long long)seed, a->nr, b->nr);
			differ++;
		}
		pages += a->nr;
	}
	printf("  at max: %llu PTEs moved in %llu runs, %llu PMD leaves, %llu tables\n",
	       (unsigned long long)dmax.mremap_ptes_moved, (unsigned long long)dmax.mremap_runs,
	       (unsigned long long)dmax.mremap_pmd_moves,
	       (unsigned long long)dmax.mremap_table_moves);
	CHECK_EQ(differ, 0);
	CHECK(pages > 0);
	CHECK(mm_counters_read().mremap_ptes_moved > moved0);
	/* some runs were batched where batching is done (blocks) */
	CHECK(!arch_has_pte_blocks() || dmax.mremap_runs < dmax.mremap_ptes_moved);
	CHECK_EQ(diff_failed, 0);
	CHECK_EQ(total_free_pages(), free0);
	free(a);
	free(b);
}

TEST_SUITE(mremap, mremap_errnos, mremap_shrink_grow_move, mremap_every_size_counters,
	   mremap_misaligned_4k, mremap_partial_folio, mremap_after_fork, mremap_with_pins,
	   mremap_dontunmap, mremap_keeps_write_bits, mremap_cap1_equals_max,
	   mremap_then_migrate_from_either_member)
