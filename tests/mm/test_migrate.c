/*
 * test_migrate.c - NUMA policies and page migration (mm/mempolicy.c,
 * mm/migrate*.c, mm/move_pages.c), in the spirit of Linux's selftests
 * mm/migration.c: every page ends on the node asked for with its bytes
 * unchanged, faults land where the policy says, pinned and shared folios
 * are handled as Linux does, the state bits of every entry survive, and
 * nothing leaks when the target runs out of memory. Each case runs with
 * every cap at 1 and at max, and checks the invariants after every step.
 */
#include "migrate_cases.h"

static const struct {
	unsigned order;
	bool pmd;
} sizes[] = { { 0, false }, { 2, false }, { 4, false }, { PMD_ORDER, false }, { PMD_ORDER, true } };

/* migrate_pages 0 -> 1 -> 0 of 4 MiB: every page moves and back, bytes,
 * folio order and PMD mapping kept, the counters exact. */
TEST(migrate_pages_moves_every_size)
{
	NEED_TWO_NODES();
	unsigned long len = 4ul << 20, pages = len >> PAGE_SHIFT;

	FOR_BOTH_CAPS(b)
		for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct mm *mm = begin(b);
			unsigned long a = test_mmap(mm, len, RW | (sizes[s].pmd ? 0 : VM_NOHUGEPMD),
						    ORDERS(sizes[s].order));
			struct mm_counters c0 = mm_counters_read(), d;
			bool pmd;
			pte_t pte;

			fill(mm, a, pages, s);
			CHECK_EQ(off_node(mm, a, pages, 0), 0);
			c0 = mm_counters_read();
			CHECK_EQ(migrate_pages(mm, N0, N1), 0);
			d = counters_since(&c0);
			CHECK_EQ(off_node(mm, a, pages, 1), 0);
			CHECK_EQ(node_of(mm, a + len - PAGE_SIZE), 1);
			CHECK_EQ(bad_bytes(mm, a, pages, s), 0);
			CHECK_EQ(d.pgmigrate_success, pages);
			CHECK_EQ(d.pgmigrate_fail, 0);
			CHECK_EQ(d.folio_copies, pages);
			CHECK_EQ(d.migrate_queued, pages >> sizes[s].order);
			CHECK_EQ(d.thp_migration_success,
				 sizes[s].order == PMD_ORDER ? pages / 512 : 0);
			CHECK_EQ(folio_order(folio_at(mm, a)), sizes[s].order);
			page_at(mm, a, &pmd, &pte);
			CHECK_EQ(pmd, sizes[s].pmd);
			CHECK_MM_OK();
			CHECK_EQ(migrate_pages(mm, N1, N0), 0);
			CHECK_EQ(off_node(mm, a, pages, 0), 0);
			CHECK_EQ(bad_bytes(mm, a, pages, s), 0);
			mm_case_end(mm, free_before);
		}
}

/* The queue with the seed's batching reads each PTE once (inside
 * folio_pte_batch) and queues each folio once; unbatched it takes the
 * "already queued?" test per PTE. Both: one descent, one lock per table. */
TEST(queue_is_one_descent_and_lock_per_table)
{
	NEED_TWO_NODES();
	unsigned long len = 4ul << 20, pages = len >> PAGE_SHIFT;

	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(4));
		struct mm_counters c0, d;
		long failed;

		mm_touch(mm, a, len, true);
		c0 = mm_counters_read();
		/* STRICT without MOVE queues nothing: the walk alone (and the
		 * two descents that look for PMD leaves at the range ends) */
		failed = mbind(mm, a, len, MPOL_BIND, N0, MPOL_MF_STRICT);
		d = counters_since(&c0);
		CHECK_EQ(failed, 0);
		CHECK_EQ(d.pt_descents, 3);
		CHECK_EQ(d.ptl_takes, 2);
		/* arm64 batched: one read per contpte block (pte_batch_hint) */
		CHECK_EQ(d.ptep_gets, b && arch_has_pte_blocks() ? pages / 16 : pages);
		c0 = mm_counters_read();
		CHECK_EQ(mbind(mm, a, len, MPOL_BIND, N1, MPOL_MF_STRICT), -EIO);
		d = counters_since(&c0);
		CHECK_EQ(d.migrate_queued, 0);
		CHECK_EQ(off_node(mm, a, pages, 0), 0);
		mm_case_end(mm, free_before);
	}
}

/* Hold every free page of node index @nid on @list (order-0 allocations
 * last, so small holes can be made by giving some back). */
static void hold_node(struct list_head *list, int nid)
{
	for (int order = MAX_ORDER; order >= 0; order--) {
		struct folio *f;

		while ((f = folio_alloc(nid, (unsigned)order, 0)))
			list_add_tail(&f->page.lru, list);
	}
}

/* With node @nid held on @list: free @n pages of it that are no buddies
 * of each other (even pfns of a block taken back as order-0 folios), so
 * the node has @n free pages and no free block above order 0. */
static void release_holes(struct list_head *list, int nid, int n)
{
	struct list_head evens;

	list_init(&evens);
	while (n > 0 && !list_empty(list)) {
		struct page *p = list_entry(list->next, struct page, lru);
		unsigned long pages = 1ul << p->order;

		list_del(&p->lru);
		folio_put((struct folio *)p);
		for (unsigned long i = 0; i < pages; i++) {
			struct folio *f = folio_alloc(nid, 0, 0);
			bool hole = !(folio_pfn(f) & 1) && n > 0;

			list_add_tail(&f->page.lru, hole ? &evens : list);
			n -= hole;
		}
	}
	mm_test_put_list(&evens);
}

/* Faults allocate by the VMA's policy: BIND, PREFERRED with fallback when
 * the node is full, INTERLEAVE round robin per folio, BIND with no room. */
TEST(faults_follow_the_policy)
{
	NEED_TWO_NODES();
	unsigned long len = 1ul << 20, pages = len >> PAGE_SHIFT;
	struct list_head held;
	struct mm *mm = begin(1);
	unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(0));
	unsigned long nodes = 0;
	int mode = -1;

	CHECK_EQ(mbind(mm, a, len, MPOL_BIND, N1, 0), 0);
	CHECK_EQ(get_mempolicy(mm, &mode, &nodes, a, MPOL_F_ADDR), 0);
	CHECK_EQ(mode, MPOL_BIND);
	CHECK_EQ(nodes, N1);
	CHECK_EQ(mm_touch(mm, a, len, true), 0);
	CHECK_EQ(off_node(mm, a, pages, 1), 0);
	CHECK_EQ(mm_munmap(mm, a, len), 0);

	a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(0));
	CHECK_EQ(mbind(mm, a, len, MPOL_INTERLEAVE, N0 | N1, 0), 0);
	CHECK_EQ(mm_touch(mm, a, len, true), 0);
	for (unsigned long i = 0; i < 8; i++)
		CHECK_EQ(node_of(mm, a + i * PAGE_SIZE), ((a >> PAGE_SHIFT) + i) % 2);
	CHECK_EQ(mm_munmap(mm, a, len), 0);

	list_init(&held);
	hold_node(&held, 1);
	a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(0));
	CHECK_EQ(mbind(mm, a, len, MPOL_PREFERRED, N1, 0), 0);
	CHECK_EQ(mm_touch(mm, a, len, true), 0);
	CHECK_EQ(off_node(mm, a, pages, 0), 0);
	CHECK_EQ(mbind(mm, a, len, MPOL_BIND, N1, 0), 0);
	CHECK_EQ(mm_munmap(mm, a, len), 0);
	a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(0));
	CHECK_EQ(mbind(mm, a, len, MPOL_BIND, N1, 0), 0);
	CHECK_EQ(mm_touch(mm, a, PAGE_SIZE, true), -ENOMEM);
	CHECK_MM_OK();
	mm_test_put_list(&held);
	CHECK_EQ(mm_touch(mm, a, len, true), 0);
	CHECK_EQ(off_node(mm, a, pages, 1), 0);
	mm_case_end(mm, free_before);
}

/* mbind MOVE of the middle of a VMA: the VMA splits at both ends, the
 * middle moves, the rest stays; errors as Linux returns them. */
TEST(mbind_move_splits_and_moves_the_range)
{
	NEED_TWO_NODES();
	unsigned long len = 2ul << 20, pages = len >> PAGE_SHIFT, q = len / 4;

	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(4));
		int nvmas = 0;

		fill(mm, a, pages, 3);
		CHECK_EQ(mbind(mm, a + q, 2 * q, MPOL_BIND, N1, MPOL_MF_MOVE | MPOL_MF_STRICT), 0);
		for (struct vma *v = mm->vmas; v; v = v->next)
			nvmas++;
		CHECK_EQ(nvmas, 3);
		CHECK_EQ(off_node(mm, a, q >> PAGE_SHIFT, 0), 0);
		CHECK_EQ(off_node(mm, a + q, 2 * q >> PAGE_SHIFT, 1), 0);
		CHECK_EQ(off_node(mm, a + 3 * q, q >> PAGE_SHIFT, 0), 0);
		CHECK_EQ(bad_bytes(mm, a, pages, 3), 0);
		CHECK_EQ(mbind(mm, a, len, MPOL_BIND, N1, MPOL_MF_STRICT), -EIO);
		CHECK_EQ(mbind(mm, a, len, MPOL_LOCAL, N1, 0), -EINVAL);
		CHECK_EQ(mbind(mm, a, len, MPOL_DEFAULT, N1, 0), -EINVAL);
		CHECK_EQ(mbind(mm, a, len, MPOL_BIND, 1ul << 7, 0), -EINVAL);
		CHECK_EQ(mbind(mm, a + len, len, MPOL_BIND, N1, 0), -EFAULT);
		CHECK_EQ(mbind(mm, a, len, MPOL_INTERLEAVE, N0 | N1, MPOL_MF_MOVE), 0);
		CHECK_EQ(bad_bytes(mm, a, pages, 3), 0);
		mm_case_end(mm, free_before);
	}
}

/* A pinned folio stays with -EBUSY, the pin keeps seeing the process's
 * writes; the rest of the range moves. */
TEST(pinned_folio_stays_busy)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b)
		for (unsigned o = 0; o <= 4; o += 4) {
			struct mm *mm = begin(b);
			unsigned long len = 64ul << 10, pages = len >> PAGE_SHIFT;
			unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(o));
			unsigned long addrs[2] = { a, a + len - PAGE_SIZE };
			int nodes[2] = { 1, 1 }, status[2] = { 0, 0 };
			struct page *pin[1];
			unsigned char x = 0x5a;

			fill(mm, a, pages, 1);
			CHECK_EQ(pin_user_pages(mm, a, 1, FOLL_WRITE | FOLL_LONGTERM, pin), 1);
			CHECK_EQ(migrate_pages(mm, N0, N1), o ? (long)pages : 1);
			CHECK_EQ(node_of(mm, a), 0);
			CHECK_EQ(move_pages(mm, 2, addrs, nodes, status, MPOL_MF_MOVE), o ? 2 : 1);
			CHECK_EQ(status[0], -EBUSY);
			CHECK_EQ(status[1], o ? -EBUSY : 1);
			CHECK_EQ(mm_access(mm, a + 5, &x, 1, true), 0);
			CHECK_EQ(((unsigned char *)page_address(pin[0]))[5], 0x5a);
			CHECK_EQ(page_folio(pin[0]), folio_at(mm, a));
			CHECK_MM_OK();
			unpin_user_pages(pin, 1);
			CHECK_EQ(migrate_pages(mm, N0, N1), 0);
			CHECK_EQ(off_node(mm, a, pages, 1), 0);
			mm_case_end(mm, free_before);
		}
}

/* move_pages: the status of each page as Linux gives it. */
TEST(move_pages_reports_per_page)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long a = test_mmap(mm, 1ul << 20, RW | VM_NOHUGEPMD, ORDERS(4));
		unsigned long addrs[6] = { a, a + 0x10000, a + 0x11000, a + 0x80000, 0x1000000, a };
		int nodes[6] = { 1, 0, 0, 1, 1, 1 }, status[6], bad[1] = { 7 };
		struct mm *child;

		mm_touch(mm, a, 0x20000, true);
		child = mm_fork(mm, NULL);
		CHECK(child != NULL);
		mm_touch(child, a + 0x10000, 0x10000, true); /* the child's own copies */
		/* -EACCES pages are not counted (Linux never tries them) */
		CHECK_EQ(move_pages(mm, 6, addrs, nodes, status, MPOL_MF_MOVE), 0);
		CHECK_EQ(status[0], -EACCES); /* shared with the child */
		CHECK_EQ(status[1], 0);	      /* already there */
		CHECK_EQ(status[2], 0);
		CHECK_EQ(status[3], -ENOENT);
		CHECK_EQ(status[4], -EFAULT);
		CHECK_EQ(status[5], -EACCES);
		CHECK_EQ(move_pages(mm, 6, addrs, nodes, status, MPOL_MF_MOVE_ALL), 0);
		CHECK_EQ(status[0], 1);
		CHECK_EQ(status[5], 1);
		CHECK_EQ(folio_at(child, a), folio_at(mm, a));
		nodes[1] = 1;
		CHECK_EQ(move_pages(mm, 2, addrs, nodes, status, MPOL_MF_MOVE), 0);
		CHECK_EQ(status[1], 1);
		CHECK_EQ(move_pages(mm, 6, addrs, NULL, status, 0), 0);
		CHECK_EQ(status[0], 1);
		CHECK_EQ(status[2], 1);
		CHECK_EQ(status[3], -ENOENT);
		CHECK_EQ(node_of(child, a + 0x10000), 0);
		CHECK_EQ(move_pages(mm, 1, addrs, bad, status, 0), -ENODEV);
		CHECK_MM_OK();
		mm_put(child);
		mm_case_end(mm, free_before);
	}
}

/* A folio shared with a live child and grandchild: MOVE leaves it (not
 * counted as failed, as in Linux), MOVE_ALL moves it in all three mms (the same new
 * folio, found through the anon family), and COW still works after it
 * (no side's page is exclusive). */
TEST(move_vs_move_all_with_a_child)
{
	NEED_TWO_NODES();
	unsigned long len = 256ul << 10, pages = len >> PAGE_SHIFT;

	FOR_BOTH_CAPS(b)
		for (unsigned o = 0; o <= 4; o += 2) {
			struct mm *mm = begin(b), *child, *grandchild;
			unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(o));
			struct mm_counters c0;
			unsigned char x = 0xee;

			fill(mm, a, pages, 5);
			child = mm_fork(mm, NULL);
			CHECK(child != NULL);
			grandchild = mm_fork(child, NULL);
			CHECK(grandchild != NULL);
			CHECK_EQ(migrate_pages(mm, N0, N1), 0);
			CHECK_EQ(off_node(mm, a, pages, 0), 0);
			CHECK_EQ(mm_migrate_pages(mm, N0, N1, MPOL_MF_MOVE_ALL), 0);
			CHECK_EQ(off_node(mm, a, pages, 1), 0);
			CHECK_EQ(off_node(child, a, pages, 1), 0);
			CHECK_EQ(folio_at(child, a + len - PAGE_SIZE),
				 folio_at(mm, a + len - PAGE_SIZE));
			CHECK_EQ(folio_at(grandchild, a), folio_at(mm, a));
			CHECK_EQ(bad_bytes(grandchild, a, pages, 5), 0);
			CHECK_EQ(bad_bytes(child, a, pages, 5), 0);
			CHECK(!PageAnonExclusive(page_at(mm, a, &(bool){ 0 }, &(pte_t){ 0 })));
			CHECK_MM_OK();
			c0 = mm_counters_read();
			CHECK_EQ(mm_access(child, a, &x, 1, true), 0);
			CHECK_EQ(counters_since(&c0).cow_copies, 1);
			CHECK_EQ(bad_bytes(mm, a, pages, 5), 0);
			CHECK_EQ(bad_bytes(grandchild, a, pages, 5), 0);
			mm_put(grandchild);
			mm_put(child);
			mm_case_end(mm, free_before);
		}
}

/* AnonExclusive survives: pages made read-only by mprotect before the
 * migration become writable again by mprotect after it (which only
 * happens to exclusive pages), and writes then need no fault and no copy;
 * pages shared with a child (not exclusive) still copy on write. */
TEST(anon_exclusive_survives)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long len = 128ul << 10, pages = len >> PAGE_SHIFT;
		unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(4));
		struct mm_counters c0;
		unsigned char x = 1;

		fill(mm, a, pages, 2);
		CHECK_EQ(mm_mprotect(mm, a, len / 2, VM_READ), 0);
		CHECK_EQ(migrate_pages(mm, N0, N1), 0);
		CHECK_MM_OK();
		CHECK(!pte_write(pte_at(mm, a)));
		CHECK_EQ(mm_mprotect(mm, a, len / 2, RW), 0);
		for (unsigned long i = 0; i < pages; i++) {
			pte_t pte = pte_at(mm, a + i * PAGE_SIZE);

			CHECK(pte_write(pte));
			CHECK(PageAnonExclusive(pfn_to_page(pte_pfn(pte))));
		}
		c0 = mm_counters_read();
		for (unsigned long i = 0; i < pages; i++)
			CHECK_EQ(mm_access(mm, a + i * PAGE_SIZE, &x, 1, true), 0);
		CHECK_EQ(counters_since(&c0).cow_copies, 0);
		CHECK_EQ(counters_since(&c0).cow_reuses, 0);
		mm_case_end(mm, free_before);
	}
}

struct bits {
	unsigned char w, d, y, x;
};

static void read_bits(struct mm *mm, unsigned long a, unsigned long pages, struct bits *out)
{
	for (unsigned long i = 0; i < pages; i++) {
		bool pmd;
		pte_t pte = { 0 };
		struct page *p = page_at(mm, a + i * PAGE_SIZE, &pmd, &pte);

		out[i] = (struct bits){ pte_write(pte), pte_dirty(pte), pte_young(pte),
					p && page_mapped_exclusive(p, pmd) };
	}
}

/* Mixed write and dirty bits inside one 64K folio come back entry by
 * entry (a fork made them read-only and shared, single writes made some
 * writable and exclusive again; read faults left some clean). */
TEST(mixed_entry_bits_survive)
{
	NEED_TWO_NODES();
	static struct bits before[32], after[32];

	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long len = 128ul << 10, pages = len >> PAGE_SHIFT;
		unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(4));
		unsigned char x = 9;

		mm_touch(mm, a, len, false);
		mm_put(mm_fork(mm, NULL));
		for (unsigned long i = 0; i < pages; i += 3)
			mm_access(mm, a + i * PAGE_SIZE, &x, 1, true);
		read_bits(mm, a, pages, before);
		CHECK_EQ(migrate_pages(mm, N0, N1), 0);
		read_bits(mm, a, pages, after);
		CHECK_EQ(memcmp(before, after, sizeof(before)), 0);
		CHECK(before[0].w && !before[1].w);
		CHECK(before[0].d && !before[1].d);
		CHECK(before[0].x && !before[1].x);
		CHECK_EQ(off_node(mm, a, pages, 1), 0);
		mm_case_end(mm, free_before);
	}
}

/* Half of a 64K folio unmapped, then migrated: the mapped half moves with
 * its bytes, the checker passes, nothing leaks. */
TEST(half_unmapped_large_folio)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long len = 64ul << 10, pages = len >> PAGE_SHIFT;
		unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(4));

		fill(mm, a, pages, 4);
		CHECK_EQ(mm_munmap(mm, a, len / 2), 0);
		CHECK_EQ(migrate_pages(mm, N0, N1), 0);
		CHECK_EQ(off_node(mm, a + len / 2, pages / 2, 1), 0);
		CHECK_EQ(folio_order(folio_at(mm, a + len / 2)), 4);
		CHECK_EQ(bad_bytes_at(mm, a + len / 2, pages / 2, pages / 2, 4), 0);
		mm_case_end(mm, free_before);
	}
}

/* A PMD THP moves as a PMD when a 2 MiB block is free on the target; when
 * none is, it is split and moved as 512 pages (thp_migration_split). */
TEST(pmd_thp_moves_whole_or_split)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long len = 2ul << 20, pages = len >> PAGE_SHIFT;
		unsigned long a = test_mmap(mm, len, RW, ORDERS(PMD_ORDER));
		struct list_head held;
		struct mm_counters c0;
		bool pmd;
		pte_t pte;

		fill(mm, a, pages, 6);
		list_init(&held);
		hold_node(&held, 1);
		release_holes(&held, 1, 600);
		c0 = mm_counters_read();
		CHECK_EQ(migrate_pages(mm, N0, N1), 0);
		CHECK_EQ(counters_since(&c0).thp_migration_split, 1);
		CHECK_EQ(off_node(mm, a, pages, 1), 0);
		CHECK_EQ(folio_order(folio_at(mm, a)), 0);
		CHECK_EQ(bad_bytes(mm, a, pages, 6), 0);
		CHECK_MM_OK();
		mm_test_put_list(&held);
		CHECK_EQ(mm_munmap(mm, a, len), 0);
		a = test_mmap(mm, len, RW, ORDERS(PMD_ORDER));
		fill(mm, a, pages, 7);
		c0 = mm_counters_read();
		CHECK_EQ(migrate_pages(mm, N0, N1), 0);
		CHECK_EQ(counters_since(&c0).thp_migration_success, 1);
		page_at(mm, a, &pmd, &pte);
		CHECK(pmd);
		CHECK_EQ(bad_bytes(mm, a, pages, 7), 0);
		mm_case_end(mm, free_before);
	}
}

/* A PTE-mapped 64K folio with no order-4 block free on the target is
 * split: its 16 pages move to order-0 folios, each mapping kept. */
TEST(pte_mapped_folio_splits_without_a_block)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long a = test_mmap(mm, 64ul << 10, RW | VM_NOHUGEPMD, ORDERS(4));
		struct list_head held;
		struct mm_counters c0;

		fill(mm, a, 16, 12);
		list_init(&held);
		hold_node(&held, 1);
		release_holes(&held, 1, 20);
		c0 = mm_counters_read();
		CHECK_EQ(migrate_pages(mm, N0, N1), 0);
		CHECK_EQ(counters_since(&c0).thp_migration_split, 1);
		CHECK_EQ(counters_since(&c0).pgmigrate_success, 16);
		CHECK_EQ(off_node(mm, a, 16, 1), 0);
		CHECK_EQ(folio_order(folio_at(mm, a + 0x5000)), 0);
		CHECK_EQ(bad_bytes(mm, a, 16, 12), 0);
		CHECK_EQ(node_free_pages(1), 4);
		CHECK_MM_OK();
		mm_test_put_list(&held);
		mm_case_end(mm, free_before);
	}
}

/* The target runs out of memory in the middle of a call: what moved
 * stays moved (8 small folios), the rest stays where it was (64K folios
 * cannot even be split into 16 pieces), nothing leaks. */
TEST(oom_on_target_leaves_things_consistent)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long a = test_mmap(mm, 128ul << 10, RW | VM_NOHUGEPMD, ORDERS(4));
		unsigned long s = test_mmap(mm, 64ul << 10, RW | VM_NOHUGEPMD, ORDERS(0));
		struct list_head held;
		struct mm_snapshot snap;
		long failed;

		fill(mm, a, 32, 8);
		fill(mm, s, 16, 9);
		list_init(&held);
		hold_node(&held, 1);
		release_holes(&held, 1, 8);
		mm_snapshot_take(&snap);
		failed = migrate_pages(mm, N0, N1);
		CHECK_EQ(failed, 32 + 8);
		CHECK_EQ(off_node(mm, a, 32, 0), 0);
		CHECK_EQ(node_free_pages(1), 0);
		CHECK_EQ(bad_bytes(mm, a, 32, 8), 0);
		CHECK_EQ(bad_bytes(mm, s, 16, 9), 0);
		CHECK_MM_OK();
		mm_test_put_list(&held);
		mm_case_end(mm, free_before);
	}
}

static struct mm *hook_mm;
static unsigned long hook_addr[2];

/* The entry for @a: a PMD leaf or PMD migration entry as pmd_pte(). */
static pte_t entry_at(struct mm *mm, unsigned long a)
{
	pmd_t *pmdp = mm_find_pmd(mm, a, false);

	if (pmd_leaf(*pmdp) || is_pmd_migration_entry(*pmdp))
		return pmd_pte(*pmdp);
	return __ptep_get(pte_offset_kernel(pmdp, a));
}

/* The migrating CPU asks CPU 1 + i to fault hook_addr[i]; they say how
 * it went. */
static struct {
	unsigned request[2], finished[2];
	unsigned seen, done, errors;
} mf;

/* While the entries are in place (a migration group may hold both
 * folios): ask CPU 1 + i to fault on hook_addr[i], and go on only once
 * it waits for the entry to go (migration_waits moved), so the wait is
 * what the case tests; or once its fault returned (it did not wait: an
 * error the case reports). */
static void fault_on_entries(void)
{
	for (int i = 0; i < 2; i++) {
		uint64_t waits = mm_counters_read().migration_waits;

		if (!is_migration_entry(entry_at(hook_mm, hook_addr[i])))
			continue;
		mf.seen++;
		__atomic_store_n(&mf.request[i], 1, __ATOMIC_RELEASE);
		while (mm_counters_read().migration_waits == waits &&
		       !__atomic_load_n(&mf.finished[i], __ATOMIC_ACQUIRE))
			arch_cpu_relax();
	}
}

/* CPU 1 + @i: fault hook_addr[@i] when asked, as another reader would
 * (the mmap_lock for read): the fault waits for the migration, then the
 * entry maps the new page. */
static void fault_request(unsigned i)
{
	unsigned long a = hook_addr[i];

	while (!__atomic_load_n(&mf.request[i], __ATOMIC_ACQUIRE))
		if (__atomic_load_n(&mf.done, __ATOMIC_ACQUIRE))
			return;
		else
			arch_cpu_relax();
	read_lock(&hook_mm->mmap_lock);
	__atomic_fetch_add(&mf.errors, __handle_mm_fault(hook_mm, a, FAULT_WRITE) != 0,
			   __ATOMIC_RELAXED);
	__atomic_fetch_add(&mf.errors, is_migration_entry(entry_at(hook_mm, a)), __ATOMIC_RELAXED);
	read_unlock(&hook_mm->mmap_lock);
	__atomic_store_n(&mf.finished[i], 1, __ATOMIC_RELEASE);
}

static void fault_during_migration(unsigned cpu, void *arg)
{
	(void)arg;
	if (cpu) {
		fault_request(cpu - 1);
		return;
	}
	migrate_unmapped_hook = fault_on_entries;
	__atomic_fetch_add(&mf.errors, migrate_pages(hook_mm, N0, N1) != 0, __ATOMIC_RELAXED);
	migrate_unmapped_hook = NULL;
	__atomic_store_n(&mf.done, 1, __ATOMIC_RELEASE);
}

/* A fault that finds a migration entry waits, with the entry's lock
 * dropped, until the migration has replaced it, and then finds the new
 * page (a GUP walk's fault too: it retries only after the wait). */
TEST(fault_on_a_migration_entry_waits)
{
	NEED_TWO_NODES();
	if (smp_nr_cpus() < 3)
		SKIP_CASE("needs 3 CPUs: two faults wait for the migration on a third");
	struct mm *mm = begin(1);
	unsigned long s = test_mmap(mm, 64ul << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	unsigned long h = test_mmap(mm, 2ul << 20, RW, ORDERS(PMD_ORDER));

	fill(mm, s, 16, 1);
	fill(mm, h, 512, 2);
	hook_mm = mm;
	hook_addr[0] = s + 0x3000;
	hook_addr[1] = h + 0x5000;
	memset(&mf, 0, sizeof(mf));
	smp_run(3, fault_during_migration, NULL);
	CHECK_EQ(mf.seen, 2);
	CHECK_EQ(mf.errors, 0);
	CHECK_EQ(bad_bytes(mm, s, 16, 1), 0);
	CHECK_EQ(bad_bytes(mm, h, 512, 2), 0);
	mm_case_end(mm, free_before);
}

/* arm64: contpte blocks are folded after migration; the batched path
 * clears them whole and unfolds none, the per-PTE path unfolds each.
 * A format without blocks (x86) has none before or after. */
TEST(contpte_blocks_stay_folded)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long len = 256ul << 10, pages = len >> PAGE_SHIFT;
		unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(4));
		struct mm_counters c0;
		unsigned long folded = 0;

		mm_touch(mm, a, len, true);
		c0 = mm_counters_read();
		CHECK_EQ(migrate_pages(mm, N0, N1), 0);
		if (b || !arch_has_pte_blocks())
			CHECK_EQ(counters_since(&c0).cont_unfolds, 0);
		else
			CHECK_EQ(counters_since(&c0).cont_unfolds, pages / 16);
		for (unsigned long i = 0; i < pages; i++)
			folded += pte_cont(pte_at(mm, a + i * PAGE_SIZE));
		CHECK_EQ(folded, arch_has_pte_blocks() ? pages : 0);
		mm_case_end(mm, free_before);
	}
}

/* Batching: one TLB flush for the whole call, one get-and-clear and one
 * set_ptes per 64K folio; unbatched one flush per PTE. */
TEST(batched_unmap_and_flush_counts)
{
	NEED_TWO_NODES();
	unsigned long len = 1ul << 20, pages = len >> PAGE_SHIFT;

	FOR_BOTH_CAPS(b) {
		struct mm *mm = begin(b);
		unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(4));
		struct mm_counters c0, d;

		mm_touch(mm, a, len, true);
		c0 = mm_counters_read();
		CHECK_EQ(migrate_pages(mm, N0, N1), 0);
		d = counters_since(&c0);
		if (b) {
			CHECK_EQ(d.tlb_flushes, 1);
			CHECK_EQ(d.mapcount_updates, 2 * pages / 16);
		} else {
			CHECK(d.tlb_flushes >= pages);
			CHECK_EQ(d.mapcount_updates, 2 * pages);
		}
		mm_case_end(mm, free_before);
	}
}

/* A cap of 4 cuts every run at 4 PTEs: four mapcount updates per 64K
 * folio each way, and the same placement and bytes as without a cap. */
TEST(caps_bound_the_runs)
{
	NEED_TWO_NODES();
	unsigned long len = 512ul << 10, pages = len >> PAGE_SHIFT;
	struct mm *mm = begin(1);
	unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(4));
	struct mm_counters c0, d;

	fill(mm, a, pages, 11);
	mm_caps.migrate = mm_caps.migrate_unmap = 4;
	c0 = mm_counters_read();
	CHECK_EQ(migrate_pages(mm, N0, N1), 0);
	d = counters_since(&c0);
	CHECK_EQ(d.mapcount_updates, 2 * pages / 4);
	CHECK_EQ(d.migrate_queued, pages / 16);
	/* arm64: a run of 4 inside a contpte block unfolds it (one flush) */
	CHECK_EQ(d.cont_unfolds, arch_has_pte_blocks() ? pages / 16 : 0);
	CHECK_EQ(d.tlb_flushes, 1 + d.cont_unfolds);
	CHECK_EQ(off_node(mm, a, pages, 1), 0);
	CHECK_EQ(bad_bytes(mm, a, pages, 11), 0);
	CHECK_EQ(folio_order(folio_at(mm, a)), 4);
	mm_case_end(mm, free_before);
}

static void collect(void *ctx, const char *line)
{
	char *buf = ctx;

	strncat(buf, line, 1023 - strlen(buf));
	strncat(buf, "\n", 1023 - strlen(buf));
}

/* numa_maps shows the policy, pages per node and folios by size. */
TEST(numa_maps_shows_policy_and_nodes)
{
	NEED_TWO_NODES();
	static char buf[1024];
	struct mm *mm = begin(1);
	unsigned long a = test_mmap(mm, 256ul << 10, RW | VM_NOHUGEPMD, ORDERS(4));

	mm_touch(mm, a, 256ul << 10, true);
	CHECK_EQ(mbind(mm, a, 128ul << 10, MPOL_BIND, N1, MPOL_MF_MOVE), 0);
	buf[0] = '\0';
	mm_numa_maps_to(mm, collect, buf);
	CHECK_HAS(buf, "bind:1 N0=0 N1=32 ");
	CHECK_HAS(buf, " folios 4K=0 mTHP=2 ");
	CHECK_HAS(buf, "default N0=32 N1=0");
	mm_case_end(mm, free_before);
}

TEST_SUITE(migrate, migrate_pages_moves_every_size, queue_is_one_descent_and_lock_per_table,
	   faults_follow_the_policy, mbind_move_splits_and_moves_the_range, pinned_folio_stays_busy,
	   move_pages_reports_per_page, move_vs_move_all_with_a_child, anon_exclusive_survives,
	   mixed_entry_bits_survive, half_unmapped_large_folio, pmd_thp_moves_whole_or_split,
	   pte_mapped_folio_splits_without_a_block, oom_on_target_leaves_things_consistent,
	   fault_on_a_migration_entry_waits, contpte_blocks_stay_folded,
	   batched_unmap_and_flush_counts, caps_bound_the_runs, numa_maps_shows_policy_and_nodes)
