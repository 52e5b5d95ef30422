/*
 * test_gup_cases.h - helpers of the GUP test files (test_gup*.c), both runners:
 * folio sizes, a region stamped page by page, what the pins see, and the
 * check that no GUP reference is left.
 */
#ifndef TESTS_TEST_GUP_CASES_H
#define TESTS_TEST_GUP_CASES_H

#include <string.h>

#include "gup.h"
#include "mm_cases.h"

/* A folio size the cases run on: order, PMD-mapped. */
struct gsize {
	const char *label;
	unsigned order;
	bool pmd;
};

static const struct gsize gsizes[] = { { "4K", 0, false },
				       { "16K", 2, false },
				       { "64K", 4, false },
				       { "2M-pte", 9, false },
				       { "2M-pmd", 9, true } };
#define NR_GSIZES (int)(sizeof(gsizes) / sizeof(gsizes[0]))

/* The cases' regions: 2 folios of 2 MiB, else 256 KiB. */
#define GUP_MAX_PAGES 1024
static inline unsigned long gsize_len(const struct gsize *g)
{
	return g->order >= PMD_ORDER ? 4ul << 20 : 256ul << 10;
}

/* Do the cases run on the host (ASan, fast) rather than in the guest?
 * Large sweeps are host-only, to keep the guest's selftest short. */
static inline bool on_host(void)
{
	return strncmp(arch_name, "host-", 5) == 0;
}

/* The sub-case a failing check belongs to. */
static char gup_where[64];
#define WHERE(...) snprintf(gup_where, sizeof(gup_where), __VA_ARGS__)
#define W_CHECK_EQ(a, b)                                                                           \
	do {                                                                                       \
		unsigned long long x_ = (unsigned long long)(a), y_ = (unsigned long long)(b);     \
		if (x_ != y_)                                                                      \
			printf("    in %s: %s\n", gup_where, #a);                                  \
		CHECK_EQ(x_, y_);                                                                  \
	} while (0)
#define W_CHECK(cond) W_CHECK_EQ(!!(cond), 1)
#define W_CHECK_MM_OK() W_CHECK_EQ(mm_check(NULL), 0)

/* The 8-byte stamp of page @va for @seed: differs from page to page, so
 * a pin on the wrong page shows. Written at both ends of the page. */
static inline uint64_t stamp(unsigned long va, unsigned seed)
{
	return (va >> PAGE_SHIFT) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 56 | seed);
}

/* Stamp every page of [a, a+len) with @seed through the MMU (as the
 * process would write). Return: 0 or mm_access()'s error. */
static inline int stamp_range(struct mm *mm, unsigned long a, unsigned long len, unsigned seed)
{
	for (unsigned long va = a; va < a + len; va += PAGE_SIZE) {
		uint64_t s = stamp(va, seed);
		int err = mm_access(mm, va, &s, 8, true);

		if (!err)
			err = mm_access(mm, va + PAGE_SIZE - 8, &s, 8, true);
		if (err)
			return err;
	}
	return 0;
}

/* Pages of [a, a+len) whose stamps (as the process reads them) are not
 * @seed's; all of them if the memory cannot be read. */
static inline unsigned long stamp_mismatches(struct mm *mm, unsigned long a, unsigned long len,
					     unsigned seed)
{
	unsigned long bad = 0;

	for (unsigned long va = a; va < a + len; va += PAGE_SIZE) {
		uint64_t x = 0, y = 0;

		if (mm_access(mm, va, &x, 8, false) ||
		    mm_access(mm, va + PAGE_SIZE - 8, &y, 8, false))
			return len >> PAGE_SHIFT;
		bad += x != stamp(va, seed) || y != stamp(va, seed);
	}
	return bad;
}

/* The same through the kernel's view of @pages, the pages of [a, ...). */
static inline unsigned long pinned_mismatches(struct page **pages, unsigned long n, unsigned long a,
					      unsigned seed)
{
	unsigned long bad = 0;

	for (unsigned long i = 0; i < n; i++) {
		const unsigned char *k = page_address(pages[i]);
		uint64_t x, y, want = stamp(a + i * PAGE_SIZE, seed);

		memcpy(&x, k, 8);
		memcpy(&y, k + PAGE_SIZE - 8, 8);
		bad += x != want || y != want;
	}
	return bad;
}

/* Write @seed's stamps through the kernel's view of @pages (as a device
 * would by DMA into pinned pages). */
static inline void stamp_pinned(struct page **pages, unsigned long n, unsigned long a,
				unsigned seed)
{
	for (unsigned long i = 0; i < n; i++) {
		unsigned char *k = page_address(pages[i]);
		uint64_t s = stamp(a + i * PAGE_SIZE, seed);

		memcpy(k, &s, 8);
		memcpy(k + PAGE_SIZE - 8, &s, 8);
	}
}

/* A new mm with one region of folios @g (PMD-mapped if g->pmd), every
 * page stamped with @seed; *@len is gsize_len(). Return: its address. */
static inline unsigned long gup_region(struct mm *mm, const struct gsize *g, unsigned long *len,
				       unsigned seed)
{
	unsigned long a;

	*len = gsize_len(g);
	a = test_mmap(mm, *len, RW | (g->pmd ? 0 : VM_NOHUGEPMD), ORDERS(g->order));
	CHECK_EQ(stamp_range(mm, a, *len, seed), 0);
	return a;
}

/* Number of pages of [a, a+len) in @mm whose folio holds a reference
 * that no mapping explains (a GUP reference or pin left over) or a
 * pincount; 0 when nothing is held. Reads the folios, not the counters. */
static inline unsigned long gup_refs_left(struct mm *mm, unsigned long a, unsigned long len)
{
	unsigned long bad = 0;

	for (unsigned long va = a; va < a + len; va += PAGE_SIZE) {
		struct folio *f = folio_at(mm, va);

		if (f && (folio_ref_count(f) != folio_mapcount(f) || folio_pincount(f)))
			bad++;
	}
	return bad;
}

/* Does pages[i] equal the page mapped at a + i pages, for every i < n? */
static inline bool pages_are_mapped(struct mm *mm, struct page **pages, unsigned long n,
				    unsigned long a)
{
	for (unsigned long i = 0; i < n; i++) {
		bool by_pmd;
		pte_t pte;

		if (page_at(mm, a + i * PAGE_SIZE, &by_pmd, &pte) != pages[i])
			return false;
	}
	return true;
}

/* Bit i: the entry for page i of [a, ...) is writable (@excl false) or
 * its page AnonExclusive (@excl true); n <= 32. */
static inline unsigned page_bits(struct mm *mm, unsigned long a, unsigned n, bool excl)
{
	unsigned bits = 0;

	for (unsigned i = 0; i < n; i++) {
		bool by_pmd;
		pte_t pte;
		struct page *p = page_at(mm, a + i * PAGE_SIZE, &by_pmd, &pte);

		if (p && (excl ? page_mapped_exclusive(p, by_pmd) : pte_write(pte)))
			bits |= 1u << i;
	}
	return bits;
}

/* Only the GUP knobs differ between the variants (the other caps stay at
 * max, so everything else the cases do is the same code). */
struct gup_variant {
	const char *label;
	bool walk;
	unsigned grab;
};

static const struct gup_variant gup_variants[] = { { "unbatched", false, 1 },
						   { "walk", true, 1 },
						   { "grab3", true, 3 },
						   { "walk+grab", true, CAP_MAX } };
#define NR_GUP_VARIANTS (int)(sizeof(gup_variants) / sizeof(gup_variants[0]))

static inline void gup_variant_apply(const struct gup_variant *v)
{
	mm_caps.gup_walk = v->walk;
	mm_caps.gup_grab = v->grab;
}

#endif
