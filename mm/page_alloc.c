/*
 * page_alloc.c - the per-node buddy allocator of folios.
 *
 * Each node keeps free lists of naturally aligned blocks, one per order
 * 0..MAX_ORDER. A free block's head page has PG_buddy and its order; its
 * other pages are blank. Allocation takes the smallest block that fits and
 * puts the upper halves of each split back; freeing merges a block with its
 * buddy (pfn ^ 2^order) for as long as the buddy is a free block of the
 * same order inside the node. Because merging is always complete, the set
 * of free blocks depends only on which pages are free - the tests rely on
 * that to compare free lists before and after.
 *
 * Context: each node's free lists, counts and the buddy state of its free
 * pages are under that node's pglist.lock (class LOCK_ALLOC: callers may
 * hold a PTE lock or the page_table_lock, and nothing is taken under it).
 * One lock per node, never two at once: an allocation that falls back
 * tries the nodes one after another. Preparing the folio (zeroing) and
 * poisoning a freed one's memory run outside the lock: the pages
 * belong to the caller then; their struct pages are written under the
 * lock, since a neighbour's merge reads them.
 */
#include <string.h>

#include "counters.h"
#include "kernel.h"
#include "lru.h"
#include "memblock.h"
#include "page_internal.h"
#include "spinlock.h"

struct pglist pglists[MAX_NUMNODES];
int nr_pglists;
bool mm_debug_poison = true;
bool mm_debug_vm = true;

/* Cold: called around a benchmark's runs, never on a hot path; in
 * .text.unlikely it leaves the allocator's functions below their
 * placement and alignment padding. */
__attribute__((cold)) void mm_set_debug_vm(bool on)
{
	mm_debug_vm = on;
	lock_set_debug(on);
}
uint64_t mm_poison_errors;

/* Put the block at @p (free, blank) on @pg's order-@order list. The
 * flags and order are stored atomically (relaxed; the lock orders them
 * for the allocator): gup-fast may read this page's flags meanwhile
 * through a stale entry, and its folio_try_grab() then sees a count of 0. */
static void free_area_add(struct pglist *pg, struct page *p, unsigned order)
{
	__atomic_store_n(&p->flags, p->flags | PG_buddy, __ATOMIC_RELAXED);
	__atomic_store_n(&p->order, (uint8_t)order, __ATOMIC_RELAXED);
	list_add(&p->lru, &pg->free_area[order]);
	pg->nr_free[order]++;
}

/* Take the block at @p off its order-@order list and blank its head. */
static void free_area_del(struct pglist *pg, struct page *p, unsigned order)
{
	list_del(&p->lru);
	pg->nr_free[order]--;
	__atomic_store_n(&p->flags, p->flags & ~PG_buddy, __ATOMIC_RELAXED);
	__atomic_store_n(&p->order, 0, __ATOMIC_RELAXED);
}

/*
 * buddy_merge_free - make [pfn, pfn + 2^order) of @pg a free block,
 * merging with free buddies. Its pages must already be blank.
 */
static void buddy_merge_free(struct pglist *pg, uint64_t pfn, unsigned order)
{
	while (order < MAX_ORDER) {
		uint64_t bpfn = pfn ^ (1ul << order);
		struct page *b;

		if (bpfn < pg->start_pfn || bpfn + (1ul << order) > pg->end_pfn)
			break;
		b = pglist_page(pg, bpfn);
		/* atomic loads: @b may be another CPU's folio, whose owner
		 * changes its flags without this lock */
		if (!(page_flags(b) & PG_buddy) ||
		    __atomic_load_n(&b->order, __ATOMIC_RELAXED) != order)
			break;
		free_area_del(pg, b, order);
		pfn &= ~(1ul << order);
		order++;
	}
	free_area_add(pg, pglist_page(pg, pfn), order);
}

void buddy_add_run(struct pglist *pg, uint64_t start, uint64_t end)
{
	while (start < end) {
		unsigned order = MAX_ORDER;

		while (order && ((start & ((1ul << order) - 1)) || start + (1ul << order) > end))
			order--;
		buddy_merge_free(pg, start, order);
		pg->free_pages += 1ul << order;
		start += 1ul << order;
	}
}

/*
 * buddy_take - remove a free block of exactly 2^@order pages from @pg,
 * splitting a larger one if needed. Return: its head page, or NULL.
 */
static struct page *buddy_take(struct pglist *pg, unsigned order)
{
	for (unsigned k = order; k <= MAX_ORDER; k++) {
		struct page *p;
		uint64_t pfn;

		if (list_empty(&pg->free_area[k]))
			continue;
		p = list_entry(pg->free_area[k].next, struct page, lru);
		free_area_del(pg, p, k);
		pfn = pg->start_pfn + (uint64_t)(p - pg->memmap);
		while (k > order) {
			k--;
			free_area_add(pg, pglist_page(pg, pfn + (1ul << k)), k);
		}
		/* node_free_pages() reads it without the lock */
		__atomic_store_n(&pg->free_pages, pg->free_pages - (1ul << order),
				 __ATOMIC_RELAXED);
		return p;
	}
	return NULL;
}

/* Report (and count) poison in free page @p that was overwritten. */
static void check_poison(struct page *p)
{
	const uint64_t *w = page_address(p), pat = 0x0101010101010101ull * PAGE_POISON;

	for (unsigned i = 0; i < PAGE_SIZE / sizeof(*w); i++) {
		if (w[i] == pat)
			continue;
		printf("folio_alloc: poison overwritten in free page pfn %#llx at offset %#x: "
		       "%#018llx (use after free?)\n",
		       (unsigned long long)page_to_pfn(p), (unsigned)(i * sizeof(*w)),
		       (unsigned long long)w[i]);
		mm_poison_errors++;
		return;
	}
}

/* The first page of the free block at @head (2^@order pages, off the
 * lists) that is not blank, or NULL. */
static struct page *block_in_use(struct page *head, unsigned order)
{
	for (unsigned long i = 0; i < 1ul << order; i++)
		if ((head[i].flags & ~PG_poisoned) || head[i].refcount)
			return head + i;
	return NULL;
}

static void page_blank(struct page *p, uint32_t flags, uint8_t node);

/*
 * folio_prep - turn the free block at @head into a folio: check the
 * poison, then write each page's allocated state once. The fields a
 * lockless walker reads through a stale entry (gup-fast: flags, order,
 * head_offset, refcount) are stored atomically, as page_blank() does.
 * Context: the node's lock is held: a CPU freeing a neighbour reads these
 * struct pages (is it my free buddy?) under the lock.
 */
static void folio_prep(struct page *head, unsigned order)
{
	uint8_t node = head->node;

	for (unsigned long i = 0; i < 1ul << order; i++) {
		struct page *p = head + i;

		if (mm_debug_poison && (p->flags & PG_poisoned))
			check_poison(p);
		page_blank(p, i ? PG_tail : 0, node);
		__atomic_store_n(&p->head_offset, (uint32_t)i, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&head->order, (uint8_t)order, __ATOMIC_RELAXED);
	if (order)
		__atomic_store_n(&head->flags, PG_large, __ATOMIC_RELAXED);
	/* Last, and a release: a gup-fast grab that finds the count at 1
	 * (its compare-and-exchange is fully ordered) sees the folio whole. */
	__atomic_store_n(&head->refcount, 1, __ATOMIC_RELEASE);
}

/* Take a 2^@order block from @pg and make it a folio. Return: its head,
 * or NULL when @pg has none. Panics on a free page found in use. */
static struct page *node_alloc(struct pglist *pg, unsigned order)
{
	struct page *p, *bad = NULL;

	spin_lock(&pg->lock);
	p = buddy_take(pg, order);
	if (p && !(bad = block_in_use(p, order)))
		folio_prep(p, order);
	spin_unlock(&pg->lock);
	if (bad)
		folio_bug("folio_alloc", (struct folio *)bad, "free page is in use");
	return p;
}

struct folio *folio_alloc(int nid, unsigned order, unsigned flags)
{
	struct page *p = NULL;
	int tries = flags & ALLOC_ANY_NODE ? nr_pglists : 1;

	if (nid < 0 || nid >= nr_pglists || order > MAX_ORDER)
		panic("folio_alloc: bad node index %d (of %d) or order %u", nid, nr_pglists, order);
	for (int i = 0; !p && i < tries; i++)
		p = node_alloc(&pglists[pglists[nid].fallback[i]], order);
	if (!p)
		return NULL;
	if (flags & ALLOC_ZERO) /* the folio is the caller's alone: no lock */
		memset(page_address(p), 0, PAGE_SIZE << order);
	count_event(folio_allocs, 1);
	return (struct folio *)p;
}

struct folio *folio_alloc_orders(int nid, unsigned long orders, unsigned flags)
{
	if (orders >> (MAX_ORDER + 1))
		panic("folio_alloc_orders: orders %#lx above MAX_ORDER %d", orders, MAX_ORDER);
	for (int order = MAX_ORDER; order >= 0; order--) {
		struct folio *f;

		if (!(orders & (1ul << order)))
			continue;
		f = folio_alloc(nid, (unsigned)order, flags);
		if (f)
			return f;
	}
	return NULL;
}

/* Reset a freed struct page: every field stored directly (a struct copy
 * from a blank template is twice the instructions, and this runs for
 * every page freed). Its flags, order, head_offset and refcount are
 * written atomically: a lockless walker (gup-fast) may be reading them,
 * and must see 0 or the old count, never a torn value (its
 * folio_try_grab() then fails). */
_Static_assert(sizeof(struct page) == 48 && sizeof(struct list_head) == 16,
	       "page_blank() stores each field of struct page: add the new one");
static void page_blank(struct page *p, uint32_t flags, uint8_t node)
{
	__atomic_store_n(&p->flags, flags, __ATOMIC_RELAXED); /* gup-fast reads them too */
	__atomic_store_n(&p->order, 0, __ATOMIC_RELAXED);
	p->node = node;
	p->pad = 0;
	__atomic_store_n(&p->head_offset, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&p->refcount, 0, __ATOMIC_RELAXED);
	p->mapcount = 0;
	p->entire_mapcount = 0;
	p->large_mapcount = 0;
	p->pincount = 0;
	p->lru.next = NULL; /* the union: lru, or a table's ptl */
	p->lru.prev = NULL;
}

/*
 * folio_free - blank every page of @f (poisoning its memory when
 * mm_debug_poison is set) and merge it into the free lists.
 * Context: refcount is zero; folio.c checked it is unmapped and unpinned.
 */
void folio_free(struct folio *f)
{
	struct pglist *pg = page_pglist(&f->page);
	unsigned order = folio_order(f);
	uint64_t pfn = folio_pfn(f);
	uint32_t blank = mm_debug_poison ? PG_poisoned : 0;
	uint8_t node = f->page.node;

	folio_lru_del(f);
	if (mm_debug_poison)
		memset(page_address(&f->page), PAGE_POISON, PAGE_SIZE << order);
	spin_lock(&pg->lock); /* other CPUs' merges read these struct pages */
	for (unsigned long i = 0; i < 1ul << order; i++)
		page_blank(folio_page(f, i), blank, node);
	buddy_merge_free(pg, pfn, order);
	__atomic_store_n(&pg->free_pages, pg->free_pages + (1ul << order), __ATOMIC_RELAXED);
	spin_unlock(&pg->lock);
	count_event(folio_frees, 1);
}

/* Node index @a before @b in @from's fallback order? (distance, then index) */
static bool nearer(int from, int a, int b)
{
	int da = machine.distance[from][a], db = machine.distance[from][b];

	if (a == from || b == from)
		return a == from;
	return da != db ? da < db : a < b;
}

/* Fill pglists[@idx].fallback: every node index, nearest first. */
static void build_fallback(int idx, int nr)
{
	int *fb = pglists[idx].fallback;

	for (int i = 0; i < nr; i++) {
		int j = i;

		for (; j > 0 && nearer(idx, i, fb[j - 1]); j--)
			fb[j] = fb[j - 1];
		fb[j] = i;
	}
}

/*
 * page_alloc_init - build every node's memmap and free lists from
 * `machine` and the reservations made so far, then close memblock.
 * Panics when called twice or when the machine has no usable nodes.
 */
void page_alloc_init(void)
{
	int nr = machine.nr_nodes;

	if (nr_pglists)
		panic("page_alloc_init: called twice");
	if (nr < 1 || nr > MAX_NUMNODES || nr > MACHINE_MAX_NODES)
		panic("page_alloc_init: %d memory nodes (1..%d supported)", nr, MAX_NUMNODES);
	for (int i = 0; i < nr; i++) {
		memmap_alloc(i);
		lru_links_alloc(i);
	}
	memmap_sections_init(nr);
	memblock_close();
	for (int i = 0; i < nr; i++) {
		spin_lock_init(&pglists[i].lock, LOCK_ALLOC, "allocator lock");
		memmap_init_node(i);
		build_fallback(i, nr);
	}
	nr_pglists = nr;
	memmap_sections_publish();
}

uint64_t node_free_pages(int nid)
{
	return nid >= 0 && nid < nr_pglists
		       ? __atomic_load_n(&pglists[nid].free_pages, __ATOMIC_RELAXED)
		       : 0;
}

uint64_t total_free_pages(void)
{
	uint64_t n = 0;

	for (int i = 0; i < nr_pglists; i++)
		n += node_free_pages(i);
	return n;
}

void page_alloc_print(void)
{
	for (int i = 0; i < nr_pglists; i++) {
		const struct pglist *pg = &pglists[i];

		printf("mm: node %d: %llu of %llu pages free (%llu reserved), blocks per order:",
		       pg->node_id, (unsigned long long)pg->free_pages,
		       (unsigned long long)pg->present_pages,
		       (unsigned long long)pg->reserved_pages);
		for (int k = 0; k <= MAX_ORDER; k++)
			printf(" %llu", (unsigned long long)pg->nr_free[k]);
		printf("\n");
	}
}
