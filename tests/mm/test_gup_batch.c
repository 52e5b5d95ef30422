/*
 * test_gup_batch.c - the two GUP batchings and their limits: one descent
 * and one PTE-lock hold per page table (the walk), one refcount update
 * per run of a folio (the grab), runs that split where a per-page answer
 * changes (a page that is not AnonExclusive under a read-only pin, a
 * read-only entry under FOLL_WRITE), the lockless gup-fast walk with its
 * undo, and a differential test: every GUP knob setting returns the same
 * pages and leaves the same counts as the unbatched code.
 */
#include "test_gup_cases.h"
#include "pte_batch.h"

static struct page *pages[GUP_MAX_PAGES];
static uint64_t free_before;

static struct mm *begin(void)
{
	return mm_case_begin(&free_before);
}

static void end(struct mm *mm)
{
	mm_case_end(mm, free_before);
}

/* @len bytes of @order folios (PTE-mapped) from a 2 MiB boundary, every
 * page written; the mapping has room around it. */
static unsigned long aligned_region(struct mm *mm, unsigned long len, unsigned order)
{
	unsigned long a = test_mmap(mm, len + PMD_SIZE, RW | VM_NOHUGEPMD, ORDERS(order));

	a = (a + PMD_SIZE - 1) & PMD_MASK;
	CHECK_EQ(mm_touch(mm, a, len, true), 0);
	return a;
}

/* How many PMD entries [a, a+len) touches. */
static unsigned long pmds_touched(unsigned long a, unsigned long len)
{
	return ((a + len - 1) & PMD_MASK) / PMD_SIZE - (a & PMD_MASK) / PMD_SIZE + 1;
}

/* One pin of @n pages at @a under variant @v; the counter deltas. */
static struct mm_counters pin_counted(struct mm *mm, unsigned long a, unsigned long n,
				      unsigned flags, const struct gup_variant *v, long *got)
{
	struct mm_counters c0;

	gup_variant_apply(v);
	c0 = mm_counters_read();
	*got = pin_user_pages(mm, a, n, flags, pages);
	return counters_since(&c0);
}

/*
 * 4 MiB of @order folios, populated, from a 2 MiB boundary: pinning 1024
 * pages takes 2 descents and 2 lock takes with the walk (one per table),
 * 1024 of each without; one refcount update per folio with the grab.
 */
TEST(walk_is_one_descent_and_one_lock_per_table)
{
	static const unsigned orders[] = { 0, 4 };

	for (int o = 0; o < 2; o++)
		for (int v = 0; v < NR_GUP_VARIANTS; v++) {
			const struct gup_variant *gv = &gup_variants[v];
			struct mm *mm = begin();
			unsigned long a = aligned_region(mm, 4 << 20, orders[o]);
			unsigned long per_folio = 1ul << orders[o];
			unsigned long grabs = orders[o] && gv->grab > 1 ? 1024 / per_folio : 1024;
			struct mm_counters d;
			long got;

			WHERE("order %u %s", orders[o], gv->label);
			if (gv->grab == 3 && orders[o])
				grabs = 1024 / per_folio * ((per_folio + 2) / 3);
			d = pin_counted(mm, a, 1024, FOLL_WRITE, gv, &got);
			W_CHECK_EQ(got, 1024);
			W_CHECK_EQ(d.pt_descents, gv->walk ? 2 : 1024);
			W_CHECK_EQ(d.ptl_takes, gv->walk ? 2 : 1024);
			W_CHECK_EQ(d.ref_updates, grabs);
			W_CHECK_EQ(d.faults, 0);
			W_CHECK(pages_are_mapped(mm, pages, 1024, a));
			unpin_user_pages(pages, 1024);
			end(mm);
		}
}

/* A request that starts 64 KiB before a table's end and crosses it:
 * one descent per table touched, and runs never cross the table. */
TEST(walk_stops_at_the_table_end)
{
	struct mm *mm = begin();
	unsigned long a = aligned_region(mm, 4 << 20, 4);
	struct mm_counters d;
	long got;

	d = pin_counted(mm, a + (2 << 20) - (64 << 10), 32, 0, &gup_variants[3], &got);
	CHECK_EQ(got, 32);
	CHECK_EQ(d.pt_descents, 2);
	CHECK_EQ(d.ptl_takes, 2);
	CHECK_EQ(d.ref_updates, 2);
	CHECK(pages_are_mapped(mm, pages, 32, a + (2 << 20) - (64 << 10)));
	unpin_user_pages(pages, 32);
	end(mm);
}

/* A PMD-mapped THP is one step with one grab in every variant (Linux
 * took it in one step before the seeds too), from any offset. */
TEST(pmd_thp_is_one_step)
{
	for (int v = 0; v < NR_GUP_VARIANTS; v++) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, 4 << 20, RW, ORDERS(PMD_ORDER));
		struct mm_counters d;
		long got;

		WHERE("%s", gup_variants[v].label);
		W_CHECK_EQ(mm_touch(mm, a, 4 << 20, true), 0);
		d = pin_counted(mm, a + 100 * PAGE_SIZE, 600, 0, &gup_variants[v], &got);
		W_CHECK_EQ(got, 600);
		W_CHECK_EQ(d.pt_descents, 2);
		W_CHECK_EQ(d.ptl_takes, 0);
		W_CHECK_EQ(d.ref_updates, 2);
		W_CHECK_EQ(folio_pincount(page_folio(pages[0])), 412);
		W_CHECK_EQ(folio_pincount(page_folio(pages[599])), 188);
		W_CHECK(pages_are_mapped(mm, pages, 600, a + 100 * PAGE_SIZE));
		unpin_user_pages(pages, 600);
		end(mm);
	}
}

/* FOLL_TOUCH: folio_mark_accessed() once per run: 32 calls instead of
 * 512 over 2 MiB of 64 KiB folios (the seed's count). */
TEST(mark_accessed_once_per_run)
{
	for (int v = 0; v < NR_GUP_VARIANTS; v++) {
		struct mm *mm = begin();
		unsigned long a = aligned_region(mm, 2 << 20, 4);
		unsigned grab = gup_variants[v].grab;
		struct mm_counters d;
		long got;

		WHERE("%s", gup_variants[v].label);
		d = pin_counted(mm, a, 512, FOLL_TOUCH, &gup_variants[v], &got);
		W_CHECK_EQ(got, 512);
		W_CHECK_EQ(d.mark_accessed, grab == 1 ? 512 : grab == 3 ? 32 * 6 : 32);
		unpin_user_pages(pages, 512);
		end(mm);
	}
}

/*
 * A 64 KiB folio shared with a child that unmapped its pages 0-7, and
 * one unshare fault at page 0: the parent's pages 0-7 are AnonExclusive,
 * 8-15 are not, and all 16 entries are read-only, so folio_pte_batch()
 * sees one run of 16. A read-only pin must cut it at page 8: one grab
 * for pages 0-7, then page 8 takes the unshare fault (a copy: the child
 * still maps it), and so on page by page. The pages and counts equal the
 * unbatched ones; only the refcount updates differ (1 instead of 8).
 */
static struct mm *mixed_exclusive(unsigned long *a, struct mm **child)
{
	struct mm *mm = begin();

	*a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	CHECK_EQ(stamp_range(mm, *a, 64 << 10, 1), 0);
	*child = mm_fork(mm, NULL);
	CHECK_EQ(mm_munmap(*child, *a, 8 * PAGE_SIZE), 0);
	CHECK_EQ(handle_mm_fault(mm, *a, FAULT_UNSHARE), 0);
	CHECK_EQ(page_bits(mm, *a, 16, true), 0x00ff);
	CHECK_EQ(page_bits(mm, *a, 16, false), 0);
	return mm;
}

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("    %s\n", line);
}

TEST(ro_pin_run_splits_at_a_page_that_is_not_exclusive)
{
	struct mm_counters d[NR_GUP_VARIANTS];
	struct folio *f0 = NULL;

	for (int v = 0; v < NR_GUP_VARIANTS; v++) {
		unsigned long a;
		struct mm *c, *mm = mixed_exclusive(&a, &c);
		long got;

		WHERE("%s", gup_variants[v].label);
		f0 = folio_at(mm, a);
		if (v == 0) { /* docs/gup.md shows the tables before and after the call */
			printf("    -- before pin_user_pages(16 pages, FOLL_LONGTERM)\n");
			mm_ptdump_to(mm, print_line, NULL);
		}
		d[v] = pin_counted(mm, a, 16, FOLL_LONGTERM, &gup_variants[v], &got);
		if (v == 0) {
			printf("    -- after it\n");
			mm_ptdump_to(mm, print_line, NULL);
		}
		W_CHECK_EQ(got, 16);
		W_CHECK(pages_are_mapped(mm, pages, 16, a));
		for (int i = 0; i < 16; i++)
			W_CHECK_EQ(page_folio(pages[i]) == f0, i < 8);
		W_CHECK_EQ(folio_pincount(f0), 8);
		W_CHECK_EQ(d[v].faults, 8);
		W_CHECK_EQ(d[v].folio_copies, 8);
		W_CHECK_MM_OK();
		W_CHECK_EQ(stamp_range(mm, a, 64 << 10, 2), 0);
		W_CHECK_EQ(pinned_mismatches(pages, 16, a, 2), 0);
		W_CHECK_EQ(stamp_mismatches(c, a + 8 * PAGE_SIZE, 32 << 10, 1), 0);
		unpin_user_pages(pages, 16);
		mm_put(c);
		end(mm);
	}
	CHECK_EQ(d[0].ref_updates - d[3].ref_updates, 7); /* 8 grabs became 1 */
	CHECK_EQ(d[1].ref_updates, d[0].ref_updates);
	/* The counters docs/gup.md shows for this call (its doc-test runs this case). */
	for (int v = 0; v < NR_GUP_VARIANTS; v++)
		printf("    %-9s pt_descents %llu ptl_takes %llu ptep_gets %llu ref_updates %llu "
		       "faults %llu folio_copies %llu\n",
		       gup_variants[v].label, (unsigned long long)d[v].pt_descents,
		       (unsigned long long)d[v].ptl_takes, (unsigned long long)d[v].ptep_gets,
		       (unsigned long long)d[v].ref_updates, (unsigned long long)d[v].faults,
		       (unsigned long long)d[v].folio_copies);
}

/* The same folio under FOLL_GET: a get needs no exclusivity, so the run
 * is not cut (one grab of 16), and nothing is copied. */
TEST(get_run_is_not_cut_by_exclusivity)
{
	unsigned long a;
	struct mm *c, *mm = mixed_exclusive(&a, &c);
	struct mm_counters c0 = mm_counters_read(), d;

	CHECK_EQ(get_user_pages(mm, a, 16, 0, pages), 16);
	d = counters_since(&c0);
	CHECK_EQ(d.ref_updates, 1);
	CHECK_EQ(d.faults, 0);
	put_user_pages(pages, 16);
	mm_put(c);
	end(mm);
}

/*
 * A 64 KiB folio whose pages are all AnonExclusive, 0-7 writable and 8-15
 * read-only (fork, child exit, one unshare, then writes to 0-7). FOLL_WRITE
 * cuts the run at page 8 (folio_pte_batch keeps the write bit), which
 * takes its write fault (a reuse: no copy), and so on page by page. A
 * read-only pin of the same folio is one run: write bits do not matter
 * to a read, and every page is exclusive.
 */
static struct mm *mixed_writable(unsigned long *a)
{
	struct mm *mm = begin();

	*a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	CHECK_EQ(stamp_range(mm, *a, 64 << 10, 1), 0);
	mm_put(mm_fork(mm, NULL));
	CHECK_EQ(handle_mm_fault(mm, *a + 8 * PAGE_SIZE, FAULT_UNSHARE), 0);
	CHECK_EQ(stamp_range(mm, *a, 32 << 10, 2), 0);
	CHECK_EQ(page_bits(mm, *a, 16, true), 0xffff);
	CHECK_EQ(page_bits(mm, *a, 16, false), 0x00ff);
	return mm;
}

TEST(write_run_splits_at_a_read_only_entry)
{
	struct mm_counters d[NR_GUP_VARIANTS];

	for (int v = 0; v < NR_GUP_VARIANTS; v++) {
		unsigned long a;
		struct mm *mm = mixed_writable(&a);
		struct folio *f0 = folio_at(mm, a);
		long got;

		WHERE("%s", gup_variants[v].label);
		d[v] = pin_counted(mm, a, 16, FOLL_WRITE, &gup_variants[v], &got);
		W_CHECK_EQ(got, 16);
		W_CHECK(pages_are_mapped(mm, pages, 16, a));
		W_CHECK(page_folio(pages[15]) == f0);
		W_CHECK_EQ(d[v].faults, 8);
		W_CHECK_EQ(d[v].folio_copies, 0);
		W_CHECK_EQ(page_bits(mm, a, 16, false), 0xffff);
		W_CHECK_MM_OK();
		unpin_user_pages(pages, 16);
		end(mm);
	}
	CHECK_EQ(d[0].ref_updates, 16);
	CHECK_EQ(d[1].ref_updates, 16);
	CHECK_EQ(d[3].ref_updates, 9); /* pages 0-7 in one grab, then 8 single pages */
	/* Descents: page by page, 16 steps, 8 failed steps and 8 faults; the
	 * walk: 1 step for 0-7, then per page a failed step, a fault, a step. */
	CHECK_EQ(d[0].pt_descents, 32);
	CHECK_EQ(d[3].pt_descents, 25);
}

TEST(ro_pin_run_is_not_cut_by_write_bits)
{
	unsigned long a;
	struct mm *mm = mixed_writable(&a);
	struct mm_counters c0 = mm_counters_read(), d;

	caps_set_all(true);
	CHECK_EQ(pin_user_pages(mm, a, 16, 0, pages), 16);
	d = counters_since(&c0);
	CHECK_EQ(d.ref_updates, 1);
	CHECK_EQ(d.faults, 0);
	unpin_user_pages(pages, 16);
	end(mm);
}

/* A single PTE left of a 64 KiB folio, shared with a child: a read-only
 * pin copies that one page and sees the parent's later writes; when the
 * child has exited, the page is reused instead. */
TEST(single_pte_of_a_large_folio)
{
	for (int exits = 0; exits < 2; exits++) {
		struct mm *mm = begin(), *c;
		unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
		unsigned long p5 = a + 5 * PAGE_SIZE;
		struct folio *f;
		struct mm_counters c0;

		WHERE("child %s", exits ? "exited" : "alive");
		W_CHECK_EQ(stamp_range(mm, a, 64 << 10, 1), 0);
		f = folio_at(mm, a);
		W_CHECK_EQ(mm_munmap(mm, a, 5 * PAGE_SIZE), 0);
		W_CHECK_EQ(mm_munmap(mm, p5 + PAGE_SIZE, 10 * PAGE_SIZE), 0);
		c = mm_fork(mm, NULL);
		if (exits) {
			mm_put(c);
			c = NULL;
		}
		c0 = mm_counters_read();
		W_CHECK_EQ(pin_user_pages(mm, p5, 1, FOLL_LONGTERM, pages), 1);
		W_CHECK_EQ(counters_since(&c0).folio_copies, exits ? 0 : 1);
		W_CHECK_EQ(page_folio(pages[0]) == f, exits);
		W_CHECK_EQ(stamp_range(mm, p5, PAGE_SIZE, 3), 0);
		W_CHECK_EQ(pinned_mismatches(pages, 1, p5, 3), 0);
		if (c) {
			W_CHECK_EQ(stamp_mismatches(c, p5, PAGE_SIZE, 1), 0);
			mm_put(c);
		}
		W_CHECK_MM_OK();
		unpin_user_pages(pages, 1);
		end(mm);
	}
}

/* gup-fast takes no PTE lock and returns what the slow path returns. */
TEST(gup_fast_takes_no_lock)
{
	for (int s = 0; s < NR_GSIZES; s++) {
		const struct gsize *g = &gsizes[s];
		struct mm *mm = begin();
		unsigned long len, a = gup_region(mm, g, &len, 1), n = len >> PAGE_SHIFT;
		struct mm_counters c0 = mm_counters_read(), d;

		WHERE("%s", g->label);
		W_CHECK_EQ(pin_user_pages_fast(mm, a, n, FOLL_WRITE | FOLL_FAST_ONLY, pages), n);
		d = counters_since(&c0);
		W_CHECK_EQ(d.ptl_takes, 0);
		W_CHECK_EQ(d.pt_descents, pmds_touched(a, len));
		W_CHECK(pages_are_mapped(mm, pages, n, a));
		W_CHECK(mm->flags & MMF_HAS_PINNED);
		unpin_user_pages(pages, n);
		W_CHECK_EQ(get_user_pages_fast(mm, a, n, 0, pages), n);
		W_CHECK(pages_are_mapped(mm, pages, n, a));
		put_user_pages(pages, n);
		W_CHECK_EQ(gup_refs_left(mm, a, len), 0);
		end(mm);
	}
}

/* gup-fast never faults: FOLL_FAST_ONLY returns 0 on missing pages; the
 * plain call falls back to the slow path for them. */
TEST(gup_fast_falls_back_for_faults)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 256 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	struct mm_counters c0;

	CHECK_EQ(stamp_range(mm, a, 128 << 10, 1), 0);
	c0 = mm_counters_read();
	CHECK_EQ(pin_user_pages_fast(mm, a + (128 << 10), 32, FOLL_FAST_ONLY, pages), 0);
	CHECK_EQ(counters_since(&c0).faults, 0);
	CHECK_EQ(gup_refs_left(mm, a, 256 << 10), 0);
	CHECK_EQ(pin_user_pages_fast(mm, a + (64 << 10), 32, FOLL_FAST_ONLY, pages), 16);
	unpin_user_pages(pages, 16);
	CHECK_EQ(pin_user_pages_fast(mm, a + (64 << 10), 32, 0, pages), 32);
	CHECK(counters_since(&c0).faults > 0);
	CHECK(pages_are_mapped(mm, pages, 32, a + (64 << 10)));
	unpin_user_pages(pages, 32);
	CHECK_EQ(pin_user_pages_fast(mm, a - (1ul << 30), 1, 0, pages), -EFAULT);
	end(mm);
}

/* gup-fast looks at no VMA, so it must refuse what user mode may not
 * touch: a PROT_NONE entry (pte_present() but not pte_user()), in a PTE
 * table or as a PMD leaf, is left to the slow path. The entries are made
 * PROT_NONE directly, each change flushed, and put back. */
TEST(gup_fast_refuses_prot_none)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	unsigned long h = test_mmap(mm, 4 << 20, RW, ORDERS(PMD_ORDER));
	pmd_t *pmdp, pmd;
	pte_t *ptep, pte;

	CHECK_EQ(stamp_range(mm, a, 64 << 10, 1), 0);
	h = (h + PMD_SIZE - 1) & PMD_MASK;
	CHECK_EQ(stamp_range(mm, h, PMD_SIZE, 1), 0);
	ptep = pte_offset_kernel(mm_find_pmd(mm, a, false), a);
	pte = clear_full_ptes(mm, a, ptep, 1, 0); /* splits a block first */
	set_ptes(mm, a, ptep, pte_modify(pte, PAGE_USER_NONE), 1);
	flush_tlb_range(mm, a, a + PAGE_SIZE);
	CHECK(pte_present(__ptep_get(ptep)) && !pte_user(__ptep_get(ptep)));
	CHECK_EQ(pin_user_pages_fast(mm, a, 16, FOLL_FAST_ONLY, pages), 0);
	CHECK_EQ(get_user_pages_fast(mm, a, 1, FOLL_FAST_ONLY, pages), 0);
	clear_full_ptes(mm, a, ptep, 1, 0);
	set_ptes(mm, a, ptep, pte, 1);
	flush_tlb_range(mm, a, a + PAGE_SIZE);
	pmdp = mm_find_pmd(mm, h, false);
	CHECK(pmdp && pmd_leaf(*pmdp));
	pmd = *pmdp;
	*pmdp = pmd_modify(pmd, PAGE_USER_NONE);
	flush_tlb_range(mm, h, h + PMD_SIZE);
	CHECK_EQ(pin_user_pages_fast(mm, h, 16, FOLL_FAST_ONLY, pages), 0);
	*pmdp = pmd;
	flush_tlb_range(mm, h, h + PMD_SIZE);
	CHECK_EQ(pin_user_pages_fast(mm, a, 16, FOLL_FAST_ONLY, pages), 16);
	unpin_user_pages(pages, 16);
	end(mm);
}

/* gup-fast grabs a run before it looks at AnonExclusive (Linux's order),
 * so on the mixed folio it grabs 16 pins, keeps 8 and gives 8 back:
 * afterwards exactly pages 0-7 are pinned. */
TEST(gup_fast_undoes_the_grab_past_the_cut)
{
	unsigned long a;
	struct mm *c, *mm = mixed_exclusive(&a, &c);
	struct folio *f0 = folio_at(mm, a);
	int ref0 = folio_ref_count(f0);
	struct mm_counters c0 = mm_counters_read(), d;

	CHECK_EQ(pin_user_pages_fast(mm, a, 16, FOLL_FAST_ONLY, pages), 8);
	d = counters_since(&c0);
	CHECK_EQ(d.ref_updates, 2); /* the grab of 16 and the undo of 8 */
	CHECK_EQ(folio_pincount(f0), 8);
	CHECK_EQ(folio_ref_count(f0), ref0 + 8);
	unpin_user_pages(pages, 8);
	CHECK_EQ(pin_user_pages_fast(mm, a, 16, 0, pages), 16);
	CHECK(pages_are_mapped(mm, pages, 16, a));
	CHECK_EQ(folio_pincount(f0), 8);
	CHECK_MM_OK();
	unpin_user_pages(pages, 16);
	mm_put(c);
	end(mm);
}

/* ---- differential: every GUP knob setting against the unbatched code ---- */

#define DIFF_REGIONS 3
#define DIFF_REGION_PAGES 256 /* 1 MiB each */
#define DIFF_OPS 8

/* What one GUP call returned and left, in a form that compares across
 * runs: folios are numbered in order of first appearance in pages[], so
 * runs that were given other pfns still compare equal. */
struct gup_snap {
	long ret;
	uint64_t faults, copies;
	struct {
		int folio, index, order, ref, pin, map, excl;
	} p[GUP_MAX_PAGES];
};
static struct gup_snap snap_log[DIFF_OPS], snap_now;

static void snap_take(struct gup_snap *s, long ret, const struct mm_counters *d)
{
	static struct folio *seen[GUP_MAX_PAGES];
	int nseen = 0;

	memset(s, 0, sizeof(*s));
	s->ret = ret;
	s->faults = d->faults;
	s->copies = d->folio_copies;
	for (long i = 0; i < ret; i++) {
		struct folio *f = page_folio(pages[i]);
		int id = 0;

		while (id < nseen && seen[id] != f)
			id++;
		if (id == nseen)
			seen[nseen++] = f;
		s->p[i].folio = id;
		s->p[i].index = (int)(pages[i] - &f->page);
		s->p[i].order = (int)folio_order(f);
		s->p[i].ref = folio_ref_count(f);
		s->p[i].pin = folio_pincount(f);
		s->p[i].map = pages[i]->mapcount;
		s->p[i].excl = PageAnonExclusive(pages[i]);
	}
}

static uint64_t drng;
static unsigned drnd(unsigned n)
{
	drng ^= drng << 13, drng ^= drng >> 7, drng ^= drng << 17;
	return (unsigned)(drng % n);
}

/* One random change to region @r: fork (or unmap in the child), child
 * exit, writes, an unshare fault, mprotect RO/RW, a hole. Forks and
 * unmaps in the child make pages lose and regain AnonExclusive one by
 * one, which is where a run has to be cut. */
static void diff_shape(struct mm *mm, unsigned long r, struct mm **child)
{
	unsigned long off = (unsigned long)drnd(DIFF_REGION_PAGES) * PAGE_SIZE;
	unsigned long len = (unsigned long)(1 + drnd(32)) * PAGE_SIZE;

	switch (drnd(6)) {
	case 0:
		if (!*child)
			*child = mm_fork(mm, NULL);
		else
			mm_munmap(*child, r + off, len);
		break;
	case 1:
		if (*child)
			mm_put(*child);
		*child = NULL;
		break;
	case 2:
		mm_touch(mm, r + off, len, true);
		break;
	case 3:
		handle_mm_fault(mm, r + off, FAULT_UNSHARE);
		break;
	case 4:
		mm_mprotect(mm, r, DIFF_REGION_PAGES * PAGE_SIZE, VM_READ);
		mm_mprotect(mm, r, DIFF_REGION_PAGES * PAGE_SIZE, RW);
		break;
	default:
		mm_munmap(mm, r + off, PAGE_SIZE << drnd(3));
		break;
	}
}

/* References a scenario holds across later steps. */
static struct {
	struct page *p[GUP_MAX_PAGES];
	long n;
	bool pin;
} held[DIFF_OPS];

static void release(int k)
{
	if (held[k].n > 0 && held[k].pin)
		unpin_user_pages_dirty_lock(held[k].p, (unsigned long)held[k].n, k & 1);
	else if (held[k].n > 0)
		put_user_pages(held[k].p, (unsigned long)held[k].n);
	held[k].n = 0;
}

/* One GUP call of the scenario, at random: get, pin or pin_fast, with or
 * without FOLL_WRITE and FOLL_TOUCH, maybe running past the region. */
static long diff_call(struct mm *mm, const unsigned long *r, const struct gup_variant *v,
		      struct mm_counters *d, bool *pin)
{
	unsigned long a =
		r[drnd(DIFF_REGIONS)] + (unsigned long)drnd(DIFF_REGION_PAGES) * PAGE_SIZE;
	unsigned long np = 1 + drnd(DIFF_REGION_PAGES + 64);
	unsigned kind = drnd(3), flags = (drnd(2) ? FOLL_WRITE : 0) | (drnd(2) ? FOLL_TOUCH : 0);
	struct mm_counters c0;
	long got;

	gup_variant_apply(v);
	c0 = mm_counters_read();
	if (kind == 0)
		got = get_user_pages(mm, a, np, flags, pages);
	else if (kind == 1)
		got = pin_user_pages_fast(mm, a, np, flags, pages);
	else
		got = pin_user_pages(mm, a, np, flags | FOLL_LONGTERM, pages);
	*d = counters_since(&c0);
	caps_set_all(true);
	*pin = kind != 0;
	return got;
}

/*
 * diff_run - one seeded scenario under variant @v: DIFF_REGIONS regions
 * of random folio sizes, shaped at random, then DIFF_OPS GUP calls with
 * more shaping in between while some references are still held (so
 * forks meet pinned pages). Records each call's snapshot in snap_log
 * (@compare false) or compares with it. Return: the calls that differed.
 */
static int diff_run(uint64_t seed, const struct gup_variant *v, bool compare)
{
	static const unsigned long orders[] = { ORDERS(0), ORDERS(2), ORDERS(4),
						ORDERS(PMD_ORDER) | ORDERS(4), ORDERS(PMD_ORDER) };
	struct mm *mm = begin(), *child = NULL;
	unsigned long r[DIFF_REGIONS];
	int bad = 0;

	drng = seed;
	for (int i = 0; i < DIFF_REGIONS; i++) {
		unsigned k = drnd(5);

		r[i] = test_mmap(mm, DIFF_REGION_PAGES * PAGE_SIZE,
				 RW | (k == 4 ? 0 : VM_NOHUGEPMD), orders[k]);
		mm_touch(mm, r[i], DIFF_REGION_PAGES * PAGE_SIZE, drnd(2));
		for (int step = 0; step < 4; step++)
			diff_shape(mm, r[i], &child);
	}
	for (int op = 0; op < DIFF_OPS; op++) {
		struct gup_snap *s = compare ? &snap_now : &snap_log[op];
		struct mm_counters d;
		long got = diff_call(mm, r, v, &d, &held[op].pin);

		snap_take(s, got, &d);
		if (compare && memcmp(s, &snap_log[op], sizeof(*s)) != 0) {
			printf("    seed %#llx call %d: %s differs from unbatched (ret %ld vs "
			       "%ld)\n",
			       (unsigned long long)seed, op, v->label, got, snap_log[op].ret);
			bad++;
		}
		CHECK_MM_OK();
		held[op].n = got;
		memcpy(held[op].p, pages, sizeof(pages[0]) * (size_t)(got > 0 ? got : 0));
		if (drnd(2))
			release(op);
		diff_shape(mm, r[drnd(DIFF_REGIONS)], &child);
	}
	for (int op = DIFF_OPS - 1; op >= 0; op--)
		release(op);
	if (child)
		mm_put(child);
	end(mm);
	return bad;
}

/* Same seeded scenarios, same calls: every variant returns the same
 * pages and leaves the same refcounts, pincounts, mapcounts and
 * AnonExclusive bits as the unbatched code, with the same faults and
 * copies (only the refcount updates, descents and lock takes differ). */
TEST(every_variant_equals_unbatched)
{
	int seeds = on_host() ? 60 : 3;

	for (int s = 0; s < seeds; s++) {
		uint64_t seed = 0x5eed0000u + (uint64_t)s * 7919;

		diff_run(seed, &gup_variants[0], false);
		for (int v = 1; v < NR_GUP_VARIANTS; v++)
			CHECK_EQ(diff_run(seed, &gup_variants[v], true), 0);
	}
}

/*
 * FOLL_WRITE | FOLL_TOUCH over a run with a clean and a dirty entry: the
 * per-page path marks the folio dirty when it takes a clean entry, so the
 * batched run must mark it unless every entry is dirty. (It once marked
 * it only when no entry was dirty: runs [clean, dirty, ...] differed.)
 * Folding is off so that each entry keeps its own dirty bit on arm64.
 */
TEST(write_touch_marks_dirty_when_an_entry_is_clean)
{
	bool contpte = mm_caps.contpte;

	mm_caps.contpte = false;
	for (int v = 0; v < NR_GUP_VARIANTS; v++) {
		struct mm *mm = begin();
		unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
		unsigned char b = 1;
		struct page *p;
		bool by_pmd;
		pte_t pte;
		long got;

		WHERE("%s", gup_variants[v].label);
		W_CHECK_EQ(mm_touch(mm, a, 64 << 10, false), 0);
		W_CHECK_EQ(mm_access(mm, a + 5 * PAGE_SIZE, &b, 1, true), 0);
		p = page_at(mm, a + 4 * PAGE_SIZE, &by_pmd, &pte);
		W_CHECK(p && !pte_dirty(pte));
		if (p)
			page_folio(p)->page.flags &= ~PG_dirty;
		gup_variant_apply(&gup_variants[v]);
		got = get_user_pages(mm, a + 4 * PAGE_SIZE, 4, FOLL_WRITE | FOLL_TOUCH, pages);
		W_CHECK_EQ(got, 4);
		W_CHECK(p && (page_folio(p)->page.flags & PG_dirty));
		if (got > 0)
			put_user_pages(pages, (unsigned long)got);
		end(mm);
	}
	mm_caps.contpte = contpte;
	gup_variant_apply(&gup_variants[NR_GUP_VARIANTS - 1]);
}

TEST_SUITE(gup_batch, walk_is_one_descent_and_one_lock_per_table, walk_stops_at_the_table_end,
	   pmd_thp_is_one_step, mark_accessed_once_per_run,
	   write_touch_marks_dirty_when_an_entry_is_clean,
	   ro_pin_run_splits_at_a_page_that_is_not_exclusive, get_run_is_not_cut_by_exclusivity,
	   write_run_splits_at_a_read_only_entry, ro_pin_run_is_not_cut_by_write_bits,
	   single_pte_of_a_large_folio, gup_fast_takes_no_lock, gup_fast_falls_back_for_faults,
	   gup_fast_refuses_prot_none, gup_fast_undoes_the_grab_past_the_cut,
	   every_variant_equals_unbatched)
