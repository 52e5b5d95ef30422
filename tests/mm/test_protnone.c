/*
 * test_protnone.c - VMAs without access (PROT_NONE), as Linux has them:
 * mmap reserves the range and maps nothing; mprotect to no access keeps
 * every folio mapped with entries that are present to mm/ and refused to
 * user mode, and mprotect back gives the same pages back. Each case says
 * which path must treat such an entry as a mapping (fault, GUP, fork,
 * munmap, migration, madvise, mremap) and ends with the invariant checker
 * (which counts PROT_NONE entries as mappings and refuses a user-accessible
 * entry in a PROT_NONE VMA) and a leak check.
 */
#include "madvise.h"
#include "migrate_cases.h"

static struct mm *pn_begin(void)
{
	return mm_case_begin(&free_before);
}

static void pn_end(struct mm *mm)
{
	mm_case_end(mm, free_before);
}

/* Is every page of [a, +pages) mapped by a present entry that user mode
 * may not use (by a PMD leaf or PTEs)? */
static bool all_protnone(struct mm *mm, unsigned long a, unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++) {
		bool by_pmd;
		pte_t pte;

		if (!page_at(mm, a + i * PAGE_SIZE, &by_pmd, &pte) || !pte_present(pte) ||
		    pte_user(pte))
			return false;
	}
	return true;
}

/* The folio sizes a case runs over: order, and whether a PMD maps it. */
static const struct {
	unsigned order;
	bool pmd;
	const char *name;
} pn_sizes[] = { { 0, false, "4K" },
		 { 4, false, "64K" },
		 { PMD_ORDER, false, "2M-pte" },
		 { PMD_ORDER, true, "2M-pmd" } };

#define PN_NR_SIZES (sizeof(pn_sizes) / sizeof(pn_sizes[0]))
#define PN_LEN (4ul << 20)
#define PN_PAGES (PN_LEN / PAGE_SIZE)

/* A filled 4 MiB mapping of folios of size @k, its start 2 MiB aligned. */
static unsigned long pn_map(struct mm *mm, unsigned k)
{
	unsigned long a = test_mmap(mm, PN_LEN, RW | (pn_sizes[k].pmd ? 0 : VM_NOHUGEPMD),
				    ORDERS(pn_sizes[k].order));

	fill(mm, a, PN_PAGES, k);
	return a;
}

/* mmap(PROT_NONE) reserves the range: no page, every access and fault
 * -EFAULT, the range is not free; mprotect gives it access later. */
TEST(protnone_mmap_reserves)
{
	struct mm *mm = pn_begin();
	unsigned long a = test_mmap(mm, 1 << 20, 0, ORDERS(4));
	unsigned char b = 1;
	struct mm_counters c0 = mm_counters_read();

	CHECK(find_vma(mm, a) && find_vma(mm, a)->flags == 0);
	CHECK(!mm_range_free(mm, a, 1 << 20));
	CHECK_EQ(mm_access(mm, a, &b, 1, false), -EFAULT);
	CHECK_EQ(mm_access(mm, a + PAGE_SIZE, &b, 1, true), -EFAULT);
	CHECK_EQ(handle_mm_fault(mm, a, 0), -EFAULT);
	CHECK_EQ(handle_mm_fault(mm, a, FAULT_WRITE), -EFAULT);
	CHECK_EQ(counters_since(&c0).folio_allocs, 0);
	CHECK(folio_at(mm, a) == NULL);
	CHECK_EQ(mm_mprotect(mm, a, 1 << 20, RW), 0); /* and it becomes usable */
	CHECK_EQ(mm_access(mm, a, &b, 1, true), 0);
	pn_end(mm);
}

/* mprotect to no access keeps every folio of every size where it was,
 * with its references and mappings; reads and writes fail; mprotect back
 * gives the same pages with the same bytes, writable again. */
TEST(protnone_mprotect_keeps_folios)
{
	for (unsigned k = 0; k < PN_NR_SIZES; k++) {
		struct mm *mm = pn_begin();
		unsigned long a = pn_map(mm, k);
		struct folio *f = folio_at(mm, a);
		int ref = folio_ref_count(f), maps = folio_mapcount(f);
		unsigned char b = 0;

		printf("    %s\n", pn_sizes[k].name);
		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, 0), 0);
		CHECK(all_protnone(mm, a, PN_PAGES));
		CHECK(folio_at(mm, a) == f);
		CHECK_EQ(folio_ref_count(f), ref);
		CHECK_EQ(folio_mapcount(f), maps);
		CHECK_EQ(mm_access(mm, a + PAGE_SIZE, &b, 1, false), -EFAULT);
		CHECK_EQ(mm_access(mm, a, &b, 1, true), -EFAULT);
		CHECK_MM_OK();
		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, RW), 0);
		CHECK(folio_at(mm, a) == f);
		CHECK_EQ(bad_bytes(mm, a, PN_PAGES, k), 0);
		CHECK(pte_user_writable(pte_mkdirty(pte_at(mm, a))) || pn_sizes[k].pmd);
		fill(mm, a, PN_PAGES, k + 1);
		pn_end(mm);
	}
}

/* Part of a range, and across a PMD leaf: the leaf is split, the pages
 * outside stay accessible, the VMAs are split at the edges. */
TEST(protnone_mprotect_part)
{
	struct mm *mm = pn_begin();
	unsigned long a = pn_map(mm, 3), m = a + PMD_SIZE - 8 * PAGE_SIZE;
	unsigned char b = 0;
	bool by_pmd;
	pte_t pte;

	CHECK_EQ(mm_mprotect(mm, m, 24 * PAGE_SIZE, 0), 0);
	CHECK(all_protnone(mm, m, 24));
	CHECK_EQ(mm_access(mm, m - 1, &b, 1, false), 0);
	CHECK_EQ(mm_access(mm, m + 24 * PAGE_SIZE, &b, 1, true), 0);
	CHECK_EQ(mm_access(mm, m + 23 * PAGE_SIZE, &b, 1, false), -EFAULT);
	CHECK(page_at(mm, a, &by_pmd, &pte) && !by_pmd);
	CHECK(find_vma(mm, m)->start == m && find_vma(mm, m)->end == m + 24 * PAGE_SIZE);
	CHECK_MM_OK();
	CHECK_EQ(mm_mprotect(mm, a, PN_LEN, RW), 0);
	CHECK_EQ(bad_bytes(mm, a, 16, 3), 0);
	pn_end(mm);
}

/* The counters of one mprotect of @len at @a to @vm. */
static struct mm_counters pn_mprotect_counts(struct mm *mm, unsigned long a, unsigned long len,
					     unsigned vm)
{
	struct mm_counters c0 = mm_counters_read();

	CHECK_EQ(mm_mprotect(mm, a, len, vm), 0);
	return counters_since(&c0);
}

/* To and from no access is batched as any protection change: batched,
 * mprotect to NONE and back costs what mprotect to RO and back does
 * (entries read, locks, flushes, blocks written), and on arm64 a block
 * stays a block through PROT_NONE (never unfolded and refolded). At cap 1
 * it is Linux's per-PTE path: each block is unfolded on the way to NONE
 * and, as a PROT_NONE entry never folds alone, refolded only on the way
 * back, by the write of its last entry. */
TEST(protnone_mprotect_batches_as_ro)
{
	unsigned has = arch_has_pte_blocks(), blocks = 16;

	for (int batched = 0; batched < 2; batched++) {
		struct mm *mm = pn_begin();
		unsigned long a = test_mmap(mm, 1 << 20, RW | VM_NOHUGEPMD, ORDERS(4));
		struct mm_counters ro, none, back_ro, back_none;

		CHECK_EQ(mm_touch(mm, a, 1 << 20, true), 0);
		caps_set_all(batched);
		ro = pn_mprotect_counts(mm, a, 1 << 20, VM_READ);
		back_ro = pn_mprotect_counts(mm, a, 1 << 20, RW);
		none = pn_mprotect_counts(mm, a, 1 << 20, 0);
		CHECK(all_protnone(mm, a, 256));
		CHECK_EQ(pte_cont(pte_at(mm, a)), batched && has);
		back_none = pn_mprotect_counts(mm, a, 1 << 20, RW);
		printf("    %s: to RO %llu gets %llu unfolds %llu folds; to NONE %llu %llu %llu\n",
		       batched ? "batched" : "cap 1", (unsigned long long)ro.ptep_gets,
		       (unsigned long long)ro.cont_unfolds, (unsigned long long)ro.cont_folds,
		       (unsigned long long)none.ptep_gets, (unsigned long long)none.cont_unfolds,
		       (unsigned long long)none.cont_folds);
		CHECK_EQ(none.ptep_gets, ro.ptep_gets);
		CHECK_EQ(none.ptl_takes, ro.ptl_takes);
		CHECK_EQ(back_none.ptep_gets, back_ro.ptep_gets);
		CHECK_EQ(back_none.ptl_takes, back_ro.ptl_takes);
		if (batched) {
			CHECK_EQ(none.tlb_flushes, ro.tlb_flushes);
			CHECK_EQ(none.cont_unfolds, 0);
			CHECK_EQ(none.cont_folds, ro.cont_folds);
			CHECK_EQ(back_none.tlb_flushes, back_ro.tlb_flushes);
			CHECK_EQ(back_none.cont_unfolds, 0);
			CHECK_EQ(back_none.cont_folds, back_ro.cont_folds);
		} else {
			CHECK_EQ(none.cont_unfolds, has * blocks);
			CHECK_EQ(none.cont_folds, 0);
			CHECK_EQ(back_none.cont_unfolds, 0);
			CHECK_EQ(back_none.cont_folds, has * blocks);
		}
		CHECK_EQ(pte_cont(pte_at(mm, a)), has);
		CHECK_EQ(mm_touch(mm, a, 1 << 20, true), 0);
		pn_end(mm);
	}
}

/* GUP of a PROT_NONE page is -EFAULT and takes nothing; gup-fast alone
 * (no VMA to look at) must refuse the entry itself. */
TEST(protnone_gup_efault)
{
	for (unsigned k = 0; k < PN_NR_SIZES; k++) {
		struct mm *mm = pn_begin();
		unsigned long a = pn_map(mm, k);
		struct folio *f = folio_at(mm, a);
		int ref = folio_ref_count(f);
		struct page *pages[16];

		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, 0), 0);
		CHECK_EQ(get_user_pages(mm, a, 16, 0, pages), -EFAULT);
		CHECK_EQ(pin_user_pages(mm, a, 16, FOLL_WRITE, pages), -EFAULT);
		CHECK_EQ(pin_user_pages_fast(mm, a, 16, FOLL_FAST_ONLY, pages), 0);
		CHECK_EQ(get_user_pages_fast(mm, a, 16, FOLL_FAST_ONLY, pages), 0);
		CHECK_EQ(pin_user_pages_fast(mm, a, 16, 0, pages), -EFAULT);
		CHECK_EQ(folio_ref_count(f), ref);
		CHECK_EQ(folio_maybe_dma_pinned(f), false);
		pn_end(mm);
	}
}

/* Fork copies the PROT_NONE VMA and its entries (shared, mapcount 2);
 * each side gets its own page when it makes the range writable again
 * and writes. */
TEST(protnone_fork_copies)
{
	for (unsigned k = 0; k < PN_NR_SIZES; k++) {
		struct mm *mm = pn_begin(), *child;
		unsigned long a = pn_map(mm, k);
		struct folio *f = folio_at(mm, a);
		unsigned char b = 0x5a;

		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, 0), 0);
		child = mm_fork(mm, NULL);
		CHECK(child != NULL);
		if (!child)
			break;
		CHECK(find_vma(child, a) && !(find_vma(child, a)->flags & VM_ACCESS_FLAGS));
		CHECK(all_protnone(child, a, PN_PAGES));
		CHECK(folio_at(child, a) == f);
		CHECK_EQ(folio_page(f, 0)->mapcount + f->page.entire_mapcount, 2);
		CHECK_EQ(mm_access(child, a, &b, 1, false), -EFAULT);
		CHECK_MM_OK();
		CHECK_EQ(mm_mprotect(child, a, PN_LEN, RW), 0);
		CHECK_EQ(bad_bytes(child, a, PN_PAGES, k), 0);
		CHECK_EQ(mm_access(child, a, &b, 1, true), 0);
		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, RW), 0);
		CHECK_EQ(bad_bytes(mm, a, PN_PAGES, k), 0); /* the child's write stayed its own */
		mm_put(child);
		pn_end(mm);
	}
}

/* munmap (whole, and part of a large folio) and exit free PROT_NONE
 * folios like any other (pn_end checks nothing leaked). */
TEST(protnone_munmap_frees)
{
	for (unsigned k = 0; k < PN_NR_SIZES; k++) {
		struct mm *mm = pn_begin();
		unsigned long a = pn_map(mm, k);

		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, 0), 0);
		CHECK_EQ(mm_munmap(mm, a + 5 * PAGE_SIZE, PAGE_SIZE), 0);
		CHECK(folio_at(mm, a + 5 * PAGE_SIZE) == NULL);
		CHECK(all_protnone(mm, a + 6 * PAGE_SIZE, 10));
		CHECK_MM_OK();
		CHECK_EQ(mm_munmap(mm, a, PMD_SIZE), 0);
		pn_end(mm); /* the second 2 MiB goes with the mm */
	}
}

/* Migration (mbind MOVE, move_pages, migrate_pages) moves PROT_NONE
 * folios, which stay PROT_NONE on the new node with the same bytes;
 * move_pages' query sees them as present (Linux 6.12 answers the node). */
TEST(protnone_migrates)
{
	NEED_TWO_NODES();
	for (unsigned k = 0; k < PN_NR_SIZES; k++) {
		struct mm *mm = pn_begin();
		unsigned long a = pn_map(mm, k), addrs[2] = { a, a + PMD_SIZE };
		int nodes[2] = { 1, 1 }, status[2] = { -1, -1 };

		CHECK_EQ(off_node(mm, a, PN_PAGES, 0), 0);
		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, 0), 0);
		CHECK_EQ(mbind(mm, a, PMD_SIZE, MPOL_BIND, N1, MPOL_MF_MOVE), 0);
		CHECK_EQ(off_node(mm, a, PMD_SIZE / PAGE_SIZE, 1), 0);
		CHECK_EQ(move_pages(mm, 1, &addrs[1], nodes, status, MPOL_MF_MOVE), 0);
		CHECK_EQ(status[0], 1);
		CHECK_EQ(folio_at(mm, addrs[1])->page.node, 1);
		CHECK_EQ(migrate_pages(mm, N0, N1) >= 0, true);
		CHECK_EQ(off_node(mm, a, PN_PAGES, 1), 0);
		CHECK_EQ(move_pages(mm, 2, addrs, NULL, status, 0), 0);
		CHECK(status[0] == 1 && status[1] == 1); /* present to the query */
		CHECK(all_protnone(mm, a, PN_PAGES));
		CHECK_MM_OK();
		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, RW), 0);
		CHECK_EQ(bad_bytes(mm, a, PN_PAGES, k), 0);
		pn_end(mm);
	}
}

/* madvise on PROT_NONE: DONTNEED drops the pages (zero after mprotect
 * back), FREE keeps them mapped, POPULATE is -EINVAL (no access). */
TEST(protnone_madvise)
{
	for (unsigned k = 0; k < PN_NR_SIZES; k++) {
		struct mm *mm = pn_begin();
		unsigned long a = pn_map(mm, k);
		unsigned char b = 1;

		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, 0), 0);
		CHECK_EQ(mm_madvise(mm, a, PN_LEN, MADV_POPULATE_READ), -EINVAL);
		CHECK_EQ(mm_madvise(mm, a, PN_LEN, MADV_POPULATE_WRITE), -EINVAL);
		CHECK_EQ(mm_madvise(mm, a + PMD_SIZE, PMD_SIZE, MADV_FREE), 0);
		CHECK(all_protnone(mm, a + PMD_SIZE, PMD_SIZE / PAGE_SIZE));
		CHECK_EQ(mm_madvise(mm, a, PMD_SIZE, MADV_DONTNEED), 0);
		CHECK(folio_at(mm, a) == NULL);
		CHECK_MM_OK();
		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, RW), 0);
		CHECK_EQ(mm_access(mm, a, &b, 1, false), 0);
		CHECK_EQ(b, 0);
		pn_end(mm);
	}
}

/* mremap moves PROT_NONE entries as they are: still PROT_NONE at the new
 * place, the same folios, the VMA keeps no access. */
TEST(protnone_mremap_moves)
{
	for (unsigned k = 0; k < PN_NR_SIZES; k++) {
		struct mm *mm = pn_begin();
		unsigned long a = pn_map(mm, k);
		struct folio *f = folio_at(mm, a);
		long n;

		CHECK_EQ(mm_mprotect(mm, a, PN_LEN, 0), 0);
		n = mm_mremap(mm, a, PN_LEN, 2 * PN_LEN, MREMAP_MAYMOVE, 0);
		CHECK(n > 0);
		if (n <= 0)
			break;
		CHECK(!(find_vma(mm, (unsigned long)n)->flags & VM_ACCESS_FLAGS));
		CHECK(all_protnone(mm, (unsigned long)n, PN_PAGES));
		CHECK(folio_at(mm, (unsigned long)n) == f);
		CHECK_MM_OK();
		CHECK_EQ(mm_mprotect(mm, (unsigned long)n, PN_LEN, RW), 0);
		CHECK_EQ(bad_bytes(mm, (unsigned long)n, PN_PAGES, k), 0);
		pn_end(mm);
	}
}

/* The checker refuses what PROT_NONE forbids: an entry user mode may use
 * inside a VMA without access. */
TEST(protnone_checker_finds_an_open_entry)
{
	struct mm *mm = pn_begin();
	unsigned long a = pn_map(mm, 0);
	pte_t *ptep, saved;

	CHECK_EQ(mm_mprotect(mm, a, PAGE_SIZE, 0), 0);
	CHECK_MM_OK();
	ptep = pte_offset_kernel(mm_find_pmd(mm, a, false), a);
	saved = __ptep_get(ptep);
	set_pte(ptep, pte_modify(saved, vm_get_page_prot(VM_READ)));
	CHECK(mm_check(NULL) > 0);
	set_pte(ptep, saved);
	pn_end(mm);
}

TEST_SUITE(protnone, protnone_mmap_reserves, protnone_mprotect_keeps_folios, protnone_mprotect_part,
	   protnone_mprotect_batches_as_ro, protnone_gup_efault, protnone_fork_copies,
	   protnone_munmap_frees, protnone_migrates, protnone_madvise, protnone_mremap_moves,
	   protnone_checker_finds_an_open_entry)
