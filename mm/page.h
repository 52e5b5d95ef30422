/*
 * page.h - struct page, folios and the per-node buddy allocator.
 *
 * Every 4 KiB frame of RAM has a struct page in its node's memmap. A folio
 * is a naturally aligned run of 2^order pages represented by its first
 * (head) page; struct folio is that head page seen as a whole. Tail pages
 * record the distance to their head. Folio-wide state (refcount, total
 * mapcount, pincount, flags, order, node) lives in the head; per-page state
 * (mapcount, AnonExclusive) in each page.
 */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "list.h"

#define MAX_ORDER 10 /* largest folio: 4 MiB */
#define PMD_ORDER 9 /* 2 MiB */
#define MAX_NUMNODES 8

/* Folio flags, in the head page. */
#define PG_anon (1u << 0)
#define PG_dirty (1u << 1)
#define PG_referenced (1u << 2)
#define PG_locked (1u << 3)
#define PG_large (1u << 4) /* order > 0 */
/* Page-type flags, in any page. */
#define PG_buddy (1u << 8) /* head of a free buddy block */
#define PG_reserved (1u << 9) /* never given to the allocator */
#define PG_pgtable (1u << 10) /* a page-table page */
#define PG_tail (1u << 11) /* inside a folio, not its head */
/* Per-page state of anon pages. */
#define PG_anon_exclusive (1u << 16)

/* The pin bias for small folios: a pin adds this to the refcount, as in
 * Linux (GUP_PIN_COUNTING_BIAS). Large folios count pins in pincount. */
#define GUP_PIN_COUNTING_BIAS 1024

struct spinlock {
	int locked;
	const char *name;
};

struct page {
	uint32_t flags;
	uint8_t order; /* head of a folio or buddy block: its order */
	uint8_t node;
	uint16_t pad;
	uint32_t head_offset; /* tail pages: pages back to the head; 0 otherwise */
	int32_t refcount; /* head only */
	int32_t mapcount; /* PTEs mapping this page (PTE-level mappings only) */
	int32_t entire_mapcount; /* head: PMD-level mappings of the whole folio */
	int32_t large_mapcount; /* head: sum of all mappings (PTE + PMD) */
	int32_t pincount; /* head of a large folio: FOLL_PIN pins */
	union {
		struct list_head lru; /* buddy free list */
		struct spinlock ptl; /* PG_pgtable PTE tables: the split PTE lock */
	};
};

/* A folio is its head page. */
struct folio {
	struct page page;
};

/* Per-node physical memory and its buddy free lists. */
struct pglist {
	int node_id; /* numa-node-id */
	uint64_t start_pfn, end_pfn; /* span covered by memmap */
	struct page *memmap; /* end_pfn - start_pfn entries */
	struct list_head free_area[MAX_ORDER + 1];
	uint64_t nr_free[MAX_ORDER + 1]; /* blocks per order */
	uint64_t free_pages, present_pages;
};

extern struct pglist pglists[MAX_NUMNODES];
extern int nr_pglists;

/* pfn <-> page through the node memmaps. pfn_to_page returns NULL for a
 * pfn outside every node. */
struct page *pfn_to_page(uint64_t pfn);
uint64_t page_to_pfn(const struct page *page);
void *page_address(const struct page *page); /* kernel (direct-map) address */
struct pglist *page_pglist(const struct page *page);

static inline struct folio *page_folio(struct page *page)
{
	return (struct folio *)(page - page->head_offset);
}

static inline struct page *folio_page(struct folio *folio, unsigned long n)
{
	return &folio->page + n;
}

static inline unsigned folio_order(const struct folio *f)
{
	return f->page.order;
}

static inline unsigned long folio_nr_pages(const struct folio *f)
{
	return 1ul << f->page.order;
}

static inline bool folio_test_large(const struct folio *f)
{
	return f->page.flags & PG_large;
}

static inline uint64_t folio_pfn(const struct folio *f)
{
	return page_to_pfn(&f->page);
}

static inline int folio_nid(const struct folio *f)
{
	return pglists[f->page.node].node_id;
}

/* Allocation flags. */
#define ALLOC_ANY_NODE (1u << 0) /* fall back to other nodes, nearest first */
#define ALLOC_ZERO (1u << 1) /* zero the folio's memory */

/*
 * folio_alloc - allocate a folio of 2^@order pages on node index @nid.
 * Return: the folio with refcount 1, flags cleared (PG_large set when
 * order > 0), every page's mapcount 0; NULL when no block of that order is
 * free (on @nid, or anywhere with ALLOC_ANY_NODE).
 */
struct folio *folio_alloc(int nid, unsigned order, unsigned flags);

/*
 * folio_alloc_orders - try each order set in @orders, highest first.
 * Return: the folio (its order says which one worked) or NULL.
 */
struct folio *folio_alloc_orders(int nid, unsigned long orders, unsigned flags);

/* Reference counting. Each call is one ref_update. folio_put frees the
 * folio when the count reaches zero; freeing a folio that is still mapped
 * or pinned panics with its state. */
void folio_get(struct folio *f);
void folio_ref_add(struct folio *f, int nr);
void folio_ref_sub(struct folio *f, int nr); /* must not reach zero */
void folio_put(struct folio *f);
void folio_put_refs(struct folio *f, int nr);

static inline int folio_ref_count(const struct folio *f)
{
	return f->page.refcount;
}

/* Mapcounts: @nr consecutive pages from @page, all in @f, gain or lose one
 * PTE mapping each (one mapcount_update per call). */
void folio_add_rmap_ptes(struct folio *f, struct page *page, int nr);
void folio_remove_rmap_ptes(struct folio *f, struct page *page, int nr);
void folio_add_rmap_pmd(struct folio *f);
void folio_remove_rmap_pmd(struct folio *f);

static inline int folio_mapcount(const struct folio *f)
{
	return folio_test_large(f) ? f->page.large_mapcount : f->page.mapcount;
}

/* Does any page of @f have more than one mapping, or is it PMD- and
 * PTE-mapped at once? (A cheap "maybe shared".) */
bool folio_maybe_mapped_shared(const struct folio *f);

/* Pins: a small folio's pins are refcount / GUP_PIN_COUNTING_BIAS; a large
 * folio's are its pincount. */
bool folio_maybe_dma_pinned(const struct folio *f);

/* Memory init from the machine description: build memmaps and free lists,
 * keeping reserved ranges out. Panics on inconsistent input. */
struct mem_range;
void mm_reserve(uint64_t start, uint64_t size, const char *what);
void page_alloc_init(void);

/* Debug: verify free lists and counts of every node; return the number of
 * problems found (each printed). */
int page_alloc_check(void);

/* Free pages on node index @nid, and in total. */
uint64_t node_free_pages(int nid);
uint64_t total_free_pages(void);

#endif
