/*
 * page_check.c - page_alloc_check(): a full consistency check of every
 * node's free lists and memmap, for tests and debugging.
 *
 * Two passes per node. The list pass follows each free list (checking
 * every pointer before using it), checks each block and marks its head
 * PG_checked. The memmap pass walks the span from the first pfn to the
 * last, one block or folio at a time, so blocks that overlap, free pages
 * that are on no list and pages that belong to nothing all show up; it
 * clears the marks as it goes.
 */
#include <stdarg.h>
#include <stdio.h>

#include "kernel.h"
#include "page_internal.h"

#define CHECK_PRINT_MAX 20 /* problems printed per call; all are counted */

static int printed;

/* Print one problem of node @idx (up to CHECK_PRINT_MAX a call); return 1. */
static int problem(int idx, const char *fmt, ...)
{
	va_list ap;

	if (printed++ >= CHECK_PRINT_MAX)
		return 1;
	printf("page_alloc_check: node %d: ", pglists[idx].node_id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return 1;
}

/* Check the free block at @p found on list @k of node @idx, and mark it. */
static int check_listed_block(int idx, struct page *p, unsigned k, uint64_t pfn)
{
	const struct pglist *pg = &pglists[idx];
	int bad = 0;

	if (!(p->flags & PG_buddy) || p->order != k)
		bad += problem(idx, "pfn %#llx on order-%u list has flags %#x order %u",
			       (unsigned long long)pfn, k, p->flags, p->order);
	if (pfn & ((1ul << k) - 1) || pfn + (1ul << k) > pg->end_pfn)
		bad += problem(idx, "order-%u block at pfn %#llx is misaligned or past the node", k,
			       (unsigned long long)pfn);
	if (p->flags & (PG_reserved | PG_tail) || p->node != idx)
		bad += problem(idx, "free block pfn %#llx is reserved, a tail or on node %u",
			       (unsigned long long)pfn, p->node);
	if (p->flags & PG_checked)
		bad += problem(idx, "pfn %#llx is on a free list twice", (unsigned long long)pfn);
	p->flags |= PG_checked;
	return bad;
}

/* Walk node @idx's order-@k list; add its pages to *@pages. */
static int check_list(int idx, unsigned k, uint64_t *pages)
{
	struct pglist *pg = &pglists[idx];
	struct list_head *head = &pg->free_area[k], *e = head->next;
	uint64_t n = 0, limit = pg->end_pfn - pg->start_pfn;
	int bad = 0;

	for (; e != head && n <= limit; e = e->next, n++) {
		struct page *p = list_entry(e, struct page, lru);
		uint64_t pfn;

		if (!memmap_lookup(p, &pfn) || !pglist_spans(pg, pfn) || pglist_page(pg, pfn) != p)
			return bad + problem(idx,
					     "order-%u list entry %p is not a page of the node", k,
					     (void *)e);
		if (e->next->prev != e)
			bad += problem(idx, "order-%u list is broken after pfn %#llx", k,
				       (unsigned long long)pfn);
		bad += check_listed_block(idx, p, k, pfn);
		*pages += 1ul << k;
	}
	if (n != pg->nr_free[k])
		bad += problem(idx, "order-%u list has %llu blocks, nr_free says %llu", k,
			       (unsigned long long)n, (unsigned long long)pg->nr_free[k]);
	return bad;
}

/* The free block whose head is @p (pfn @pfn, @listed if the list pass saw
 * it); *@len gets its length. */
static int check_free_block(int idx, struct page *p, uint64_t pfn, bool listed, uint64_t *len)
{
	const struct pglist *pg = &pglists[idx];
	unsigned k = p->order;
	int bad = 0;

	if (!listed)
		bad += problem(idx, "free block pfn %#llx order %u is on no free list",
			       (unsigned long long)pfn, k);
	if (k > MAX_ORDER || pfn & ((1ul << k) - 1) || pfn + (1ul << k) > pg->end_pfn) {
		*len = 1;
		return bad + problem(idx, "free block pfn %#llx has bad order %u",
				     (unsigned long long)pfn, k);
	}
	*len = 1ul << k;
	for (uint64_t i = 1; i < *len; i++) {
		struct page *q = p + i;

		if (q->flags & ~PG_poisoned || q->refcount || q->mapcount)
			bad += problem(idx,
				       "pfn %#llx inside free block %#llx: flags %#x refcount %d",
				       (unsigned long long)(pfn + i), (unsigned long long)pfn,
				       q->flags, q->refcount);
		q->flags &= ~PG_checked;
	}
	return bad;
}

/* Check the pages of the allocated folio @h (pfn @pfn); sum mapcounts. */
static int check_folio_pages(int idx, struct page *h, uint64_t pfn, uint64_t len, int *sum)
{
	int bad = 0;

	for (uint64_t i = 0; i < len; i++) {
		struct page *q = h + i;
		uint32_t want = i ? PG_tail : 0;

		if ((q->flags & (PG_tail | PG_buddy | PG_reserved | PG_poisoned)) != want ||
		    q->head_offset != i || q->node != idx || q->mapcount < 0 || (i && q->refcount))
			bad += problem(idx,
				       "page %llu of folio pfn %#llx: flags %#x head_offset %u "
				       "node %u mapcount %d refcount %d",
				       (unsigned long long)i, (unsigned long long)pfn, q->flags,
				       q->head_offset, q->node, q->mapcount, q->refcount);
		q->flags &= ~PG_checked;
		*sum += q->mapcount;
	}
	return bad;
}

/* The allocated folio headed by @h at @pfn; *@len gets its length. */
static int check_folio(int idx, struct page *h, uint64_t pfn, uint64_t *len)
{
	const struct folio *f = (const struct folio *)h;
	unsigned k = h->order;
	int bad = 0, sum = 0, pins;
	char st[320];

	*len = 1;
	folio_describe(f, st, sizeof(st));
	if (k > MAX_ORDER || pfn & ((1ul << k) - 1) || pfn + (1ul << k) > pglists[idx].end_pfn ||
	    !(h->flags & PG_large) != !k)
		return problem(idx, "bad order or PG_large: %s", st);
	*len = 1ul << k;
	bad += check_folio_pages(idx, h, pfn, *len, &sum);
	if (h->refcount <= 0 || h->entire_mapcount < 0 || h->pincount < 0)
		bad += problem(idx, "negative count: %s", st);
	if (k && h->large_mapcount != sum + h->entire_mapcount)
		bad += problem(idx, "large_mapcount is not the sum of the mappings (%d): %s",
			       sum + h->entire_mapcount, st);
	if (!k && (h->large_mapcount || h->entire_mapcount || h->pincount))
		bad += problem(idx, "small folio with large-folio counts: %s", st);
	pins = k ? h->pincount : 0;
	if (h->refcount < folio_mapcount(f) + pins)
		bad += problem(idx, "refcount below mapcount + pins: %s", st);
	return bad;
}

/* The memmap pass over node @idx; add free pages to *@pages. */
static int check_memmap(int idx, uint64_t *pages)
{
	struct pglist *pg = &pglists[idx];
	int bad = 0;

	for (uint64_t pfn = pg->start_pfn, len; pfn < pg->end_pfn; pfn += len) {
		struct page *p = pglist_page(pg, pfn);
		bool listed = p->flags & PG_checked;

		p->flags &= ~PG_checked;
		len = 1;
		if (p->flags & PG_reserved) {
			if (p->flags & ~PG_reserved)
				bad += problem(idx, "reserved pfn %#llx has flags %#x",
					       (unsigned long long)pfn, p->flags);
		} else if (p->node != idx) {
			bad += problem(idx, "pfn %#llx says node %u", (unsigned long long)pfn,
				       p->node);
		} else if (p->flags & PG_buddy) {
			bad += check_free_block(idx, p, pfn, listed, &len);
			*pages += len;
		} else if (p->flags & PG_tail || p->refcount == 0) {
			bad += problem(idx,
				       "pfn %#llx is neither free, reserved nor in a folio "
				       "(flags %#x refcount %d)",
				       (unsigned long long)pfn, p->flags, p->refcount);
		} else {
			bad += check_folio(idx, p, pfn, &len);
		}
	}
	return bad;
}

/* Both passes over node @idx, and the node's counts. */
static int check_node(int idx)
{
	const struct pglist *pg = &pglists[idx];
	uint64_t listed = 0, walked = 0;
	int bad = 0;

	for (unsigned k = 0; k <= MAX_ORDER; k++)
		bad += check_list(idx, k, &listed);
	bad += check_memmap(idx, &walked);
	if (listed != pg->free_pages || walked != pg->free_pages)
		bad += problem(idx, "free_pages %llu, on the lists %llu, in the memmap %llu",
			       (unsigned long long)pg->free_pages, (unsigned long long)listed,
			       (unsigned long long)walked);
	if (pg->free_pages + pg->reserved_pages > pg->present_pages)
		bad += problem(idx, "free %llu + reserved %llu pages exceed the %llu present",
			       (unsigned long long)pg->free_pages,
			       (unsigned long long)pg->reserved_pages,
			       (unsigned long long)pg->present_pages);
	return bad;
}

int page_alloc_check(void)
{
	int bad = 0;

	printed = 0;
	for (int i = 0; i < nr_pglists; i++)
		bad += check_node(i);
	if (printed > CHECK_PRINT_MAX)
		printf("page_alloc_check: %d more problems not printed\n",
		       printed - CHECK_PRINT_MAX);
	return bad;
}
