/*
 * fork.c - mm_fork(): a child address space that shares every anonymous
 * page copy-on-write with its parent.
 *
 * Two passes, so that a failure leaves the parent exactly as it was:
 *  1. prepare: allocate every page table the child needs, and the private
 *     copies for pages that must not be shared (below); any failure tears
 *     the child down and returns -ENOMEM before the parent is touched;
 *  2. copy: cannot fail. Per run of PTEs that map consecutive pages of one
 *     folio (folio_pte_batch: write bits merged, young ignored since the
 *     child's entries start old, dirty bits respected as Linux does for
 *     private mappings) it takes one folio_ref_add(nr), one
 *     mapcount update, clears AnonExclusive on the run, write-protects the
 *     run in the parent with one wrprotect_ptes() and maps it in the child
 *     with one set_ptes(). A 2 MiB PMD leaf is copied as a PMD.
 * Pinned pages: if the parent ever pinned memory (MMF_HAS_PINNED), a page
 * that is AnonExclusive in a folio that may be pinned is not shared: the
 * child gets its own copy at fork time, so the pin keeps seeing the
 * parent's page (Linux's copy_present_page / folio_try_dup_anon_rmap).
 * caps.fork bounds the run; 1 is the per-PTE code from before batching.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "mm_internal.h"

struct fork_ctx {
	struct mm *dst, *src;
	struct list_head copies[2]; /* [0] order-0 and [1] 2 MiB folios for pinned pages */
	bool pinned;		    /* src has MMF_HAS_PINNED */
};

/* Must this page get its own copy in the child? */
static bool needs_copy(struct fork_ctx *c, struct folio *f, struct page *p)
{
	return c->pinned && (p->flags & PG_anon_exclusive) && folio_maybe_dma_pinned(f);
}

/* Count the pages mapped in [addr, end) of one PTE table that need copies. */
static unsigned long count_copies(struct fork_ctx *c, pte_t *ptes, unsigned long addr,
				  unsigned long end)
{
	unsigned long n = 0;

	for (unsigned i = pte_index(addr); addr < end; i++, addr += PAGE_SIZE) {
		pte_t pte = __ptep_get(&ptes[i]);
		struct page *p;

		if (!pte_present(pte))
			continue;
		p = pfn_to_page(pte_pfn(pte));
		n += needs_copy(c, page_folio(p), p);
	}
	return n;
}

static int reserve_copies(struct fork_ctx *c, unsigned long n, unsigned order)
{
	while (n--) {
		struct folio *f = folio_alloc(0, order, ALLOC_ANY_NODE);

		if (!f)
			return -ENOMEM;
		list_add(&f->page.lru, &c->copies[order ? 1 : 0]);
	}
	return 0;
}

static struct folio *take_copy(struct fork_ctx *c, int big)
{
	struct list_head *e = c->copies[big].next;

	if (e == &c->copies[big])
		panic("mm_fork: pass 2 ran out of reserved copies");
	list_del(e);
	return (struct folio *)list_entry(e, struct page, lru);
}

/* Pass 1 for [addr, end) inside one PMD region: the child's tables (a
 * table shared by two VMAs is allocated once) and the copies. */
static int prepare_pmd(struct fork_ctx *c, unsigned long addr, unsigned long end, pmd_t spmd)
{
	pmd_t *dpmd = mm_find_pmd(c->dst, addr, true);
	struct page *pt;

	if (!dpmd)
		return -ENOMEM;
	if (pmd_leaf(spmd)) {
		struct page *h = pfn_to_page(pmd_pfn(spmd));

		return needs_copy(c, page_folio(h), h) ? reserve_copies(c, 1, PMD_ORDER) : 0;
	}
	if (pmd_none(*dpmd)) {
		pt = pt_alloc(c->dst);
		if (!pt)
			return -ENOMEM;
		*dpmd = pmd_mktable(page_to_pfn(pt));
	}
	return c->pinned ? reserve_copies(c, count_copies(c, pmd_table(spmd), addr, end), 0) : 0;
}

static int fork_prepare(struct fork_ctx *c)
{
	for (struct vma *v = c->src->vmas; v; v = v->next) {
		if (v->flags & VM_DONTCOPY)
			continue;
		for (unsigned long a = v->start, next; a < v->end; a = next) {
			pmd_t *spmd = mm_find_pmd(c->src, a, false);
			int err;

			next = pmd_addr_end(a, v->end);
			if (!spmd || pmd_none(*spmd))
				continue;
			err = prepare_pmd(c, a, next, *spmd);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Give the child a private copy of @page (the parent keeps its own). */
static void copy_one_page(struct fork_ctx *c, struct vma *dv, unsigned long addr, pte_t *dptep,
			  struct page *page, pte_t pte)
{
	struct folio *n = take_copy(c, 0);
	pte_t npte = vma_mk_pte(dv, folio_pfn(n));

	memcpy(page_address(&n->page), page_address(page), PAGE_SIZE);
	count_event(folio_copies, 1);
	folio_prepare_anon(n);
	folio_add_rmap_ptes(n, &n->page, 1);
	set_ptes(c->dst, addr, dptep, pte_dirty(pte) ? pte_mkdirty(npte) : npte, 1);
}

/* Share @nr pages of @folio from @page: refs, mapcounts, AnonExclusive. */
static void dup_anon_ptes(struct folio *folio, struct page *page, unsigned nr)
{
	folio_ref_add(folio, (int)nr);
	folio_add_rmap_ptes(folio, page, (int)nr);
	for (unsigned i = 0; i < nr; i++)
		page[i].flags &= ~PG_anon_exclusive;
}

/*
 * copy_present_ptes - copy the run of present PTEs at @sptep to @dptep.
 * Return: the number of entries copied (at least 1).
 * Context: both PTE locks held.
 */
static unsigned copy_present_ptes(struct fork_ctx *c, struct vma *dv, unsigned long addr,
				  pte_t *dptep, pte_t *sptep, pte_t pte, unsigned long left)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio = page_folio(page);
	bool any_writable = pte_write(pte);
	unsigned nr = 1;

	if (needs_copy(c, folio, page)) {
		copy_one_page(c, dv, addr, dptep, page, pte);
		return 1;
	}
	if (folio_test_large(folio) && caps.fork > 1) {
		nr = folio_pte_batch(folio, addr, sptep, pte, cap_nr(caps.fork, left),
				     FPB_MERGE_WRITE | FPB_IGNORE_YOUNG, &any_writable);
		for (unsigned i = 1; c->pinned && i < nr; i++)
			if (needs_copy(c, folio, page + i))
				nr = i; /* the run stops before a page to copy */
	}
	dup_anon_ptes(folio, page, nr);
	if (any_writable) {
		wrprotect_ptes(c->src, addr, sptep, nr);
		pte = pte_wrprotect(pte);
	}
	set_ptes(c->dst, addr, dptep, pte_mkold(pte), nr);
	return nr;
}

/* Copy the PTEs of [addr, end) inside one table. */
static void copy_pte_range(struct fork_ctx *c, struct vma *dv, pmd_t *spmd, pmd_t *dpmd,
			   unsigned long addr, unsigned long end)
{
	struct spinlock *sptl, *dptl;
	pte_t *sptep = pte_offset_map_lock(c->src, spmd, addr, &sptl);
	pte_t *dptep = pte_offset_map_lock(c->dst, dpmd, addr, &dptl);

	while (addr < end) {
		pte_t pte = ptep_get(sptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = copy_present_ptes(c, dv, addr, dptep, sptep, pte,
					       (end - addr) >> PAGE_SHIFT);
		sptep += nr, dptep += nr;
		addr += nr * PAGE_SIZE;
	}
	pte_unmap_unlock(dptep, dptl);
	pte_unmap_unlock(sptep, sptl);
}

/* Copy a PMD leaf: shared (one ref, one PMD mapping) or, when pinned, a
 * full private copy for the child. */
static void copy_huge_pmd(struct fork_ctx *c, struct vma *dv, pmd_t *spmd, pmd_t *dpmd)
{
	pmd_t pmd = *spmd;
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmd)));

	if (needs_copy(c, folio, &folio->page)) {
		struct folio *n = take_copy(c, 1);

		memcpy(page_address(&n->page), page_address(&folio->page), PMD_SIZE);
		count_event(folio_copies, 512);
		folio_prepare_anon(n);
		folio_add_rmap_pmd(n);
		*dpmd = vma_mk_pmd(dv, n, pmd_dirty(pmd));
		return;
	}
	folio_get(folio);
	folio_add_rmap_pmd(folio);
	for (unsigned long i = 0; i < folio_nr_pages(folio); i++)
		folio_page(folio, i)->flags &= ~PG_anon_exclusive;
	*spmd = pmd_wrprotect(pmd);
	*dpmd = pmd_mkold(pmd_wrprotect(pmd));
}

static void copy_vma(struct fork_ctx *c, struct vma *sv, struct vma *dv)
{
	for (unsigned long a = sv->start, next; a < sv->end; a = next) {
		pmd_t *spmd = mm_find_pmd(c->src, a, false), *dpmd;

		next = pmd_addr_end(a, sv->end);
		if (!spmd || pmd_none(*spmd))
			continue;
		dpmd = mm_find_pmd(c->dst, a, false);
		if (pmd_leaf(*spmd))
			copy_huge_pmd(c, dv, spmd, dpmd);
		else
			copy_pte_range(c, dv, spmd, dpmd, a, next);
	}
	flush_tlb_range(c->src, sv->start, sv->end);
}

static void free_copies(struct fork_ctx *c)
{
	for (int k = 0; k < 2; k++)
		while (!list_empty(&c->copies[k]))
			folio_put(take_copy(c, k));
}

/* Copy the VMA list; the child's VMAs point at the child. */
static int copy_vmas(struct mm *dst, struct mm *src)
{
	struct vma **tail = &dst->vmas;

	for (struct vma *v = src->vmas; v; v = v->next) {
		struct vma *n;

		if (v->flags & VM_DONTCOPY)
			continue;
		n = malloc(sizeof(*n));
		if (!n)
			return -ENOMEM;
		*n = *v;
		n->mm = dst;
		n->next = NULL;
		*tail = n;
		tail = &n->next;
	}
	return 0;
}

struct mm *mm_fork(struct mm *src, int *errp)
{
	struct fork_ctx c = { .src = src, .pinned = src->flags & MMF_HAS_PINNED };
	struct vma *dv;
	int err = -ENOMEM;

	list_init(&c.copies[0]);
	list_init(&c.copies[1]);
	c.dst = mm_create();
	if (!c.dst)
		goto err_out;
	c.dst->flags = src->flags;
	err = copy_vmas(c.dst, src);
	if (!err)
		err = fork_prepare(&c);
	if (err)
		goto err_child;
	dv = c.dst->vmas;
	for (struct vma *sv = src->vmas; sv; sv = sv->next) {
		if (sv->flags & VM_DONTCOPY)
			continue;
		copy_vma(&c, sv, dv);
		dv = dv->next;
	}
	free_copies(&c);
	return c.dst;
err_child:
	free_copies(&c);
	mm_put(c.dst);
err_out:
	if (errp)
		*errp = err;
	return NULL;
}
