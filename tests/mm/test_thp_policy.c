/*
 * test_thp_policy.c - the system THP settings (mm/thp_policy.h) decide
 * the folio orders of faults in VM_THP_SYSTEM VMAs, as Linux's
 * /sys/kernel/mm/transparent_hugepage/ does: "always" everywhere,
 * "madvise" only under MADV_HUGEPAGE, "inherit" the top-level mode, and
 * nothing large under MADV_NOHUGEPAGE; other VMAs keep their own orders.
 * Each case puts the defaults back.
 */
#include "madvise.h"
#include "mm_cases.h"
#include "thp_policy.h"

#define LEN (4ul << 20)

/* Linux 6.12's defaults as Debian ships them. */
static void thp_defaults(void)
{
	CHECK_EQ(thp_set_mode(0, THP_ALWAYS), 0);
	for (unsigned o = THP_MIN_ORDER; o <= PMD_ORDER; o++)
		CHECK_EQ(thp_set_mode(o, o == PMD_ORDER ? THP_INHERIT : THP_NEVER), 0);
}

/* Fault in the first page of a new 4 MiB user mapping (2 MiB aligned)
 * after @advice (-1: none). Return: its folio's order, PMD_ORDER + 1 for
 * a PMD-mapped folio (so that the two 2 MiB cases differ), -1 for none. */
static int first_fault_order(int advice)
{
	uint64_t free_before;
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long a = test_mmap(mm, LEN, RW | VM_THP_SYSTEM, ORDERS(PMD_ORDER));
	struct folio *f;
	bool by_pmd = false;
	pte_t pte;
	int order = -1;

	if (advice >= 0)
		CHECK_EQ(mm_madvise(mm, a, LEN, advice), 0);
	CHECK_EQ(mm_touch(mm, a, PAGE_SIZE, true), 0);
	f = folio_at(mm, a);
	if (f && page_at(mm, a, &by_pmd, &pte))
		order = (int)folio_order(f) + by_pmd;
	CHECK_MM_OK();
	mm_case_end(mm, free_before);
	return order;
}

TEST(defaults_give_pmd_folios_and_nohugepage_none)
{
	thp_defaults();
	CHECK_EQ(first_fault_order(-1), PMD_ORDER + 1);
	CHECK_EQ(first_fault_order(MADV_HUGEPAGE), PMD_ORDER + 1);
	CHECK_EQ(first_fault_order(MADV_NOHUGEPAGE), 0);
}

TEST(per_order_always_and_never)
{
	thp_defaults();
	CHECK_EQ(thp_set_mode(PMD_ORDER, THP_NEVER), 0);
	CHECK_EQ(thp_set_mode(4, THP_ALWAYS), 0);
	CHECK_EQ(first_fault_order(-1), 4);
	CHECK_EQ(first_fault_order(MADV_NOHUGEPAGE), 0);
	CHECK_EQ(thp_set_mode(4, THP_NEVER), 0);
	CHECK_EQ(first_fault_order(-1), 0);
	thp_defaults();
}

TEST(madvise_mode_needs_madv_hugepage)
{
	thp_defaults();
	CHECK_EQ(thp_set_mode(0, THP_MADVISE), 0); /* the PMD order inherits it */
	CHECK_EQ(thp_set_mode(4, THP_MADVISE), 0);
	CHECK_EQ(first_fault_order(-1), 0);
	CHECK_EQ(first_fault_order(MADV_HUGEPAGE), PMD_ORDER + 1);
	CHECK_EQ(thp_set_mode(PMD_ORDER, THP_NEVER), 0);
	CHECK_EQ(first_fault_order(MADV_HUGEPAGE), 4);
	thp_defaults();
}

/* A VMA without VM_THP_SYSTEM keeps the orders it was made with. */
TEST(other_vmas_keep_their_orders)
{
	uint64_t free_before;
	struct mm *mm;
	unsigned long a;

	thp_defaults();
	CHECK_EQ(thp_set_mode(0, THP_NEVER), 0);
	mm = mm_case_begin(&free_before);
	a = test_mmap(mm, LEN, RW, ORDERS(4));
	CHECK_EQ(mm_touch(mm, a, PAGE_SIZE, true), 0);
	CHECK_EQ(folio_order(folio_at(mm, a)), 4);
	mm_case_end(mm, free_before);
	thp_defaults();
}

TEST(bad_settings_are_refused)
{
	CHECK_EQ(thp_set_mode(0, THP_INHERIT), -EINVAL);
	CHECK_EQ(thp_set_mode(1, THP_ALWAYS), -EINVAL);
	CHECK_EQ(thp_set_mode(PMD_ORDER + 1, THP_ALWAYS), -EINVAL);
	CHECK_EQ(thp_get_mode(0), THP_ALWAYS);
}

TEST_SUITE(thp_policy, defaults_give_pmd_folios_and_nohugepage_none, per_order_always_and_never,
	   madvise_mode_needs_madv_hugepage, other_vmas_keep_their_orders,
	   bad_settings_are_refused);
