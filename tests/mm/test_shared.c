/*
 * test_shared.c - shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS,
 * mm/shmem.h) through mm/'s API: a fork child and its parent see each
 * other's writes, an unmap in one leaves the other's data, the object and
 * its pages go with the last mapping, splits, mprotect, mremap and
 * MADV_DONTNEED keep object and offset, and a MOVE_ALL migration moves
 * every mapping of a shared page. The checker runs after every step and
 * every case ends with every page free again.
 */
#include "madvise.h"
#include "migrate_cases.h"
#include "shmem.h"
#include "smp.h"

#define SH_PAGES 8
#define SHARED_RW (VM_READ | VM_WRITE | VM_SHARED)

static unsigned long sh_map(struct mm *mm, unsigned long pages)
{
	return test_mmap(mm, pages * PAGE_SIZE, SHARED_RW, 1);
}

/* Does every page of [a, +pages) map the same folio in @m1 and @m2? */
static unsigned long same_folios(struct mm *m1, struct mm *m2, unsigned long a, unsigned long pages)
{
	unsigned long same = 0;

	for (unsigned long i = 0; i < pages; i++) {
		struct folio *f = folio_at(m1, a + i * PAGE_SIZE);

		same += f && f == folio_at(m2, a + i * PAGE_SIZE);
	}
	return same;
}

TEST(shared_fork_sees_writes_both_ways)
{
	struct mm *mm = mm_case_begin(&free_before), *child;
	unsigned long a = sh_map(mm, SH_PAGES);

	fill(mm, a, SH_PAGES, 1);
	child = mm_fork(mm, NULL);
	CHECK(child != NULL);
	CHECK_MM_OK();
	CHECK_EQ(bad_bytes(child, a, SH_PAGES, 1), 0);
	CHECK_EQ(same_folios(mm, child, a, SH_PAGES), SH_PAGES);
	fill(child, a, SH_PAGES, 2); /* no copy on write: the parent sees it */
	CHECK_EQ(same_folios(mm, child, a, SH_PAGES), SH_PAGES);
	CHECK_EQ(bad_bytes(mm, a, SH_PAGES, 2), 0);
	fill(mm, a, SH_PAGES, 3);
	CHECK_EQ(bad_bytes(child, a, SH_PAGES, 3), 0);
	CHECK(!PageAnonExclusive(&folio_at(mm, a)->page));
	CHECK_MM_OK();
	mm_put(child);
	CHECK_EQ(bad_bytes(mm, a, SH_PAGES, 3), 0);
	mm_case_end(mm, free_before);
}

/* A page first touched in the child after the fork is shared too. */
TEST(shared_fault_after_fork_is_shared)
{
	struct mm *mm = mm_case_begin(&free_before), *child;
	unsigned long a = sh_map(mm, SH_PAGES);

	child = mm_fork(mm, NULL);
	CHECK(child != NULL);
	fill(child, a, SH_PAGES, 4);
	CHECK_EQ(bad_bytes(mm, a, SH_PAGES, 4), 0);
	CHECK_EQ(same_folios(mm, child, a, SH_PAGES), SH_PAGES);
	CHECK_MM_OK();
	mm_put(child);
	mm_case_end(mm, free_before);
}

TEST(shared_munmap_in_one_keeps_the_others_data)
{
	struct mm *mm = mm_case_begin(&free_before), *child;
	unsigned long a = sh_map(mm, SH_PAGES);

	fill(mm, a, SH_PAGES, 5);
	child = mm_fork(mm, NULL);
	CHECK(child != NULL);
	CHECK_EQ(mm_munmap(mm, a, SH_PAGES * PAGE_SIZE), 0);
	CHECK_MM_OK();
	CHECK_EQ(bad_bytes(child, a, SH_PAGES, 5), 0);
	fill(child, a, SH_PAGES, 6);
	CHECK_EQ(bad_bytes(child, a, SH_PAGES, 6), 0);
	CHECK_MM_OK();
	mm_put(child); /* the last mapping: the object and its pages go */
	CHECK_MM_OK();
	CHECK_EQ(total_free_pages(), free_before - mm->nr_pt_pages - 1);
	mm_case_end(mm, free_before);
}

TEST(shared_object_freed_with_its_last_mapping)
{
	struct mm *mm = mm_case_begin(&free_before);
	uint64_t free0 = total_free_pages();
	unsigned long a = sh_map(mm, SH_PAGES);

	fill(mm, a, SH_PAGES, 7);
	CHECK_EQ(mm_munmap(mm, a + PAGE_SIZE, 2 * PAGE_SIZE), 0); /* a hole: two VMAs */
	CHECK_MM_OK();
	CHECK_EQ(bad_bytes_at(mm, a + 3 * PAGE_SIZE, 3, SH_PAGES - 3, 7), 0);
	CHECK_EQ(bad_bytes(mm, a, 1, 7), 0);
	CHECK_EQ(mm_munmap(mm, a, SH_PAGES * PAGE_SIZE), 0);
	CHECK_MM_OK();
	CHECK_EQ(total_free_pages() + mm->nr_pt_pages, free0);
	mm_case_end(mm, free_before);
}

/* MADV_DONTNEED unmaps only: the object keeps the data. MADV_FREE is
 * refused, MADV_PAGEOUT leaves the pages. */
TEST(shared_madvise_keeps_the_object)
{
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long a = sh_map(mm, SH_PAGES);

	fill(mm, a, SH_PAGES, 8);
	CHECK_EQ(mm_madvise(mm, a, SH_PAGES * PAGE_SIZE, MADV_DONTNEED), 0);
	CHECK(folio_at(mm, a) == NULL);
	CHECK_MM_OK();
	CHECK_EQ(bad_bytes(mm, a, SH_PAGES, 8), 0);
	CHECK_EQ(mm_madvise(mm, a, SH_PAGES * PAGE_SIZE, MADV_FREE), -EINVAL);
	CHECK_EQ(mm_madvise(mm, a, SH_PAGES * PAGE_SIZE, MADV_PAGEOUT), 0);
	CHECK_EQ(off_node(mm, a, SH_PAGES, folio_at(mm, a)->page.node), 0);
	CHECK_EQ(bad_bytes(mm, a, SH_PAGES, 8), 0);
	mm_case_end(mm, free_before);
}

/* mprotect splits and joins the VMA, mremap moves it: object and offset
 * stay, and the fork child still shares every page. */
TEST(shared_mprotect_mremap_keep_object_and_offset)
{
	struct mm *mm = mm_case_begin(&free_before), *child;
	unsigned long a = sh_map(mm, SH_PAGES), b;
	unsigned char x = 0x5a;

	fill(mm, a, SH_PAGES, 9);
	child = mm_fork(mm, NULL);
	CHECK(child != NULL);
	CHECK_EQ(mm_mprotect(mm, a + 2 * PAGE_SIZE, PAGE_SIZE, VM_READ), 0);
	CHECK_EQ(mm_access(mm, a + 2 * PAGE_SIZE, &x, 1, true), -EFAULT);
	CHECK_MM_OK();
	CHECK_EQ(mm_mprotect(mm, a + 2 * PAGE_SIZE, PAGE_SIZE, VM_READ | VM_WRITE), 0);
	CHECK(find_vma(mm, a)->end == a + SH_PAGES * PAGE_SIZE); /* joined again */
	CHECK_EQ(bad_bytes(mm, a, SH_PAGES, 9), 0);
	b = (unsigned long)mm_mremap(mm, a + 4 * PAGE_SIZE, 4 * PAGE_SIZE, 4 * PAGE_SIZE,
				     MREMAP_MAYMOVE | MREMAP_FIXED, a + 64 * PAGE_SIZE);
	CHECK_EQ(b, a + 64 * PAGE_SIZE);
	CHECK_MM_OK();
	CHECK_EQ(bad_bytes_at(mm, b, 4, 4, 9), 0);
	fill(child, a, SH_PAGES, 10); /* the moved pages are still the child's */
	CHECK_EQ(bad_bytes_at(mm, b, 4, 4, 10), 0);
	CHECK_EQ(bad_bytes(mm, a, 4, 10), 0);
	CHECK_MM_OK();
	mm_put(child);
	mm_case_end(mm, free_before);
}

/* A shared page mapped in three mms: MPOL_MF_MOVE leaves it (-EACCES),
 * MOVE_ALL moves every mapping to one new page, and the data and the
 * sharing survive. */
TEST(shared_migrate_move_all_moves_every_mapping)
{
	struct mm *mm, *c1, *c2;
	unsigned long a, addrs[SH_PAGES];
	int nodes[SH_PAGES], status[SH_PAGES];

	NEED_TWO_NODES();
	mm = mm_case_begin(&free_before);
	a = sh_map(mm, SH_PAGES);
	fill(mm, a, SH_PAGES, 11);
	c1 = mm_fork(mm, NULL);
	c2 = mm_fork(mm, NULL);
	CHECK(c1 && c2);
	CHECK_EQ(bad_bytes(c1, a, SH_PAGES, 11), 0); /* faults them in */
	CHECK_EQ(bad_bytes(c2, a, SH_PAGES, 11), 0);
	CHECK_EQ(off_node(mm, a, SH_PAGES, 0), 0);
	for (int i = 0; i < SH_PAGES; i++) {
		addrs[i] = a + (unsigned long)i * PAGE_SIZE;
		nodes[i] = 1;
	}
	CHECK_EQ(move_pages(mm, SH_PAGES, addrs, nodes, status, MPOL_MF_MOVE), 0);
	CHECK_EQ(status[0], -EACCES);
	CHECK_EQ(off_node(mm, a, SH_PAGES, 0), 0);
	CHECK_EQ(move_pages(mm, SH_PAGES, addrs, nodes, status, MPOL_MF_MOVE_ALL), 0);
	CHECK_EQ(status[0], 1);
	CHECK_MM_OK();
	CHECK_EQ(off_node(mm, a, SH_PAGES, 1), 0);
	CHECK_EQ(off_node(c1, a, SH_PAGES, 1), 0);
	CHECK_EQ(off_node(c2, a, SH_PAGES, 1), 0);
	CHECK_EQ(same_folios(mm, c1, a, SH_PAGES), SH_PAGES);
	CHECK_EQ(same_folios(mm, c2, a, SH_PAGES), SH_PAGES);
	CHECK_EQ(bad_bytes(c2, a, SH_PAGES, 11), 0);
	fill(c1, a, SH_PAGES, 12);
	CHECK_EQ(bad_bytes(mm, a, SH_PAGES, 12), 0);
	CHECK_EQ(bad_bytes(c2, a, SH_PAGES, 12), 0);
	CHECK_MM_OK();
	mm_put(c1);
	mm_put(c2);
	mm_case_end(mm, free_before);
}

/* A page mapped once (before any fork) moves with MPOL_MF_MOVE; a child
 * that maps it after the move finds the new page. */
TEST(shared_migrate_single_mapping_then_fork)
{
	struct mm *mm, *child;
	unsigned long a, addr;
	int node = 1, status = -1;

	NEED_TWO_NODES();
	mm = mm_case_begin(&free_before);
	a = sh_map(mm, SH_PAGES);
	fill(mm, a, SH_PAGES, 13);
	addr = a;
	CHECK_EQ(move_pages(mm, 1, &addr, &node, &status, MPOL_MF_MOVE), 0);
	CHECK_EQ(status, 1);
	child = mm_fork(mm, NULL);
	CHECK(child != NULL);
	CHECK_EQ(bad_bytes(child, a, SH_PAGES, 13), 0);
	CHECK_EQ(node_of(child, a), 1);
	CHECK_EQ(same_folios(mm, child, a, SH_PAGES), SH_PAGES);
	CHECK_MM_OK();
	mm_put(child);
	mm_case_end(mm, free_before);
}

/* The checker sees a shared VMA whose entry maps another page than the
 * object's at that offset. */
TEST(shared_checker_catches_a_wrong_page)
{
	struct mm *mm = mm_case_begin(&free_before);
	unsigned long a = sh_map(mm, 2);
	struct folio *f0, *f1;

	fill(mm, a, 2, 14);
	f0 = folio_at(mm, a);
	f1 = folio_at(mm, a + PAGE_SIZE);
	find_vma(mm, a)->shm->pages[0] = f1; /* break it, then mend it */
	find_vma(mm, a)->shm->pages[1] = f0;
	CHECK(mm_check(NULL) >= 2);
	find_vma(mm, a)->shm->pages[0] = f0;
	find_vma(mm, a)->shm->pages[1] = f1;
	mm_case_end(mm, free_before);
}

/* A FOLL_PIN of a shared page (before the fork and after it): the pin
 * and both mms see one page; a migration refuses the pinned page
 * (-EBUSY); after the unpin it moves. */
TEST(shared_pin_sees_every_write_and_blocks_migration)
{
	struct mm *mm, *child;
	struct page *page = NULL;
	unsigned long a;
	int node = 1, status = 0;

	NEED_TWO_NODES();
	mm = mm_case_begin(&free_before);
	a = sh_map(mm, 1);
	fill(mm, a, 1, 16);
	CHECK_EQ(pin_user_pages(mm, a, 1, FOLL_WRITE | FOLL_LONGTERM, &page), 1);
	child = mm_fork(mm, NULL);
	CHECK(child != NULL);
	CHECK_MM_OK();
	fill(child, a, 1, 17);
	CHECK(page && page_folio(page) == folio_at(mm, a) && folio_at(child, a) == folio_at(mm, a));
	CHECK_EQ(*(unsigned char *)page_address(page), pattern(0, 17));
	CHECK_EQ(move_pages(mm, 1, &a, &node, &status, MPOL_MF_MOVE_ALL), 1);
	CHECK_EQ(status, -EBUSY);
	unpin_user_pages(&page, 1);
	CHECK_EQ(move_pages(mm, 1, &a, &node, &status, MPOL_MF_MOVE_ALL), 0);
	CHECK_EQ(status, 1);
	CHECK_EQ(bad_bytes(child, a, 1, 17), 0);
	CHECK_MM_OK();
	mm_put(child);
	mm_case_end(mm, free_before);
}

TEST_SUITE(shared, shared_fork_sees_writes_both_ways, shared_fault_after_fork_is_shared,
	   shared_munmap_in_one_keeps_the_others_data, shared_object_freed_with_its_last_mapping,
	   shared_madvise_keeps_the_object, shared_mprotect_mremap_keep_object_and_offset,
	   shared_migrate_move_all_moves_every_mapping, shared_migrate_single_mapping_then_fork,
	   shared_checker_catches_a_wrong_page, shared_pin_sees_every_write_and_blocks_migration)

/*
 * A fault that finds a shared page while a migration holds it: CPU 0
 * moves the page (MOVE_ALL, from the parent); inside its window after the
 * unmap (migrate_unmapped_hook) CPU 1 reads it in the fork child, which
 * has no entry for it yet, and CPU 0 waits 50 ms for that read. The
 * fault must wait until the page has moved (it is PG_locked): mapping
 * the old page then would leave a reference the freeze finds (-EBUSY),
 * or a mapping the migration does not know. Afterwards the child maps
 * the new page, on node 1, as the parent does.
 */
#define RACE_WINDOW_NS 50000000ull

struct fault_race {
	struct mm *parent, *child;
	unsigned long a;
	unsigned window, done, done_inside;
	int status;
	unsigned char byte;
};

static struct fault_race *race_now;

static void race_window(void)
{
	struct fault_race *r = race_now;
	uint64_t t0 = time_ns();

	__atomic_store_n(&r->window, 1, __ATOMIC_RELEASE);
	while (time_ns() - t0 < RACE_WINDOW_NS) {
		if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
			r->done_inside = 1;
			return;
		}
		arch_cpu_relax();
	}
}

static void race_cpu(unsigned cpu, void *arg)
{
	struct fault_race *r = arg;
	int node = 1;

	if (cpu == 0) {
		move_pages(r->parent, 1, &r->a, &node, &r->status, MPOL_MF_MOVE_ALL);
		__atomic_store_n(&r->window, 2, __ATOMIC_RELEASE);
		return;
	}
	if (cpu != 1)
		return;
	while (!__atomic_load_n(&r->window, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	mm_access(r->child, r->a, &r->byte, 1, false);
	switch_mm(NULL); /* the child may go on CPU 0 */
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

TEST(shared_fault_waits_for_migration)
{
	struct fault_race r = { .status = -1 };

	NEED_TWO_NODES();
	if (smp_nr_cpus() < 2)
		SKIP_CASE("needs two CPUs (MM_TEST_CPUS=4)");
	r.parent = mm_case_begin(&free_before);
	r.a = sh_map(r.parent, 1);
	fill(r.parent, r.a, 1, 15);
	r.child = mm_fork(r.parent, NULL);
	CHECK(r.child != NULL);
	CHECK(folio_at(r.child, r.a) == NULL);
	race_now = &r;
	migrate_unmapped_hook = race_window;
	smp_run(2, race_cpu, &r);
	migrate_unmapped_hook = NULL;
	printf("    the child's fault: %s\n", r.done_inside
						      ? "COMPLETED INSIDE the migration's window"
						      : "waited until the page moved");
	CHECK_EQ(r.done_inside, 0);
	CHECK_EQ(r.status, 1);
	CHECK_EQ(r.byte, pattern(0, 15));
	CHECK_EQ(node_of(r.child, r.a), 1);
	CHECK(folio_at(r.child, r.a) == folio_at(r.parent, r.a));
	CHECK_MM_OK();
	mm_put(r.child);
	mm_case_end(r.parent, free_before);
}

TEST_SUITE(shared_race, shared_fault_waits_for_migration)
