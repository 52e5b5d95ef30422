/*
 * test_mm.c - address spaces: mmap placement, faults and folio order
 * selection, munmap and mprotect of partial folios and VMAs, -EFAULT
 * paths. Every case ends with the invariant checker and a leak check.
 */
#include "mm_cases.h"

static uint64_t free_before;

static struct mm *begin(void)
{
	struct mm *mm;

	caps_set_all(true);
	free_before = total_free_pages();
	mm = mm_create();
	CHECK(mm != NULL);
	return mm;
}

static void end(struct mm *mm)
{
	CHECK_MM_OK();
	mm_put(mm);
	CHECK_MM_OK();
	CHECK_EQ(total_free_pages(), free_before);
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
	CHECK_EQ(mm_mmap(mm, 0, PAGE_SIZE, VM_WRITE, 0, 1), -EINVAL);
	CHECK_EQ(mm_mmap(mm, MM_USER_END - PAGE_SIZE, 2 * PAGE_SIZE, RW, MAP_FIXED_ADDR, 1),
		 -EINVAL);
	end(mm);
}

/* A fault maps the largest allowed order, for every PTE-mapped size. */
TEST(fault_picks_each_order)
{
	for (unsigned o = 0; o <= PMD_ORDER; o++) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, 4 << 20, RW | VM_NOHUGEPMD, ORDERS(o));
		struct folio *f;

		CHECK_EQ(mm_touch(mm, a + 5 * PAGE_SIZE, 1, true), 0);
		f = folio_at(mm, a + 5 * PAGE_SIZE);
		CHECK(f != NULL);
		if (f) {
			CHECK_EQ(folio_order(f), o);
			CHECK_EQ(folio_mapcount(f), 1ul << o);
			CHECK_EQ(folio_ref_count(f), 1ul << o);
		}
		CHECK(folio_at(mm, a + (PAGE_SIZE << o)) == NULL);
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

/* munmap of one page inside a 64K folio leaves the other 15 mapped. */
TEST(munmap_partial_folio)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 64 << 10, RW, ORDERS(4));
	struct folio *f;

	CHECK_EQ(mm_touch(mm, a, 64 << 10, true), 0);
	f = folio_at(mm, a);
	CHECK_EQ(mm_munmap(mm, a + 5 * PAGE_SIZE, PAGE_SIZE), 0);
	CHECK_EQ(folio_ref_count(f), 15);
	CHECK_EQ(folio_mapcount(f), 15);
	CHECK_EQ(folio_page(f, 5)->mapcount, 0);
	CHECK(folio_at(mm, a + 5 * PAGE_SIZE) == NULL);
	CHECK(find_vma(mm, a) != find_vma(mm, a + 6 * PAGE_SIZE));
	CHECK_MM_OK();
	CHECK_EQ(mm_munmap(mm, a, 64 << 10), 0);
	CHECK(find_vma(mm, a) == NULL);
	end(mm);
}

/* munmap of part of a PMD-mapped THP splits it into PTEs first. */
TEST(munmap_partial_pmd_splits)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER));
	struct folio *f;
	bool by_pmd;
	pte_t pte;

	CHECK_EQ(mm_touch(mm, a, 1, true), 0);
	f = folio_at(mm, a);
	CHECK_EQ(mm_munmap(mm, a + (1 << 20), 1 << 20), 0);
	CHECK(page_at(mm, a, &by_pmd, &pte) != NULL && !by_pmd);
	CHECK_EQ(folio_ref_count(f), 256);
	CHECK_EQ(f->page.entire_mapcount, 0);
	CHECK_MM_OK();
	end(mm);
}

/* Zap of every folio size returns every page. */
TEST(zap_every_size)
{
	for (unsigned o = 0; o <= PMD_ORDER; o++) {
		for (int pmd = 0; pmd < (o == PMD_ORDER ? 2 : 1); pmd++) {
			struct mm *mm = begin();
			unsigned long a = test_mmap(mm, 4 << 20, RW | (pmd ? 0 : VM_NOHUGEPMD),
						    ORDERS(o));

			CHECK_EQ(mm_touch(mm, a, 4 << 20, true), 0);
			CHECK_MM_OK();
			CHECK_EQ(mm_munmap(mm, a, 4 << 20), 0);
			CHECK_EQ(mm->nr_pt_pages, 0);
			end(mm);
		}
	}
}

/* mprotect RO makes writes fail; RW again makes them work, and a partial
 * range splits the VMA. */
TEST(mprotect_ro_rw)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 256 << 10, RW, ORDERS(4));
	unsigned char v = 0;

	CHECK_EQ(mm_touch(mm, a, 256 << 10, true), 0);
	CHECK_EQ(mm_mprotect(mm, a + 8 * PAGE_SIZE, 32 * PAGE_SIZE, VM_READ), 0);
	CHECK_EQ(mm_touch(mm, a + 8 * PAGE_SIZE, 1, true), -EFAULT);
	CHECK_EQ(mm_touch(mm, a + 39 * PAGE_SIZE, 1, true), -EFAULT);
	CHECK_EQ(mm_touch(mm, a + 40 * PAGE_SIZE, 1, true), 0);
	CHECK_EQ(mm_access(mm, a + 9 * PAGE_SIZE, &v, 1, false), 0);
	CHECK_EQ(v, (unsigned char)((a >> PAGE_SHIFT) + 9));
	CHECK(find_vma(mm, a) != find_vma(mm, a + 8 * PAGE_SIZE));
	CHECK_MM_OK();
	CHECK_EQ(mm_mprotect(mm, a, 256 << 10, RW), 0);
	CHECK_EQ(mm_touch(mm, a + 8 * PAGE_SIZE, 32 * PAGE_SIZE, true), 0);
	CHECK_EQ(mm_mprotect(mm, a + (256 << 10), PAGE_SIZE, VM_READ), -ENOMEM);
	CHECK_EQ(mm_mprotect(mm, a, PAGE_SIZE, VM_WRITE), -EINVAL);
	end(mm);
}

/* mprotect of part of a PMD THP splits it; writes then still work. */
TEST(mprotect_partial_pmd)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER));

	CHECK_EQ(mm_touch(mm, a, 2 << 20, true), 0);
	CHECK_EQ(mm_mprotect(mm, a, 1 << 20, VM_READ), 0);
	CHECK_EQ(mm_touch(mm, a, 1, true), -EFAULT);
	CHECK_EQ(mm_touch(mm, a + (1 << 20), 1, true), 0);
	CHECK_MM_OK();
	end(mm);
}

/* Running out of memory in a fault gives an error and leaks nothing. */
TEST(oom_in_fault_leaves_no_trace)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 4 << 20, RW, ORDERS(4));
	struct list_head held;
	struct folio *f;

	list_init(&held);
	while ((f = folio_alloc(0, 0, ALLOC_ANY_NODE)))
		list_add(&f->page.lru, &held);
	CHECK(mm_touch(mm, a, 4 << 20, true) != 0);
	CHECK_MM_OK();
	while (!list_empty(&held)) {
		struct list_head *pos = held.next;

		list_del(pos);
		folio_put((struct folio *)list_entry(pos, struct page, lru));
	}
	CHECK_EQ(mm_touch(mm, a, 4 << 20, true), 0);
	end(mm);
}

TEST_SUITE(mm, mmap_aligns_to_folio_size, fault_picks_each_order, fault_maps_pmd_thp,
	   fault_falls_back_when_it_must, fault_falls_back_when_memory_is_fragmented,
	   contents_round_trip, efault_paths, munmap_partial_folio, munmap_partial_pmd_splits,
	   zap_every_size, mprotect_ro_rw, mprotect_partial_pmd, oom_in_fault_leaves_no_trace)
