/*
 * test_filter.c - the test runner's FILTER (run=selftest:FILTER, the mm
 * runners' argument): parts as substrings, '-' parts leaving cases out.
 */
#include "test.h"

TEST(filter_parts_include_and_minus_parts_exclude)
{
	CHECK(test_filter_match("mm/oom_in_fault", NULL));
	CHECK(test_filter_match("mm/oom_in_fault", "mm/"));
	CHECK(!test_filter_match("mm_diff/batched", "mm/"));
	CHECK(test_filter_match("smp/stale_tlb", "mm/+smp/"));
	CHECK(test_filter_match("smp/stale_tlb", "mm/,smp/"));
	CHECK(!test_filter_match("mm/oom_in_fault", "mm/+-oom_"));
	CHECK(!test_filter_match("mm/oom_in_fault", "-oom_+mm/"));
	CHECK(test_filter_match("mm/pmd_fault", "mm/+-oom_"));
	/* minus parts alone: everything else */
	CHECK(test_filter_match("smp/stale_tlb", "-oom_"));
	CHECK(!test_filter_match("unmap/oom_in_split", "-oom_"));
	/* a bare '-' and empty parts name nothing */
	CHECK(test_filter_match("smp/stale_tlb", "-"));
	CHECK(!test_filter_match("smp/stale_tlb", "mm/++-"));
}

TEST_SUITE(filter, filter_parts_include_and_minus_parts_exclude)
