/*
 * migrate_cases.h - helpers shared by the migration test files: nodes of
 * pages, recognisable bytes, a case per cap setting.
 */
#ifndef TESTS_MIGRATE_CASES_H
#define TESTS_MIGRATE_CASES_H

#include "gup.h"
#include "mempolicy.h"
#include "migrate.h"
#include "mm_cases.h"

#define N0 (1ul << 0)
#define N1 (1ul << 1)
#define N2 (1ul << 2)

static uint64_t free_before;

/* The node index of the page at @a (-1: none), as get_mempolicy says. */
static inline int node_of(struct mm *mm, unsigned long a)
{
	int nid = -1;

	return get_mempolicy(mm, &nid, NULL, a, MPOL_F_NODE | MPOL_F_ADDR) ? -1 : nid;
}

static inline unsigned char pattern(unsigned long i, unsigned seed)
{
	return (unsigned char)(i * 7 + seed * 13 + 1);
}

/* Write one recognisable byte (and a second at the page's end) per page. */
static inline void fill(struct mm *mm, unsigned long a, unsigned long pages, unsigned seed)
{
	for (unsigned long i = 0; i < pages; i++) {
		unsigned char b = pattern(i, seed);

		CHECK_EQ(mm_access(mm, a + i * PAGE_SIZE, &b, 1, true), 0);
		CHECK_EQ(mm_access(mm, a + i * PAGE_SIZE + PAGE_SIZE - 1, &b, 1, true), 0);
	}
}

/* Pages of [a, +pages) whose bytes are not what fill() wrote there when
 * @a was page @i0 of the filled range (read through the MMU). */
static inline unsigned long bad_bytes_at(struct mm *mm, unsigned long a, unsigned long i0,
					 unsigned long pages, unsigned seed)
{
	unsigned long bad = 0;

	for (unsigned long i = i0; i < i0 + pages; i++) {
		unsigned char x = 0, y = 0;

		mm_access(mm, a + (i - i0) * PAGE_SIZE, &x, 1, false);
		mm_access(mm, a + (i - i0) * PAGE_SIZE + PAGE_SIZE - 1, &y, 1, false);
		bad += x != pattern(i, seed) || y != pattern(i, seed);
	}
	return bad;
}

static inline unsigned long bad_bytes(struct mm *mm, unsigned long a, unsigned long pages,
				      unsigned seed)
{
	return bad_bytes_at(mm, a, 0, pages, seed);
}

/* Pages of [a, +pages) not on node @nid (read from the tables). */
static inline unsigned long off_node(struct mm *mm, unsigned long a, unsigned long pages, int nid)
{
	unsigned long n = 0;

	for (unsigned long i = 0; i < pages; i++) {
		struct folio *f = folio_at(mm, a + i * PAGE_SIZE);

		n += !f || f->page.node != nid;
	}
	return n;
}

/* Every case needs a second node; with one (--nodes 1) it is skipped. */
#define NEED_TWO_NODES()                                                                           \
	do {                                                                                       \
		if (nr_pglists < 2) {                                                              \
			SKIP_CASE("needs two nodes (--nodes 2)");                                  \
		}                                                                                  \
	} while (0)

/* The same with three (the host runner has three). */
#define NEED_THREE_NODES()                                                                         \
	do {                                                                                       \
		if (nr_pglists < 3) {                                                              \
			SKIP_CASE("needs three nodes (--nodes 3)");                                \
		}                                                                                  \
	} while (0)

/* Each variant: every cap at 1, then at max. */
#define FOR_BOTH_CAPS(b) for (int b = 0; b < 2; b++)

static inline struct mm *begin(int batched)
{
	struct mm *mm = mm_case_begin(&free_before);

	caps_set_all(batched);
	return mm;
}

#endif
