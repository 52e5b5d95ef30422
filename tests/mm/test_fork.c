/*
 * test_fork.c - fork with copy-on-write, in the spirit of Linux's
 * tools/testing/selftests/mm/cow.c (anon cases), for every folio size,
 * PTE- and PMD-mapped. Each case checks memory contents on both sides,
 * runs the invariant checker after every step and checks for leaks.
 */
#include "mm_cases.h"

static uint64_t free_before;
static unsigned char buf[64 << 10];

static void fill(struct mm *mm, unsigned long a, unsigned long len, unsigned seed)
{
	for (unsigned long off = 0; off < len; off += sizeof(buf)) {
		unsigned long n = len - off < sizeof(buf) ? len - off : sizeof(buf);

		for (unsigned long i = 0; i < n; i++)
			buf[i] = (unsigned char)((off + i) * 31 + seed);
		CHECK_EQ(mm_access(mm, a + off, buf, n, true), 0);
	}
}

/* Number of bytes of [a, a+len) that differ from fill(seed). */
static unsigned long mismatches(struct mm *mm, unsigned long a, unsigned long len, unsigned seed)
{
	unsigned long bad = 0;

	for (unsigned long off = 0; off < len; off += sizeof(buf)) {
		unsigned long n = len - off < sizeof(buf) ? len - off : sizeof(buf);

		if (mm_access(mm, a + off, buf, n, false))
			return len;
		for (unsigned long i = 0; i < n; i++)
			bad += buf[i] != (unsigned char)((off + i) * 31 + seed);
	}
	return bad;
}

/* The folio sizes each case runs on: order, mapped by a PMD. */
static const struct {
	unsigned order;
	bool pmd;
} sizes[] = { { 0, false }, { 2, false }, { 4, false }, { 6, false },
	      { 8, false }, { 9, false }, { 9, true } };
#define NR_SIZES (int)(sizeof(sizes) / sizeof(sizes[0]))
#define LEN (4ul << 20)

/* A parent with LEN bytes of folios of @order (PMD-mapped if @pmd), all
 * written with fill(seed 1). */
static struct mm *parent_with(unsigned order, bool pmd, unsigned long *a)
{
	struct mm *mm;

	caps_set_all(true);
	free_before = total_free_pages();
	mm = mm_create();
	*a = test_mmap(mm, LEN, RW | (pmd ? 0 : VM_NOHUGEPMD), ORDERS(order));
	fill(mm, *a, LEN, 1);
	return mm;
}

static void finish(struct mm *p, struct mm *c)
{
	CHECK_MM_OK();
	if (c)
		mm_put(c);
	mm_put(p);
	CHECK_MM_OK();
	CHECK_EQ(total_free_pages(), free_before);
}

/* No leak from parent into child after fork and write, nor back. */
TEST(basic_cow_every_size)
{
	for (int s = 0; s < NR_SIZES; s++) {
		unsigned long a;
		struct mm *p = parent_with(sizes[s].order, sizes[s].pmd, &a), *c = mm_fork(p, NULL);

		CHECK(c != NULL);
		CHECK_MM_OK();
		CHECK_EQ(mismatches(c, a, LEN, 1), 0);
		fill(c, a, LEN / 2, 2); /* child writes the first half */
		CHECK_EQ(mismatches(p, a, LEN, 1), 0);
		fill(p, a + LEN / 2, LEN / 2, 3); /* parent writes the second half */
		CHECK_EQ(mismatches(c, a + LEN / 2, LEN / 2, 1),
			 0); /* offsets are multiples of 256 */
		CHECK_EQ(mismatches(c, a, LEN / 2, 2), 0);
		finish(p, c);
	}
}

/* Writes from both sides in every order, and teardown in both orders. */
TEST(writes_in_every_order)
{
	for (int order = 0; order < 4; order++) {
		unsigned long a;
		struct mm *p = parent_with(order % 2 ? 4 : PMD_ORDER, order % 2 == 0, &a),
			  *c = mm_fork(p, NULL);
		struct mm *first = order < 2 ? p : c, *second = order < 2 ? c : p;

		fill(first, a, 64 << 10, 10);
		fill(second, a, 64 << 10, 20);
		CHECK_EQ(mismatches(first, a, 64 << 10, 10), 0);
		CHECK_EQ(mismatches(second, a, 64 << 10, 20), 0);
		CHECK_EQ(mismatches(c, a + (64 << 10), 64 << 10, 1), 0);
		CHECK_MM_OK();
		if (order == 3) { /* child goes first */
			mm_put(c);
			c = NULL;
			CHECK_EQ(mismatches(p, a, 64 << 10, 20), 0);
		}
		finish(p, c);
	}
}

/* mprotect RO then RW before fork; COW still separates the two. */
TEST(cow_after_mprotect)
{
	unsigned long a;
	struct mm *p = parent_with(4, false, &a), *c;

	CHECK_EQ(mm_mprotect(p, a, LEN, VM_READ), 0);
	CHECK_EQ(mm_mprotect(p, a, LEN, RW), 0);
	c = mm_fork(p, NULL);
	fill(c, a, LEN, 5);
	CHECK_EQ(mismatches(p, a, LEN, 1), 0);
	finish(p, c);
}

/* Partial munmap of large folios, down to a single PTE of one, then fork. */
TEST(cow_single_pte_of_large_folio)
{
	unsigned long a;
	struct mm *p = parent_with(4, false, &a), *c;
	unsigned char v = 0x5a, w = 0;
	struct folio *f = folio_at(p, a + 7 * PAGE_SIZE);

	CHECK_EQ(mm_munmap(p, a, 7 * PAGE_SIZE), 0);
	CHECK_EQ(mm_munmap(p, a + 8 * PAGE_SIZE, LEN - 8 * PAGE_SIZE), 0);
	CHECK_EQ(folio_mapcount(f), 1);
	c = mm_fork(p, NULL);
	CHECK_EQ(folio_mapcount(f), 2);
	CHECK_EQ(mm_access(c, a + 7 * PAGE_SIZE, &v, 1, true), 0);
	CHECK_EQ(mm_access(p, a + 7 * PAGE_SIZE, &w, 1, false), 0);
	CHECK_EQ(w, (unsigned char)(7 * PAGE_SIZE * 31 + 1));
	finish(p, c);
}

/* A sub-range made VM_DONTCOPY (MADV_DONTFORK) before fork is absent in
 * the child; the rest of the large folios is shared. */
TEST(partially_shared_large_folio)
{
	unsigned long a;
	struct mm *p = parent_with(6, false, &a), *c;

	CHECK_EQ(mm_madvise_flags(p, a + 4 * PAGE_SIZE, 8 * PAGE_SIZE, VM_DONTCOPY, 0), 0);
	c = mm_fork(p, NULL);
	CHECK_EQ(mm_touch(c, a + 4 * PAGE_SIZE, 1, false), -EFAULT);
	CHECK_EQ(mismatches(c, a, 4 * PAGE_SIZE, 1), 0);
	fill(p, a, LEN, 7);
	CHECK_EQ(mismatches(c, a + 12 * PAGE_SIZE, 4 * PAGE_SIZE, 1), 0);
	CHECK_EQ(mismatches(c, a, 4 * PAGE_SIZE, 1), 0);
	finish(p, c);
}

/* fork of a fork: three views of one folio, each separated on write. */
TEST(fork_of_fork)
{
	unsigned long a;
	struct mm *p = parent_with(PMD_ORDER, false, &a), *c = mm_fork(p, NULL),
		  *g = mm_fork(c, NULL);

	CHECK(g != NULL);
	fill(g, a, LEN, 9);
	fill(c, a, LEN / 4, 8);
	CHECK_EQ(mismatches(p, a, LEN, 1), 0);
	CHECK_EQ(mismatches(g, a, LEN, 9), 0);
	CHECK_EQ(mismatches(c, a, LEN / 4, 8), 0);
	mm_put(c);
	CHECK_EQ(mismatches(g, a, LEN, 9), 0);
	finish(p, g);
}

/* A pinned exclusive page is copied for the child at fork, so the pin
 * keeps seeing the parent's writes (no COW in the parent afterwards). */
TEST(pinned_page_is_copied_at_fork)
{
	for (int s = 0; s < NR_SIZES; s++) {
		unsigned long a;
		struct mm *p = parent_with(sizes[s].order, sizes[s].pmd, &a), *c;
		struct folio *f = folio_at(p, a);
		unsigned char v = 0xee, w = 0;

		folio_pin_refs(f, 1);
		mm_set_has_pinned(p);
		c = mm_fork(p, NULL);
		CHECK(c != NULL);
		CHECK(folio_at(c, a) != f);
		CHECK_EQ(mismatches(c, a, PAGE_SIZE, 1), 0);
		CHECK_EQ(mm_access(p, a, &v, 1, true), 0);
		CHECK(folio_at(p, a) == f); /* the parent wrote its own page */
		CHECK_EQ(mm_access(c, a, &w, 1, false), 0);
		CHECK_EQ(w, 1); /* fill(seed 1) byte 0 */
		CHECK_MM_OK();
		folio_unpin_refs(f, 1);
		finish(p, c);
	}
}

/* Out of memory in the middle of fork: no child, the parent unchanged. */
TEST(oom_in_fork_leaves_parent_intact)
{
	unsigned long a;
	struct mm *p = parent_with(4, false, &a), *c;
	struct list_head held;
	struct folio *f, *f0 = folio_at(p, a);
	int err = 0, n = 0;

	list_init(&held);
	while ((f = folio_alloc(0, 0, ALLOC_ANY_NODE)))
		list_add(&f->page.lru, &held), n++;
	/* give back a few pages: enough to start, not to finish */
	for (int i = 0; i < 3 && !list_empty(&held); i++) {
		struct list_head *e = held.next;

		list_del(e);
		folio_put((struct folio *)list_entry(e, struct page, lru));
	}
	c = mm_fork(p, &err);
	CHECK(c == NULL);
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(folio_ref_count(f0), 16);
	CHECK_EQ(folio_mapcount(f0), 16);
	CHECK(f0->page.flags & PG_anon_exclusive);
	CHECK_MM_OK();
	while (!list_empty(&held)) {
		struct list_head *e = held.next;

		list_del(e);
		folio_put((struct folio *)list_entry(e, struct page, lru));
	}
	CHECK_EQ(mismatches(p, a, LEN, 1), 0);
	finish(p, NULL);
}

/* Batched fork takes one refcount update per 64K folio; unbatched 16. */
TEST(fork_ref_updates_per_run)
{
	for (int batched = 0; batched < 2; batched++) {
		unsigned long a;
		struct mm *p = parent_with(4, false, &a), *c;
		uint64_t before;

		caps_set_all(batched);
		before = mm_counters.ref_updates;
		c = mm_fork(p, NULL);
		CHECK_EQ(mm_counters.ref_updates - before, (LEN / (64 << 10)) * (batched ? 1 : 16));
		caps_set_all(true);
		finish(p, c);
	}
}

TEST_SUITE(fork, basic_cow_every_size, writes_in_every_order, cow_after_mprotect,
	   cow_single_pte_of_large_folio, partially_shared_large_folio, fork_of_fork,
	   pinned_page_is_copied_at_fork, oom_in_fork_leaves_parent_intact,
	   fork_ref_updates_per_run)
