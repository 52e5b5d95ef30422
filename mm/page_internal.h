/*
 * page_internal.h - what the files of the physical memory layer share
 * (memmap.c, page_alloc.c, page_check.c, folio.c) and nobody else needs.
 */
#ifndef MM_PAGE_INTERNAL_H
#define MM_PAGE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "page.h"

/* The page of @pfn inside @pg's span (the caller checked the bounds). */
static inline struct page *pglist_page(struct pglist *pg, uint64_t pfn)
{
	return &pg->memmap[pfn - pg->start_pfn];
}

/* Is @pfn inside @pg's span? */
static inline bool pglist_spans(const struct pglist *pg, uint64_t pfn)
{
	return pfn >= pg->start_pfn && pfn < pg->end_pfn;
}

/* The pfn of @page if it lies in some node's memmap (never panics). */
bool memmap_lookup(const struct page *page, uint64_t *pfn);

/* memmap.c: reserve node index @idx's memmap on the node and set @pg's
 * span; then, once every memmap is reserved, write every struct page. */
void memmap_alloc(int idx);
void memmap_init_node(int idx);

/* memmap.c: the section table of pfn_to_page() (page.h) for nodes
 * [0, @nr), after memmap_alloc() of each and before memblock_close();
 * publish it once every memmap is written. */
void memmap_sections_init(int nr);
void memmap_sections_publish(void);

/* page_alloc.c: hand the free pfns [start, end) of @pg to the buddy lists
 * (called by memmap_init_node for each run of free pages). */
void buddy_add_run(struct pglist *pg, uint64_t start, uint64_t end);

/* page_alloc.c: return folio @f, refcount already zero and checked by
 * folio.c to be unmapped and unpinned, to its node's free lists. */
void folio_free(struct folio *f);

/* folio.c: panic with "@func: @what: <folio state>". */
void folio_bug(const char *func, const struct folio *f, const char *what) __attribute__((noreturn));

#endif
