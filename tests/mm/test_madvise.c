/*
 * test_madvise.c - mm_madvise(): the errnos of Linux's madvise(2), the
 * VMA-flag advice, MADV_DONTNEED through the zap path, MADV_FREE per run
 * of one folio for every folio size (its counters with cap 1 and max,
 * partial ranges, after fork, a write that keeps the data, a clean folio
 * that mm_reclaim_lazyfree() discards and that then reads zero, a pinned
 * one it keeps, the flush that a missing one the strict TLB model
 * reports, arm64 blocks cleared whole), MADV_POPULATE_READ/WRITE, and a
 * cap 1 against max differential. Every case ends with the invariant
 * checker and a leak check.
 */
#include "gup.h"
#include "madvise.h"
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

/* The sizes of the benches: order, and whether a PMD maps it. */
static const struct {
	const char *label;
	unsigned order;
	bool pmd;
} sizes[] = { { "4K", 0, false },
	      { "16K", 2, false },
	      { "64K", 4, false },
	      { "2M-pte", PMD_ORDER, false },
	      { "2M-pmd", PMD_ORDER, true } };
#define NR_SIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

#define LEN (4ul << 20)

/* The byte fill() writes at the start of page @addr: never 0, so a
 * discarded page (which reads 0) cannot pass for a kept one. */
static unsigned char pattern(unsigned long addr)
{
	return (unsigned char)((addr >> PAGE_SHIFT) % 255 + 1);
}

static void fill(struct mm *mm, unsigned long a, unsigned long len)
{
	for (unsigned long p = a; p < a + len; p += PAGE_SIZE) {
		unsigned char b = pattern(p);

		CHECK_EQ(mm_access(mm, p, &b, 1, true), 0);
	}
}

/* @len of folios of size @i, every page written by fill(). */
static unsigned long map_len(struct mm *mm, int i, unsigned long len)
{
	unsigned long a =
		test_mmap(mm, len, RW | (sizes[i].pmd ? 0 : VM_NOHUGEPMD), ORDERS(sizes[i].order));

	fill(mm, a, len);
	return a;
}

static unsigned long map_size(struct mm *mm, int i)
{
	return map_len(mm, i, LEN);
}

/* The first byte of page @addr (0 if it cannot be read). */
static unsigned char byte_at(struct mm *mm, unsigned long addr)
{
	unsigned char b = 0;

	CHECK_EQ(mm_access(mm, addr, &b, 1, false), 0);
	return b;
}

/* How many pages of [a, a + len) still hold fill()'s byte; the others
 * must read zero. */
static unsigned long pages_kept(struct mm *mm, unsigned long a, unsigned long len)
{
	unsigned long kept = 0;

	for (unsigned long p = a; p < a + len; p += PAGE_SIZE) {
		unsigned char b = byte_at(mm, p);

		if (b == pattern(p))
			kept++;
		else
			CHECK_EQ(b, 0);
	}
	return kept;
}

static bool lazyfree_at(struct mm *mm, unsigned long addr)
{
	struct folio *f = folio_at(mm, addr);

	return f && (page_flags(&f->page) & PG_lazyfree);
}

/* Advice numbers, alignment, holes and permissions give Linux's errnos;
 * the mapped parts of a range with a hole are still advised. */
TEST(madvise_errnos)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 64 << 10, RW, ORDERS(0));

	fill(mm, a, 64 << 10);
	CHECK_EQ(mm_madvise(mm, a, PAGE_SIZE, 99), -EINVAL);
	CHECK_EQ(mm_madvise(mm, a, PAGE_SIZE, 19), -EINVAL); /* MADV_WIPEONFORK: not here */
	CHECK_EQ(mm_madvise(mm, a + 1, PAGE_SIZE, MADV_DONTNEED), -EINVAL);
	CHECK_EQ(mm_madvise(mm, a, ~0ul - PAGE_SIZE, MADV_DONTNEED), -EINVAL);
	CHECK_EQ(mm_madvise(mm, a, 0, MADV_DONTNEED), 0);
	CHECK_EQ(mm_madvise(mm, a, 1, MADV_COLD), 0);
	CHECK_EQ(byte_at(mm, a), pattern(a));
	/* one page into the hole after the VMA: -ENOMEM, the last page zapped */
	CHECK_EQ(mm_madvise(mm, a + (60 << 10), 8 << 10, MADV_DONTNEED), -ENOMEM);
	CHECK(folio_at(mm, a + (60 << 10)) == NULL);
	CHECK(folio_at(mm, a + (56 << 10)) != NULL);
	CHECK_EQ(mm_madvise(mm, a + (64 << 10), PAGE_SIZE, MADV_FREE), -ENOMEM);
	CHECK_EQ(mm_madvise(mm, a + (64 << 10), PAGE_SIZE, MADV_POPULATE_READ), -ENOMEM);
	CHECK_EQ(mm_mprotect(mm, a, PAGE_SIZE, VM_READ), 0);
	CHECK_EQ(mm_madvise(mm, a, PAGE_SIZE, MADV_POPULATE_WRITE), -EINVAL);
	CHECK_EQ(mm_madvise(mm, a, PAGE_SIZE, MADV_POPULATE_READ), 0);
	end(mm);
}

/* HUGEPAGE/NOHUGEPAGE and DONTFORK/DOFORK set the VMA flags they did. */
TEST(madvise_vma_flags)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 4 << 20, RW, ORDERS(PMD_ORDER));
	struct mm *c;

	CHECK_EQ(mm_madvise(mm, a, 2 << 20, MADV_NOHUGEPAGE), 0);
	CHECK(find_vma(mm, a)->flags & VM_NOHUGEPMD);
	CHECK(!(find_vma(mm, a + (2 << 20))->flags & VM_NOHUGEPMD));
	CHECK_EQ(mm_madvise(mm, a, 2 << 20, MADV_HUGEPAGE), 0);
	CHECK(!(find_vma(mm, a)->flags & VM_NOHUGEPMD));
	CHECK_EQ(mm_madvise(mm, a, 2 << 20, MADV_DONTFORK), 0);
	c = mm_fork(mm, NULL);
	CHECK(c && find_vma(c, a) == NULL && find_vma(c, a + (2 << 20)) != NULL);
	mm_put(c);
	CHECK_EQ(mm_madvise(mm, a, 2 << 20, MADV_DOFORK), 0);
	CHECK(!(find_vma(mm, a)->flags & VM_DONTCOPY));
	end(mm);
}

/* DONTNEED of every size frees every page through the zap path (one
 * mapcount update a folio batched, one a page with zap=1), keeps the
 * VMA and its tables, and the memory reads zero again. */
TEST(dontneed_every_size)
{
	for (int i = 0; i < NR_SIZES; i++) {
		for (int batched = 0; batched < 2; batched++) {
			struct mm *mm = begin();
			unsigned long a = map_size(mm, i);
			unsigned long folios = LEN >> (PAGE_SHIFT + sizes[i].order);
			unsigned long pt = mm->nr_pt_pages;
			struct mm_counters c0, d;

			caps_set_all(batched);
			c0 = mm_counters_read();
			CHECK_EQ(mm_madvise(mm, a, LEN, MADV_DONTNEED), 0);
			d = counters_since(&c0);
			CHECK_EQ(d.folio_frees, folios);
			CHECK_EQ(d.mapcount_updates,
				 batched || sizes[i].pmd ? folios : LEN >> PAGE_SHIFT);
			CHECK_EQ(mm->nr_pt_pages, pt);
			CHECK(find_vma(mm, a) != NULL);
			CHECK_EQ(pages_kept(mm, a, LEN), 0);
			end(mm);
		}
	}
}

/* DONTNEED of the middle of a PMD-mapped THP splits the leaf, as Linux's
 * zap_pmd_range(), and keeps the rest. */
TEST(dontneed_partial_pmd)
{
	struct mm *mm = begin();
	unsigned long a = map_size(mm, NR_SIZES - 1);
	bool by_pmd;
	pte_t pte;

	CHECK_EQ(mm_madvise(mm, a + (1 << 20), 64 << 10, MADV_DONTNEED), 0);
	CHECK(page_at(mm, a, &by_pmd, &pte) != NULL && !by_pmd);
	CHECK(folio_at(mm, a + (1 << 20)) == NULL);
	CHECK_EQ(pages_kept(mm, a, 2 << 20), 512 - 16);
	end(mm);
}

/*
 * MADV_FREE of every size, batched and with madvise=1: one run per folio
 * (per entry with cap 1; a PMD is one), every entry old and clean, every
 * folio lazyfree, one flush; mm_reclaim_lazyfree() then discards every
 * folio through the zap path and the memory reads zero.
 */
TEST(free_every_size_then_reclaim)
{
	for (int i = 0; i < NR_SIZES; i++) {
		for (int batched = 0; batched < 2; batched++) {
			struct mm *mm = begin();
			unsigned long a = map_size(mm, i);
			unsigned long folios = LEN >> (PAGE_SHIFT + sizes[i].order);
			unsigned long entries = sizes[i].pmd ? folios : LEN >> PAGE_SHIFT;
			struct mm_counters c0, d;
			pte_t pte = { 0 };
			bool by_pmd;

			mm_caps.madvise = batched ? CAP_MAX : 1;
			c0 = mm_counters_read();
			CHECK_EQ(mm_madvise(mm, a, LEN, MADV_FREE), 0);
			d = counters_since(&c0);
			CHECK_EQ(d.madv_free_runs, batched ? folios : entries);
			CHECK_EQ(d.madv_free_ptes, entries);
			CHECK_EQ(d.madv_free_skipped, 0);
			CHECK_EQ(d.tlb_flushes, 1);
			CHECK_EQ(d.cont_unfolds, 0);
			for (unsigned long p = a; p < a + LEN; p += PAGE_SIZE << sizes[i].order) {
				CHECK(lazyfree_at(mm, p));
				CHECK(page_at(mm, p, &by_pmd, &pte) && by_pmd == sizes[i].pmd);
				CHECK(!pte_dirty(pte) && !pte_young(pte));
			}
			CHECK_MM_OK();
			c0 = mm_counters_read();
			CHECK_EQ(mm_reclaim_lazyfree(mm), folios);
			d = counters_since(&c0);
			CHECK_EQ(d.lazyfree_discarded, folios);
			CHECK_EQ(d.folio_frees, folios);
			CHECK_EQ(d.tlb_flushes, (folios + GATHER_MAX - 1) / GATHER_MAX);
			CHECK(folio_at(mm, a) == NULL);
			CHECK_EQ(pages_kept(mm, a, LEN), 0);
			end(mm);
		}
	}
}

/* A write after MADV_FREE makes the folio dirty again: reclaim keeps it
 * whole (every page's data, not only the written one) and it is no
 * longer lazyfree; the folios not written are discarded. */
TEST(free_write_keeps_data)
{
	for (int i = 0; i < NR_SIZES; i++) {
		struct mm *mm = begin();
		unsigned long a = map_size(mm, i);
		unsigned long fsize = PAGE_SIZE << sizes[i].order;
		unsigned long folios = LEN / fsize;
		unsigned char b = 0x5a;
		struct mm_counters c0, d;

		CHECK_EQ(mm_madvise(mm, a, LEN, MADV_FREE), 0);
		/* write the last page of the first folio */
		CHECK_EQ(mm_access(mm, a + fsize - PAGE_SIZE, &b, 1, true), 0);
		c0 = mm_counters_read();
		CHECK_EQ(mm_reclaim_lazyfree(mm), folios - 1);
		d = counters_since(&c0);
		CHECK_EQ(d.lazyfree_redirtied, 1);
		CHECK(!lazyfree_at(mm, a));
		CHECK_EQ(byte_at(mm, a + fsize - PAGE_SIZE), 0x5a);
		CHECK_EQ(pages_kept(mm, a, fsize - PAGE_SIZE), (fsize >> PAGE_SHIFT) - 1);
		CHECK_EQ(pages_kept(mm, a + fsize, LEN - fsize), 0);
		CHECK_EQ(mm_reclaim_lazyfree(mm), 0);
		end(mm);
	}
}

/* A range that covers a folio only partly leaves it as it is (Linux
 * splits it; there is no folio split here): not lazyfree, not
 * cleared, not discarded. The folios inside the range are freed. */
TEST(free_partial_ranges)
{
	for (int i = 1; i < NR_SIZES; i++) {
		struct mm *mm = begin();
		unsigned long a = map_len(mm, i, 2 * LEN);
		unsigned long fsize = PAGE_SIZE << sizes[i].order;
		struct mm_counters c0, d;
		bool by_pmd;
		pte_t pte;

		c0 = mm_counters_read();
		/* the second half of folio 0, all of folio 1, a page of folio 2 */
		CHECK_EQ(mm_madvise(mm, a + fsize / 2, fsize / 2 + fsize + PAGE_SIZE, MADV_FREE),
			 0);
		d = counters_since(&c0);
		CHECK_EQ(d.madv_free_skipped, 2);
		CHECK(!lazyfree_at(mm, a) && lazyfree_at(mm, a + fsize) &&
		      !lazyfree_at(mm, a + 2 * fsize));
		CHECK(page_at(mm, a + fsize / 2, &by_pmd, &pte) && pte_dirty(pte));
		CHECK_EQ(by_pmd, sizes[i].pmd);
		CHECK_EQ(mm_reclaim_lazyfree(mm), 1);
		CHECK(folio_at(mm, a + fsize) == NULL);
		CHECK_EQ(pages_kept(mm, a, 2 * LEN), (2 * LEN - fsize) >> PAGE_SHIFT);
		end(mm);
	}
}

/* After fork the folios are shared. A PMD leaf mapped twice is left (as
 * Linux's madvise_free_huge_pmd()); PTE-mapped clean folios are marked
 * (as Linux: only a PG_dirty shared one is left), but reclaim here keeps
 * every folio another mm maps, and Linux's keeps them while the child's
 * entries are dirty: both sides read their data after reclaim. A shared
 * PG_dirty folio is left unmarked. */
TEST(free_after_fork)
{
	for (int i = 0; i < NR_SIZES; i++) {
		struct mm *mm = begin();
		unsigned long a = map_size(mm, i);
		unsigned long folios = LEN >> (PAGE_SHIFT + sizes[i].order);
		struct mm *c = mm_fork(mm, NULL);
		struct mm_counters c0, d;

		CHECK(c != NULL);
		c0 = mm_counters_read();
		CHECK_EQ(mm_madvise(mm, a, LEN, MADV_FREE), 0);
		d = counters_since(&c0);
		CHECK_EQ(d.madv_free_skipped, sizes[i].pmd ? folios : 0);
		CHECK_EQ(lazyfree_at(mm, a), !sizes[i].pmd);
		CHECK_EQ(mm_reclaim_lazyfree(mm), 0);
		CHECK_EQ(pages_kept(mm, a, LEN), LEN >> PAGE_SHIFT);
		CHECK_EQ(pages_kept(c, a, LEN), LEN >> PAGE_SHIFT);
		CHECK_MM_OK();
		mm_put(c);
		end(mm);
	}
}

/* A shared folio that is PG_dirty is left by MADV_FREE (Linux's
 * mapcount test before it clears PG_dirty); once exclusive it is
 * cleaned and marked. */
TEST(free_shared_dirty_left)
{
	struct mm *mm = begin();
	unsigned long a = map_size(mm, 2);
	struct folio *f = folio_at(mm, a);
	struct mm *c = mm_fork(mm, NULL);
	struct mm_counters c0, d;

	page_set_flags(&f->page, PG_dirty);
	c0 = mm_counters_read();
	CHECK_EQ(mm_madvise(mm, a, 64 << 10, MADV_FREE), 0);
	d = counters_since(&c0);
	CHECK_EQ(d.madv_free_skipped, 1);
	CHECK(!lazyfree_at(mm, a));
	mm_put(c);
	CHECK_EQ(mm_madvise(mm, a, 64 << 10, MADV_FREE), 0);
	CHECK(lazyfree_at(mm, a) && !(page_flags(&f->page) & PG_dirty));
	end(mm);
}

/* A pinned lazyfree folio has a reference beyond its mappings: reclaim
 * puts its entries back and keeps it; unpinned, it goes. */
TEST(free_pinned_kept)
{
	for (int i = 0; i < NR_SIZES; i++) {
		struct mm *mm = begin();
		unsigned long a = map_size(mm, i);
		unsigned long folios = LEN >> (PAGE_SHIFT + sizes[i].order);
		struct page *page;

		CHECK_EQ(mm_madvise(mm, a, LEN, MADV_FREE), 0);
		CHECK_EQ(pin_user_pages(mm, a, 1, 0, &page), 1);
		CHECK_EQ(mm_reclaim_lazyfree(mm), folios - 1);
		CHECK(lazyfree_at(mm, a));
		CHECK_EQ(pages_kept(mm, a, PAGE_SIZE << sizes[i].order), 1ul << sizes[i].order);
		CHECK_MM_OK();
		unpin_user_pages(&page, 1);
		CHECK_EQ(mm_reclaim_lazyfree(mm), 1);
		CHECK_EQ(pages_kept(mm, a, LEN), 0);
		end(mm);
	}
}

/* The cleared dirty bits are flushed before madvise returns: a write
 * through a still cached dirty entry would leave the entry clean and
 * reclaim would discard it (the strict TLB model reports such a write). */
TEST(free_flushes_before_a_write)
{
	for (int i = 0; i < NR_SIZES; i++) {
		struct mm *mm = begin();
		unsigned long a = map_size(mm, i);
		unsigned char b = 0x77;

		CHECK_EQ(mm_madvise(mm, a, LEN, MADV_FREE), 0);
		CHECK_EQ(mm_access(mm, a, &b, 1, true), 0);
		CHECK(pte_dirty(pte_at(mm, a)) || sizes[i].pmd);
		CHECK_EQ(mm_reclaim_lazyfree(mm), (LEN >> (PAGE_SHIFT + sizes[i].order)) - 1);
		CHECK_EQ(byte_at(mm, a), 0x77);
		end(mm);
	}
}

/* arm64: a 64K folio's contpte blocks are cleared as blocks and stay
 * folded, with cap 1 too (each one-entry call is widened to its block). */
TEST(free_keeps_contpte_blocks)
{
	if (!arch_has_pte_blocks())
		SKIP_CASE("the PTE format has no blocks");
	for (int batched = 0; batched < 2; batched++) {
		struct mm *mm = begin();
		unsigned long a = map_size(mm, 2);
		struct mm_counters c0, d;

		CHECK(pte_cont(pte_at(mm, a)));
		mm_caps.madvise = batched ? CAP_MAX : 1;
		c0 = mm_counters_read();
		CHECK_EQ(mm_madvise(mm, a, LEN, MADV_FREE), 0);
		d = counters_since(&c0);
		CHECK_EQ(d.cont_unfolds, 0);
		CHECK_EQ(d.cont_folds, 0);
		CHECK(pte_cont(pte_at(mm, a)) && !pte_dirty(pte_at(mm, a + 15 * PAGE_SIZE)));
		CHECK_EQ(mm_reclaim_lazyfree(mm), LEN / (64 << 10));
		end(mm);
	}
}

/* POPULATE_READ faults in what is missing, and a second call none;
 * POPULATE_WRITE breaks COW after fork (the child keeps its data) and
 * leaves the data as it was. */
TEST(populate_read_write)
{
	for (int i = 0; i < NR_SIZES; i++) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, LEN, RW | (sizes[i].pmd ? 0 : VM_NOHUGEPMD),
					    ORDERS(sizes[i].order));
		unsigned long folios = LEN >> (PAGE_SHIFT + sizes[i].order);
		struct mm_counters c0, d;
		struct mm *c;

		c0 = mm_counters_read();
		CHECK_EQ(mm_madvise(mm, a, LEN, MADV_POPULATE_READ), 0);
		d = counters_since(&c0);
		CHECK_EQ(d.faults, folios);
		CHECK(folio_at(mm, a + LEN - PAGE_SIZE) != NULL);
		c0 = mm_counters_read();
		CHECK_EQ(mm_madvise(mm, a, LEN, MADV_POPULATE_READ), 0);
		CHECK_EQ(counters_since(&c0).faults, 0);
		fill(mm, a, LEN);
		c = mm_fork(mm, NULL);
		CHECK_EQ(mm_madvise(mm, a, LEN, MADV_POPULATE_WRITE), 0);
		CHECK(pte_write(pte_at(mm, a)) || sizes[i].pmd);
		CHECK(folio_at(mm, a) != folio_at(c, a));
		CHECK_EQ(pages_kept(mm, a, LEN), LEN >> PAGE_SHIFT);
		CHECK_EQ(pages_kept(c, a, LEN), LEN >> PAGE_SHIFT);
		mm_put(c);
		end(mm);
	}
}

/* The differential's areas: 1 MiB of 4K, 1 MiB of 16K, 2 MiB of 64K,
 * 2 MiB of a PMD THP; the observable state after one seeded sequence is,
 * per page, its byte (0x100 if unmapped) and whether it is lazyfree. */
static const struct {
	int size;
	unsigned long len;
} areas[] = { { 0, 1 << 20 }, { 1, 1 << 20 }, { 2, 2 << 20 }, { 4, 2 << 20 } };
#define NR_AREAS 4
#define DIFF_PAGES ((6ul << 20) >> PAGE_SHIFT)
struct free_state {
	uint16_t byte[DIFF_PAGES];
	bool lazy[DIFF_PAGES];
	unsigned long discarded, freed;
};

/* One step: MADV_FREE of a random range of a random area (the whole
 * area one time in four), a write, or a reclaim. */
static void free_step(struct mm *mm, const unsigned long *base, uint32_t r, struct free_state *s)
{
	int k = (int)((r >> 4) % NR_AREAS);
	unsigned long pages = areas[k].len >> PAGE_SHIFT;
	unsigned long off = ((r >> 8) % pages) << PAGE_SHIFT;
	unsigned long len = (((r >> 20) % 64) + 1) << PAGE_SHIFT;
	unsigned char b = (unsigned char)(r | 1);

	if ((r >> 28) % 4 == 0)
		off = 0, len = areas[k].len;
	len = off + len > areas[k].len ? areas[k].len - off : len;
	switch (r % 4) {
	case 0:
	case 1:
		CHECK_EQ(mm_madvise(mm, base[k] + off, len, MADV_FREE), 0);
		s->freed++;
		break;
	case 2:
		CHECK_EQ(mm_access(mm, base[k] + off, &b, 1, true), 0);
		break;
	default:
		s->discarded += mm_reclaim_lazyfree(mm);
	}
}

static void free_sequence(struct free_state *s, unsigned cap)
{
	struct mm *mm = begin();
	unsigned long base[NR_AREAS];
	uint32_t seed = 12345;
	unsigned long p = 0;

	for (int k = 0; k < NR_AREAS; k++)
		base[k] = map_len(mm, areas[k].size, areas[k].len);
	mm_caps.madvise = cap;
	for (int step = 0; step < 200; step++) {
		seed = seed * 1103515245 + 12345;
		free_step(mm, base, seed, s);
	}
	CHECK_MM_OK();
	for (int k = 0; k < NR_AREAS; k++) {
		for (unsigned long a = base[k]; a < base[k] + areas[k].len; a += PAGE_SIZE, p++) {
			s->lazy[p] = lazyfree_at(mm, a);
			s->byte[p] = folio_at(mm, a) ? byte_at(mm, a) : 0x100;
		}
	}
	end(mm);
}

/* The same sequence of MADV_FREE, writes and reclaims over folios of
 * 16K, 64K and a PMD THP ends in the same state with madvise=1 and max. */
TEST(free_cap1_vs_max)
{
	static struct free_state s1, smax;

	memset(&s1, 0, sizeof(s1));
	memset(&smax, 0, sizeof(smax));
	free_sequence(&s1, 1);
	free_sequence(&smax, CAP_MAX);
	CHECK(s1.discarded > 10 && s1.freed > 50);
	CHECK_EQ(s1.discarded, smax.discarded);
	CHECK(memcmp(s1.byte, smax.byte, sizeof(s1.byte)) == 0);
	CHECK(memcmp(s1.lazy, smax.lazy, sizeof(s1.lazy)) == 0);
}

TEST_SUITE(madvise, madvise_errnos, madvise_vma_flags, dontneed_every_size, dontneed_partial_pmd,
	   free_every_size_then_reclaim, free_write_keeps_data, free_partial_ranges,
	   free_after_fork, free_shared_dirty_left, free_pinned_kept, free_flushes_before_a_write,
	   free_keeps_contpte_blocks, populate_read_write, free_cap1_vs_max)
