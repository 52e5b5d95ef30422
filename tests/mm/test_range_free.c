/*
 * test_range_free.c - mm_range_free(), MAP_FIXED_NOREPLACE's test: true
 * only when no VMA overlaps the range.
 */
#include "mm_cases.h"

static uint64_t free_before;

/* mm_range_free: true only when no VMA overlaps the range. */
TEST(range_free_sees_every_overlap)
{
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long a = test_mmap(mm, 64 << 10, RW, 1);

	CHECK(!mm_range_free(mm, a, PAGE_SIZE));
	CHECK(!mm_range_free(mm, a - PAGE_SIZE, 2 * PAGE_SIZE));
	CHECK(!mm_range_free(mm, a + (60 << 10), 8 << 10));
	CHECK(mm_range_free(mm, a + (64 << 10), PAGE_SIZE));
	CHECK(mm_range_free(mm, a - PAGE_SIZE, PAGE_SIZE));
	mm_case_end(mm, free_before);
}

TEST_SUITE(range_free, range_free_sees_every_overlap);
