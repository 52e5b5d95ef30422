/*
 * test_fork_batch.c - what mm_fork() does to page tables and folios, as
 * opposed to what a process sees (test_fork.c): one update per run, where
 * runs end, the caps, the child's VMAs, pinned pages, out of memory at
 * every allocation, the lifetime of parent and child, and the worked
 * example of docs/fork.md.
 */
#include "gup.h"
#include "mm_cases.h"

#define REGION (2ul << 20) /* one PTE table */

/* A parent with REGION of folios of @order, PTE-mapped (or by a PMD when
 * @pmd), every page written (so writable and AnonExclusive). */
static struct mm *written_parent(unsigned order, bool pmd, unsigned long *a)
{
	struct mm *mm = mm_create();

	*a = test_mmap(mm, REGION, RW | (pmd ? 0 : VM_NOHUGEPMD), ORDERS(order));
	CHECK_EQ(mm_touch(mm, *a, REGION, true), 0);
	return mm;
}

/*
 * Batched: one refcount and one mapcount update per folio, one TLB flush
 * for the whole fork; unbatched: one update per page. The 2 MiB PMD is
 * one update either way. The child's entries are read-only and old, the
 * parent's read-only; no page is AnonExclusive any more.
 */
TEST(one_update_per_run)
{
	static const unsigned orders[] = { 0, 2, 3, 4, 5, 6, 7, 8, 9, 9 };

	for (unsigned i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		for (int batched = 0; batched < 2; batched++) {
			bool pmd = i == 9;
			uint64_t free0 = total_free_pages();
			unsigned long a, runs;
			struct mm *p = written_parent(orders[i], pmd, &a), *c;
			struct mm_counters c0 = mm_counters_read(), d;
			pte_t pp = { 0 }, cp = { 0 };
			bool by_pmd;

			caps_set_all(batched);
			c = mm_fork(p, NULL);
			d = counters_since(&c0);
			caps_set_all(true);
			runs = pmd ? 1 : REGION >> (PAGE_SHIFT + (batched ? orders[i] : 0));
			CHECK_EQ(d.ref_updates, runs);
			CHECK_EQ(d.mapcount_updates, runs);
			if (batched || !arch_has_pte_blocks() || orders[i] < 4)
				CHECK_EQ(d.tlb_flushes, 1);
			CHECK(page_at(p, a + PAGE_SIZE, &by_pmd, &pp) ==
			      page_at(c, a + PAGE_SIZE, &by_pmd, &cp));
			CHECK(!pte_write(pp) && !pte_write(cp) && !pte_young(cp) && pte_young(pp));
			CHECK(pte_dirty(cp) && pte_dirty(pp));
			CHECK(!PageAnonExclusive(page_at(p, a, &by_pmd, &pp)));
			CHECK_MM_OK();
			mm_put(p);
			mm_put(c);
			CHECK_EQ(total_free_pages(), free0);
		}
	}
}

/* The cap bounds a run: fork=3 copies a 64 KiB folio in runs of 3,3,3,3,3,1. */
TEST(cap_bounds_the_run)
{
	uint64_t free0 = total_free_pages();
	unsigned long a;
	struct mm *p = written_parent(4, false, &a), *c;
	struct mm_counters c0 = mm_counters_read(), d;

	mm_caps.fork = 3;
	c = mm_fork(p, NULL);
	d = counters_since(&c0);
	caps_set_all(true);
	CHECK_EQ(d.ref_updates, (REGION >> 16) * 6);
	CHECK_MM_OK();
	mm_put(c);
	mm_put(p);
	CHECK_EQ(total_free_pages(), free0);
}

/*
 * Where runs end inside one folio: a dirty bit that differs (respected
 * for private mappings), a VMA boundary (an mprotect through the folio),
 * pages that another fork already shared (write bits differ, but they are
 * merged: one run). Counted in mapcount updates, one per run. With
 * contpte blocks (arm64) a block has one dirty state, as in Linux, so the
 * case runs without them.
 */
TEST(runs_end_where_the_bits_differ)
{
	uint64_t free0 = total_free_pages();
	bool contpte = mm_caps.contpte;
	struct mm *p = mm_create(), *c, *c2;
	long a = mm_mmap(p, 0, 64 << 10, RW | VM_NOHUGEPMD, 0, ORDERS(4));
	struct mm_counters c0;
	unsigned char v = 1;

	mm_caps.contpte = false;
	CHECK(a > 0);
	CHECK_EQ(mm_touch(p, (unsigned long)a, 64 << 10, false), 0); /* clean */
	CHECK_EQ(mm_access(p, (unsigned long)a + 5 * PAGE_SIZE, &v, 1, true), 0);
	c0 = mm_counters_read();
	c = mm_fork(p, NULL); /* clean 0-4, dirty 5, clean 6-15 */
	CHECK_EQ(counters_since(&c0).mapcount_updates, 3);
	mm_put(c);
	/* Page 5 writable again (reused), the rest read-only: merged. */
	CHECK_EQ(mm_access(p, (unsigned long)a + 5 * PAGE_SIZE, &v, 1, true), 0);
	CHECK(pte_write(pte_at(p, (unsigned long)a + 5 * PAGE_SIZE)));
	c0 = mm_counters_read();
	c2 = mm_fork(p, NULL);
	CHECK_EQ(counters_since(&c0).mapcount_updates, 3); /* dirty still differs */
	mm_put(c2);
	CHECK_EQ(mm_mprotect(p, (unsigned long)a + 8 * PAGE_SIZE, PAGE_SIZE, VM_READ), 0);
	c0 = mm_counters_read();
	c = mm_fork(p, NULL); /* three VMAs now */
	CHECK_EQ(counters_since(&c0).mapcount_updates, 5);
	CHECK_MM_OK();
	mm_put(c);
	mm_put(p);
	mm_caps.contpte = contpte;
	CHECK_EQ(total_free_pages(), free0);
}

/* The child's VMAs are the parent's (bounds, flags, folio-order policy,
 * node) minus VM_DONTCOPY ones; a fault in the child uses the policy. */
TEST(child_vmas_keep_the_policy)
{
	uint64_t free0 = total_free_pages();
	struct mm *p = mm_create(), *c;
	unsigned long a = test_mmap(p, 1ul << 20, RW | VM_NOHUGEPMD, ORDERS(5));
	unsigned long b = test_mmap(p, 64 << 10, RW, ORDERS(2));
	struct vma *pv, *cv;

	CHECK_EQ(mm_madvise_flags(p, b, 64 << 10, VM_DONTCOPY, 0), 0);
	CHECK_EQ(mm_touch(p, a, 64 << 10, true), 0);
	c = mm_fork(p, NULL);
	pv = find_vma(p, a), cv = find_vma(c, a);
	CHECK(cv && cv != pv && cv->mm == c);
	CHECK(cv && cv->start == pv->start && cv->end == pv->end && cv->flags == pv->flags &&
	      cv->orders == pv->orders && cv->nid == pv->nid);
	CHECK(find_vma(c, b) == NULL);
	CHECK_EQ(mm_touch(c, a + (512 << 10), 1, true), 0); /* not mapped in the parent */
	CHECK_EQ(folio_order(folio_at(c, a + (512 << 10))), 5);
	CHECK(folio_at(p, a + (512 << 10)) == NULL);
	CHECK(!(c->flags & MMF_HAS_PINNED));
	CHECK_MM_OK();
	mm_put(p);
	mm_put(c);
	CHECK_EQ(total_free_pages(), free0);
}

/*
 * A pinned folio whose pages are partly shared already: only its
 * AnonExclusive pages are copied, each alone; the shared ones are
 * batched around them. Here a 64 KiB folio with pages 0-3 shared by an
 * earlier fork (a VM_DONTCOPY rest), then pinned.
 */
TEST(pinned_folio_copies_only_exclusive_pages)
{
	uint64_t free0 = total_free_pages();
	struct mm *p = mm_create(), *c;
	unsigned long a = test_mmap(p, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	struct page *pin;
	struct mm_counters c0;

	CHECK_EQ(mm_touch(p, a, 64 << 10, true), 0);
	CHECK_EQ(mm_madvise_flags(p, a + 4 * PAGE_SIZE, 12 * PAGE_SIZE, VM_DONTCOPY, 0), 0);
	mm_put(mm_fork(p, NULL));
	CHECK_EQ(mm_madvise_flags(p, a + 4 * PAGE_SIZE, 12 * PAGE_SIZE, 0, VM_DONTCOPY), 0);
	CHECK_EQ(pin_user_pages(p, a + 8 * PAGE_SIZE, 1, FOLL_LONGTERM, &pin), 1);
	c0 = mm_counters_read();
	c = mm_fork(p, NULL);
	CHECK_EQ(counters_since(&c0).folio_copies, 12);
	CHECK(folio_at(c, a) == folio_at(p, a));
	CHECK(folio_at(c, a + 4 * PAGE_SIZE) != folio_at(p, a));
	CHECK_MM_OK();
	mm_put(c);
	unpin_user_pages(&pin, 1);
	mm_put(p);
	CHECK_EQ(total_free_pages(), free0);
}

/* Hold every free page on @held, so the allocator has nothing left.
 * Poisoning is off meanwhile: it would fill and check all of RAM. */
static void hold_everything(struct list_head *held)
{
	bool poison = mm_debug_poison;

	mm_debug_poison = false;
	list_init(held);
	mm_test_hold_memory(held, 0);
	mm_debug_poison = poison;
}

static void release_everything(struct list_head *held)
{
	bool poison = mm_debug_poison;

	mm_debug_poison = false;
	mm_test_put_list(held);
	mm_debug_poison = poison;
}

/*
 * A pinned PMD-mapped THP when no 2 MiB block is free: the child gets 512
 * small copies in a PTE table, the parent keeps its PMD and its pin. Free
 * memory: two 2 MiB blocks as small pages, the first page of each held.
 */
TEST(pinned_thp_without_a_free_2m_block)
{
	uint64_t free0 = total_free_pages();
	struct mm *p = mm_create(), *c;
	unsigned long a = test_mmap(p, REGION, RW, ORDERS(PMD_ORDER));
	struct folio *blocks[2], *f;
	struct list_head held, small;
	struct page *pin;
	bool by_pmd;
	pte_t pte;

	CHECK_EQ(mm_touch(p, a, REGION, true), 0);
	CHECK_EQ(pin_user_pages(p, a, 1, FOLL_WRITE | FOLL_LONGTERM, &pin), 1);
	blocks[0] = folio_alloc(0, PMD_ORDER, ALLOC_ANY_NODE);
	blocks[1] = folio_alloc(0, PMD_ORDER, ALLOC_ANY_NODE);
	CHECK(blocks[0] && blocks[1]);
	hold_everything(&held);
	folio_put(blocks[0]);
	folio_put(blocks[1]);
	list_init(&small);
	while ((f = folio_alloc(0, 0, ALLOC_ANY_NODE)))
		list_add(&f->page.lru, folio_pfn(f) % PTRS_PER_TABLE ? &small : &held);
	CHECK_EQ(mm_test_put_list(&small), 2 * PTRS_PER_TABLE - 2);
	c = mm_fork(p, NULL);
	CHECK(c != NULL);
	CHECK(c && page_at(c, a + 3 * PAGE_SIZE, &by_pmd, &pte) && !by_pmd);
	CHECK(c && folio_order(folio_at(c, a + 3 * PAGE_SIZE)) == 0);
	CHECK(c && mm_access(c, a, &(unsigned char){ 0 }, 1, false) == 0);
	CHECK(page_at(p, a, &by_pmd, &pte) == pin && by_pmd);
	CHECK_MM_OK();
	if (c)
		mm_put(c);
	release_everything(&held);
	unpin_user_pages(&pin, 1);
	mm_put(p);
	CHECK_EQ(total_free_pages(), free0);
}

/* Everything observable about a range of an mm, page by page. */
struct page_view {
	uint64_t entry;
	struct page *page;
	uint32_t flags;
	int mapcount, refcount, pincount, large_mapcount, entire_mapcount;
};

#define VIEW_PAGES 2048

static void take_view(struct mm *mm, struct page_view *v)
{
	int i = 0;

	memset(v, 0, sizeof(*v) * VIEW_PAGES);
	for (struct vma *vma = mm->vmas; vma; vma = vma->next)
		for (unsigned long va = vma->start; va < vma->end && i < VIEW_PAGES;
		     va += PAGE_SIZE, i++) {
			bool by_pmd;
			pte_t pte = { 0 };
			struct page *p = page_at(mm, va, &by_pmd, &pte);
			struct folio *f;

			if (!p)
				continue;
			f = page_folio(p);
			v[i] = (struct page_view){ pte.val,
						   p,
						   p->flags,
						   p->mapcount,
						   folio_ref_count(f),
						   f->page.pincount,
						   f->page.large_mapcount,
						   f->page.entire_mapcount };
		}
}

/*
 * Out of memory at every allocation fork makes: with 0, 1, 2, ... pages
 * left free, each failing fork returns -ENOMEM with the parent exactly as
 * before (entries bit for bit, refcounts, mapcounts, AnonExclusive, pins)
 * and nothing leaked, until one succeeds. The parent has 64K folios, a
 * PMD THP, 4K pages, and pinned pages that need copies.
 */
TEST(oom_at_every_allocation)
{
	static struct page_view before[VIEW_PAGES], after[VIEW_PAGES];
	uint64_t free0 = total_free_pages();
	struct mm *p = mm_create(), *c = NULL;
	unsigned long a = test_mmap(p, REGION, RW | VM_NOHUGEPMD, ORDERS(4));
	unsigned long b = test_mmap(p, REGION, RW, ORDERS(PMD_ORDER));
	unsigned long s = test_mmap(p, 64 << 10, RW, ORDERS(0));
	struct list_head held, pool;
	struct page *pins[2];
	struct folio *f;
	int failures = 0;

	CHECK_EQ(mm_touch(p, a, REGION, true) | mm_touch(p, b, REGION, true), 0);
	CHECK_EQ(mm_touch(p, s, 64 << 10, true), 0);
	CHECK_EQ(pin_user_pages(p, a, 1, FOLL_WRITE, &pins[0]), 1);
	CHECK_EQ(pin_user_pages(p, s, 1, FOLL_WRITE, &pins[1]), 1);
	take_view(p, before);
	list_init(&pool);
	for (int i = 0; i < 64 && (f = folio_alloc(0, 0, ALLOC_ANY_NODE)); i++)
		list_add(&f->page.lru, &pool);
	hold_everything(&held);
	while (!c && !list_empty(&pool)) {
		struct mm_snapshot snap;
		int err = 0;

		mm_snapshot_take(&snap);
		c = mm_fork(p, &err);
		if (c)
			break;
		failures++;
		CHECK_EQ(err, -ENOMEM);
		take_view(p, after);
		CHECK(memcmp(before, after, sizeof(before)) == 0);
		CHECK_NO_LEAK(&snap);
		f = (struct folio *)list_entry(pool.next, struct page, lru);
		list_del(&f->page.lru);
		folio_put(f); /* one more page for the next try */
	}
	CHECK(c != NULL);
	CHECK(failures > 5); /* tables and copies each failed at least once */
	CHECK_MM_OK();
	if (c)
		mm_put(c);
	mm_test_put_list(&pool);
	release_everything(&held);
	unpin_user_pages(pins, 2);
	mm_put(p);
	CHECK_MM_OK();
	CHECK_EQ(total_free_pages(), free0);
}

/* An mm lives while it has users: an extra reference keeps a child that
 * its creator dropped; parent and child go in any order. */
TEST(mm_lifetime)
{
	uint64_t free0 = total_free_pages();
	unsigned long a;
	struct mm *p = written_parent(4, false, &a), *c = mm_fork(p, NULL);
	struct mm_counters c0;
	unsigned char v = 0;

	mm_get(c);
	mm_put(c); /* the creator's reference */
	CHECK_EQ(c->users, 1);
	mm_put(p);
	CHECK_MM_OK();
	CHECK_EQ(mm_access(c, a + 3 * PAGE_SIZE, &v, 1, false), 0);
	CHECK_EQ(folio_mapcount(folio_at(c, a)), 16);
	CHECK(PageAnonExclusive(page_at(c, a, &(bool){ 0 }, &(pte_t){ 0 })) == false);
	c0 = mm_counters_read();
	CHECK_EQ(mm_touch(c, a, REGION, true), 0); /* every page reused */
	CHECK_EQ(counters_since(&c0).folio_copies, 0);
	CHECK(PageAnonExclusive(page_at(c, a, &(bool){ 0 }, &(pte_t){ 0 })));
	mm_put(c);
	CHECK_MM_OK();
	CHECK_EQ(total_free_pages(), free0);
}

static void dump_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("    %s\n", line);
}

/* Print @mm's tables under @title, and the counters since *@c0 (then
 * restart them). */
static void dump_step(struct mm *mm, const char *title, struct mm_counters *c0)
{
	char json[512];

	mm_counters_json((struct mm_counters[]){ counters_since(c0) }, json, sizeof(json));
	printf("    -- %s\n", title);
	mm_ptdump_to(mm, dump_line, NULL);
	if (*json)
		printf("    counters: %s\n", json);
	*c0 = mm_counters_read();
}

/*
 * The worked example of docs/fork.md: 128 KiB of 64K folios, one page of
 * the second folio pinned, forked; the tables of both sides printed. The
 * parent's first folio loses write, the child's entries are old, the
 * pinned folio is copied for the child page by page. Then a write by the
 * child copies one page (COW), and after the child exits a write by the
 * parent reuses its page.
 */
TEST(worked_example_ptdump)
{
	uint64_t free0 = total_free_pages();
	struct mm *p = mm_create(), *c;
	unsigned long a = test_mmap(p, 128 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	struct folio *f0;
	struct page *pin;
	struct mm_counters c0;

	CHECK_EQ(mm_touch(p, a, 128 << 10, true), 0);
	CHECK_EQ(pin_user_pages(p, a + 0x13000, 1, FOLL_WRITE | FOLL_LONGTERM, &pin), 1);
	f0 = folio_at(p, a);
	printf("    -- parent before fork (page %#lx pinned)\n", a + 0x13000);
	mm_ptdump_to(p, dump_line, NULL);
	c0 = mm_counters_read();
	c = mm_fork(p, NULL);
	dump_step(p, "parent after fork", &c0);
	mm_ptdump_to(c, dump_line, NULL);
	CHECK(!pte_write(pte_at(p, a)) && pte_write(pte_at(p, a + 0x13000)));
	CHECK(!pte_young(pte_at(c, a)) && folio_at(c, a + 0x13000) != folio_at(p, a + 0x13000));
	CHECK_EQ(mm_access(c, a + 0x5000, &(unsigned char){ 1 }, 1, true), 0);
	dump_step(c, "child after writing to 0x...5000 (COW: a copy)", &c0);
	CHECK(folio_at(c, a + 0x5000) != f0 && folio_at(c, a + 0x6000) == f0);
	mm_put(c);
	c0 = mm_counters_read();
	CHECK_EQ(mm_access(p, a + 0x5000, &(unsigned char){ 2 }, 1, true), 0);
	dump_step(p, "parent, child gone, after writing to 0x...5000 (COW: reuse)", &c0);
	CHECK(folio_at(p, a + 0x5000) == f0 && pte_write(pte_at(p, a + 0x5000)));
	CHECK_MM_OK();
	unpin_user_pages(&pin, 1);
	mm_put(p);
	CHECK_EQ(total_free_pages(), free0);
}

/*
 * The COW fault's two outcomes, counted: after a fork of 4K pages the
 * child's write copies (the parent still maps the page), then the
 * parent's write reuses its page in place (it is the only mapping left);
 * a PMD THP written by its only mapper after mprotect RO/RW is reused
 * whole.
 */
TEST(cow_counts_reuse_and_copy)
{
	uint64_t free0 = total_free_pages();
	unsigned long a, h;
	struct mm *p = written_parent(0, false, &a), *c = mm_fork(p, NULL);
	struct mm_counters c0 = mm_counters_read(), d;
	unsigned char b = 7;

	CHECK(c != NULL);
	CHECK_EQ(mm_access(c, a, &b, 1, true), 0);
	d = counters_since(&c0);
	CHECK_EQ(d.cow_copies, 1);
	CHECK_EQ(d.cow_reuses, 0);
	c0 = mm_counters_read();
	CHECK_EQ(mm_access(p, a, &b, 1, true), 0);
	d = counters_since(&c0);
	CHECK_EQ(d.cow_copies, 0);
	CHECK_EQ(d.cow_reuses, 1);
	mm_put(c);
	h = test_mmap(p, REGION, RW, ORDERS(9));
	CHECK_EQ(mm_touch(p, h, REGION, true), 0);
	c = mm_fork(p, NULL); /* the PMD is shared, then the child goes */
	mm_put(c);
	c0 = mm_counters_read();
	CHECK_EQ(mm_access(p, h, &b, 1, true), 0);
	d = counters_since(&c0);
	CHECK_EQ(d.cow_reuses, 1);
	CHECK_EQ(d.cow_copies, 0);
	CHECK_MM_OK();
	mm_put(p);
	CHECK_EQ(total_free_pages(), free0);
}

TEST_SUITE(fork_batch, one_update_per_run, cow_counts_reuse_and_copy, cap_bounds_the_run,
	   runs_end_where_the_bits_differ, child_vmas_keep_the_policy,
	   pinned_folio_copies_only_exclusive_pages, pinned_thp_without_a_free_2m_block,
	   oom_at_every_allocation, mm_lifetime, worked_example_ptdump)
