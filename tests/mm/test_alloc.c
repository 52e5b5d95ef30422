/*
 * test_alloc.c - the physical memory layer: memmaps, reservations and the
 * buddy allocator. Every case ends with free memory exactly as it found it
 * (CHECK_NO_LEAK) and a clean page_alloc_check().
 *
 * These run on the host (2 nodes of 64 MiB) and in the guest (whatever
 * machine it booted), so no case assumes sizes or a second node.
 */
#include "counters.h"
#include "kernel.h"
#include "memblock.h"
#include "mm_test.h"

#define ALL_ORDERS ((1ul << (MAX_ORDER + 1)) - 1)

/* The node index nearest to @idx other than itself, or -1. */
static int nearest_other(int idx)
{
	int best = -1;

	for (int j = 0; j < nr_pglists; j++)
		if (j != idx &&
		    (best < 0 || machine.distance[idx][j] < machine.distance[idx][best]))
			best = j;
	return best;
}

/* Take every free page of node index @nid onto @list, largest blocks
 * first, order 0 last. Return: the number of pages taken. */
static uint64_t exhaust_node(int nid, struct list_head *list)
{
	uint64_t pages = 0;
	struct folio *f;

	while ((f = folio_alloc_orders(nid, ALL_ORDERS & ~1ul, 0))) {
		list_add(&f->page.lru, list);
		pages += folio_nr_pages(f);
	}
	while ((f = folio_alloc(nid, 0, 0))) {
		list_add(&f->page.lru, list);
		pages++;
	}
	return pages;
}

/* Free page counts add up, the memmap lives on its own node and is
 * reserved, and init's state passes the checker. */
TEST(init_state_is_consistent)
{
	CHECK_EQ(nr_pglists, machine.nr_nodes);
	CHECK_EQ(page_alloc_check(), 0);
	for (int i = 0; i < nr_pglists; i++) {
		const struct pglist *pg = &pglists[i];
		uint64_t blocks = 0, ram = 0;
		struct page *mm0 = pfn_to_page(pg->memmap_phys >> PAGE_SHIFT);

		for (int k = 0; k <= MAX_ORDER; k++)
			blocks += pg->nr_free[k] << k;
		for (int r = 0; r < machine.node[i].nr_ranges; r++)
			ram += machine.node[i].range[r].size >> PAGE_SHIFT;
		CHECK_EQ(blocks, pg->free_pages);
		CHECK_EQ(pg->present_pages, ram);
		CHECK(pg->free_pages + pg->reserved_pages == pg->present_pages);
		CHECK_EQ(pg->node_id, machine.node[i].id);
		CHECK(mm0 != NULL && page_pglist(mm0) == pg);
		CHECK(mm0 && (mm0->flags & PG_reserved));
		CHECK_EQ(pg->fallback[0], i);
	}
}

/* Every reservation (boot ranges, firmware, memmaps) is PG_reserved
 * page by page, and each boot_info range is covered, widened to pages. */
TEST(reservations_are_kept_out)
{
	int bad = 0, covered = 0;

	for (int i = 0; i < memblock_count(); i++) {
		const struct memblock_region *r = memblock_region(i);

		CHECK_EQ(r->start & (PAGE_SIZE - 1), 0);
		CHECK_EQ(r->end & (PAGE_SIZE - 1), 0);
		for (uint64_t pa = r->start; pa < r->end; pa += PAGE_SIZE) {
			struct page *p = pfn_to_page(pa >> PAGE_SHIFT);

			bad += p && !(p->flags & PG_reserved);
		}
	}
	CHECK_EQ(bad, 0);
	for (int i = 0; i < boot_info->nr_reserved; i++) {
		const struct boot_range *b = &boot_info->reserved[i];

		covered += memblock_is_reserved(b->start & ~(PAGE_SIZE - 1)) &&
			   memblock_is_reserved((b->start + b->size - 1) | (PAGE_SIZE - 1));
	}
	CHECK_EQ(covered, boot_info->nr_reserved);
	CHECK(memblock_count() >= nr_pglists); /* at least the memmaps */
}

/* pfn <-> page <-> address round trips at the edges of every node; a pfn
 * outside all nodes has no page. */
TEST(pfn_page_address_round_trip)
{
	for (int i = 0; i < nr_pglists; i++) {
		const struct pglist *pg = &pglists[i];
		uint64_t pfns[3] = { pg->start_pfn, (pg->start_pfn + pg->end_pfn) / 2,
				     pg->end_pfn - 1 };

		for (int j = 0; j < 3; j++) {
			struct page *p = pfn_to_page(pfns[j]);

			CHECK(p != NULL);
			if (!p)
				continue;
			CHECK_EQ(page_to_pfn(p), pfns[j]);
			CHECK(page_address(p) == phys_to_virt(pfns[j] << PAGE_SHIFT));
			CHECK(page_pglist(p) == pg);
		}
	}
	CHECK(pfn_to_page(0xfffffffffull) == NULL);
}

/* Every order on every node: naturally aligned, on the asked node, with
 * the documented fresh state in head and tails. */
TEST(alloc_every_order_aligned_and_fresh)
{
	struct mm_snapshot snap;
	int bad = 0;

	mm_snapshot_take(&snap);
	for (int nid = 0; nid < nr_pglists; nid++)
		for (unsigned order = 0; order <= MAX_ORDER; order++) {
			uint64_t before = node_free_pages(nid);
			struct folio *f = folio_alloc(nid, order, 0);

			CHECK(f != NULL);
			if (!f)
				continue;
			CHECK_EQ(folio_pfn(f) & ((1ul << order) - 1), 0);
			CHECK_EQ(folio_nid(f), pglists[nid].node_id);
			CHECK_EQ(node_free_pages(nid), before - (1ul << order));
			CHECK_EQ(folio_ref_count(f), 1);
			CHECK_EQ(folio_order(f), order);
			CHECK_EQ(f->page.flags, order ? PG_large : 0);
			CHECK_EQ(folio_mapcount(f) + f->page.entire_mapcount + f->page.pincount, 0);
			for (unsigned long i = 1; i < folio_nr_pages(f); i++) {
				struct page *t = folio_page(f, i);

				bad += t->flags != PG_tail || page_folio(t) != f || t->mapcount ||
				       page_to_pfn(t) != folio_pfn(f) + i;
			}
			folio_put(f);
		}
	CHECK_EQ(bad, 0);
	CHECK_NO_LEAK(&snap);
}

/* Free one folio of each order in the order @perm gives (@perm[i] is an
 * order); all were allocated first from node index @nid. */
static void alloc_free_permuted(int nid, const unsigned *perm)
{
	struct folio *f[MAX_ORDER + 1];

	for (unsigned o = 0; o <= MAX_ORDER; o++)
		f[o] = folio_alloc(nid, o, 0);
	for (unsigned i = 0; i <= MAX_ORDER; i++)
		if (f[perm[i]])
			folio_put(f[perm[i]]);
}

/* Splits and merges undo each other: after freeing in any order, the free
 * lists hold exactly the blocks they held before. */
TEST(split_and_merge_restore_free_lists)
{
	static const unsigned up[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	static const unsigned down[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };
	static const unsigned mixed[] = { 5, 0, 10, 3, 8, 1, 9, 2, 7, 4, 6 };
	struct mm_snapshot snap;

	mm_snapshot_take(&snap);
	alloc_free_permuted(0, up);
	CHECK_EQ(mm_snapshot_diff(&snap), 0);
	alloc_free_permuted(0, down);
	CHECK_EQ(mm_snapshot_diff(&snap), 0);
	alloc_free_permuted(0, mixed);
	CHECK_EQ(mm_snapshot_diff(&snap), 0);
	CHECK_NO_LEAK(&snap);
}

/* 2048 order-0 folios freed in a shuffled order (and odd ones first) merge
 * back into the original blocks. */
TEST(shuffled_frees_merge_back)
{
	enum { N = 2048 };
	static struct folio *f[N];
	struct mm_snapshot snap;
	uint32_t seed = 12345;
	int got = 0;

	mm_snapshot_take(&snap);
	for (int i = 0; i < N; i++)
		got += (f[i] = folio_alloc(0, 0, 0)) != NULL;
	CHECK_EQ(got, N);
	CHECK_EQ(page_alloc_check(), 0);
	for (int i = N - 1; i > 0; i--) {
		int j = (int)(mm_test_rand(&seed) % (uint32_t)(i + 1));
		struct folio *t = f[i];

		f[i] = f[j];
		f[j] = t;
	}
	for (int pass = 1; pass >= 0; pass--)
		for (int i = pass; i < N; i += 2)
			if (f[i])
				folio_put(f[i]);
	CHECK_NO_LEAK(&snap);
}

/* Exhaust one node: it then has nothing for any order, ALLOC_ANY_NODE
 * falls back to the nearest other node (or fails on a one-node machine),
 * and freeing everything restores every count. */
TEST(exhaustion_then_node_fallback)
{
	struct mm_snapshot snap;
	struct mm_counters c0 = mm_counters_read(), d;
	struct list_head held;
	bool poison = mm_debug_poison;
	uint64_t want = node_free_pages(0), got;
	int other = nearest_other(0), n;
	struct folio *f;

	mm_debug_poison = false; /* a whole node's memset would slow the guest */
	list_init(&held);
	mm_snapshot_take(&snap);
	got = exhaust_node(0, &held);
	CHECK_EQ(got, want);
	CHECK_EQ(node_free_pages(0), 0);
	CHECK(folio_alloc(0, 0, 0) == NULL);
	CHECK(folio_alloc_orders(0, ALL_ORDERS, 0) == NULL);
	f = folio_alloc(0, 0, ALLOC_ANY_NODE);
	if (other < 0) {
		CHECK(f == NULL);
	} else {
		CHECK(f != NULL);
		CHECK(f && folio_nid(f) == pglists[other].node_id);
	}
	if (f)
		list_add(&f->page.lru, &held);
	CHECK_EQ(page_alloc_check(), 0);
	n = mm_test_put_list(&held);
	mm_debug_poison = poison;
	mm_counters_since(&d, &c0);
	CHECK_EQ(d.folio_allocs, n);
	CHECK_EQ(d.folio_frees, n);
	CHECK_NO_LEAK(&snap);
}

/* A folio comes from the node asked for, with pfns in that node's RAM. */
TEST(per_node_placement)
{
	static const unsigned orders[] = { 0, 4, PMD_ORDER };
	struct mm_snapshot snap;

	mm_snapshot_take(&snap);
	for (int nid = 0; nid < nr_pglists; nid++)
		for (int j = 0; j < 3; j++) {
			struct folio *f = folio_alloc(nid, orders[j], 0);
			const struct numa_node *n = &machine.node[nid];
			uint64_t pa;
			int in = 0;

			CHECK(f != NULL);
			if (!f)
				continue;
			pa = folio_pfn(f) << PAGE_SHIFT;
			for (int r = 0; r < n->nr_ranges; r++)
				in += pa >= n->range[r].base &&
				      pa + (PAGE_SIZE << orders[j]) <=
					      n->range[r].base + n->range[r].size;
			CHECK_EQ(in, 1);
			CHECK_EQ(folio_nid(f), n->id);
			CHECK(page_pglist(&f->page) == &pglists[nid]);
			folio_put(f);
		}
	CHECK_NO_LEAK(&snap);
}

/* folio_alloc_orders takes the highest allowed order that is available:
 * with every block of order >= 4 taken but one order-4 block given back,
 * {9, 2} yields order 2, and {9} alone fails on this node. */
TEST(alloc_orders_falls_back_to_smaller)
{
	struct mm_snapshot snap;
	struct list_head held;
	struct folio *f, *g, *big;
	bool poison = mm_debug_poison;

	mm_debug_poison = false;
	list_init(&held);
	mm_snapshot_take(&snap);
	big = folio_alloc_orders(0, ALL_ORDERS, 0);
	CHECK(big && folio_order(big) == MAX_ORDER);
	if (big)
		folio_put(big);
	while ((f = folio_alloc_orders(0, ALL_ORDERS & ~0xful, 0)))
		list_add(&f->page.lru, &held);
	f = folio_alloc(0, 4, 0);
	CHECK(f == NULL);
	g = list_empty(&held) ? NULL : list_entry(held.next, struct folio, page.lru);
	CHECK(g != NULL);
	if (g && folio_order(g) >= 4) {
		/* give back exactly one order-4 block: split g's memory by freeing g
		 * and re-taking everything but one order-4 piece */
		list_del(&g->page.lru);
		folio_put(g);
		while ((f = folio_alloc(0, 4, 0)) && node_free_pages(0) >= 16)
			list_add(&f->page.lru, &held);
		if (f)
			folio_put(f); /* the last order-4 block stays free */
	}
	f = folio_alloc_orders(0, (1ul << PMD_ORDER) | (1ul << 2), 0);
	CHECK(f && folio_order(f) == 2);
	if (f)
		list_add(&f->page.lru, &held);
	CHECK(folio_alloc_orders(0, 1ul << PMD_ORDER, 0) == NULL);
	CHECK(folio_alloc_orders(0, 0, 0) == NULL);
	mm_test_put_list(&held);
	mm_debug_poison = poison;
	CHECK_NO_LEAK(&snap);
}

/* ALLOC_ZERO zeroes every byte, even of memory that was poisoned. */
TEST(alloc_zero_zeroes)
{
	struct mm_snapshot snap;
	struct folio *f;
	int nonzero = 0;

	mm_snapshot_take(&snap);
	f = folio_alloc(0, 3, 0);
	CHECK(f != NULL);
	if (f) {
		memset(page_address(&f->page), 0xa5, PAGE_SIZE << 3);
		folio_put(f);
	}
	f = folio_alloc(0, 3, ALLOC_ZERO);
	CHECK(f != NULL);
	if (f) {
		const unsigned char *b = page_address(&f->page);

		for (unsigned long i = 0; i < PAGE_SIZE << 3; i++)
			nonzero += b[i] != 0;
		folio_put(f);
	}
	CHECK_EQ(nonzero, 0);
	CHECK_NO_LEAK(&snap);
}

/* Freed memory reads as PAGE_POISON with mm_debug_poison, and keeps its
 * contents without it. */
TEST(freed_memory_is_poisoned)
{
	struct mm_snapshot snap;
	bool poison = mm_debug_poison;
	const unsigned char *b;
	struct folio *f;
	int off = 0;

	mm_snapshot_take(&snap);
	mm_debug_poison = true;
	f = folio_alloc(0, 2, ALLOC_ZERO);
	CHECK(f != NULL);
	if (!f)
		return;
	b = page_address(&f->page);
	folio_put(f);
	for (unsigned long i = 0; i < PAGE_SIZE << 2; i++)
		off += b[i] != PAGE_POISON;
	CHECK_EQ(off, 0);
	mm_debug_poison = false;
	f = folio_alloc(0, 0, ALLOC_ZERO);
	CHECK(f != NULL);
	if (f) {
		b = page_address(&f->page);
		folio_put(f);
		CHECK_EQ(b[0] | b[PAGE_SIZE - 1], 0);
	}
	mm_debug_poison = poison;
	CHECK_NO_LEAK(&snap);
}

/*
 * A write to a freed page is caught when the page is handed out again.
 * The page is made to come back next: an order-0 folio whose buddy is not
 * free stays at the head of the order-0 list when freed (the lists are
 * LIFO and allocation looks at order 0 first).
 */
TEST(poison_catches_use_after_free)
{
	struct mm_snapshot snap;
	bool poison = mm_debug_poison;
	struct folio *a, *b = NULL, *again;
	uint64_t errors = mm_poison_errors;
	struct page *buddy;
	unsigned char *mem;

	mm_debug_poison = true;
	mm_snapshot_take(&snap);
	a = folio_alloc(0, 0, 0);
	CHECK(a != NULL);
	if (!a)
		return;
	buddy = pfn_to_page(folio_pfn(a) ^ 1);
	if (buddy && (buddy->flags & PG_buddy)) {
		b = folio_alloc(0, 0, 0);
		CHECK(b && &b->page == buddy);
	}
	mem = page_address(&a->page);
	folio_put(a);
	mem[100] = 0x42; /* the use after free */
	again = folio_alloc(0, 0, 0);
	CHECK(again == a);
	CHECK_EQ(mm_poison_errors, errors + 1);
	if (again)
		folio_put(again);
	again = folio_alloc(0, 0, 0); /* intact poison this time */
	CHECK(again == a);
	CHECK_EQ(mm_poison_errors, errors + 1);
	if (again)
		folio_put(again);
	if (b)
		folio_put(b);
	mm_debug_poison = poison;
	CHECK_NO_LEAK(&snap);
}

/* The checker finds each kind of damage done on purpose, and nothing once
 * it is undone. */
TEST(check_finds_planted_corruption)
{
	struct mm_snapshot snap;
	struct folio *f;
	struct pglist *pg = &pglists[0];
	struct page *blk = NULL;
	int k;

	mm_snapshot_take(&snap);
	f = folio_alloc(0, 2, 0);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ(page_alloc_check(), 0);
	f->page.refcount = 0; /* an allocated folio with no reference */
	CHECK(page_alloc_check() > 0);
	f->page.refcount = 1;
	folio_page(f, 2)->head_offset = 1; /* a tail pointing at the wrong head */
	CHECK(page_alloc_check() > 0);
	folio_page(f, 2)->head_offset = 2;
	f->page.large_mapcount = 3; /* mapcount total without mappings */
	CHECK(page_alloc_check() > 0);
	f->page.large_mapcount = 0;
	for (k = MAX_ORDER; k >= 0 && !blk; k--)
		if (!list_empty(&pg->free_area[k]))
			blk = list_entry(pg->free_area[k].next, struct page, lru);
	CHECK(blk != NULL);
	if (blk) {
		blk->flags &= ~PG_buddy; /* a listed block that says it is not free */
		CHECK(page_alloc_check() > 0);
		blk->flags |= PG_buddy;
	}
	pg->nr_free[0]++; /* a count that disagrees with its list */
	CHECK(page_alloc_check() > 0);
	pg->nr_free[0]--;
	CHECK_EQ(page_alloc_check(), 0);
	folio_put(f);
	CHECK_NO_LEAK(&snap);
}

/* mm_init() a second time changes nothing. */
TEST(mm_init_is_idempotent)
{
	struct mm_snapshot snap;
	int regions = memblock_count();

	mm_snapshot_take(&snap);
	mm_init();
	CHECK_EQ(memblock_count(), regions);
	CHECK_EQ(nr_pglists, machine.nr_nodes);
	CHECK_NO_LEAK(&snap);
}

static void reserve_late(void *arg)
{
	(void)arg;
	mm_reserve(pglists[0].start_pfn << PAGE_SHIFT, PAGE_SIZE, "late");
}

static void alloc_bad_order(void *arg)
{
	(void)arg;
	folio_alloc(0, MAX_ORDER + 1, 0);
}

/* Misuse of the init and allocation interfaces panics. */
TEST(misuse_panics)
{
	struct mm_snapshot snap;

	mm_snapshot_take(&snap);
	CHECK(memblock_count() > 0);
	CHECK_PANICS(reserve_late, NULL, "after page_alloc_init");
	CHECK_PANICS(alloc_bad_order, NULL, "bad node index");
	CHECK_NO_LEAK(&snap);
}

static void put_once(void *arg)
{
	folio_put(arg);
}

static void add_one_ref(void *arg)
{
	folio_get(arg);
}

static void unmap_page_3(void *arg)
{
	struct folio *f = arg;

	folio_remove_rmap_ptes(f, folio_page(f, 3), 1);
}

static void map_past_the_end(void *arg)
{
	struct folio *f = arg;

	folio_add_rmap_ptes(f, folio_page(f, 3), 2); /* pages 3 and 4 of a 4-page folio */
}

static void ref_sub_to_zero(void *arg)
{
	folio_ref_sub(arg, 1);
}

static void unpin_once(void *arg)
{
	folio_unpin(arg, 1);
}

/* Freeing a folio that is mapped or pinned, and using one that is free,
 * panic with the folio's state in the message, and change nothing. */
TEST(folio_misuse_panics_with_state)
{
	struct mm_snapshot snap;
	struct folio *f, *g;

	mm_snapshot_take(&snap);
	f = folio_alloc(0, 2, 0);
	g = folio_alloc(0, 0, 0);
	CHECK(f && g);
	if (!f || !g)
		return;
	folio_add_rmap_ptes(f, folio_page(f, 1), 2);
	CHECK_PANICS(put_once, f, "freeing a mapped folio: folio pfn");
	CHECK_PANICS(put_once, f, "refcount 1 mapcount 0 entire_mapcount 0 large_mapcount 2");
	CHECK_PANICS(unmap_page_3, f, "page mapcount underflow");
	CHECK_PANICS(map_past_the_end, f, "pages [3, +2) are not inside the folio");
	CHECK_EQ(folio_ref_count(f), 1);
	CHECK_EQ(folio_mapcount(f), 2);
	folio_remove_rmap_ptes(f, folio_page(f, 1), 2);
	folio_pin(f, 1);
	folio_put(f); /* the pin's reference is left */
	CHECK_PANICS(put_once, f, "freeing a pinned folio");
	folio_unpin(f, 1); /* frees it */
	CHECK_PANICS(put_once, f, "double free or use after free");
	CHECK_PANICS(add_one_ref, f, "folio is free");
	CHECK_PANICS(ref_sub_to_zero, g, "refcount would reach zero");
	CHECK_PANICS(unpin_once, g, "unpinning a folio that is not pinned");
	CHECK_EQ(folio_ref_count(g), 1);
	folio_put(g);
	CHECK_NO_LEAK(&snap);
}

/* Pins count as Linux counts them: GUP_PIN_COUNTING_BIAS references on a
 * small folio, one reference and one pincount on a large one. */
TEST(pins_count_as_linux_does)
{
	struct mm_snapshot snap;
	struct folio *s, *l;

	mm_snapshot_take(&snap);
	s = folio_alloc(0, 0, 0);
	l = folio_alloc(0, 4, 0);
	CHECK(s && l);
	if (!s || !l)
		return;
	CHECK(!folio_maybe_dma_pinned(s) && !folio_maybe_dma_pinned(l));
	folio_pin(s, 2);
	folio_pin(l, 3);
	CHECK_EQ(folio_ref_count(s), 1 + 2 * GUP_PIN_COUNTING_BIAS);
	CHECK_EQ(folio_ref_count(l), 4);
	CHECK_EQ(folio_pincount(l), 3);
	CHECK(folio_maybe_dma_pinned(s) && folio_maybe_dma_pinned(l));
	CHECK_EQ(page_alloc_check(), 0);
	folio_unpin(s, 2);
	folio_unpin(l, 3);
	CHECK(!folio_maybe_dma_pinned(s) && !folio_maybe_dma_pinned(l));
	CHECK_EQ(folio_ref_count(s) + folio_ref_count(l), 2);
	folio_put(s);
	folio_put(l);
	CHECK_NO_LEAK(&snap);
}

/* folio_alloc_orders with ALLOC_ANY_NODE tries every node for an order
 * before it takes a smaller one: with node 0 out of blocks of order >= 4,
 * an order-4 folio comes from the nearest other node. Node 0's free
 * orders 2 and 3 are made on purpose (all its blocks of order >= 2 are
 * taken, then one order-4 block is given back and split by an order-2
 * allocation), so the case does not depend on what earlier cases left. */
TEST(alloc_orders_tries_nodes_before_smaller_orders)
{
	struct mm_snapshot snap;
	struct list_head held;
	int other = nearest_other(0);
	struct folio *f, *split;
	bool poison = mm_debug_poison;

	mm_debug_poison = false;
	list_init(&held);
	mm_snapshot_take(&snap);
	split = folio_alloc_orders(0, 1ul << 4, 0);
	CHECK(split != NULL);
	while ((f = folio_alloc_orders(0, ALL_ORDERS & ~0x3ul, 0)))
		list_add(&f->page.lru, &held);
	if (split) {
		folio_put(split);			/* node 0's only free order-4 block ... */
		f = folio_alloc_orders(0, 1ul << 2, 0); /* ... split: 2 and 3 stay free */
		CHECK(f && folio_nid(f) == pglists[0].node_id);
		if (f)
			list_add(&f->page.lru, &held);
	}
	f = folio_alloc_orders(0, (1ul << 4) | (1ul << 2), ALLOC_ANY_NODE);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(folio_order(f), other < 0 ? 2 : 4);
		CHECK_EQ(folio_nid(f), pglists[other < 0 ? 0 : other].node_id);
		list_add(&f->page.lru, &held);
	}
	f = folio_alloc_orders(0, (1ul << 4) | (1ul << 2), 0);
	CHECK(f && folio_order(f) == 2 && folio_nid(f) == pglists[0].node_id);
	if (f)
		list_add(&f->page.lru, &held);
	mm_test_put_list(&held);
	mm_debug_poison = poison;
	CHECK_NO_LEAK(&snap);
}

/* Counter deltas and their JSON form (non-zero fields, valid when cut). */
TEST(counters_delta_and_json)
{
	struct mm_counters a = { 0 }, b = { 0 }, d;
	char buf[128];
	int n;

	b.ref_updates = 7;
	b.folio_allocs = 2;
	a.folio_allocs = 1;
	mm_counters_delta(&d, &a, &b);
	CHECK_EQ(d.ref_updates, 7);
	CHECK_EQ(d.folio_allocs, 1);
	CHECK_EQ(d.pt_descents, 0);
	n = mm_counters_json(&d, buf, sizeof(buf));
	CHECK_STR(buf, "\"ref_updates\":7,\"folio_allocs\":1");
	CHECK_EQ(n, strlen(buf));
	n = mm_counters_json(&d, buf, 20);
	CHECK_STR(buf, "\"ref_updates\":7");
	CHECK_EQ(n, 15);
}

TEST_SUITE(page_alloc, init_state_is_consistent, reservations_are_kept_out,
	   pfn_page_address_round_trip, alloc_every_order_aligned_and_fresh,
	   split_and_merge_restore_free_lists, shuffled_frees_merge_back,
	   exhaustion_then_node_fallback, per_node_placement, alloc_orders_falls_back_to_smaller,
	   alloc_zero_zeroes, freed_memory_is_poisoned, poison_catches_use_after_free,
	   check_finds_planted_corruption, mm_init_is_idempotent, misuse_panics,
	   folio_misuse_panics_with_state, pins_count_as_linux_does,
	   alloc_orders_tries_nodes_before_smaller_orders, counters_delta_and_json)
