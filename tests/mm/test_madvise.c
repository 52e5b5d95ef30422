/*
 * test_madvise.c - MADV_DONTNEED (mm_madvise_dontneed, what the madvise
 * system call runs) and MAP_FIXED_NOREPLACE's test (mm_range_free): the
 * range reads zero afterwards and the rest keeps its data; a PMD leaf the
 * range cuts is split first; a hole refuses the call and zaps nothing.
 * Every case ends with the invariant checker and a leak check.
 */
#include "mm_cases.h"

static uint64_t free_before;

static bool all_bytes(struct mm *mm, unsigned long a, unsigned long len, unsigned char v)
{
	unsigned char buf[256];

	for (unsigned long off = 0; off < len; off += sizeof(buf)) {
		if (mm_access(mm, a + off, buf, sizeof(buf), false))
			return false;
		for (size_t i = 0; i < sizeof(buf); i++)
			if (buf[i] != v)
				return false;
	}
	return true;
}

static void fill(struct mm *mm, unsigned long a, unsigned long len, unsigned char v)
{
	unsigned char buf[4096];

	memset(buf, v, sizeof(buf));
	for (unsigned long off = 0; off < len; off += sizeof(buf))
		CHECK_EQ(mm_access(mm, a + off, buf, sizeof(buf), true), 0);
}

/* The middle of a 64K-folio range reads zero after DONTNEED; the rest is kept. */
TEST(dontneed_zeroes_the_range)
{
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long a = test_mmap(mm, 256 << 10, RW, ORDERS(4));

	fill(mm, a, 256 << 10, 0xab);
	CHECK_EQ(mm_madvise_dontneed(mm, a + (48 << 10), 32 << 10), 0);
	CHECK(all_bytes(mm, a + (48 << 10), 32 << 10, 0));
	CHECK(all_bytes(mm, a, 48 << 10, 0xab));
	CHECK(all_bytes(mm, a + (80 << 10), 176 << 10, 0xab));
	CHECK(find_vma(mm, a + (60 << 10)) != NULL); /* the VMA stays */
	mm_case_end(mm, free_before);
}

/* A PMD leaf cut by the range is split; its other pages keep their data. */
TEST(dontneed_splits_a_pmd_leaf)
{
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long a = test_mmap(mm, 4 << 20, RW, ORDERS(PMD_ORDER));
	bool by_pmd = false;
	pte_t pte;

	fill(mm, a, 2 << 20, 0x5c);
	CHECK(page_at(mm, a, &by_pmd, &pte) != NULL && by_pmd);
	CHECK_EQ(mm_madvise_dontneed(mm, a + PAGE_SIZE, PAGE_SIZE), 0);
	CHECK(all_bytes(mm, a + PAGE_SIZE, PAGE_SIZE, 0));
	CHECK(all_bytes(mm, a, PAGE_SIZE, 0x5c));
	CHECK(all_bytes(mm, a + 2 * PAGE_SIZE, (2 << 20) - 2 * PAGE_SIZE, 0x5c));
	mm_case_end(mm, free_before);
}

/* A hole in the range: -ENOMEM and nothing zapped; bad ranges: -EINVAL. */
TEST(dontneed_refuses_holes)
{
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long a = test_mmap(mm, 64 << 10, RW, 1);

	fill(mm, a, 64 << 10, 0x11);
	CHECK_EQ(mm_madvise_dontneed(mm, a, 128 << 10), -ENOMEM);
	CHECK(all_bytes(mm, a, 64 << 10, 0x11));
	CHECK_EQ(mm_madvise_dontneed(mm, a + 1, PAGE_SIZE), -EINVAL);
	CHECK_EQ(mm_madvise_dontneed(mm, a, 0), -EINVAL);
	mm_case_end(mm, free_before);
}

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

TEST_SUITE(madvise, dontneed_zeroes_the_range, dontneed_splits_a_pmd_leaf, dontneed_refuses_holes,
	   range_free_sees_every_overlap);
