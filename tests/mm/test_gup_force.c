/*
 * test_gup_force.c - FOLL_FORCE, the access ptrace and /proc/PID/mem
 * make: a write into a private VMA without VM_WRITE breaks COW and
 * takes the process's own page, while every entry stays read-only (the
 * point of Linux's selftest mkdirty.c: setting an entry dirty must not
 * make it writable). Each case runs on every folio size of
 * test_gup_cases.h and checks the invariants after every step.
 */
#include "test_gup_cases.h"

static struct page *pages[GUP_MAX_PAGES];
static uint64_t free_before;

#define FORCE_WRITE (FOLL_FORCE | FOLL_WRITE | FOLL_TOUCH)

/* Pages of [a, a+len) the process may write: each write must fault and
 * fail, so the answer is 0 when every entry stayed read-only. */
static unsigned long user_writable(struct mm *mm, unsigned long a, unsigned long len)
{
	unsigned long n = 0;

	for (unsigned long va = a; va < a + len; va += PAGE_SIZE) {
		uint8_t b = 0;

		n += mm_access(mm, va, &b, 1, true) == 0;
	}
	return n;
}

/* A read-only region shared with a fork child: the forced write gives
 * the parent its own pages, the child keeps the old ones, and nothing
 * either process maps becomes writable. With the child gone first, the
 * pages are the parent's alone but not yet AnonExclusive: the forced
 * write reuses them (cow.c's reuse), read-only still. */
TEST(forced_write_breaks_cow_and_leaves_entries_read_only)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		for (int gone = 0; gone < 2; gone++) {
			const struct gsize *g = &gsizes[s];
			struct mm *mm = mm_case_begin(&free_before), *c;
			unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;

			WHERE("%s%s", g->label, gone ? " child gone" : "");
			c = mm_fork(mm, NULL);
			W_CHECK(c != NULL);
			if (gone) {
				mm_put(c);
				c = NULL;
			}
			W_CHECK_EQ(mm_mprotect(mm, a, len, VM_READ), 0);
			W_CHECK_EQ(get_user_pages(mm, a, n, FORCE_WRITE, pages), n);
			W_CHECK(pages_are_mapped(mm, pages, n, a));
			W_CHECK(!c || folio_at(c, a) != page_folio(pages[0]));
			W_CHECK_EQ(page_bits(mm, a, 32, true), 0xffffffffu); /* AnonExclusive */
			W_CHECK_EQ(page_bits(mm, a, 32, false), 0);	     /* none writable */
			stamp_pinned(pages, n, a, 2);
			put_user_pages(pages, n);
			W_CHECK_MM_OK();
			W_CHECK_EQ(stamp_mismatches(mm, a, len, 2), 0);
			W_CHECK(!c || stamp_mismatches(c, a, len, 1) == 0);
			W_CHECK_EQ(user_writable(mm, a, len), 0);
			if (c)
				mm_put(c);
			W_CHECK_EQ(gup_refs_left(mm, a, len), 0);
			mm_case_end(mm, free_before);
		}
	}
}

/* Untouched pages of a read-only VMA: the forced write faults them in,
 * exclusive and read-only; the write reaches the process. */
TEST(forced_write_faults_in_read_only_pages)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = mm_case_begin(&free_before);
		unsigned long len = gsize_len(g), n = len >> PAGE_SHIFT;
		unsigned long a =
			test_mmap(mm, len, VM_READ | (g->pmd ? 0 : VM_NOHUGEPMD), ORDERS(g->order));

		WHERE("%s", g->label);
		W_CHECK_EQ(get_user_pages(mm, a, n, FORCE_WRITE, pages), n);
		W_CHECK(pages_are_mapped(mm, pages, n, a));
		W_CHECK_EQ(page_bits(mm, a, 32, false), 0);
		stamp_pinned(pages, n, a, 3);
		put_user_pages(pages, n);
		W_CHECK_MM_OK();
		W_CHECK_EQ(stamp_mismatches(mm, a, len, 3), 0);
		W_CHECK_EQ(user_writable(mm, a, len), 0);
		mm_case_end(mm, free_before);
	}
}

/* Without FOLL_FORCE a read-only VMA refuses the write; with it, a VMA
 * without any access still refuses (ptelab's difference from Linux). */
TEST(force_is_needed_and_prot_none_refuses)
{
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long ro = test_mmap(mm, 64 * PAGE_SIZE, VM_READ, ORDERS(0));
	unsigned long none = test_mmap(mm, 64 * PAGE_SIZE, 0, ORDERS(0));

	CHECK_EQ(get_user_pages(mm, ro, 4, FOLL_WRITE, pages), -EFAULT);
	CHECK_EQ(get_user_pages(mm, none, 4, FORCE_WRITE, pages), -EFAULT);
	CHECK_EQ(get_user_pages(mm, none, 4, FOLL_FORCE, pages), -EFAULT);
	CHECK_EQ(get_user_pages(mm, ro, 4, FOLL_FORCE, pages), 4);
	put_user_pages(pages, 4);
	CHECK_MM_OK();
	mm_case_end(mm, free_before);
}

TEST_SUITE(gup_force, forced_write_breaks_cow_and_leaves_entries_read_only,
	   forced_write_faults_in_read_only_pages, force_is_needed_and_prot_none_refuses);
