/*
 * memmap.c - one array of struct page per node, covering the node's span
 * (lowest to highest RAM address), kept in the node's own memory; and the
 * translations between pfns, pages and kernel addresses.
 *
 * Every frame of a span gets exactly one struct write at boot: a free page
 * (flags 0), a reserved RAM page (PG_reserved) or a hole no RAM backs
 * (PG_reserved with node NODE_NONE, which pfn_to_page() treats as absent).
 * A 1 GiB node is 262144 such writes; the free lists are then built from
 * the block heads only (buddy_add_run).
 */
#include <string.h>

#include "kernel.h"
#include "memblock.h"
#include "page_internal.h"

#define PFN_UP(a) (((a) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_DOWN(a) ((a) >> PAGE_SHIFT)

/*
 * memmap_alloc - set pglists[@idx]'s span from machine.node[@idx] and
 * reserve its memmap in the node's own RAM. Panics when the node has no
 * range or the memmap fits nowhere on it.
 */
void memmap_alloc(int idx)
{
	const struct numa_node *n = &machine.node[idx];
	struct pglist *pg = &pglists[idx];
	uint64_t lo = UINT64_MAX, hi = 0, bytes, pa;

	if (n->nr_ranges < 1 || n->nr_ranges > MACHINE_MAX_RANGES)
		panic("memmap_alloc: node %d has %d memory ranges", n->id, n->nr_ranges);
	for (int r = 0; r < n->nr_ranges; r++) {
		uint64_t s = PFN_DOWN(n->range[r].base);
		uint64_t e = PFN_UP(n->range[r].base + n->range[r].size);

		lo = s < lo ? s : lo;
		hi = e > hi ? e : hi;
	}
	memset(pg, 0, sizeof(*pg));
	pg->node_id = n->id;
	pg->start_pfn = lo;
	pg->end_pfn = hi;
	for (int k = 0; k <= MAX_ORDER; k++)
		list_init(&pg->free_area[k]);
	bytes = (hi - lo) * sizeof(struct page);
	if (memblock_alloc(bytes, PAGE_SIZE, idx, "memmap", &pa))
		panic("memmap_alloc: no room for node %d's memmap (%llu KiB)", n->id,
		      (unsigned long long)(bytes >> 10));
	pg->memmap_phys = pa;
	pg->memmap = phys_to_virt(pa);
}

/* Write [from, to) of @pg's memmap as pages with @flags on node @node. */
static void memmap_fill(struct pglist *pg, uint64_t from, uint64_t to, uint32_t flags, uint8_t node)
{
	for (uint64_t pfn = from; pfn < to; pfn++)
		*pglist_page(pg, pfn) = (struct page){ .flags = flags, .node = node };
}

/* Sort @n's ranges by base into @out (at most MACHINE_MAX_RANGES). */
static void sorted_ranges(const struct numa_node *n, struct mem_range *out)
{
	for (int i = 0; i < n->nr_ranges; i++) {
		int j = i;

		for (; j > 0 && out[j - 1].base > n->range[i].base; j--)
			out[j] = out[j - 1];
		out[j] = n->range[i];
	}
}

/*
 * memmap_init_node - write node index @idx's memmap: holes, reserved RAM,
 * free RAM; hand each free run to the buddy lists and count the pages.
 * Context: after memmap_alloc() of every node (all memmaps are reserved).
 */
void memmap_init_node(int idx)
{
	const struct numa_node *n = &machine.node[idx];
	struct pglist *pg = &pglists[idx];
	struct mem_range r[MACHINE_MAX_RANGES];
	uint64_t pfn = pg->start_pfn;

	sorted_ranges(n, r);
	for (int i = 0; i < n->nr_ranges; i++) {
		uint64_t rs = PFN_UP(r[i].base), re = PFN_DOWN(r[i].base + r[i].size);
		uint64_t pos = rs << PAGE_SHIFT, fs, fe;

		if (re <= rs || rs < pfn)
			panic("memmap_init_node: node %d range [%#llx, +%#llx) is empty or "
			      "overlaps",
			      n->id, (unsigned long long)r[i].base, (unsigned long long)r[i].size);
		memmap_fill(pg, pfn, rs, PG_reserved, NODE_NONE);
		pfn = rs;
		while (memblock_next_free(&pos, re << PAGE_SHIFT, &fs, &fe)) {
			memmap_fill(pg, pfn, PFN_DOWN(fs), PG_reserved, (uint8_t)idx);
			pg->reserved_pages += PFN_DOWN(fs) - pfn;
			memmap_fill(pg, PFN_DOWN(fs), PFN_DOWN(fe), 0, (uint8_t)idx);
			buddy_add_run(pg, PFN_DOWN(fs), PFN_DOWN(fe));
			pfn = PFN_DOWN(fe);
		}
		memmap_fill(pg, pfn, re, PG_reserved, (uint8_t)idx);
		pg->reserved_pages += re - pfn;
		pg->present_pages += re - rs;
		pfn = re;
	}
	memmap_fill(pg, pfn, pg->end_pfn, PG_reserved, NODE_NONE);
}

uintptr_t *memmap_sections;
uint64_t memmap_nr_sections;
static uint64_t sections_pending; /* the table's length until published */

/* The section word of [@first, +512) pfns (see page.h). */
static uintptr_t section_word(uint64_t first, int nr)
{
	uint64_t last = first + (1u << PFN_SECTION_SHIFT);
	uintptr_t word = MEMMAP_SECTION_NONE;
	int spans = 0;

	for (int i = 0; i < nr; i++) {
		const struct pglist *pg = &pglists[i];

		if (pg->end_pfn <= first || pg->start_pfn >= last)
			continue;
		spans++;
		word = (uintptr_t)pg->memmap - (uintptr_t)pg->start_pfn * sizeof(struct page);
		if (pg->start_pfn > first || pg->end_pfn < last)
			spans++; /* covered partly: the search checks the span */
	}
	if (spans > 1 || (spans == 1 && word <= MEMMAP_SECTION_SLOW))
		return MEMMAP_SECTION_SLOW;
	return word;
}

/*
 * memmap_sections_init - reserve and fill the section table for the
 * spans of nodes [0, @nr) (on node index 0). Published (its length set)
 * by memmap_sections_publish() once the memmaps are written.
 * Context: after memmap_alloc() of every node, before memblock_close().
 */
void memmap_sections_init(int nr)
{
	uint64_t end = 0, n, pa;

	for (int i = 0; i < nr; i++)
		end = pglists[i].end_pfn > end ? pglists[i].end_pfn : end;
	n = (end + (1u << PFN_SECTION_SHIFT) - 1) >> PFN_SECTION_SHIFT;
	if (memblock_alloc(n * sizeof(uintptr_t), PAGE_SIZE, 0, "memmap sections", &pa))
		panic("memmap_sections_init: no room for %llu section words",
		      (unsigned long long)n);
	memmap_sections = phys_to_virt(pa);
	for (uint64_t s = 0; s < n; s++)
		memmap_sections[s] = section_word(s << PFN_SECTION_SHIFT, nr);
	sections_pending = n;
}

void memmap_sections_publish(void)
{
	memmap_nr_sections = sections_pending;
}

struct page *pfn_to_page_slow(uint64_t pfn)
{
	for (int i = 0; i < nr_pglists; i++) {
		struct pglist *pg = &pglists[i];

		if (pglist_spans(pg, pfn) && pglist_page(pg, pfn)->node != NODE_NONE)
			return pglist_page(pg, pfn);
	}
	return NULL;
}

/* Is @page an entry of @pg's memmap? Then store its pfn in @pfn. */
static bool memmap_holds(const struct pglist *pg, const struct page *page, uint64_t *pfn)
{
	uintptr_t a = (uintptr_t)page, base = (uintptr_t)pg->memmap;
	uintptr_t span = (uintptr_t)(pg->end_pfn - pg->start_pfn);

	if (!pg->memmap || a < base || (a - base) % sizeof(struct page) ||
	    (a - base) / sizeof(struct page) >= span)
		return false;
	*pfn = pg->start_pfn + (a - base) / sizeof(struct page);
	return true;
}

bool memmap_lookup(const struct page *page, uint64_t *pfn)
{
	if (page->node < nr_pglists && memmap_holds(&pglists[page->node], page, pfn))
		return true;
	for (int i = 0; i < nr_pglists; i++)
		if (memmap_holds(&pglists[i], page, pfn))
			return true;
	return false;
}

/* page_to_pfn - the pfn of @page; panics if @page is in no memmap. */
/*
 * page_to_pfn - O(1) through the page's own node (every batched path calls
 * it once per run, so a search over the nodes would eat the gain); any
 * page the fast path does not recognise gets the full search, which
 * panics for a pointer that is no struct page.
 */
uint64_t page_to_pfn(const struct page *page)
{
	uint64_t pfn;

	if (page->node < nr_pglists) {
		const struct pglist *pg = &pglists[page->node];

		if (pg->memmap && page >= pg->memmap &&
		    (uint64_t)(page - pg->memmap) < pg->end_pfn - pg->start_pfn)
			return pg->start_pfn + (uint64_t)(page - pg->memmap);
	}
	if (!memmap_lookup(page, &pfn))
		panic("page_to_pfn: %p is not a struct page of any node", (const void *)page);
	return pfn;
}

void *page_address(const struct page *page)
{
	return phys_to_virt(page_to_pfn(page) << PAGE_SHIFT);
}

/* page_pglist - the node of @page; panics for a hole or a stray pointer. */
struct pglist *page_pglist(const struct page *page)
{
	uint64_t pfn;

	if (page->node >= nr_pglists || !memmap_holds(&pglists[page->node], page, &pfn))
		panic("page_pglist: %p (node %u) is not RAM of any node", (const void *)page,
		      page->node);
	return &pglists[page->node];
}
