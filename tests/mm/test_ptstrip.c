/*
 * test_ptstrip.c - the PTE strip (mm_ptstrip_to(), mm/ptdump.c): one
 * character per entry, the folio letters, the exclusive row, a PMD leaf
 * as one line.
 */
#include <string.h>

#include "mm_cases.h"

#define STRIP_LINES 32

static char strip_lines[STRIP_LINES][200];
static unsigned strip_nr;

static void strip_capture(void *ctx, const char *line)
{
	(void)ctx;
	if (strip_nr < STRIP_LINES)
		snprintf(strip_lines[strip_nr], sizeof(strip_lines[0]), "%s", line);
	strip_nr++;
}

/* Is there a captured line that ends with @tail? */
static bool strip_has(const char *tail)
{
	size_t n = strlen(tail);

	for (unsigned i = 0; i < strip_nr && i < STRIP_LINES; i++) {
		size_t l = strlen(strip_lines[i]);

		if (l >= n && !strcmp(strip_lines[i] + l - n, tail))
			return true;
	}
	return false;
}

/* Two 64K folios, the middle 8 pages made read-only, a hole of one page
 * unmapped: the strip shows W, R and '.' where they are, two folio
 * letters, and the exclusive row. */
TEST(strip_shows_state_folios_and_holes)
{
	uint64_t free0;
	struct mm *mm = mm_case_begin(&free0);
	unsigned long a = test_mmap(mm, 128 << 10, RW, ORDERS(4));

	CHECK_EQ(mm_touch(mm, a, 128 << 10, true), 0);
	CHECK_EQ(mm_mprotect(mm, a + 12 * PAGE_SIZE, 8 * PAGE_SIZE, VM_READ), 0);
	CHECK_EQ(mm_munmap(mm, a + 30 * PAGE_SIZE, PAGE_SIZE), 0);
	strip_nr = 0;
	mm_ptstrip_to(mm, a, a + (128 << 10), strip_capture, NULL);
	for (unsigned i = 0; i < strip_nr && i < STRIP_LINES; i++)
		printf("    %s\n", strip_lines[i]);
	CHECK(strip_has("WWWWWWWWWWWWRRRR RRRRWWWWWWWWWW.W"));
	CHECK(strip_has("aaaaaaaaaaaaaaaa bbbbbbbbbbbbbb b"));
	CHECK(strip_has("xxxxxxxxxxxxxxxx xxxxxxxxxxxxxx x"));
	mm_case_end(mm, free0);
}

/* A PMD-mapped THP is one line, not 512 characters. */
TEST(strip_shows_a_pmd_leaf_as_one_line)
{
	uint64_t free0;
	struct mm *mm = mm_case_begin(&free0);
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER));
	char want[80];

	CHECK_EQ(mm_touch(mm, a, 1, true), 0);
	strip_nr = 0;
	mm_ptstrip_to(mm, a, a + (2 << 20), strip_capture, NULL);
	snprintf(want, sizeof(want), "%#lx  pmd leaf: a 2 MiB folio, one entry", a);
	CHECK(strip_has(want));
	CHECK_EQ(strip_nr, 2); /* the legend and the leaf */
	mm_case_end(mm, free0);
}

TEST_SUITE(ptstrip, strip_shows_state_folios_and_holes, strip_shows_a_pmd_leaf_as_one_line)
