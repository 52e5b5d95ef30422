/*
 * test_unmap.c - munmap and mprotect of partial folios, partial PMDs and
 * partial or several VMAs; zap of every folio size with its counters,
 * batched and unbatched; AnonExclusive per page through batched mprotect;
 * running out of memory in the middle; ptdump. Every case ends with the
 * invariant checker and a leak check.
 */
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
			unsigned long a =
				test_mmap(mm, 4 << 20, RW | (pmd ? 0 : VM_NOHUGEPMD), ORDERS(o));

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
	CHECK_EQ(mm_mprotect(mm, a, PAGE_SIZE, RW | VM_DONTCOPY), -EINVAL);
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

/* A VMA boundary inside a PMD THP (madvise of half of it) splits the
 * leaf first: a leaf never spans two VMAs. */
TEST(madvise_partial_pmd_splits)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER));
	bool by_pmd = true;
	pte_t pte;

	CHECK_EQ(mm_touch(mm, a, 1, true), 0);
	CHECK_EQ(mm_madvise_flags(mm, a + (1 << 20), 1 << 20, VM_DONTCOPY, 0), 0);
	CHECK(page_at(mm, a, &by_pmd, &pte) && !by_pmd);
	CHECK(find_vma(mm, a) != find_vma(mm, a + (1 << 20)));
	CHECK(find_vma(mm, a + (1 << 20))->flags & VM_DONTCOPY);
	CHECK_EQ(mm_madvise_flags(mm, a, PAGE_SIZE, VM_EXEC, 0), -EINVAL);
	end(mm);
}

/* munmap across three VMAs and the holes between them keeps exactly the
 * outer remainders (with their contents) and their tables. */
TEST(munmap_across_vmas_and_holes)
{
	struct mm *mm = begin();
	unsigned long x = 0x300000000ul, k = 1024;
	unsigned char v = 0;

	CHECK_EQ(mm_mmap(mm, x, 64 * k, RW, MAP_FIXED_ADDR, ORDERS(4)), (long)x);
	CHECK_EQ(mm_mmap(mm, x + 64 * k, 64 * k, VM_READ, MAP_FIXED_ADDR, 1), (long)(x + 64 * k));
	CHECK_EQ(mm_mmap(mm, x + 256 * k, 64 * k, RW, MAP_FIXED_ADDR, 1), (long)(x + 256 * k));
	CHECK_EQ(mm_touch(mm, x, 64 * k, true), 0);
	CHECK_EQ(mm_touch(mm, x + 64 * k, 64 * k, false), 0);
	CHECK_EQ(mm_touch(mm, x + 256 * k, 64 * k, true), 0);
	CHECK_EQ(mm_munmap(mm, x + 32 * k, 256 * k), 0);
	CHECK(find_vma(mm, x) && find_vma(mm, x)->end == x + 32 * k);
	CHECK(find_vma(mm, x + 32 * k) == NULL && find_vma(mm, x + 287 * k) == NULL);
	CHECK(find_vma(mm, x + 288 * k) && find_vma(mm, x + 288 * k)->start == x + 288 * k);
	CHECK_EQ(folio_ref_count(folio_at(mm, x)), 8);
	CHECK_EQ(mm_access(mm, x + 28 * k, &v, 1, false), 0);
	CHECK_EQ(v, (unsigned char)((x + 28 * k) >> PAGE_SHIFT));
	CHECK_EQ(mm->nr_pt_pages, 3);
	CHECK_MM_OK();
	CHECK_EQ(mm_munmap(mm, x, 320 * k), 0);
	CHECK(mm->vmas == NULL);
	CHECK_EQ(mm->nr_pt_pages, 0);
	end(mm);
}

/* MAP_FIXED over a mapping replaces it: old pages gone, new flags, zero. */
TEST(mmap_fixed_replaces_a_mapping)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 256 << 10, RW, ORDERS(4));
	unsigned char v = 1;

	CHECK_EQ(mm_touch(mm, a, 256 << 10, true), 0);
	CHECK_EQ(mm_mmap(mm, a + (64 << 10), 64 << 10, VM_READ, MAP_FIXED_ADDR, 1),
		 (long)(a + (64 << 10)));
	CHECK_EQ(find_vma(mm, a + (64 << 10))->flags, VM_READ);
	CHECK(folio_at(mm, a + (64 << 10)) == NULL);
	CHECK_EQ(mm_access(mm, a + (100 << 10), &v, 1, false), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(mm_touch(mm, a + (64 << 10), 1, true), -EFAULT);
	CHECK_EQ(mm_touch(mm, a + (128 << 10), 1, true), 0);
	end(mm);
}

/* Zap of 32 folios of 64K: batched, one mapcount and one reference update
 * per folio; unbatched, one per page. Either way one TLB flush for the
 * pages and the freed tables (plus one per block an unbatched zap splits,
 * where the format folds blocks), and every table freed. */
TEST(zap_counts_batched_and_unbatched)
{
	for (int batched = 0; batched < 2; batched++) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, 2 << 20, RW | VM_NOHUGEPMD, ORDERS(4));
		struct mm_counters c0, d;

		CHECK_EQ(mm_touch(mm, a, 2 << 20, true), 0);
		caps_set_all(batched);
		c0 = mm_counters_read();
		CHECK_EQ(mm_munmap(mm, a, 2 << 20), 0);
		d = counters_since(&c0);
		CHECK_EQ(d.mapcount_updates, batched ? 32 : 512);
		CHECK_EQ(d.ref_updates - d.pt_frees, batched ? 32 : 512);
		CHECK_EQ(d.folio_frees - d.pt_frees, 32);
		CHECK_EQ(d.pt_frees, 3);
		CHECK_EQ(d.tlb_flushes, 1 + (512 / GATHER_MAX - 1) * !batched + d.cont_unfolds);
		if (batched) {
			CHECK_EQ(d.cont_unfolds, 0);
			CHECK_EQ(d.tlb_pages, 512); /* the range, once */
		}
		CHECK_EQ(mm->nr_pt_pages, 0);
		end(mm);
	}
}

/* A PMD-mapped THP is zapped with one mapcount and one reference update. */
TEST(zap_pmd_is_one_update)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER));
	struct mm_counters c0, d;

	CHECK_EQ(mm_touch(mm, a, 2 << 20, true), 0);
	c0 = mm_counters_read();
	CHECK_EQ(mm_munmap(mm, a, 2 << 20), 0);
	d = counters_since(&c0);
	CHECK_EQ(d.mapcount_updates, 1);
	CHECK_EQ(d.ref_updates - d.pt_frees, 1);
	CHECK_EQ(d.tlb_flushes, 1);
	CHECK_EQ(d.folio_frees - d.pt_frees, 1);
	end(mm);
}

/* The entries of [a, a + 16 pages): which are writable, which exclusive. */
static void write_and_excl_bits(struct mm *mm, unsigned long a, unsigned *w, unsigned *x)
{
	*w = *x = 0;
	for (unsigned i = 0; i < 16; i++) {
		bool by_pmd;
		pte_t pte;
		struct page *p = page_at(mm, a + i * PAGE_SIZE, &by_pmd, &pte);

		*w |= (unsigned)(p && pte_write(pte)) << i;
		*x |= (unsigned)(p && page_mapped_exclusive(p, by_pmd)) << i;
	}
}

/*
 * After fork and the child's exit, a 64K folio's pages are shared-looking
 * (not AnonExclusive) and read-only; writing pages 5 and 6 reuses them in
 * place (no copy). mprotect RO then RW of the whole folio, batched or
 * not, makes exactly those two pages writable again: the batched run is
 * cut where AnonExclusive changes.
 */
TEST(mprotect_keeps_anon_exclusive_per_page)
{
	for (int batched = 0; batched < 2; batched++) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
		struct mm_counters c0;
		unsigned w, x;

		CHECK_EQ(mm_touch(mm, a, 64 << 10, true), 0);
		mm_put(mm_fork(mm, NULL));
		write_and_excl_bits(mm, a, &w, &x);
		CHECK_EQ(w | x, 0);
		c0 = mm_counters_read();
		CHECK_EQ(mm_touch(mm, a + 5 * PAGE_SIZE, 2 * PAGE_SIZE, true), 0);
		CHECK_EQ(counters_since(&c0).folio_copies, 0);
		caps_set_all(batched);
		CHECK_EQ(mm_mprotect(mm, a, 64 << 10, VM_READ), 0);
		CHECK_EQ(mm_mprotect(mm, a, 64 << 10, RW), 0);
		write_and_excl_bits(mm, a, &w, &x);
		CHECK_EQ(w, 0x60);
		CHECK_EQ(x, 0x60);
		CHECK_EQ(folio_ref_count(folio_at(mm, a)), 16);
		end(mm);
	}
}

/* mprotect flushes the TLB once for the whole range, however many VMAs
 * and folios it covers, and keeps every page where it was. */
TEST(mprotect_flushes_once)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 4 << 20, RW, ORDERS(PMD_ORDER) | ORDERS(4));
	struct folio *f0, *f1;
	struct mm_counters c0;

	CHECK_EQ(mm_touch(mm, a, 4 << 20, true), 0);
	f0 = folio_at(mm, a);
	f1 = folio_at(mm, a + (3 << 20));
	CHECK_EQ(mm_mprotect(mm, a + (1 << 20), 64 << 10, VM_READ | VM_EXEC), 0);
	c0 = mm_counters_read();
	CHECK_EQ(mm_mprotect(mm, a, 4 << 20, VM_READ), 0);
	CHECK_EQ(counters_since(&c0).tlb_flushes, 1);
	CHECK(folio_at(mm, a) == f0 && folio_at(mm, a + (3 << 20)) == f1);
	CHECK(!pte_exec(pte_at(mm, a + (1 << 20))));
	CHECK_EQ(mm_touch(mm, a + (3 << 20), 1, true), -EFAULT);
	end(mm);
}

/* With no page to split a PMD into PTEs, munmap and mprotect of half of
 * it fail with -ENOMEM and change nothing: still one PMD, one VMA, the
 * same bytes. With memory back both work. */
TEST(oom_in_split_changes_nothing)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER));
	struct list_head held;
	unsigned char v = 0;
	bool by_pmd = false;
	pte_t pte;

	CHECK_EQ(mm_touch(mm, a, 2 << 20, true), 0);
	list_init(&held);
	mm_test_hold_memory(&held, 0);
	CHECK_EQ(mm_munmap(mm, a, 1 << 20), -ENOMEM);
	CHECK_EQ(mm_mprotect(mm, a, 1 << 20, VM_READ), -ENOMEM);
	CHECK(page_at(mm, a, &by_pmd, &pte) && by_pmd);
	CHECK(mm->vmas && !mm->vmas->next && find_vma(mm, a)->flags == RW);
	CHECK_EQ(mm_access(mm, a + (1 << 20), &v, 1, false), 0);
	CHECK_EQ(v, (unsigned char)((a + (1 << 20)) >> PAGE_SHIFT));
	CHECK_MM_OK();
	mm_test_put_list(&held);
	CHECK_EQ(mm_mprotect(mm, a, 1 << 20, VM_READ), 0);
	CHECK_EQ(mm_munmap(mm, a + (1 << 20), 1 << 20), 0);
	end(mm);
}

/* mm_create out of memory: NULL, nothing leaked. */
TEST(oom_in_mm_create)
{
	struct list_head held;
	uint64_t free0 = total_free_pages();

	list_init(&held);
	mm_test_hold_memory(&held, 0);
	CHECK(mm_create() == NULL);
	mm_test_put_list(&held);
	CHECK_EQ(total_free_pages(), free0);
	CHECK_MM_OK();
}

struct lines {
	char buf[2048];
	int n;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;
	int len = snprintf(l->buf + l->n, sizeof(l->buf) - (size_t)l->n, "%s\n", line);

	if (len > 0 && l->n + len < (int)sizeof(l->buf))
		l->n += len;
}

/* ptdump: the VMA, a 64K folio as one run of 16 PTEs, a PMD THP, and
 * after fork the shared state (read-only, not exclusive). */
TEST(ptdump_reads_like_the_tables)
{
	struct mm *mm = begin(), *c;
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER) | ORDERS(4));
	unsigned long b = test_mmap(mm, 64 << 10, RW, ORDERS(4));
	struct lines l = { .n = 0 };
	char want[80];

	CHECK_EQ(mm_touch(mm, a, 1, true), 0);
	CHECK_EQ(mm_touch(mm, b, 64 << 10, true), 0);
	mm_ptdump_to(mm, collect, &l);
	CHECK_HAS(l.buf, "2 VMAs, 3 page-table pages");
	snprintf(want, sizeof(want), "vma %#lx-%#lx rw- orders 0x211", a, a + (2 << 20));
	CHECK_HAS(l.buf, want);
	CHECK_HAS(l.buf, "pmd ");
	CHECK_HAS(l.buf, "folio 2M page 0  rw dirty young excl");
	snprintf(want, sizeof(want), "%#lx-%#lx   16 ptes", b, b + (64 << 10));
	CHECK_HAS(l.buf, want);
	CHECK_HAS(l.buf, "folio 64K page 0  rw dirty young excl");
	c = mm_fork(mm, NULL);
	l.n = 0;
	mm_ptdump_to(c, collect, &l);
	CHECK_HAS(l.buf, "folio 64K page 0  ro dirty");
	CHECK_HAS(l.buf, "folio 2M page 0  ro dirty");
	CHECK(strstr(l.buf, "excl") == NULL);
	mm_put(c);
	end(mm);
}

TEST_SUITE(unmap, munmap_partial_folio, munmap_partial_pmd_splits, zap_every_size, mprotect_ro_rw,
	   mprotect_partial_pmd, madvise_partial_pmd_splits, munmap_across_vmas_and_holes,
	   mmap_fixed_replaces_a_mapping, zap_counts_batched_and_unbatched, zap_pmd_is_one_update,
	   mprotect_keeps_anon_exclusive_per_page, mprotect_flushes_once,
	   oom_in_split_changes_nothing, oom_in_mm_create, ptdump_reads_like_the_tables)
