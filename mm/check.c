/*
 * check.c - the invariant checker that tests call after every step.
 *
 * It recounts, from the page tables of every live mm, how many PTEs map
 * each page and how many PMDs map each folio, then compares with what the
 * folios say:
 *  - every present entry lies inside a VMA and maps an allocated (not free,
 *    not reserved, not page-table) anon page;
 *  - each page's mapcount equals the PTEs that map it; each folio's
 *    entire_mapcount equals the PMDs that map it, and large_mapcount is
 *    their sum (PTE mappings + PMD mappings);
 *  - refcount >= mappings + pins (a pin holds a reference too);
 *  - each mm's nr_pt_pages equals the tables found under its pgd;
 *  - the allocator's own lists and counts (page_alloc_check()).
 * Each problem is printed; the return value is their number.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "mm_internal.h"

struct census {
	int32_t *ptes[MAX_NUMNODES]; /* per pfn of each node: PTEs found */
	int32_t *pmds[MAX_NUMNODES];
	int problems;
};

#define PROBLEM(c, ...)                                                                            \
	do {                                                                                       \
		printf("mm_check: " __VA_ARGS__);                                                  \
		printf("\n");                                                                      \
		(c)->problems++;                                                                   \
	} while (0)

static int32_t *slot(struct census *c, int32_t **tab, struct page *page)
{
	struct pglist *pg = page_pglist(page);

	(void)c;
	return &tab[pg - pglists][page_to_pfn(page) - pg->start_pfn];
}

/* A mapped pfn must be a page of an allocated anon folio. */
static struct page *mapped_page(struct census *c, uint64_t pfn, unsigned long addr)
{
	struct page *page = pfn_to_page(pfn);
	struct folio *f;

	if (!page) {
		PROBLEM(c, "%#lx maps pfn %#llx outside RAM", addr, (unsigned long long)pfn);
		return NULL;
	}
	f = page_folio(page);
	if (page->flags & (PG_reserved | PG_pgtable | PG_buddy) || folio_ref_count(f) <= 0 ||
	    !(f->page.flags & PG_anon)) {
		PROBLEM(c, "%#lx maps pfn %#llx which is not an allocated anon page (flags %#x ref %d)",
			addr, (unsigned long long)pfn, page->flags, folio_ref_count(f));
		return NULL;
	}
	return page;
}

static void census_ptes(struct census *c, struct mm *mm, pte_t *ptes, unsigned long base)
{
	for (int i = 0; i < PTRS_PER_TABLE; i++) {
		unsigned long addr = base + (unsigned long)i * PAGE_SIZE;
		pte_t pte = __ptep_get(&ptes[i]);
		struct page *page;

		if (pte_none(pte))
			continue;
		if (!pte_present(pte) || !find_vma(mm, addr)) {
			PROBLEM(c, "mm %d: pte %#llx at %#lx is %s", mm->id,
				(unsigned long long)pte.val, addr,
				pte_present(pte) ? "outside every VMA" : "not present but not none");
			continue;
		}
		page = mapped_page(c, pte_pfn(pte), addr);
		if (page)
			(*slot(c, c->ptes, page))++;
	}
}

static void census_pmd(struct census *c, struct mm *mm, pmd_t pmd, unsigned long addr,
		       uint64_t *tables)
{
	struct page *page;

	if (!pmd_leaf(pmd)) {
		(*tables)++;
		if (!(pfn_to_page(pmd_table_pfn(pmd))->flags & PG_pgtable))
			PROBLEM(c, "mm %d: PTE table at %#lx is not a PG_pgtable page", mm->id, addr);
		census_ptes(c, mm, pmd_table(pmd), addr);
		return;
	}
	page = mapped_page(c, pmd_pfn(pmd), addr);
	if (!page)
		return;
	if (page_folio(page) != (struct folio *)page || folio_order((struct folio *)page) != PMD_ORDER)
		PROBLEM(c, "mm %d: PMD at %#lx maps pfn %#llx, not the head of a 2M folio", mm->id,
			addr, (unsigned long long)pmd_pfn(pmd));
	else if (!find_vma(mm, addr) || find_vma(mm, addr)->end < addr + PMD_SIZE)
		PROBLEM(c, "mm %d: PMD at %#lx is not inside one VMA", mm->id, addr);
	else
		(*slot(c, c->pmds, page))++;
}

/* Walk every table of @mm's user half; count tables and mappings. */
static void census_mm(struct census *c, struct mm *mm)
{
	uint64_t tables = 0;

	for (unsigned g = 0; g < PTRS_PER_TABLE / 2; g++) {
		pgd_t pgd = mm->pgd[g];
		pud_t *puds;

		if (pgd_none(pgd))
			continue;
		tables++;
		puds = pgd_table(pgd);
		for (unsigned u = 0; u < PTRS_PER_TABLE; u++) {
			pmd_t *pmds;

			if (pud_none(puds[u]))
				continue;
			tables++;
			pmds = pud_table(puds[u]);
			for (unsigned m = 0; m < PTRS_PER_TABLE; m++)
				if (!pmd_none(pmds[m]))
					census_pmd(c, mm, pmds[m],
						   (unsigned long)g * PGDIR_SIZE +
							   (unsigned long)u * PUD_SIZE +
							   (unsigned long)m * PMD_SIZE,
						   &tables);
		}
	}
	if (tables != mm->nr_pt_pages)
		PROBLEM(c, "mm %d: %llu page-table pages found, nr_pt_pages says %llu", mm->id,
			(unsigned long long)tables, (unsigned long long)mm->nr_pt_pages);
}

/* Compare one allocated folio with the census. */
static void check_folio(struct census *c, struct folio *f)
{
	unsigned long n = folio_nr_pages(f);
	int32_t pmds = *slot(c, c->pmds, &f->page), sum = 0;

	for (unsigned long i = 0; i < n; i++) {
		struct page *p = folio_page(f, i);
		int32_t want = *slot(c, c->ptes, p);

		if (p->mapcount != want)
			PROBLEM(c, "pfn %#llx: mapcount %d but %d PTEs map it",
				(unsigned long long)page_to_pfn(p), p->mapcount, want);
		sum += want;
	}
	if (f->page.entire_mapcount != pmds)
		PROBLEM(c, "folio pfn %#llx: entire_mapcount %d but %d PMDs map it",
			(unsigned long long)folio_pfn(f), f->page.entire_mapcount, pmds);
	if (folio_test_large(f) && f->page.large_mapcount != sum + pmds)
		PROBLEM(c, "folio pfn %#llx: large_mapcount %d but %d mappings",
			(unsigned long long)folio_pfn(f), f->page.large_mapcount, sum + pmds);
	if (folio_ref_count(f) < sum + pmds + (folio_test_large(f) ? f->page.pincount : 0))
		PROBLEM(c, "folio pfn %#llx: refcount %d < %d mappings + %d pins",
			(unsigned long long)folio_pfn(f), folio_ref_count(f), sum + pmds,
			folio_test_large(f) ? f->page.pincount : 0);
}

/* Visit every allocated folio of node @i; free and reserved pages must be
 * unmapped. */
static void check_node(struct census *c, int i)
{
	struct pglist *pg = &pglists[i];
	uint64_t n = pg->end_pfn - pg->start_pfn;

	for (uint64_t k = 0; k < n;) {
		struct page *p = &pg->memmap[k];
		uint64_t step = 1;

		if (p->flags & PG_buddy)
			step = 1ull << p->order;
		else if (!(p->flags & (PG_reserved | PG_tail)) && p->refcount > 0)
			check_folio(c, (struct folio *)p), step = 1ull << p->order;
		else if (p->flags & PG_tail)
			PROBLEM(c, "pfn %#llx: a tail page outside its folio",
				(unsigned long long)(pg->start_pfn + k));
		for (uint64_t j = 0; j < step && !(p->refcount > 0 && !(p->flags & PG_buddy)); j++)
			if (c->ptes[i][k + j] || c->pmds[i][k + j])
				PROBLEM(c, "pfn %#llx is free or reserved but mapped",
					(unsigned long long)(pg->start_pfn + k + j));
		k += step;
	}
}

int mm_check(struct mm *only)
{
	struct census c = { .problems = 0 };

	(void)only;
	for (int i = 0; i < nr_pglists; i++) {
		size_t n = (size_t)(pglists[i].end_pfn - pglists[i].start_pfn);

		c.ptes[i] = calloc(n, sizeof(int32_t));
		c.pmds[i] = calloc(n, sizeof(int32_t));
		if (!c.ptes[i] || !c.pmds[i])
			panic("mm_check: no memory for the census of node %d", i);
	}
	for (struct mm *mm = mm_list; mm; mm = mm->next_mm)
		census_mm(&c, mm);
	for (int i = 0; i < nr_pglists; i++) {
		check_node(&c, i);
		free(c.ptes[i]);
		free(c.pmds[i]);
	}
	return c.problems + page_alloc_check();
}
