/*
 * check.c - the invariant checker that tests call after every step.
 *
 * It recounts, from the page tables of every live mm, how many PTEs map
 * each page and how many PMDs map each folio, then compares with what the
 * folios say:
 *  - the VMA list of each mm is sorted, page aligned, non-overlapping and
 *    in the user half;
 *  - every present entry lies inside a VMA and maps an allocated (not free,
 *    not reserved, not page-table) anon or shared page; a PMD leaf maps the head of
 *    a 2 MiB folio and lies inside one VMA;
 *  - a writable entry has VM_WRITE and maps an AnonExclusive page (else a
 *    write would bypass copy-on-write), and an AnonExclusive page is mapped
 *    at most once; a shared VMA's (VM_SHARED, mm/shmem.h) entries map
 *    the page its object holds at their offset, never AnonExclusive and
 *    writable without it, and a shared page (PG_shmem) is mapped by
 *    shared VMAs only and held by exactly one object slot, whose
 *    reference the refcount includes; in a VMA without access (PROT_NONE)
 *    no entry lets user mode in (a PROT_NONE entry is present, and
 *    counted, all the same);
 *  - the arch's rules for blocks of entries (arm64 contpte) hold, and no
 *    PTE table's lock is left held;
 *  - each page's mapcount equals the PTEs that map it; each folio's
 *    entire_mapcount equals the PMDs that map it, and large_mapcount is
 *    their sum (PTE mappings + PMD mappings);
 *  - refcount >= mappings + pins (a pin holds a reference too);
 *  - only anon folios are lazyfree (MADV_FREE, mm/madvise.c);
 *  - a mapped page that is pinned stays the process's own: a small folio
 *    that may be pinned (refcount - mappings >= GUP_PIN_COUNTING_BIAS) is
 *    AnonExclusive and mapped by an mm with MMF_HAS_PINNED (else fork
 *    would share it and the pin would go stale), and a PMD-mapped folio
 *    with pins is AnonExclusive;
 *  - free and reserved frames are mapped by nothing;
 *  - each mm's nr_pt_pages equals the tables found under its pgd, and its
 *    mmap_lock and page_table_lock are free;
 *  - the allocator's own lists and counts (page_alloc_check());
 *  - every swap slot's count is the number of swap entries naming it.
 * Each problem is printed; the return value is their number. All live
 * mms are always checked: mappings from any of them count for a folio.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "folio_walk.h"
#include "mm_internal.h"
#include "lru.h"
#include "shmem.h"
#include "swap.h"
#include "swapops.h"

struct census {
	int32_t *ptes[MAX_NUMNODES];  /* per pfn of each node: PTEs found */
	int32_t *pmds[MAX_NUMNODES];  /* per pfn of each node: PMDs found */
	int32_t *slots[MAX_NUMNODES]; /* per pfn of each node: shmem object slots naming it */
	int32_t *swaps;		      /* per swap slot: swap entries found */
	int problems;
};

#define PROBLEM(c, ...)                                                                            \
	do {                                                                                       \
		printf("mm_check: " __VA_ARGS__);                                                  \
		printf("\n");                                                                      \
		(c)->problems++;                                                                   \
	} while (0)

static int32_t *slot(int32_t **tab, struct page *page)
{
	struct pglist *pg = page_pglist(page);

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
	    !(f->page.flags & (PG_anon | PG_shmem))) {
		PROBLEM(c,
			"%#lx maps pfn %#llx which is not an allocated anon page (flags %#x ref "
			"%d)",
			addr, (unsigned long long)pfn, page->flags, folio_ref_count(f));
		return NULL;
	}
	return page;
}

/* An entry at @addr of the shared @vma maps @page: its object's page at
 * that offset, not AnonExclusive. */
static void check_shared(struct census *c, struct mm *mm, struct vma *vma, unsigned long addr,
			 struct page *page)
{
	unsigned long index = vma_shmem_index(vma, addr);

	if (shmem_folio(vma->shm, index) != page_folio(page))
		PROBLEM(c, "mm %d: %#lx maps pfn %#llx, not page %lu of its shared object", mm->id,
			addr, (unsigned long long)page_to_pfn(page), index);
	if (PageAnonExclusive(page))
		PROBLEM(c, "mm %d: %#lx maps shared pfn %#llx, which is AnonExclusive", mm->id,
			addr, (unsigned long long)page_to_pfn(page));
}

/* A writable entry (@write) at @addr of @vma mapping @page. */
static void check_writable(struct census *c, struct mm *mm, struct vma *vma, unsigned long addr,
			   struct page *page, bool write)
{
	if (write && !(vma->flags & VM_WRITE))
		PROBLEM(c, "mm %d: writable entry at %#lx in a VMA without VM_WRITE", mm->id, addr);
	if (vma->shm) {
		check_shared(c, mm, vma, addr, page);
		return;
	}
	if (page_folio(page)->page.flags & PG_shmem)
		PROBLEM(c, "mm %d: %#lx in a private VMA maps shared pfn %#llx", mm->id, addr,
			(unsigned long long)page_to_pfn(page));
	if (write && !PageAnonExclusive(page))
		PROBLEM(c,
			"mm %d: writable entry at %#lx maps pfn %#llx, which is not AnonExclusive",
			mm->id, addr, (unsigned long long)page_to_pfn(page));
}

/* An entry at @addr of @vma that user mode may access (@user): a VMA
 * without access (PROT_NONE) has only entries that refuse it. */
static void check_access(struct census *c, struct mm *mm, struct vma *vma, unsigned long addr,
			 bool user)
{
	if (user && !(vma->flags & VM_ACCESS_FLAGS))
		PROBLEM(c, "mm %d: user-accessible entry at %#lx in a PROT_NONE VMA", mm->id, addr);
}

/* A pinned page mapped at @addr of @mm (by a PMD if @pmd) must be the
 * mm's own: see the list at the top. Large PTE-mapped folios count pins
 * per folio, not per page, so only the two exact cases are checked. */
static void check_pinned_mapping(struct census *c, struct mm *mm, unsigned long addr,
				 struct page *page, bool pmd)
{
	struct folio *f = page_folio(page);
	int unmapped_refs = folio_ref_count(f) - f->page.mapcount;

	if (pmd ? !folio_pincount(f) : folio_test_large(f) || unmapped_refs < GUP_PIN_COUNTING_BIAS)
		return;
	if (f->page.flags & PG_shmem) /* shared with every mapping by design */
		return;
	if (!PageAnonExclusive(page))
		PROBLEM(c, "mm %d: %#lx maps pinned pfn %#llx, which is not AnonExclusive", mm->id,
			addr, (unsigned long long)page_to_pfn(page));
	if (!pmd && !(mm->flags & MMF_HAS_PINNED))
		PROBLEM(c, "mm %d: %#lx maps pinned pfn %#llx, but the mm has no MMF_HAS_PINNED",
			mm->id, addr, (unsigned long long)page_to_pfn(page));
}

static void census_pte(struct census *c, struct mm *mm, pte_t pte, unsigned long addr)
{
	struct vma *vma = find_vma(mm, addr);
	struct page *page;

	if (is_swap_entry(pte) && vma && swap_entry_offset(pte) < SWAP_SLOTS) {
		c->swaps[swap_entry_offset(pte)]++;
		return;
	}
	if (!pte_present(pte) || !vma) {
		PROBLEM(c, "mm %d: pte %#llx at %#lx is %s", mm->id, (unsigned long long)pte.val,
			addr, pte_present(pte) ? "outside every VMA" : "not present but not none");
		return;
	}
	page = mapped_page(c, pte_pfn(pte), addr);
	if (!page)
		return;
	(*slot(c->ptes, page))++;
	check_writable(c, mm, vma, addr, page, pte_write(pte));
	check_access(c, mm, vma, addr, pte_user(pte));
	check_pinned_mapping(c, mm, addr, page, false);
}

/* One PTE table: its lock, its entries, the arch's block rules. */
static void census_ptes(struct census *c, struct mm *mm, pmd_t pmd, unsigned long base)
{
	struct page *pt = pfn_to_page(pmd_table_pfn(pmd));
	pte_t *ptes = pmd_table(pmd);
	const char *why = NULL;
	int bad;

	if (!pt || !(pt->flags & PG_pgtable)) {
		PROBLEM(c, "mm %d: PTE table at %#lx is not a PG_pgtable page", mm->id, base);
		return;
	}
	if (spin_is_locked(&pt->ptl))
		PROBLEM(c, "mm %d: the lock of the PTE table at %#lx is held", mm->id, base);
	for (int i = 0; i < PTRS_PER_TABLE; i++)
		if (!pte_none(__ptep_get(&ptes[i])))
			census_pte(c, mm, __ptep_get(&ptes[i]),
				   base + (unsigned long)i * PAGE_SIZE);
	bad = arch_check_pte_table(ptes, &why);
	if (bad >= 0)
		PROBLEM(c, "mm %d: at %#lx: %s", mm->id, base + (unsigned long)bad * PAGE_SIZE,
			why);
}

static void census_pmd_leaf(struct census *c, struct mm *mm, pmd_t pmd, unsigned long addr)
{
	struct page *page = mapped_page(c, pmd_pfn(pmd), addr);
	struct vma *vma = find_vma(mm, addr);

	if (!page)
		return;
	if (page_folio(page) != (struct folio *)page ||
	    folio_order((struct folio *)page) != PMD_ORDER) {
		PROBLEM(c, "mm %d: PMD at %#lx maps pfn %#llx, not the head of a 2M folio", mm->id,
			addr, (unsigned long long)pmd_pfn(pmd));
		return;
	}
	if (!vma || vma->end < addr + PMD_SIZE) {
		PROBLEM(c, "mm %d: PMD at %#lx is not inside one VMA", mm->id, addr);
		return;
	}
	(*slot(c->pmds, page))++;
	check_writable(c, mm, vma, addr, page, pmd_write(pmd));
	check_access(c, mm, vma, addr, pmd_user(pmd));
	check_pinned_mapping(c, mm, addr, page, true);
}

/* Migration entries live only inside one migrate_run_batch() call, and the
 * checker runs outside them: one here is a leftover. */
static void census_pmd_migration(struct census *c, struct mm *mm, pmd_t pmd, unsigned long addr)
{
	PROBLEM(c, "mm %d: pmd %#llx at %#lx is a migration entry outside a migration", mm->id,
		(unsigned long long)pmd.val, addr);
}

/* The PMD table behind @pud (mapping from @base); count its tables. */
static void census_pmds(struct census *c, struct mm *mm, pud_t pud, unsigned long base,
			uint64_t *tables)
{
	pmd_t *pmds = pud_table(pud);

	for (unsigned m = 0; m < PTRS_PER_TABLE; m++) {
		unsigned long addr = base + (unsigned long)m * PMD_SIZE;

		switch (pmd_state(pmds[m])) {
		case PMD_NONE:
			break;
		case PMD_LEAF:
			census_pmd_leaf(c, mm, pmds[m], addr);
			break;
		case PMD_MIGRATION:
			census_pmd_migration(c, mm, pmds[m], addr);
			break;
		case PMD_TABLE:
			(*tables)++;
			census_ptes(c, mm, pmds[m], addr);
			break;
		}
	}
}

/* Walk every table of @mm's user half; count tables and mappings. */
static void census_mm(struct census *c, struct mm *mm)
{
	uint64_t tables = 0;

	for (unsigned g = 0; g < pgd_index(MM_USER_END - 1) + 1; g++) {
		pud_t *puds;

		if (pgd_none(mm->pgd[g]))
			continue;
		tables++;
		puds = pgd_table(mm->pgd[g]);
		for (unsigned u = 0; u < PTRS_PER_TABLE; u++) {
			if (pud_none(puds[u]))
				continue;
			tables++;
			census_pmds(c, mm, puds[u],
				    (unsigned long)g * PGDIR_SIZE + (unsigned long)u * PUD_SIZE,
				    &tables);
		}
	}
	if (tables != mm->nr_pt_pages)
		PROBLEM(c, "mm %d: %llu page-table pages found, nr_pt_pages says %llu", mm->id,
			(unsigned long long)tables, (unsigned long long)mm->nr_pt_pages);
	if (rwlock_is_locked(&mm->mmap_lock) || spin_is_locked(&mm->page_table_lock))
		PROBLEM(c, "mm %d: mmap_lock or page_table_lock left held", mm->id);
}

/* The VMA list of @mm: sorted, aligned, disjoint, in the user half. */
static void check_vmas(struct census *c, struct mm *mm)
{
	unsigned long prev_end = MM_USER_START;

	for (struct vma *v = mm->vmas; v; v = v->next) {
		if (v->mm != mm || v->start >= v->end || v->start < prev_end ||
		    v->end > MM_USER_END || ((v->start | v->end) & (PAGE_SIZE - 1)))
			PROBLEM(c, "mm %d: bad VMA [%#lx, %#lx) after %#lx", mm->id, v->start,
				v->end, prev_end);
		prev_end = v->end;
	}
}

/* Compare page @p of folio @f with the census (@pmds PMDs map @f; then
 * AnonExclusive is the head's, huge.c). */
static int32_t check_page(struct census *c, struct folio *f, struct page *p, int32_t pmds)
{
	int32_t want = *slot(c->ptes, p);

	if (p->mapcount != want)
		PROBLEM(c, "pfn %#llx: mapcount %d but %d PTEs map it",
			(unsigned long long)page_to_pfn(p), p->mapcount, want);
	if (PageAnonExclusive(pmds ? &f->page : p) && want + pmds > 1)
		PROBLEM(c, "pfn %#llx: AnonExclusive but mapped %d times",
			(unsigned long long)page_to_pfn(p), want + pmds);
	return want;
}

/* Compare one allocated folio with the census. */
static void check_folio(struct census *c, struct folio *f)
{
	int32_t pmds = *slot(c->pmds, &f->page), sum = 0, slots = *slot(c->slots, &f->page);
	int pins = folio_test_large(f) ? folio_pincount(f) : 0;

	for (unsigned long i = 0; i < folio_nr_pages(f); i++)
		sum += check_page(c, f, folio_page(f, i), pmds);
	if (f->page.entire_mapcount != pmds)
		PROBLEM(c, "folio pfn %#llx: entire_mapcount %d but %d PMDs map it",
			(unsigned long long)folio_pfn(f), f->page.entire_mapcount, pmds);
	if (folio_test_large(f) && f->page.large_mapcount != sum + pmds)
		PROBLEM(c, "folio pfn %#llx: large_mapcount %d but %d mappings",
			(unsigned long long)folio_pfn(f), f->page.large_mapcount, sum + pmds);
	if (folio_ref_count(f) < sum + pmds + pins + slots)
		PROBLEM(c, "folio pfn %#llx: refcount %d < %d mappings + %d pins + %d object slots",
			(unsigned long long)folio_pfn(f), folio_ref_count(f), sum + pmds, pins,
			slots);
	if (slots != !!(f->page.flags & PG_shmem))
		PROBLEM(c, "folio pfn %#llx: %s, in %d shared object slots",
			(unsigned long long)folio_pfn(f),
			f->page.flags & PG_shmem ? "PG_shmem" : "not PG_shmem", slots);
	/* While the lists are kept (lru.h: a watermark or a swap pool; tests
	 * that reclaim set one up before they map anything). */
	if (lru_kept && (f->page.flags & PG_anon) && sum + pmds && !(f->page.flags & PG_lru) &&
	    !lru_isolated(f))
		PROBLEM(c, "folio pfn %#llx: mapped anon folio on no LRU list (flags %#x)",
			(unsigned long long)folio_pfn(f), f->page.flags);
	if ((f->page.flags & (PG_lazyfree | PG_anon)) == PG_lazyfree)
		PROBLEM(c, "folio pfn %#llx: lazyfree but not anon (flags %#x)",
			(unsigned long long)folio_pfn(f), f->page.flags);
}

/* Frames [k, k + n) of node @i must be mapped by nothing. */
static void check_unmapped(struct census *c, int i, uint64_t k, uint64_t n)
{
	for (uint64_t j = k; j < k + n; j++)
		if (c->ptes[i][j] || c->pmds[i][j] || c->slots[i][j])
			PROBLEM(c,
				"pfn %#llx is free or reserved but mapped (or in a shared object)",
				(unsigned long long)(pglists[i].start_pfn + j));
}

/* Visit every allocated folio, free block and reserved page of node @i. */
static void check_node(struct census *c, int i)
{
	struct pglist *pg = &pglists[i];
	uint64_t n = pg->end_pfn - pg->start_pfn;

	for (uint64_t k = 0, step; k < n; k += step) {
		struct page *p = &pg->memmap[k];

		step = 1;
		if (p->flags & PG_buddy) {
			step = 1ull << p->order;
			check_unmapped(c, i, k, step);
		} else if (p->flags & PG_reserved || p->refcount <= 0) {
			check_unmapped(c, i, k, 1);
		} else if (p->flags & PG_tail) {
			PROBLEM(c, "pfn %#llx: a tail page outside its folio",
				(unsigned long long)(pg->start_pfn + k));
		} else {
			check_folio(c, (struct folio *)p);
			step = 1ull << p->order;
		}
	}
}

/* Every swap slot is named by as many swap entries as its count says
 * (fork, zap, MADV_FREE and swap-in keep the counts). */
static void check_swap(struct census *c)
{
	for (unsigned long off = 0; off < SWAP_SLOTS; off++)
		if (c->swaps[off] != swap_count(off))
			PROBLEM(c, "swap slot %#lx: count %d, named by %d swap entries", off,
				swap_count(off), c->swaps[off]);
}

/* Count the slots of object @s naming each page. */
static void census_shmem(struct shmem *s, void *ctx)
{
	struct census *c = ctx;

	for (unsigned long i = 0; i < s->nr_pages; i++) {
		struct folio *f = shmem_folio(s, i);

		if (f)
			(*slot(c->slots, &f->page))++;
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
		c.slots[i] = calloc(n, sizeof(int32_t));
		if (!c.ptes[i] || !c.pmds[i] || !c.slots[i])
			panic("mm_check: no memory for the census of node %d", i);
	}
	c.swaps = calloc(SWAP_SLOTS, sizeof(int32_t));
	if (!c.swaps)
		panic("mm_check: no memory for the census of swap");
	for (struct mm *mm = mm_list; mm; mm = mm->next_mm) {
		check_vmas(&c, mm);
		census_mm(&c, mm);
	}
	shmem_for_each(census_shmem, &c);
	for (int i = 0; i < nr_pglists; i++) {
		check_node(&c, i);
		free(c.ptes[i]);
		free(c.pmds[i]);
		free(c.slots[i]);
	}
	check_swap(&c);
	free(c.swaps);
	return c.problems + page_alloc_check() + lru_check(false);
}
