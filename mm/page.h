/*
 * page.h - struct page, folios and the per-node buddy allocator.
 *
 * Every 4 KiB frame of RAM has a struct page in its node's memmap. A folio
 * is a naturally aligned run of 2^order pages represented by its first
 * (head) page; struct folio is that head page seen as a whole. Tail pages
 * record the distance to their head. Folio-wide state (refcount, total
 * mapcount, pincount, flags, order, node) lives in the head; per-page state
 * (mapcount, AnonExclusive) in each page.
 *
 * Mapcount convention (the one Linux uses for _large_mapcount): a PTE
 * mapping adds one to its page's mapcount and one to the folio's
 * large_mapcount; a PMD mapping adds one to entire_mapcount and ONE (not
 * nr_pages) to large_mapcount. So folio_mapcount() is the number of page
 * table entries, PTE or PMD, that map some part of the folio, and for a
 * large folio large_mapcount == entire_mapcount + the sum of the pages'
 * mapcounts (page_alloc_check() verifies it).
 *
 * SMP: refcount, mapcounts and pincount change by atomic adds (a batch of
 * nr is one add of nr), flags by atomic or/and; the allocator takes its
 * node's lock (page_alloc.c). Callers that hold a PTE lock or the
 * page_table_lock may call every function (none sleeps).
 */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "list.h"
#include "sched_point.h"
#include "spinlock.h"

#define MAX_ORDER 10 /* largest folio: 4 MiB */
#define PMD_ORDER 9  /* 2 MiB */
#define MAX_NUMNODES 8

/* Folio flags, in the head page. */
#define PG_anon (1u << 0)
#define PG_dirty (1u << 1)
#define PG_referenced (1u << 2)
#define PG_locked (1u << 3)
#define PG_large (1u << 4)    /* order > 0 */
#define PG_lazyfree (1u << 5) /* anon, MADV_FREE-d: reclaim may drop it while clean */
#define PG_lru (1u << 6)      /* on a node's LRU list (lru.h) */
#define PG_active (1u << 7)   /* on the active one */
#define PG_shmem (1u << 14)   /* a page of a shared anonymous object (mm/shmem.h) */
/* Page-type flags, in any page. */
#define PG_buddy (1u << 8)    /* head of a free buddy block */
#define PG_reserved (1u << 9) /* never given to the allocator */
#define PG_pgtable (1u << 10) /* a page-table page */
#define PG_tail (1u << 11)    /* inside a folio, not its head */
/* Allocator-private, on free pages only (see mm_debug_poison). */
#define PG_poisoned (1u << 12) /* memory filled with PAGE_POISON when freed */
#define PG_checked (1u << 13)  /* transient mark of page_alloc_check() */
/* Per-page state of anon pages. */
#define PG_anon_exclusive (1u << 16)

/* The pin bias for small folios: a pin adds this to the refcount, as in
 * Linux (GUP_PIN_COUNTING_BIAS). Large folios count pins in pincount. */
#define GUP_PIN_COUNTING_BIAS 1024

/* struct page.node of a frame in a memmap's span that no RAM backs. */
#define NODE_NONE 0xff

/* Freed memory is filled with this byte while mm_debug_poison is set. */
#define PAGE_POISON 0x6b

struct page {
	uint32_t flags;
	uint8_t order; /* head of a folio or buddy block: its order */
	uint8_t node;  /* index into pglists[], NODE_NONE for holes */
	uint16_t pad;
	uint32_t head_offset;	 /* tail pages: pages back to the head; 0 otherwise */
	int32_t refcount;	 /* head only */
	int32_t mapcount;	 /* PTEs mapping this page (PTE-level mappings only) */
	int32_t entire_mapcount; /* head: PMD-level mappings of the whole folio */
	int32_t large_mapcount;	 /* head of a large folio: PTE + PMD mappings */
	int32_t pincount;	 /* head of a large folio: FOLL_PIN pins */
	union {
		struct list_head lru; /* buddy free list; the owner's while allocated */
		struct spinlock ptl;  /* PG_pgtable PTE tables: the split PTE lock */
	};
};

/* A folio is its head page. */
struct folio {
	struct page page;
};

/* Per-node physical memory and its buddy free lists.
 * Context: lock (LOCK_ALLOC) guards free_area, nr_free and free_pages. */
struct pglist {
	struct spinlock lock;
	int node_id;		     /* numa-node-id */
	uint64_t start_pfn, end_pfn; /* span covered by memmap */
	struct page *memmap;	     /* end_pfn - start_pfn entries */
	uint64_t memmap_phys;	     /* where the memmap lives (reserved, on this node) */
	struct list_head free_area[MAX_ORDER + 1];
	uint64_t nr_free[MAX_ORDER + 1]; /* blocks per order */
	uint64_t free_pages;		 /* pages on the free lists */
	uint64_t present_pages;		 /* RAM pages in the node's ranges */
	uint64_t reserved_pages;	 /* RAM pages kept out of the allocator */
	int fallback[MAX_NUMNODES];	 /* node indexes, nearest first (self first) */
};

extern struct pglist pglists[MAX_NUMNODES];
extern int nr_pglists;

/* Debug: poison freed folios with PAGE_POISON and check the poison when
 * they are handed out again (default on; benchmarks turn it off). Poison
 * found overwritten is reported and counted in mm_poison_errors. */
extern bool mm_debug_poison;
extern uint64_t mm_poison_errors;

/* Debug: contract checks that cost real time on hot batched paths (e.g.
 * that folio_pte_batch()'s first entry maps a page of its folio), as
 * Linux's CONFIG_DEBUG_VM. Default on; benchmarks turn it off. Read it
 * anywhere; change it only with mm_set_debug_vm() (which sets the core's
 * lock-order check, lock_debug, with it). */
extern bool mm_debug_vm;
void mm_set_debug_vm(bool on);

/*
 * pfn -> page through a section table (Linux's SPARSEMEM idea): one word
 * per 2 MiB of physical address space, written once by page_alloc_init()
 * before any other CPU runs and read-only after it. A section wholly
 * inside one node's span holds that memmap's base, so that base + pfn
 * (an add and a shift-add) is the page; 0 marks a section with no span,
 * 1 one that two spans share or that a span covers partly, which the
 * search over the nodes (pfn_to_page_slow) answers.
 */
#define PFN_SECTION_SHIFT 9
#define MEMMAP_SECTION_NONE 0
#define MEMMAP_SECTION_SLOW 1
extern uintptr_t *memmap_sections;
extern uint64_t memmap_nr_sections;
struct page *pfn_to_page_slow(uint64_t pfn);

/* pfn_to_page returns NULL for a pfn that is not RAM of any node
 * (outside every span, or in a hole). */
static inline struct page *pfn_to_page(uint64_t pfn)
{
	uint64_t s = pfn >> PFN_SECTION_SHIFT;
	uintptr_t base;
	struct page *page;

	if (s >= memmap_nr_sections)
		return NULL;
	base = memmap_sections[s];
	if (base <= MEMMAP_SECTION_SLOW)
		return base == MEMMAP_SECTION_SLOW ? pfn_to_page_slow(pfn) : NULL;
	page = (struct page *)(base + (uintptr_t)pfn * sizeof(struct page));
	return page->node != NODE_NONE ? page : NULL;
}

uint64_t page_to_pfn(const struct page *page);
void *page_address(const struct page *page); /* kernel (direct-map) address */
struct pglist *page_pglist(const struct page *page);

/* Flags of a live page change by atomic or/and (one CPU may set
 * PG_referenced while another clears AnonExclusive in the same word);
 * a page no other CPU can reach yet (just allocated) may be written
 * plainly. Reads are relaxed atomic loads (plain loads on both arches). */
static inline uint32_t page_flags(const struct page *page)
{
	return __atomic_load_n(&page->flags, __ATOMIC_RELAXED);
}

static inline void page_set_flags(struct page *page, uint32_t set)
{
	arch_sched_point(SCHED_ATOMIC);
	__atomic_fetch_or(&page->flags, set, __ATOMIC_RELAXED);
}

static inline void page_clear_flags(struct page *page, uint32_t clear)
{
	arch_sched_point(SCHED_ATOMIC);
	__atomic_fetch_and(&page->flags, ~clear, __ATOMIC_RELAXED);
}

/* The loads below are relaxed atomics (plain loads in the code): gup-fast
 * reads these fields of a page it reached through an entry that may be
 * stale, while the allocator writes them (page_alloc.c). */
static inline struct folio *page_folio(struct page *page)
{
	return (struct folio *)(page - __atomic_load_n(&page->head_offset, __ATOMIC_RELAXED));
}

static inline struct page *folio_page(struct folio *folio, unsigned long n)
{
	return &folio->page + n;
}

/* The pages of @folio from @page (one of its pages) to its end. */
static inline unsigned long folio_pages_from(const struct folio *folio, const struct page *page)
{
	return (1ul << folio->page.order) - page->head_offset;
}

static inline unsigned folio_order(const struct folio *f)
{
	return __atomic_load_n(&f->page.order, __ATOMIC_RELAXED);
}

static inline unsigned long folio_nr_pages(const struct folio *f)
{
	return 1ul << folio_order(f);
}

static inline bool folio_test_large(const struct folio *f)
{
	return page_flags(&f->page) & PG_large;
}

static inline uint64_t folio_pfn(const struct folio *f)
{
	return page_to_pfn(&f->page);
}

static inline int folio_nid(const struct folio *f)
{
	return pglists[f->page.node].node_id;
}

/* Per-page AnonExclusive (Linux's names): the page is mapped by exactly one
 * process and may be written without copy-on-write. Cleared at allocation. */
static inline bool PageAnonExclusive(const struct page *page)
{
	return page_flags(page) & PG_anon_exclusive;
}

static inline void SetPageAnonExclusive(struct page *page)
{
	page_set_flags(page, PG_anon_exclusive);
}

static inline void ClearPageAnonExclusive(struct page *page)
{
	page_clear_flags(page, PG_anon_exclusive);
}

/* The AnonExclusive that a mapping of @page sees: through a PMD leaf
 * (@by_pmd) the head's, whatever the page's own bit says (mm/huge.c). */
static inline bool page_mapped_exclusive(struct page *page, bool by_pmd)
{
	return PageAnonExclusive(by_pmd ? &page_folio(page)->page : page);
}

/* Allocation flags. */
#define ALLOC_ANY_NODE (1u << 0) /* fall back to other nodes, nearest first */
#define ALLOC_ZERO (1u << 1)	 /* zero the folio's memory */

/*
 * folio_alloc - allocate a folio of 2^@order pages on node index @nid.
 * Return: the folio with refcount 1, flags cleared (PG_large set when
 * order > 0), every page's mapcount 0; NULL when no block of that order is
 * free (on @nid, or anywhere with ALLOC_ANY_NODE). Panics on a bad @nid or
 * @order > MAX_ORDER. Counts one folio_allocs.
 */
struct folio *folio_alloc(int nid, unsigned order, unsigned flags);

/*
 * folio_alloc_orders - try each order set in @orders, highest first (each
 * order with the node fallback that @flags allows before the next smaller
 * order). Return: the folio (its order says which one worked) or NULL.
 * Bits above MAX_ORDER panic.
 */
struct folio *folio_alloc_orders(int nid, unsigned long orders, unsigned flags);

/* Reference counting, atomic: each call is one atomic add (or sub) of
 * its whole amount and one ref_update. folio_put frees the
 * folio when the count reaches zero; freeing a folio that is still mapped
 * or pinned, a double free and a count going negative panic with the
 * folio's state (nothing is changed before the panic). */
void folio_get(struct folio *f);
void folio_ref_sub(struct folio *f, int nr); /* must not reach zero */
void folio_put(struct folio *f);
void folio_put_refs(struct folio *f, int nr);

static inline int folio_ref_count(const struct folio *f)
{
	return __atomic_load_n(&f->page.refcount, __ATOMIC_RELAXED);
}

/* folio.c: the panic of folio_ref_add() (cold, out of line). */
void folio_ref_add_bug(const struct folio *f, int nr) __attribute__((noreturn, cold));

/*
 * folio_ref_add - add @nr (>= 0) references; one ref_update. Inline
 * because fork calls it once per PTE of small folios: the checks of
 * folio_get() (a live head: not reserved, not a tail, not free, refcount
 * positive; the sum in range) are one masked test of the flags and two
 * compares, and folio_ref_add_bug() says which one failed.
 * Context: the caller holds a reference or a PTE lock that keeps @f alive.
 */
static inline void folio_ref_add(struct folio *f, int nr)
{
	int ref = folio_ref_count(f);

	if ((page_flags(&f->page) & (PG_reserved | PG_tail | PG_buddy)) || ref <= 0 || nr < 0 ||
	    ref > INT32_MAX - nr)
		folio_ref_add_bug(f, nr);
	arch_sched_point(SCHED_ATOMIC);
	__atomic_fetch_add(&f->page.refcount, nr, __ATOMIC_RELAXED);
	count_event(ref_updates, 1);
}

/* Pins (FOLL_PIN): @nr pins, each holding a reference. Small folios add
 * @nr * GUP_PIN_COUNTING_BIAS to the refcount, large ones @nr to refcount
 * and pincount. One ref_update per call. folio_unpin may free the folio. */
void folio_pin(struct folio *f, int nr);
void folio_unpin(struct folio *f, int nr);

/* folio_try_grab - @nr references (or, with @pin, @nr pins as folio_pin
 * takes them) unless the refcount is zero: the folio is being freed and
 * the caller holds nothing that keeps it (gup-fast). One compare-and-
 * exchange on refcount, fully ordered (a full barrier: what it added is
 * visible before any later load). Return: whether they were taken (one
 * ref_update). */
bool folio_try_grab(struct folio *f, int nr, bool pin);

/*
 * folio_ref_freeze - set @f's refcount from exactly @count (> 0) to 0 in
 * one compare-and-exchange: while it is 0, folio_try_grab() takes nothing,
 * and a reference that was there before makes the exchange fail, so the
 * caller knows that no one but it holds the folio (both are exchanges on
 * the one count, so it orders them). Acquire and release: what holders
 * wrote before their puts is seen after it, the caller's earlier stores
 * (its migration entries) before it.
 * Return: whether the count was @count (one ref_update if so).
 * folio_ref_unfreeze - give a frozen @f @count references again.
 * folio_free_frozen - free a frozen @f (unmapped and unpinned: panics else).
 * Context: the caller holds the references it counts in @count.
 */
bool folio_ref_freeze(struct folio *f, int count);
void folio_ref_unfreeze(struct folio *f, int count);
void folio_free_frozen(struct folio *f);

static inline int folio_pincount(const struct folio *f)
{
	return __atomic_load_n(&f->page.pincount, __ATOMIC_RELAXED);
}

/* Mapcounts: @nr consecutive pages from @page, all in @f, gain or lose one
 * PTE mapping each (one mapcount_update per call): one atomic add per
 * page's mapcount (two mms' PTE locks may cover one page), one atomic
 * add of @nr to large_mapcount. Panics on underflow or pages outside @f. */
void folio_add_rmap_ptes_run(struct folio *f, struct page *page, int nr);
void folio_remove_rmap_ptes(struct folio *f, struct page *page, int nr);
/* One PMD mapping of a whole PMD_ORDER folio: entire_mapcount and
 * large_mapcount change by one (see the convention at the top). */
void folio_add_rmap_pmd(struct folio *f);
void folio_remove_rmap_pmd(struct folio *f);

static inline int page_mapcount(const struct page *page)
{
	return __atomic_load_n(&page->mapcount, __ATOMIC_RELAXED);
}

static inline int folio_mapcount(const struct folio *f)
{
	return folio_test_large(f) ? __atomic_load_n(&f->page.large_mapcount, __ATOMIC_RELAXED)
				   : page_mapcount(&f->page);
}

/*
 * folio_add_rmap_ptes - see above. One page of a small folio (fork and
 * faults of 4 KiB folios: once per PTE) is done inline: the checks of the
 * run (a live head that is the page itself) are one masked flags test and
 * one compare, then one atomic add; everything else, and every failure,
 * goes to folio_add_rmap_ptes_run().
 */
static inline void folio_add_rmap_ptes(struct folio *f, struct page *page, int nr)
{
	if (nr == 1 && page == &f->page &&
	    !(page_flags(page) & (PG_reserved | PG_tail | PG_buddy | PG_large)) &&
	    folio_ref_count(f) > 0) {
		arch_sched_point(SCHED_ATOMIC);
		__atomic_fetch_add(&page->mapcount, 1, __ATOMIC_RELAXED);
		count_event(mapcount_updates, 1);
		return;
	}
	folio_add_rmap_ptes_run(f, page, nr);
}

static inline int folio_entire_mapcount(const struct folio *f)
{
	return __atomic_load_n(&f->page.entire_mapcount, __ATOMIC_RELAXED);
}

/* Does any page of @f have more than one mapping, or is it PMD- and
 * PTE-mapped at once? (A "maybe shared": O(1) for small folios and
 * whenever the counts decide it, else one pass over the pages.) */
bool folio_maybe_mapped_shared(const struct folio *f);

/* Pins: a small folio's pins are refcount / GUP_PIN_COUNTING_BIAS; a large
 * folio's are its pincount. */
bool folio_maybe_dma_pinned(const struct folio *f);

/* Write "pfn ... order ... refcount ..." (every field of the folio's state)
 * into @buf for panics and checkers; never panics itself. */
void folio_describe(const struct folio *f, char *buf, size_t size);

/*
 * Memory init. mm_reserve() keeps [start, start+size), widened to whole
 * pages, out of the allocator; it may be called any time before
 * page_alloc_init() and panics after. page_alloc_init() builds every
 * node's memmap (on the node itself) and free lists from `machine`;
 * panics on inconsistent input. mm_init() (mm/init.c) does the whole
 * sequence once: boot reservations, arch_mm_init(), page_alloc_init().
 */
void mm_reserve(uint64_t start, uint64_t size, const char *what);
void page_alloc_init(void);
void mm_init(void);
extern bool mm_boot_verbose; /* mm_init() prints the boot map (ptelab --verbose) */

/*
 * arch_mm_init - required arch hook, called by mm_init() after the boot
 * reservations and before the buddy allocator exists. It may take memory
 * with memblock_alloc() (mm/memblock.h), e.g. for kernel page tables, and
 * must leave all RAM reachable through phys_to_virt(), since
 * page_alloc_init() then writes the memmaps through the direct map.
 */
void arch_mm_init(void);

/* Debug: verify the free lists, counts and memmap of every node; return
 * the number of problems found (each printed). */
int page_alloc_check(void);

/* Print each node's free blocks per order. */
void page_alloc_print(void);

/* Free pages on node index @nid, and in total. */
uint64_t node_free_pages(int nid);
uint64_t total_free_pages(void);

#endif
