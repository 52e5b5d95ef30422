/*
 * test_mm.c - address spaces: mmap placement, faults and folio order
 * selection (every size, every reason to fall back), access and dirty
 * bits, -EFAULT paths, running out of memory in a fault. Every case ends
 * with the invariant checker and a leak check. (Unmapping and mprotect:
 * test_unmap.c.)
 */
#include "gup.h"
#include "madvise.h"
#include "mm_cases.h"

static uint64_t free_before;

static struct mm *begin(void)
{
	return mm_case_begin(&free_before);
}

static void end(struct mm *mm)
{
	mm_case_end(mm, free_before);
}

/* Chosen addresses are aligned to the largest allowed folio size. */
TEST(mmap_aligns_to_folio_size)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 3 * PAGE_SIZE, RW, 1);
	unsigned long b = test_mmap(mm, 64 << 10, RW, ORDERS(4));
	unsigned long c = test_mmap(mm, 4 << 20, RW, ORDERS(PMD_ORDER));

	CHECK_EQ(b & 0xffff, 0);
	CHECK_EQ(c & ~PMD_MASK, 0);
	CHECK(a + 3 * PAGE_SIZE <= b);
	CHECK_EQ(mm_mmap(mm, 0, 0, RW, 0, 1), -EINVAL);
	CHECK_EQ(mm_mmap(mm, 0, 100, RW, 0, 1), -EINVAL);
	CHECK_EQ(mm_mmap(mm, 0x1001, PAGE_SIZE, RW, MAP_FIXED_ADDR, 1), -EINVAL);
	CHECK_EQ(mm_mmap(mm, 0, PAGE_SIZE, RW | VM_DONTCOPY, 0, 1), -EINVAL);
	CHECK_EQ(mm_mmap(mm, MM_USER_END - PAGE_SIZE, 2 * PAGE_SIZE, RW, MAP_FIXED_ADDR, 1),
		 -EINVAL);
	end(mm);
}

/* A write-only or exec-only VMA keeps the flags it was given, as Linux
 * keeps PROT_WRITE or PROT_EXEC alone: a user fault may read it (no arch
 * here has write- or exec-only entries), but GUP and MADV_POPULATE_READ,
 * which check the VMA's flags, refuse a read with -EFAULT and -EINVAL
 * (Linux's selftest madv_populate, "MADV_POPULATE_READ with PROT_WRITE"). */
TEST(write_only_and_exec_only_vmas)
{
	struct mm *mm = begin();
	long a = mm_mmap(mm, 0, 4 * PAGE_SIZE, VM_WRITE, 0, 1), n;
	struct page *pages[1];

	CHECK(a > 0);
	if (a > 0) {
		CHECK_EQ(mm_madvise(mm, a, PAGE_SIZE, MADV_POPULATE_READ), -EINVAL);
		CHECK_EQ(mm_madvise(mm, a, PAGE_SIZE, MADV_POPULATE_WRITE), 0);
		CHECK_EQ(get_user_pages(mm, a, 1, 0, pages), -EFAULT);
		n = get_user_pages(mm, a, 1, FOLL_WRITE, pages);
		CHECK_EQ(n, 1);
		if (n == 1)
			put_user_pages(pages, 1);
		CHECK_EQ(handle_mm_fault(mm, a + PAGE_SIZE, 0), 0);
		CHECK_EQ(mm_mprotect(mm, a, 2 * PAGE_SIZE, VM_EXEC), 0);
		CHECK_EQ(get_user_pages(mm, a, 1, 0, pages), -EFAULT);
		CHECK_EQ(handle_mm_fault(mm, a + 2 * PAGE_SIZE, FAULT_WRITE), 0);
		CHECK_EQ(mm_mprotect(mm, a, PAGE_SIZE, VM_READ), 0);
		n = get_user_pages(mm, a, 1, 0, pages);
		CHECK_EQ(n, 1);
		if (n == 1)
			put_user_pages(pages, 1);
	}
	end(mm);
}

/* A fault maps the largest allowed order, for every PTE-mapped size. */
TEST(fault_picks_each_order)
{
	for (unsigned o = 0; o <= PMD_ORDER; o++) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, 4 << 20, RW | VM_NOHUGEPMD, ORDERS(o));
		unsigned long at = a + (1 << 20) + 5 * PAGE_SIZE;
		unsigned long base = at & ~((PAGE_SIZE << o) - 1);
		struct folio *f;

		CHECK_EQ(mm_touch(mm, at, 1, true), 0);
		f = folio_at(mm, at);
		CHECK(f != NULL);
		if (f) {
			CHECK_EQ(folio_order(f), o);
			CHECK_EQ(folio_mapcount(f), 1ul << o);
			CHECK_EQ(folio_ref_count(f), 1ul << o);
			CHECK(folio_at(mm, base) == f);
			CHECK(folio_at(mm, base + (PAGE_SIZE << o) - PAGE_SIZE) == f);
		}
		CHECK(folio_at(mm, base - PAGE_SIZE) == NULL);
		CHECK(folio_at(mm, base + (PAGE_SIZE << o)) == NULL);
		end(mm);
	}
}

/* With the PMD order allowed and room for it, a fault maps a PMD leaf. */
TEST(fault_maps_pmd_thp)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 4 << 20, RW, ORDERS(PMD_ORDER));
	bool by_pmd;
	pte_t pte;
	struct page *p;

	CHECK_EQ(mm_touch(mm, a + 12345, 1, true), 0);
	p = page_at(mm, a + 12345, &by_pmd, &pte);
	CHECK(p != NULL && by_pmd);
	CHECK_EQ(folio_order(page_folio(p)), PMD_ORDER);
	CHECK_EQ(page_folio(p)->page.entire_mapcount, 1);
	end(mm);
}

/* Fallbacks: an order that does not fit the VMA, and PTEs already in use. */
TEST(fault_falls_back_when_it_must)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 32 << 10, RW, ORDERS(4) | ORDERS(2));
	unsigned long b = test_mmap(mm, 64 << 10, RW, 1);
	struct vma *v;

	CHECK_EQ(mm_touch(mm, a, 1, true), 0); /* 64K does not fit: 16K does */
	CHECK_EQ(folio_order(folio_at(mm, a)), 2);
	CHECK_EQ(mm_touch(mm, b + 3 * PAGE_SIZE, 1, true), 0);
	v = find_vma(mm, b);
	v->orders = ORDERS(4); /* now allow 64K, but one PTE of the range is used */
	CHECK_EQ(mm_touch(mm, b, 1, true), 0);
	CHECK_EQ(folio_order(folio_at(mm, b)), 0);
	end(mm);
}

/* When no large block is free the fault uses order 0 (memory fragmented
 * on purpose: every other page of all free memory held). */
TEST(fault_falls_back_when_memory_is_fragmented)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 2 << 20, RW | VM_NOHUGEPMD, ORDERS(4));
	struct list_head held, spare;
	struct list_head *pos;
	struct folio *f;
	int n = 0;

	list_init(&held);
	list_init(&spare);
	while ((f = folio_alloc(0, 0, ALLOC_ANY_NODE))) {
		list_add(&f->page.lru, n++ % 2 ? &held : &spare);
	}
	while (!list_empty(&spare)) {
		pos = spare.next;
		list_del(pos);
		folio_put((struct folio *)list_entry(pos, struct page, lru));
	}
	CHECK_EQ(mm_touch(mm, a, 1, true), 0);
	CHECK_EQ(folio_order(folio_at(mm, a)), 0);
	while (!list_empty(&held)) {
		pos = held.next;
		list_del(pos);
		folio_put((struct folio *)list_entry(pos, struct page, lru));
	}
	end(mm);
}

/* Data written through the MMU reads back; another VMA is untouched. */
TEST(contents_round_trip)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 1 << 20, RW, ORDERS(4));
	static unsigned char in[3 * 4096 + 100], out[sizeof(in)];

	for (unsigned i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 13 + 7);
	CHECK_EQ(mm_access(mm, a + 4000, in, sizeof(in), true), 0);
	CHECK_EQ(mm_access(mm, a + 4000, out, sizeof(out), false), 0);
	CHECK(memcmp(in, out, sizeof(in)) == 0);
	CHECK_EQ(mm_access(mm, a + 900000, out, 16, false), 0);
	CHECK_EQ(out[0] | out[15], 0); /* fresh anon memory is zero */
	end(mm);
}

/* Unmapped addresses, writes to read-only VMAs and holes give -EFAULT. */
TEST(efault_paths)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 64 << 10, VM_READ, 1);
	unsigned long b = test_mmap(mm, 64 << 10, RW, 1);
	unsigned char buf[8192] = { 1 };

	CHECK_EQ(mm_touch(mm, a, 1, false), 0);
	CHECK_EQ(mm_touch(mm, a, 1, true), -EFAULT);
	CHECK_EQ(mm_access(mm, 0x10000000ul, buf, 1, false), -EFAULT);
	CHECK_EQ(mm_access(mm, b + (64 << 10) - 4096, buf, 8192, true), -EFAULT);
	CHECK_EQ(mm_access(mm, MM_USER_END - 1, buf, 2, false), -EFAULT);
	CHECK_EQ(mm_munmap(mm, b + 4096, 4096), 0);
	CHECK_EQ(mm_access(mm, b, buf, 8192, true), -EFAULT);
	CHECK_EQ(mm_touch(mm, b, 1, false), 0); /* the first page was mapped */
	end(mm);
}

/* A read fault maps a zeroed, young, clean page; the first write makes
 * the entry dirty: by the MMU where it sets dirty bits itself, else by a
 * second fault (arm64 without hardware dirty tracking). */
TEST(read_then_write_sets_young_then_dirty)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 64 << 10, RW, 1);
	struct mm_counters c0 = mm_counters_read(), d;
	unsigned char v = 0xff, w = 0x5c;
	pte_t pte;

	CHECK_EQ(mm_access(mm, a + 100, &v, 1, false), 0);
	CHECK_EQ(v, 0);
	pte = pte_at(mm, a);
	CHECK(pte_present(pte) && pte_young(pte) && !pte_dirty(pte) && pte_write(pte));
	CHECK_EQ(counters_since(&c0).faults, 1);
	CHECK_EQ(mm_access(mm, a + 100, &w, 1, true), 0);
	pte = pte_at(mm, a);
	CHECK(pte_dirty(pte) && pte_user_writable(pte));
	d = counters_since(&c0);
	CHECK_EQ(d.faults, arch_has_hw_ad() ? 1 : 2);
	CHECK_EQ(d.folio_allocs - d.pt_allocs, 1);
	CHECK_EQ(mm_access(mm, a + 100, &v, 1, false), 0);
	CHECK_EQ(v, 0x5c);
	end(mm);
}

/* handle_mm_fault itself: no VMA, a write to a read-only VMA and an exec
 * of a non-exec VMA are -EFAULT and allocate nothing; exec of an
 * executable VMA is fine. */
TEST(fault_checks_vma_protection)
{
	struct mm *mm = begin();
	unsigned long ro = test_mmap(mm, 64 << 10, VM_READ, 1);
	unsigned long rw = test_mmap(mm, 64 << 10, RW, 1);
	unsigned long rx = test_mmap(mm, 64 << 10, VM_READ | VM_EXEC, 1);
	uint64_t free0 = total_free_pages();

	CHECK_EQ(handle_mm_fault(mm, rx + (64 << 10), 0), -EFAULT);
	CHECK_EQ(handle_mm_fault(mm, MM_USER_START - PAGE_SIZE, 0), -EFAULT);
	CHECK_EQ(handle_mm_fault(mm, ro, FAULT_WRITE), -EFAULT);
	CHECK_EQ(handle_mm_fault(mm, rw, FAULT_EXEC), -EFAULT);
	CHECK_EQ(total_free_pages(), free0);
	CHECK(folio_at(mm, ro) == NULL && folio_at(mm, rw) == NULL);
	CHECK_EQ(handle_mm_fault(mm, rx + 0x1234, FAULT_EXEC), 0);
	CHECK(pte_exec(pte_at(mm, rx + 0x1000)) && !pte_write(pte_at(mm, rx + 0x1000)));
	CHECK_EQ(handle_mm_fault(mm, rw, FAULT_WRITE), 0);
	CHECK(!pte_exec(pte_at(mm, rw)) && pte_write(pte_at(mm, rw)));
	CHECK_EQ(mm_mmap(mm, 0, PAGE_SIZE, RW, 0, 1ul << (PMD_ORDER + 1)), -EINVAL);
	end(mm);
}

/* With no 2 MiB block free anywhere, a PMD-allowed fault maps the next
 * allowed order with PTEs instead. */
TEST(pmd_fault_falls_back_to_ptes)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER) | ORDERS(4));
	struct list_head held;
	bool by_pmd = true;
	pte_t pte;
	struct page *p;

	list_init(&held);
	mm_test_hold_memory(&held, 300); /* under 512 pages: no order-9 block */
	CHECK_EQ(mm_touch(mm, a + 0x11000, 1, true), 0);
	p = page_at(mm, a + 0x11000, &by_pmd, &pte);
	CHECK(p != NULL && !by_pmd);
	CHECK(p && folio_order(page_folio(p)) == 4);
	CHECK_MM_OK();
	mm_test_put_list(&held);
	CHECK_EQ(mm_touch(mm, a + (1 << 20), 1, true), 0); /* room now, but PTEs exist */
	CHECK(folio_order(folio_at(mm, a + (1 << 20))) == 4);
	end(mm);
}

/* Out of memory at every point of a fault (no table, no folio, only some
 * folios): -ENOMEM, the checker passes, what was written stays, nothing
 * leaks, and with memory back every fault succeeds. */
TEST(oom_in_fault_leaves_no_trace)
{
	struct list_head most;

	/* The machine's memory is held once down to 1024 free pages (enough
	 * for each round's second touch), then each round down to @keep: a
	 * debug build fills and checks every page it allocates and frees, so
	 * holding the whole memory in every round cost the guest's selftest
	 * 37 s of its 175 (x86_64, 1.5 GiB, TCG). */
	list_init(&most);
	mm_test_hold_memory(&most, 1024);
	for (uint64_t keep = 0; keep <= 24; keep += 3) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, 1 << 20, RW, ORDERS(4));
		struct list_head held;
		unsigned char v = 0;
		int err;

		list_init(&held);
		mm_test_hold_memory(&held, keep);
		err = mm_touch(mm, a, 1 << 20, true);
		CHECK_EQ(err, -ENOMEM);
		CHECK_MM_OK();
		mm_test_put_list(&held);
		CHECK_EQ(mm_access(mm, a, &v, 1, false), 0);
		CHECK_EQ(v, keep >= 3 + 16 ? (unsigned char)(a >> PAGE_SHIFT) : 0);
		CHECK_EQ(mm_touch(mm, a, 1 << 20, true), 0);
		end(mm);
	}
	mm_test_put_list(&most);
}

TEST_SUITE(mm, mmap_aligns_to_folio_size, write_only_and_exec_only_vmas, fault_picks_each_order,
	   fault_maps_pmd_thp, fault_falls_back_when_it_must,
	   fault_falls_back_when_memory_is_fragmented, contents_round_trip, efault_paths,
	   read_then_write_sets_young_then_dirty, fault_checks_vma_protection,
	   pmd_fault_falls_back_to_ptes, oom_in_fault_leaves_no_trace)
