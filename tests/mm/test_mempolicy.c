/*
 * test_mempolicy.c - where ptelab's policies and migration calls follow
 * Linux's semantics rather than a simpler rule of their own (the
 * differences that remain are listed in docs/migrate.md).
 */
#include "migrate_cases.h"

/* PREFERRED keeps the first node of its mask; an empty mask means local
 * (stored and reported as MPOL_LOCAL), where faults land on the home node. */
TEST(preferred_takes_the_first_node_or_local)
{
	NEED_TWO_NODES();
	struct mm *mm = begin(1);
	unsigned long len = 64ul << 10, a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(0));
	unsigned long nodes = 0;
	int mode = -1;

	CHECK_EQ(mbind(mm, a, len, MPOL_PREFERRED, N1 | N0, 0), 0);
	CHECK_EQ(get_mempolicy(mm, &mode, &nodes, a, MPOL_F_ADDR), 0);
	CHECK_EQ(mode, MPOL_PREFERRED);
	CHECK_EQ(nodes, N0);
	CHECK_EQ(mbind(mm, a, len, MPOL_PREFERRED, 0, 0), 0);
	CHECK_EQ(get_mempolicy(mm, &mode, &nodes, a, MPOL_F_ADDR), 0);
	CHECK_EQ(mode, MPOL_LOCAL);
	CHECK_EQ(nodes, 0);
	fill(mm, a, len >> PAGE_SHIFT, 1);
	CHECK_EQ(off_node(mm, a, len >> PAGE_SHIFT, find_vma(mm, a)->nid), 0);
	CHECK_EQ(mbind(mm, a, len, MPOL_LOCAL, N1, 0), -EINVAL);
	mm_case_end(mm, free_before);
}

/* MPOL_DEFAULT ignores MPOL_MF_STRICT and may span holes, but not a range
 * that is all hole (-EFAULT, as Linux); the other modes fail on a hole
 * with -EFAULT. */
TEST(default_ignores_strict_and_holes)
{
	NEED_TWO_NODES();
	struct mm *mm = begin(1);
	unsigned long len = 64ul << 10, a = test_mmap(mm, 3 * len, RW | VM_NOHUGEPMD, ORDERS(0));
	struct page *pin[1];

	fill(mm, a, 3 * len >> PAGE_SHIFT, 2);
	CHECK_EQ(mm_munmap(mm, a + len, len), 0);
	CHECK_EQ(mbind(mm, a, 3 * len, MPOL_BIND, N1, 0), -EFAULT);
	CHECK_EQ(mbind(mm, a + len, len, MPOL_DEFAULT, 0, MPOL_MF_STRICT | MPOL_MF_MOVE), -EFAULT);
	CHECK_EQ(mbind(mm, a, len, MPOL_BIND, N1, MPOL_MF_MOVE), 0);
	CHECK_EQ(off_node(mm, a, len >> PAGE_SHIFT, 1), 0);
	CHECK_EQ(pin_user_pages(mm, a, 1, FOLL_LONGTERM, pin), 1);
	CHECK_EQ(mbind(mm, a, 3 * len, MPOL_DEFAULT, 0, MPOL_MF_MOVE | MPOL_MF_STRICT), 0);
	CHECK_EQ(find_vma(mm, a)->pol.mode, MPOL_DEFAULT);
	CHECK_EQ(node_of(mm, a), 1); /* pinned: stays, and STRICT says nothing */
	CHECK_EQ(off_node(mm, a + PAGE_SIZE, (len >> PAGE_SHIFT) - 1, 0), 0);
	unpin_user_pages(pin, 1);
	mm_case_end(mm, free_before);
}

/* move_pages to a node that does not exist: -ENODEV, as Linux. */
TEST(move_pages_to_a_missing_node_is_enodev)
{
	struct mm *mm = begin(1);
	unsigned long a = test_mmap(mm, 2 * PAGE_SIZE, RW, ORDERS(0));
	unsigned long addrs[2] = { a, a + PAGE_SIZE };
	int nodes[2] = { 0, nr_pglists }, status[2] = { 7, 7 };

	fill(mm, a, 2, 3);
	CHECK_EQ(move_pages(mm, 2, addrs, nodes, status, MPOL_MF_MOVE), -ENODEV);
	CHECK_EQ(status[0], 0);
	nodes[0] = -1;
	CHECK_EQ(move_pages(mm, 1, addrs, nodes, status, MPOL_MF_MOVE), -ENODEV);
	mm_case_end(mm, free_before);
}

/* The private copy a pinned page gets at fork is allocated by the VMA's
 * policy, as the child's own fault would be (BIND to node 1 here, while
 * the VMA's home is node 0). */
TEST(fork_copy_of_a_pinned_page_follows_the_policy)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b)
		for (int pmd = 0; pmd < 2; pmd++) {
			struct mm *mm = begin(b), *child;
			unsigned long len = 2ul << 20;
			unsigned long a = test_mmap(mm, len, RW | (pmd ? 0 : VM_NOHUGEPMD),
						    ORDERS(pmd ? PMD_ORDER : 0));
			struct page *pin[1];

			CHECK_EQ(mbind(mm, a, len, MPOL_BIND, N1, 0), 0);
			fill(mm, a, len >> PAGE_SHIFT, 4);
			CHECK_EQ(find_vma(mm, a)->nid, 0);
			CHECK_EQ(pin_user_pages(mm, a, 1, FOLL_WRITE | FOLL_LONGTERM, pin), 1);
			child = mm_fork(mm, NULL);
			CHECK(child != NULL);
			CHECK(folio_at(child, a) != folio_at(mm, a));
			CHECK_EQ(node_of(child, a), 1);
			CHECK_EQ(bad_bytes(child, a, 1, 4), 0);
			unpin_user_pages(pin, 1);
			mm_put(child);
			mm_case_end(mm, free_before);
		}
}

/* A 64K folio that a parent maps the first half of and its child the
 * other half: no page is mapped twice, yet two mms map the folio, so
 * MPOL_MF_MOVE leaves it (Linux's folio_maybe_mapped_shared() says so);
 * MOVE_ALL moves it for both. */
TEST(folio_split_between_parent_and_child_is_shared)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b), *child;
		unsigned long len = 64ul << 10, h = len / 2, a;
		unsigned long addr[1];
		int node[1] = { 1 }, status[1] = { 0 };

		a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(4));
		fill(mm, a, len >> PAGE_SHIFT, 5);
		child = mm_fork(mm, NULL);
		CHECK(child != NULL);
		CHECK_EQ(mm_munmap(mm, a + h, h), 0);
		CHECK_EQ(mm_munmap(child, a, h), 0);
		CHECK_EQ(folio_at(mm, a), folio_at(child, a + h));
		/* left in place, and as in Linux not counted as failed */
		CHECK_EQ(migrate_pages(mm, N0, N1), 0);
		CHECK_EQ(migrate_pages(child, N0, N1), 0);
		CHECK_EQ(node_of(mm, a), 0);
		CHECK_EQ(node_of(child, a + h), 0);
		addr[0] = a;
		CHECK_EQ(move_pages(mm, 1, addr, node, status, MPOL_MF_MOVE), 0);
		CHECK_EQ(status[0], -EACCES);
		CHECK_EQ(mm_migrate_pages(mm, N0, N1, MPOL_MF_MOVE_ALL), 0);
		CHECK_EQ(off_node(mm, a, h >> PAGE_SHIFT, 1), 0);
		CHECK_EQ(off_node(child, a + h, h >> PAGE_SHIFT, 1), 0);
		CHECK_EQ(folio_at(mm, a), folio_at(child, a + h));
		CHECK_EQ(bad_bytes(mm, a, h >> PAGE_SHIFT, 5), 0);
		CHECK_EQ(bad_bytes_at(child, a + h, h >> PAGE_SHIFT, h >> PAGE_SHIFT, 5), 0);
		mm_put(child);
		mm_case_end(mm, free_before);
	}
}

/* migrate_pages with masks of different weights: a source node that is
 * also a target keeps its pages (Linux's "[0-7] -> [3,4,5] moves only
 * 0,1,2,6,7"); here {0,1,2} -> {1,2} moves only node 0's, to node 1. */
TEST(uneven_masks_leave_target_nodes_alone)
{
	NEED_THREE_NODES();
	struct mm *mm = begin(1);
	unsigned long len = 64ul << 10, pages = len >> PAGE_SHIFT, a[3];

	for (int n = 0; n < 3; n++) {
		a[n] = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(0));
		CHECK_EQ(mbind(mm, a[n], len, MPOL_BIND, 1ul << n, 0), 0);
		fill(mm, a[n], pages, (unsigned)n);
	}
	CHECK_EQ(migrate_pages(mm, N0 | N1 | N2, N1 | N2), 0);
	CHECK_EQ(off_node(mm, a[0], pages, 1), 0);
	CHECK_EQ(off_node(mm, a[1], pages, 1), 0);
	CHECK_EQ(off_node(mm, a[2], pages, 2), 0);
	CHECK_EQ(bad_bytes(mm, a[1], pages, 1), 0);
	mm_case_end(mm, free_before);
}

TEST_SUITE(mempolicy, preferred_takes_the_first_node_or_local, default_ignores_strict_and_holes,
	   move_pages_to_a_missing_node_is_enodev, fork_copy_of_a_pinned_page_follows_the_policy,
	   folio_split_between_parent_and_child_is_shared, uneven_masks_leave_target_nodes_alone)
