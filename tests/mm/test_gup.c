/*
 * test_gup.c - what get_user_pages() and pin_user_pages() promise, in the
 * spirit of Linux's selftests mm/cow.c (its GUP cases) and gup_test.c:
 * Linux's refcount and pincount semantics, faults on the way, the pin
 * staying coherent with the process through fork and COW ("Longterm R/O
 * pin is reliable", "Longterm R/W pin is reliable"), errors that leave
 * nothing held, and every count back where it was after the unpin.
 * Each case runs on every folio size of test_gup_cases.h (4K to 2M, PTE- and
 * PMD-mapped) and checks the invariants after every step.
 */
#include "test_gup_cases.h"

static struct page *pages[GUP_MAX_PAGES];
static uint64_t free_before;

static struct mm *begin(void)
{
	return mm_case_begin(&free_before);
}

/* End a sub-case: nothing held, the checker passes, every page free. */
static void end(struct mm *mm)
{
	mm_case_end(mm, free_before);
}

/* Per page of [a, a+n pages): its folio's refcount and pincount. */
struct counts {
	int ref[GUP_MAX_PAGES], pin[GUP_MAX_PAGES];
};
static struct counts before, after;

static void take_counts(struct mm *mm, unsigned long a, unsigned long n, struct counts *c)
{
	for (unsigned long i = 0; i < n; i++) {
		struct folio *f = folio_at(mm, a + i * PAGE_SIZE);

		c->ref[i] = f ? folio_ref_count(f) : -1;
		c->pin[i] = f ? folio_pincount(f) : -1;
	}
}

static bool same_counts(const struct counts *x, const struct counts *y, unsigned long n)
{
	return memcmp(x->ref, y->ref, n * sizeof(int)) == 0 &&
	       memcmp(x->pin, y->pin, n * sizeof(int)) == 0;
}

/* How many pages of @pages[0..n) belong to the folio of pages[i]. */
static int pages_in_folio(struct page **pp, unsigned long n, unsigned long i)
{
	int k = 0;

	for (unsigned long j = 0; j < n; j++)
		k += page_folio(pp[j]) == page_folio(pp[i]);
	return k;
}

/* A get adds one reference per page; a pin GUP_PIN_COUNTING_BIAS per page
 * of a small folio, one reference and one pincount per page of a large
 * one. Releasing brings every count back, and only a pin sets
 * MMF_HAS_PINNED and makes folio_maybe_dma_pinned() true. */
TEST(pins_and_gets_count_as_linux_does)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = begin();
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;

		WHERE("%s", g->label);
		take_counts(mm, a, n, &before);
		W_CHECK_EQ(get_user_pages(mm, a, n, 0, pages), n);
		W_CHECK(pages_are_mapped(mm, pages, n, a));
		W_CHECK(!(mm->flags & MMF_HAS_PINNED));
		for (unsigned long i = 0; i < n; i++)
			W_CHECK_EQ(folio_ref_count(page_folio(pages[i])),
				   before.ref[i] + pages_in_folio(pages, n, i));
		W_CHECK(!folio_maybe_dma_pinned(page_folio(pages[0])));
		W_CHECK_MM_OK();
		put_user_pages(pages, n);
		take_counts(mm, a, n, &after);
		W_CHECK(same_counts(&before, &after, n));

		W_CHECK_EQ(pin_user_pages(mm, a, n, FOLL_LONGTERM, pages), n);
		W_CHECK(mm->flags & MMF_HAS_PINNED);
		for (unsigned long i = 0; i < n; i++) {
			struct folio *f = page_folio(pages[i]);
			int k = pages_in_folio(pages, n, i);

			W_CHECK(folio_maybe_dma_pinned(f));
			W_CHECK_EQ(folio_ref_count(f),
				   before.ref[i] +
					   (folio_test_large(f) ? k : k * GUP_PIN_COUNTING_BIAS));
			W_CHECK_EQ(folio_pincount(f), folio_test_large(f) ? k : 0);
		}
		W_CHECK_MM_OK();
		unpin_user_pages(pages, n);
		take_counts(mm, a, n, &after);
		W_CHECK(same_counts(&before, &after, n));
		W_CHECK(!folio_maybe_dma_pinned(folio_at(mm, a)));
		end(mm);
	}
}

/* Missing pages are faulted in (zeroed), by a read or a write fault. */
TEST(missing_pages_are_faulted_in)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		for (int write = 0; write < 2; write++) {
			const struct gsize *g = &gsizes[s];
			struct mm *mm = begin();
			unsigned long len = gsize_len(g), n = len >> PAGE_SHIFT;
			unsigned long a = test_mmap(mm, len, RW | (g->pmd ? 0 : VM_NOHUGEPMD),
						    ORDERS(g->order));
			struct mm_counters c0 = mm_counters_read();
			uint64_t zero = 0;

			WHERE("%s %s", g->label, write ? "write" : "read");
			W_CHECK_EQ(pin_user_pages(mm, a, n, write ? FOLL_WRITE : 0, pages), n);
			W_CHECK(counters_since(&c0).faults > 0);
			W_CHECK(pages_are_mapped(mm, pages, n, a));
			W_CHECK_EQ(folio_order(page_folio(pages[0])), g->order);
			W_CHECK(memcmp(page_address(pages[n - 1]), &zero, 8) == 0);
			W_CHECK_MM_OK();
			unpin_user_pages(pages, n);
			W_CHECK_EQ(gup_refs_left(mm, a, len), 0);
			end(mm);
		}
	}
}

/* FOLL_WRITE on a page shared with a fork child takes the write fault:
 * the parent gets its own page, the pin points at it, and what is
 * written through the pin (DMA) reaches the parent only. */
TEST(write_pin_breaks_cow)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = begin(), *c;
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;

		WHERE("%s", g->label);
		c = mm_fork(mm, NULL);
		W_CHECK(c != NULL);
		W_CHECK_EQ(pin_user_pages(mm, a, n, FOLL_WRITE | FOLL_LONGTERM, pages), n);
		W_CHECK(pages_are_mapped(mm, pages, n, a));
		W_CHECK(folio_at(c, a) != page_folio(pages[0]));
		W_CHECK_MM_OK();
		stamp_pinned(pages, n, a, 2);
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 2), 0);
		W_CHECK_EQ(stamp_mismatches(c, a, len, 1), 0);
		unpin_user_pages_dirty_lock(pages, n, true);
		mm_put(c);
		W_CHECK_EQ(gup_refs_left(mm, a, len), 0);
		end(mm);
	}
}

/* "Longterm R/O pin is reliable" on exclusive pages: no fault, no copy,
 * and the pin sees every later write by the process. */
TEST(ro_pin_of_exclusive_page_sees_later_writes)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = begin();
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;
		struct mm_counters c0 = mm_counters_read();

		WHERE("%s", g->label);
		W_CHECK_EQ(pin_user_pages(mm, a, n, FOLL_LONGTERM, pages), n);
		W_CHECK_EQ(counters_since(&c0).faults, 0);
		W_CHECK_EQ(pinned_mismatches(pages, n, a, 1), 0);
		W_CHECK_EQ(stamp_range(mm, a, len, 3), 0);
		W_CHECK_EQ(counters_since(&c0).folio_copies, 0);
		W_CHECK_EQ(pinned_mismatches(pages, n, a, 3), 0);
		W_CHECK_MM_OK();
		unpin_user_pages(pages, n);
		end(mm);
	}
}

/*
 * "Longterm R/O pin is reliable" on pages shared with a live child, also
 * when the parent maps them read-only at the time of the pin ("R/O pin on
 * R/O-mapped shared page"): the pin unshares, the parent's later writes
 * reach the pinned pages, and the child keeps what it had.
 */
TEST(ro_pin_of_shared_page_sees_later_writes)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		for (int ro_mapped = 0; ro_mapped < 2; ro_mapped++) {
			const struct gsize *g = &gsizes[s];
			struct mm *mm = begin(), *c;
			unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;

			WHERE("%s%s", g->label, ro_mapped ? " R/O-mapped" : "");
			c = mm_fork(mm, NULL);
			if (ro_mapped)
				W_CHECK_EQ(mm_mprotect(mm, a, len, VM_READ), 0);
			W_CHECK_EQ(pin_user_pages(mm, a, n, FOLL_LONGTERM, pages), n);
			W_CHECK(pages_are_mapped(mm, pages, n, a));
			W_CHECK_EQ(page_bits(mm, a, 32, true), 0xffffffffu);
			W_CHECK_MM_OK();
			if (ro_mapped)
				W_CHECK_EQ(mm_mprotect(mm, a, len, RW), 0);
			W_CHECK_EQ(stamp_range(mm, a, len, 4), 0);
			W_CHECK_EQ(pinned_mismatches(pages, n, a, 4), 0);
			W_CHECK_EQ(stamp_mismatches(c, a, len, 1), 0);
			W_CHECK_MM_OK();
			unpin_user_pages(pages, n);
			mm_put(c);
			end(mm);
		}
	}
}

/* "Longterm R/O pin is reliable" on previously shared pages (the child
 * has exited): the unshare reuses the pages in place, a whole folio run
 * at a time, so nothing is copied and the pins are the original pages. */
TEST(ro_pin_of_previously_shared_page_reuses_it)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = begin();
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;
		struct folio *f0 = folio_at(mm, a);
		struct mm_counters c0;

		WHERE("%s", g->label);
		mm_put(mm_fork(mm, NULL));
		W_CHECK_EQ(page_bits(mm, a, 32, true), 0);
		c0 = mm_counters_read();
		W_CHECK_EQ(pin_user_pages(mm, a, n, FOLL_LONGTERM, pages), n);
		W_CHECK_EQ(counters_since(&c0).folio_copies, 0);
		W_CHECK(page_folio(pages[0]) == f0);
		W_CHECK(pages_are_mapped(mm, pages, n, a));
		W_CHECK_EQ(stamp_range(mm, a, len, 5), 0);
		W_CHECK_EQ(pinned_mismatches(pages, n, a, 5), 0);
		W_CHECK_MM_OK();
		unpin_user_pages(pages, n);
		end(mm);
	}
}

/* "Longterm R/W pin is reliable": pin R/W, fork, write on both sides.
 * The pin follows the parent only; the child sees neither the parent's
 * writes nor the device's (no leak from parent into child). */
TEST(rw_pin_then_fork_then_writes_on_both_sides)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = begin(), *c;
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;

		WHERE("%s", g->label);
		W_CHECK_EQ(pin_user_pages(mm, a, n, FOLL_WRITE | FOLL_LONGTERM, pages), n);
		c = mm_fork(mm, NULL);
		W_CHECK(c != NULL);
		W_CHECK(pages_are_mapped(mm, pages, n, a));
		W_CHECK(folio_at(c, a) != page_folio(pages[0]));
		W_CHECK_MM_OK();
		W_CHECK_EQ(stamp_range(mm, a, len, 6), 0);
		W_CHECK_EQ(pinned_mismatches(pages, n, a, 6), 0);
		W_CHECK_EQ(stamp_mismatches(c, a, len, 1), 0);
		W_CHECK_EQ(stamp_range(c, a, len, 7), 0);
		W_CHECK_EQ(pinned_mismatches(pages, n, a, 6), 0);
		stamp_pinned(pages, n, a, 8);
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 8), 0);
		W_CHECK_EQ(stamp_mismatches(c, a, len, 7), 0);
		W_CHECK_MM_OK();
		unpin_user_pages_dirty_lock(pages, n, true);
		W_CHECK_EQ(gup_refs_left(mm, a, len) + gup_refs_left(c, a, len), 0);
		mm_put(c);
		end(mm);
	}
}

enum order { PIN_FORK_UNPIN, FORK_PIN_UNPIN, PIN_FORK_EXIT_UNPIN, FORK_CHILD_PIN, NR_ORDERS };
static const char *const order_label[] = { "pin fork unpin", "fork pin unpin",
					   "pin fork exit unpin", "fork pin-in-child" };

/* One order of pin, fork, unpin (and exits) on @g, then writes on both
 * sides: each side sees its own data and nothing is left held. */
static void pin_fork_order(const struct gsize *g, enum order o)
{
	struct mm *mm = begin(), *c = NULL, *pinner = mm;
	unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;

	if (o != PIN_FORK_UNPIN && o != PIN_FORK_EXIT_UNPIN)
		c = mm_fork(mm, NULL);
	if (o == FORK_CHILD_PIN)
		pinner = c;
	W_CHECK_EQ(pin_user_pages(pinner, a, n, FOLL_LONGTERM, pages), n);
	if (!c)
		c = mm_fork(mm, NULL);
	if (o == PIN_FORK_EXIT_UNPIN) {
		mm_put(c);
		c = NULL;
	}
	W_CHECK_MM_OK();
	W_CHECK_EQ(stamp_range(pinner, a, len, 9), 0);
	W_CHECK_EQ(pinned_mismatches(pages, n, a, 9), 0);
	unpin_user_pages(pages, n);
	W_CHECK_MM_OK();
	if (c) {
		struct mm *other = pinner == mm ? c : mm;

		W_CHECK_EQ(stamp_mismatches(other, a, len, 1), 0);
		W_CHECK_EQ(stamp_range(other, a, len, 10), 0);
		W_CHECK_EQ(stamp_mismatches(pinner, a, len, 9), 0);
		W_CHECK_EQ(gup_refs_left(c, a, len), 0);
		mm_put(c);
	}
	W_CHECK_EQ(gup_refs_left(mm, a, len), 0);
	end(mm);
}

/* Pin, fork and unpin in every order: the pin follows the pinner, the
 * other side keeps its data, and nothing is left held. */
TEST(pin_fork_unpin_in_every_order)
{
	for (int s = 0; s < NR_GSIZES; s++)
		for (int o = 0; o < NR_ORDERS; o++) {
			WHERE("%s %s", gsizes[s].label, order_label[o]);
			pin_fork_order(&gsizes[s], (enum order)o);
		}
}

/* Bad calls fail with nothing held and nothing faulted in. */
TEST(errors_leave_nothing_held)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	unsigned long r = test_mmap(mm, 64 << 10, VM_READ | VM_NOHUGEPMD, ORDERS(4));
	struct mm_counters c0;

	CHECK_EQ(stamp_range(mm, a, 64 << 10, 1), 0);
	CHECK_EQ(mm_touch(mm, r, 64 << 10, false), 0);
	c0 = mm_counters_read();
	CHECK_EQ(pin_user_pages(mm, a - (1ul << 30), 1, 0, pages), -EFAULT); /* nothing mapped */
	CHECK_EQ(pin_user_pages(mm, r, 16, FOLL_WRITE, pages), -EFAULT);     /* R/O VMA */
	CHECK_EQ(get_user_pages(mm, r, 16, FOLL_WRITE, pages), -EFAULT);
	CHECK_EQ(pin_user_pages(mm, a + 1, 1, 0, pages), -EINVAL);	   /* unaligned */
	CHECK_EQ(pin_user_pages(mm, a, 1, FOLL_GET, pages), -EINVAL);	   /* two kinds */
	CHECK_EQ(get_user_pages(mm, a, 1, FOLL_LONGTERM, pages), -EINVAL); /* gets are short */
	CHECK_EQ(get_user_pages(mm, a, 1, 1u << 20, pages), -EINVAL);	   /* unknown flag */
	CHECK_EQ(pin_user_pages(mm, a, 1, 0, NULL), -EINVAL);
	CHECK_EQ(pin_user_pages(mm, MM_USER_END - PAGE_SIZE, 2, 0, pages), -EFAULT);
	CHECK_EQ(pin_user_pages(mm, a, 0, 0, pages), 0);
	CHECK_EQ(counters_since(&c0).faults, 0);
	CHECK_EQ(counters_since(&c0).ref_updates, 0);
	CHECK_EQ(gup_refs_left(mm, a, 64 << 10) + gup_refs_left(mm, r, 64 << 10), 0);
	CHECK_MM_OK();
	end(mm);
}

/* A request that runs into a hole, or from a writable VMA into a
 * read-only one under FOLL_WRITE, returns the pages before it; the
 * retry from there gets the error. */
TEST(request_into_a_hole_returns_short_count)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 256 << 10, RW | VM_NOHUGEPMD, ORDERS(4));

	CHECK_EQ(stamp_range(mm, a, 256 << 10, 1), 0);
	CHECK_EQ(mm_munmap(mm, a + (64 << 10), 64 << 10), 0);
	CHECK_EQ(mm_mprotect(mm, a + (192 << 10), 64 << 10, VM_READ), 0);
	CHECK_EQ(pin_user_pages(mm, a + (32 << 10), 32, 0, pages), 8);
	CHECK(pages_are_mapped(mm, pages, 8, a + (32 << 10)));
	CHECK_EQ(pin_user_pages(mm, a + (64 << 10), 24, 0, pages + 8), -EFAULT);
	CHECK_MM_OK();
	unpin_user_pages(pages, 8);
	CHECK_EQ(get_user_pages(mm, a + (184 << 10), 4, FOLL_WRITE, pages), 2);
	CHECK(pages_are_mapped(mm, pages, 2, a + (184 << 10)));
	put_user_pages(pages, 2);
	CHECK_EQ(gup_refs_left(mm, a, 64 << 10) + gup_refs_left(mm, a + (128 << 10), 128 << 10), 0);
	end(mm);
}

/* A refcount with no room for the grab is -ENOMEM on the first page and
 * a short count later, with exactly the pages before it held. */
TEST(full_refcount_is_enomem_or_short)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 8 * PAGE_SIZE, RW | VM_NOHUGEPMD, ORDERS(0));
	struct folio *f;
	int room;

	CHECK_EQ(stamp_range(mm, a, 8 * PAGE_SIZE, 1), 0);
	f = folio_at(mm, a + 3 * PAGE_SIZE);
	room = INT32_MAX - folio_ref_count(f) - (GUP_PIN_COUNTING_BIAS - 1);
	folio_ref_add(f, room); /* a pin (1024) no longer fits; a get (1) does */
	CHECK_EQ(pin_user_pages(mm, a + 3 * PAGE_SIZE, 2, 0, pages), -ENOMEM);
	CHECK_EQ(pin_user_pages(mm, a, 8, 0, pages), 3);
	CHECK(!folio_maybe_dma_pinned(folio_at(mm, a + 4 * PAGE_SIZE)));
	unpin_user_pages(pages, 3);
	CHECK_EQ(get_user_pages(mm, a + 3 * PAGE_SIZE, 1, 0, pages), 1);
	put_user_pages(pages, 1);
	folio_ref_sub(f, room);
	CHECK_EQ(gup_refs_left(mm, a, 8 * PAGE_SIZE), 0);
	end(mm);
}

/* unpin_user_pages_dirty_lock() marks the folios dirty when asked to,
 * and a plain unpin does not. */
TEST(unpin_dirty_marks_the_folios_dirty)
{
	for (int make_dirty = 0; make_dirty < 2; make_dirty++) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
		struct folio *f;

		CHECK_EQ(mm_touch(mm, a, 64 << 10, false), 0); /* clean entries */
		f = folio_at(mm, a);
		CHECK(!(f->page.flags & PG_dirty));
		CHECK_EQ(pin_user_pages(mm, a, 16, FOLL_WRITE, pages), 16);
		CHECK(!(f->page.flags & PG_dirty)); /* no FOLL_TOUCH */
		unpin_user_pages_dirty_lock(pages, 16, make_dirty);
		CHECK_EQ(!!(f->page.flags & PG_dirty), make_dirty);
		end(mm);
	}
}

/* The length of the run of physically consecutive pages at @pages[i]
 * (ranges may span folios), at most @n - @i. */
static unsigned long phys_run(struct page **pages, unsigned long i, unsigned long n)
{
	unsigned long k = 1;

	while (i + k < n && page_to_pfn(pages[i + k]) == page_to_pfn(pages[i]) + k)
		k++;
	return k;
}

/*
 * put_user_page_range() and unpin_user_page_range_dirty_lock() over 1000
 * pages that start and end inside a folio, released as runs of physically
 * consecutive pages: one refcount update per folio even where a run spans
 * folios, every count back, the folios dirty exactly when asked (the
 * per-page AnonExclusive check of mm_debug_vm runs on each pinned page).
 */
TEST(range_release_is_one_update_per_folio)
{
	static const unsigned orders[] = { 0, 4, 9 };
	unsigned long spans = 0; /* runs that span folios */

	for (int o = 0; o < 3; o++)
		for (int how = 0; how < 3; how++) { /* get, pin, pin + dirty */
			struct mm *mm = begin();
			unsigned long len = 8ul << 20, n = 1000, folios = 0;
			unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(orders[o]));
			unsigned long va = a + 5 * PAGE_SIZE;
			struct mm_counters c0, d;

			WHERE("order %u, %s", orders[o],
			      how ? how == 2 ? "pin + dirty" : "pin" : "get");
			W_CHECK_EQ(mm_touch(mm, a, len, false), 0);
			W_CHECK_EQ(how ? pin_user_pages(mm, va, n, FOLL_WRITE, pages)
				       : get_user_pages(mm, va, n, FOLL_WRITE, pages),
				   (long)n);
			for (unsigned long i = 0; i < n; i++)
				folios += !i || page_folio(pages[i]) != page_folio(pages[i - 1]);
			c0 = mm_counters_read();
			for (unsigned long i = 0, k; i < n; i += k) {
				k = phys_run(pages, i, n);
				spans += page_folio(pages[i]) != page_folio(pages[i + k - 1]);
				how ? unpin_user_page_range_dirty_lock(pages[i], k, how == 2)
				    : put_user_page_range(pages[i], k);
			}
			d = counters_since(&c0);
			W_CHECK_EQ(d.ref_updates, folios);
			W_CHECK_EQ(gup_refs_left(mm, a, len), 0);
			for (unsigned long i = 0; i < n; i++)
				W_CHECK_EQ(!!(page_folio(pages[i])->page.flags & PG_dirty),
					   how == 2);
			end(mm);
		}
	CHECK(spans > 0); /* the allocator hands out adjacent small folios */
}

/* Are all @n entries from @a dirty? */
static bool all_ptes_dirty(struct mm *mm, unsigned long a, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		bool by_pmd;
		pte_t pte;

		if (!page_at(mm, a + i * PAGE_SIZE, &by_pmd, &pte) || !pte_dirty(pte))
			return false;
	}
	return true;
}

/* FOLL_TOUCH marks the folio accessed, and for FOLL_WRITE dirty unless
 * every entry taken is dirty (the per-page rule: a clean entry marks it).
 * On x86 writing page 5 dirties its entry alone; on arm64 with contpte it
 * dirties the whole block, so there the folio is left alone. */
TEST(touch_marks_accessed_and_dirty)
{
	for (int dirty_ptes = 0; dirty_ptes < 2; dirty_ptes++) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
		struct folio *f;
		bool all_dirty;

		CHECK_EQ(mm_touch(mm, a, 64 << 10, false), 0);
		if (dirty_ptes)
			CHECK_EQ(mm_touch(mm, a + 5 * PAGE_SIZE, 1, true), 0); /* one dirty entry */
		f = folio_at(mm, a);
		f->page.flags &= ~(PG_referenced | PG_dirty);
		all_dirty = all_ptes_dirty(mm, a, 16);
		CHECK(!dirty_ptes || (arch_has_pte_blocks() && mm_caps.contpte) == all_dirty);
		CHECK_EQ(get_user_pages(mm, a, 16, FOLL_WRITE | FOLL_TOUCH, pages), 16);
		CHECK(f->page.flags & PG_referenced);
		CHECK_EQ(!!(f->page.flags & PG_dirty), !all_dirty);
		put_user_pages(pages, 16);
		end(mm);
	}
}

TEST_SUITE(gup, pins_and_gets_count_as_linux_does, missing_pages_are_faulted_in,
	   write_pin_breaks_cow, ro_pin_of_exclusive_page_sees_later_writes,
	   ro_pin_of_shared_page_sees_later_writes, ro_pin_of_previously_shared_page_reuses_it,
	   rw_pin_then_fork_then_writes_on_both_sides, pin_fork_unpin_in_every_order,
	   errors_leave_nothing_held, request_into_a_hole_returns_short_count,
	   full_refcount_is_enomem_or_short, unpin_dirty_marks_the_folios_dirty,
	   range_release_is_one_update_per_folio, touch_marks_accessed_and_dirty)
