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
 *     private mappings) it takes one folio_ref_add(nr), one mapcount
 *     update, clears AnonExclusive on the run, write-protects the run in
 *     the parent with one wrprotect_ptes() and maps it in the child with
 *     one set_ptes(). A 2 MiB PMD leaf is copied as a PMD. The parent's
 *     TLB is flushed once, at the end, over the VMAs that lost write
 *     permission (Linux flushes the whole mm once in dup_mmap()).
 *
 * Pinned pages: if the parent ever pinned memory (MMF_HAS_PINNED), a page
 * that is AnonExclusive in a folio that may be pinned is not shared: the
 * child gets its own copy at fork time, so the pin keeps seeing the page
 * the parent writes to (Linux's copy_present_page() after
 * folio_try_dup_anon_rmap_ptes() refuses). The test is the pin
 * primitive's own state: MMF_HAS_PINNED (set by mm_set_has_pinned() in
 * pin.c) and folio_maybe_dma_pinned(). A pinned PMD leaf is copied as a
 * new 2 MiB folio, or as 512 small pages when no 2 MiB block is free (the
 * parent keeps its PMD either way; Linux splits the parent's PMD instead,
 * which pass 1 must not do). Pass 1 decides which pages are copied, and
 * each copy it reserves is for one address (tagged with it); pass 2 maps
 * each copy at its address and shares every other page. A page a
 * gup-fast pins between the passes is therefore shared, and that pin is
 * given back (gup-fast sees write_protect_seq moved; copy_present_ptes()).
 *
 * Context: the parent's mmap_lock for write (faults and GUP's slow path
 * wait; gup-fast and other CPUs' MMUs do not: wrprotect_ptes() keeps a
 * dirty bit set meanwhile, and gup-fast's pins are kept off the pin check
 * by write_protect_seq, odd for the whole copy), then the child's, nested.
 *
 * Shared VMAs (VM_SHARED, mm/shmem.h) are copied without their entries:
 * the child takes a reference on the object and faults its pages in, as
 * Linux leaves a shared file mapping's entries to fault.
 *
 * mm_caps.fork bounds the run; 1 is the per-PTE code from before batching.
 * Order-0 folios never enter folio_pte_batch(), so the 4 KiB path is the
 * same in both (docs/fork.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "lru.h"
#include "folio_walk.h"
#include "mm_internal.h"
#include "shmem.h"
#include "swapops.h"
#include "swap.h"
#include "pte_batch.h"
#include "trace.h"

struct fork_ctx {
	struct mm *dst, *src;
	struct list_head copies[2]; /* pass 1's copies: [0] order-0, [1] PMD_ORDER folios */
	bool pinned;		    /* src has MMF_HAS_PINNED */
	bool wrprotected;	    /* the VMA being copied lost write permission somewhere */
	unsigned long flush_start, flush_end; /* parent range to flush (empty: start >= end) */
};

/* Must this page get its own copy in the child? Pass 1 asks; pass 2
 * copies exactly the pages pass 1 reserved a copy for (copy_reserved()). */
static bool needs_copy(struct fork_ctx *c, struct folio *f, struct page *p)
{
	return c->pinned && PageAnonExclusive(p) && folio_maybe_dma_pinned(f);
}

/* ---- pass 1: tables and copies ------------------------------------------ */

/*
 * A reserved copy is tagged with the address it is for: the tag is the
 * copy's first word, which pass 2 overwrites when it copies the page in.
 * Each list is in address order (pass 1 walks the mm in the order pass 2
 * does), so the copy for the address pass 2 is at, if there is one, is
 * the list's first.
 */
static void copy_set_tag(struct folio *f, unsigned long addr)
{
	*(unsigned long *)page_address(&f->page) = addr;
}

static unsigned long copy_tag(struct folio *f)
{
	return *(unsigned long *)page_address(&f->page);
}

static struct folio *first_copy(struct fork_ctx *c, int big)
{
	struct list_head *e = c->copies[big].next;

	return e == &c->copies[big] ? NULL : (struct folio *)list_entry(e, struct page, lru);
}

/* The address the next 4 KiB (or 2 MiB, @big) copy is for; ULONG_MAX
 * when none is left. */
static unsigned long next_copy_addr(struct fork_ctx *c, int big)
{
	struct folio *f = first_copy(c, big);

	return f ? copy_tag(f) : ~0ul;
}

/* Did pass 1 reserve a 4 KiB (or 2 MiB, @big) copy for @addr? */
static bool copy_reserved(struct fork_ctx *c, int big, unsigned long addr)
{
	return next_copy_addr(c, big) == addr;
}

/* Reserve one copy of 2^@order pages for @addr of @v, allocated by the
 * VMA's policy as the child's own fault there would be. Return: 0 or
 * -ENOMEM. */
static int reserve_copy(struct fork_ctx *c, struct vma *v, unsigned long addr, unsigned order)
{
	struct folio *f = vma_alloc_folio(v, addr, order, 0);

	if (!f)
		return -ENOMEM;
	copy_set_tag(f, addr);
	list_add_tail(&f->page.lru, &c->copies[order ? 1 : 0]);
	return 0;
}

/* Reserve a copy for each page mapped in [addr, end) of one PTE table
 * that needs one, in address order (the order pass 2 takes them in).
 * Return: 0 or -ENOMEM (what was reserved stays listed). */
static int reserve_pte_copies(struct fork_ctx *c, struct vma *v, pte_t *ptes, unsigned long addr,
			      unsigned long end)
{
	for (unsigned i = pte_index(addr); addr < end; i++, addr += PAGE_SIZE) {
		pte_t pte = __ptep_get(&ptes[i]);
		struct page *p;

		if (!pte_present(pte))
			continue;
		p = pfn_to_page(pte_pfn(pte));
		if (needs_copy(c, page_folio(p), p) && reserve_copy(c, v, addr, 0))
			return -ENOMEM;
	}
	return 0;
}

/* Take the 4 KiB (or 2 MiB, @big) copy reserved for @addr off its list. */
static struct folio *take_copy(struct fork_ctx *c, int big, unsigned long addr)
{
	struct folio *f = first_copy(c, big);

	if (!f || copy_tag(f) != addr)
		panic("mm_fork: no %s copy reserved for %#lx (the next is for %#lx)",
		      big ? "2 MiB" : "4 KiB", addr, next_copy_addr(c, big));
	list_del(&f->page.lru);
	return f;
}

/* After a failed pass 1: give back what it reserved. */
static void free_copies(struct fork_ctx *c)
{
	for (int k = 0; k < 2; k++)
		while (!list_empty(&c->copies[k]))
			folio_put(take_copy(c, k, next_copy_addr(c, k)));
}

/* Give the child's pmd entry @dpmd a PTE table unless it has one. */
static int prepare_pte_table(struct fork_ctx *c, pmd_t *dpmd)
{
	struct page *pt;

	if (!pmd_none(pmdp_get(dpmd)))
		return 0;
	pt = pt_alloc(c->dst);
	if (!pt)
		return -ENOMEM;
	set_pmd(dpmd, pmd_mktable(page_to_pfn(pt)));
	return 0;
}

/* A pinned PMD leaf at @addr: one 2 MiB copy, else 512 small ones in a
 * PTE table. */
static int prepare_pinned_leaf(struct fork_ctx *c, struct vma *v, pmd_t *dpmd, unsigned long addr)
{
	int err;

	if (reserve_copy(c, v, addr, PMD_ORDER) == 0)
		return 0;
	err = prepare_pte_table(c, dpmd);
	for (unsigned i = 0; i < PTRS_PER_TABLE && !err; i++)
		err = reserve_copy(c, v, addr + i * PAGE_SIZE, 0);
	return err;
}

/* The state of the source PMD at @addr: none, a table or a leaf. A
 * migration entry panics: migration entries exist only inside one
 * migration call, and fork holds the family lock for read
 * (mmap_write_lock()), which a migration of any mm of the family holds
 * for write (anon_family.h). */
static enum pmd_state fork_pmd_state(pmd_t pmd, unsigned long addr)
{
	enum pmd_state st = pmd_state(pmd);

	if (st == PMD_MIGRATION)
		panic("fork: PMD migration entry %#llx at %#lx", (unsigned long long)pmd.val, addr);
	return st;
}

/* Pass 1 for [addr, end) of @v inside one PMD region whose source entry
 * is @spmd (a table shared by two VMAs is allocated once). */
static int prepare_pmd(struct fork_ctx *c, struct vma *v, unsigned long addr, unsigned long end,
		       pmd_t spmd)
{
	pmd_t *dpmd = mm_find_pmd(c->dst, addr, true);
	int err;

	if (!dpmd)
		return -ENOMEM;
	if (pmd_leaf(spmd)) {
		struct page *h = pfn_to_page(pmd_pfn(spmd));

		return needs_copy(c, page_folio(h), h) ? prepare_pinned_leaf(c, v, dpmd, addr) : 0;
	}
	err = prepare_pte_table(c, dpmd);
	if (err || !c->pinned)
		return err;
	return reserve_pte_copies(c, v, pmd_table(spmd), addr, end);
}

static int fork_prepare(struct fork_ctx *c)
{
	for (struct vma *v = c->src->vmas; v; v = v->next) {
		if (v->flags & (VM_DONTCOPY | VM_SHARED))
			continue;
		for (unsigned long a = v->start, next; a < v->end; a = next) {
			pmd_t *spmd = mm_find_pmd(c->src, a, false);
			int err;

			next = pmd_addr_end(a, v->end);
			if (!spmd || fork_pmd_state(pmdp_get(spmd), a) == PMD_NONE)
				continue;
			err = prepare_pmd(c, v, a, next, pmdp_get(spmd));
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- pass 2: the copy ----------------------------------------------------- */

/* Map a private copy of @page at @dptep in the child: exclusive, dirty
 * (its data exists nowhere else) and old like every child entry. The
 * parent keeps its page, writable and exclusive. */
static void copy_one_page(struct fork_ctx *c, struct vma *dv, unsigned long addr, pte_t *dptep,
			  struct page *page)
{
	struct folio *n = take_copy(c, 0, addr);

	arch_copy_pages(page_address(&n->page), page_address(page), 1);
	count_event(folio_copies, 1);
	folio_prepare_anon(n);
	folio_add_rmap_ptes(n, &n->page, 1);
	set_ptes(c->dst, addr, dptep, pte_mkold(pte_mkdirty(vma_mk_pte(dv, folio_pfn(n)))), 1);
	folio_add_lru(n, c->dst, addr);
}

/* Share @nr pages of @folio from @page: refs, mapcounts, AnonExclusive. */
static void dup_anon_ptes(struct folio *folio, struct page *page, unsigned nr)
{
	folio_ref_add(folio, (int)nr);
	folio_add_rmap_ptes(folio, page, (int)nr);
	if (nr == 1) { /* the 4 KiB path: no loop around the one atomic */
		ClearPageAnonExclusive(page);
		return;
	}
	for (unsigned i = 0; i < nr; i++)
		ClearPageAnonExclusive(&page[i]);
}

/* Length of the prefix of the @nr entries from @addr that may be shared
 * (the run stops before the next page pass 1 reserved a copy for). */
static unsigned shareable_prefix(struct fork_ctx *c, unsigned long addr, unsigned nr)
{
	unsigned long next = next_copy_addr(c, 0);

	if (next > addr && next - addr < (unsigned long)nr * PAGE_SIZE)
		return (unsigned)((next - addr) >> PAGE_SHIFT);
	return nr;
}

/*
 * copy_present_ptes - copy the run of present PTEs at @sptep (the first
 * entry's value @pte, at most @left entries) to @dptep.
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

	/*
	 * The copy decision is pass 1's, whatever needs_copy() says now. A
	 * page pinned since pass 1 has no copy and is shared: that pin is a
	 * gup-fast's that read write_protect_seq before this fork began (a
	 * later one sees it odd and leaves the page to the slow path, which
	 * waits for the mmap_lock), and pass 1 did not see its grab, so by
	 * the pairing in mm_write_protect_begin() it sees the seq moved and
	 * gives the pin back. A page unpinned since pass 1 is copied all the
	 * same (harmless: the parent stays exclusive).
	 */
	if (copy_reserved(c, 0, addr)) {
		copy_one_page(c, dv, addr, dptep, page);
		return 1;
	}
	if (folio_test_large(folio) && mm_caps.fork > 1) {
		nr = folio_pte_batch(folio, addr, sptep, pte, cap_nr(mm_caps.fork, left),
				     FPB_MERGE_WRITE | FPB_IGNORE_YOUNG, &any_writable);
		nr = shareable_prefix(c, addr, nr);
	}
	dup_anon_ptes(folio, page, nr);
	if (any_writable) {
		wrprotect_ptes(c->src, addr, sptep, nr);
		pte = pte_wrprotect(pte);
		c->wrprotected = true;
	}
	set_ptes(c->dst, addr, dptep, pte_mkold(pte), nr);
	return nr;
}

/* Copy the PTEs of [addr, end) inside one table. */
/*
 * copy_swap_ptes - the run of swap entries from @sptep (value @pte, slots
 * one after another, at most @left and mm_caps.fork) into the child: one
 * swap_dup() for the run. Neither side is exclusive afterwards: the
 * parent's entries lose their AnonExclusive mark, as Linux's
 * copy_nonpresent_pte() clears pte_swp_exclusive.
 * Any other non-present entry is a bug. Out of line, so that the loop
 * over present entries stays what it was.
 * Return: the entries copied. Context: both PTE locks held.
 */
static __attribute__((noinline, cold)) unsigned
copy_swap_ptes(pte_t *dptep, pte_t *sptep, pte_t pte, unsigned long addr, unsigned long left)
{
	unsigned long off = swap_entry_offset(pte);
	unsigned nr = 1, max = cap_nr(mm_caps.fork, left);

	if (!is_swap_entry(pte))
		panic("mm_fork: unexpected non-present pte %#llx at %#lx",
		      (unsigned long long)pte.val, addr);

	while (nr < max && is_swap_entry(ptep_get(sptep + nr)) &&
	       swap_entry_offset(ptep_get(sptep + nr)) == off + nr)
		nr++;
	swap_dup(off, nr);
	for (unsigned i = 0; i < nr; i++) {
		pte_t e = make_swap_entry(off + i, false);

		if (swap_entry_excl(ptep_get(sptep + i)))
			set_pte(sptep + i, e);
		set_pte(dptep + i, e);
	}
	return nr;
}

static void copy_pte_range(struct fork_ctx *c, struct vma *dv, pmd_t *spmd, pmd_t *dpmd,
			   unsigned long addr, unsigned long end)
{
	struct spinlock *sptl, *dptl;
	pte_t *sptep = pte_offset_map_lock(c->src, spmd, addr, &sptl);
	pte_t *dptep = pte_offset_map_lock_nested(c->dst, dpmd, addr, &dptl, 1);

	while (addr < end) {
		pte_t pte = ptep_get(sptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = copy_present_ptes(c, dv, addr, dptep, sptep, pte,
					       (end - addr) >> PAGE_SHIFT);
		else if (!pte_none(pte))
			nr = copy_swap_ptes(dptep, sptep, pte, addr, (end - addr) >> PAGE_SHIFT);
		else
			nr = pte_none_span(sptep, addr, end);
		sptep += nr, dptep += nr;
		addr += nr * PAGE_SIZE;
	}
	pte_unmap_unlock(dptep, dptl);
	pte_unmap_unlock(sptep, sptl);
}

/* A PMD leaf pass 1 reserved copies for: the child gets the 2 MiB copy,
 * or 512 small ones in the PTE table pass 1 hung under @dpmd. */
static void copy_pinned_huge_pmd(struct fork_ctx *c, struct vma *dv, pmd_t pmd, pmd_t *dpmd,
				 unsigned long addr)
{
	struct page *head = pfn_to_page(pmd_pfn(pmd));
	struct spinlock *ptl;
	struct folio *n;
	pte_t *dptep;

	if (copy_reserved(c, 1, addr)) {
		n = take_copy(c, 1, addr);
		arch_copy_pages(page_address(&n->page), page_address(head), PTRS_PER_TABLE);
		count_event(folio_copies, PTRS_PER_TABLE);
		folio_prepare_anon(n);
		folio_add_rmap_pmd(n);
		set_pmd(dpmd, pmd_mkold(vma_mk_pmd(dv, n, true)));
		folio_add_lru(n, c->dst, addr);
		return;
	}
	dptep = pte_offset_map_lock(c->dst, dpmd, addr, &ptl);
	for (unsigned i = 0; i < PTRS_PER_TABLE; i++)
		copy_one_page(c, dv, addr + i * PAGE_SIZE, dptep + i, head + i);
	pte_unmap_unlock(dptep, ptl);
}

/* A PMD leaf at @addr: shared (one ref, one PMD mapping, write-protected
 * on both sides) or, when pass 1 found it pinned, a private copy for the
 * child (a pin taken since is given back, as in copy_present_ptes()). */
static void copy_huge_pmd(struct fork_ctx *c, struct vma *dv, pmd_t *spmd, pmd_t *dpmd,
			  unsigned long addr)
{
	pmd_t pmd = pmdp_get(spmd);
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmd)));

	if (copy_reserved(c, 1, addr) || copy_reserved(c, 0, addr)) {
		copy_pinned_huge_pmd(c, dv, pmd, dpmd, addr);
		return;
	}
	folio_get(folio);
	folio_add_rmap_pmd(folio);
	ClearPageAnonExclusive(&folio->page); /* a PMD mapping's is the head's (huge.c) */
	if (pmd_write(pmd)) {
		pmdp_set_wrprotect(spmd);
		c->wrprotected = true;
	}
	set_pmd(dpmd, pmd_mkold(pmd_wrprotect(pmdp_get(spmd))));
}

/* Copy the mappings of @sv into its copy @dv; note what needs a flush. */
static void copy_vma(struct fork_ctx *c, struct vma *sv, struct vma *dv)
{
	c->wrprotected = false;
	for (unsigned long a = sv->start, next; a < sv->end; a = next) {
		pmd_t *spmd = mm_find_pmd(c->src, a, false), *dpmd;

		next = pmd_addr_end(a, sv->end);
		if (!spmd || fork_pmd_state(pmdp_get(spmd), a) == PMD_NONE)
			continue;
		dpmd = mm_find_pmd(c->dst, a, false);
		if (pmd_state(pmdp_get(spmd)) == PMD_LEAF)
			copy_huge_pmd(c, dv, spmd, dpmd, a);
		else
			copy_pte_range(c, dv, spmd, dpmd, a, next);
	}
	if (!c->wrprotected)
		return;
	if (c->flush_start >= c->flush_end)
		c->flush_start = sv->start;
	c->flush_end = sv->end;
}

/* Copy the VMA list; the child's VMAs point at the child. Return: 0 or
 * -ENOMEM (the VMAs copied so far are on @dst's list). */
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
		if (n->shm)
			shmem_get(n->shm);
		n->mm = dst;
		n->next = NULL;
		*tail = n;
		tail = &n->next;
	}
	return 0;
}

/* Pass 2 maps each copy at the address it was reserved for: the parent's
 * entries are pass 1's (every writer of them waits for the mmap_lock or
 * the family lock fork holds), so a copy left over means the passes
 * walked different entries. */
static void check_copies_used(struct fork_ctx *c)
{
	for (int k = 0; k < 2; k++)
		if (!list_empty(&c->copies[k]))
			panic("mm_fork: pass 2 left the %s copy reserved for %#lx",
			      k ? "2 MiB" : "4 KiB", next_copy_addr(c, k));
}

/* Pass 2 over every VMA, then the parent's one TLB flush. */
static void fork_copy(struct fork_ctx *c)
{
	struct vma *dv = c->dst->vmas;

	for (struct vma *sv = c->src->vmas; sv; sv = sv->next) {
		if (sv->flags & VM_DONTCOPY)
			continue;
		if (!(sv->flags & VM_SHARED)) /* a shared VMA's child faults its pages in */
			copy_vma(c, sv, dv);
		dv = dv->next;
	}
	if (c->flush_start < c->flush_end)
		flush_tlb_range(c->src, c->flush_start, c->flush_end);
}

static struct mm *fork_mm(struct mm *src, int *errp)
{
	struct fork_ctx c = { .src = src };
	int err = -ENOMEM;

	list_init(&c.copies[0]);
	list_init(&c.copies[1]);
	mmap_write_lock(src);
	c.dst = mm_create_in(src->family); /* it maps the parent's folios */
	if (!c.dst)
		goto err_src;
	write_lock_nested(&c.dst->mmap_lock, 1);
	mm_write_protect_begin(src); /* before the MMF_HAS_PINNED read (mm_internal.h) */
	c.dst->flags = __atomic_load_n(&src->flags, __ATOMIC_SEQ_CST); /* gup-fast may set a bit */
	c.pinned = c.dst->flags & MMF_HAS_PINNED;
	c.dst->flags &= ~MMF_HAS_PINNED; /* the child has pinned nothing */
	err = copy_vmas(c.dst, src);
	if (!err)
		err = fork_prepare(&c);
	if (err)
		goto err_unlock;
	fork_copy(&c);
	mm_write_protect_end(src);
	check_copies_used(&c);
	write_unlock(&c.dst->mmap_lock);
	mmap_write_unlock(src);
	return c.dst;
err_unlock:
	mm_write_protect_end(src);
	write_unlock(&c.dst->mmap_lock);
	mmap_write_unlock(src);
	free_copies(&c);
	mm_put(c.dst);
	goto err_out;
err_src:
	mmap_write_unlock(src);
err_out:
	if (errp)
		*errp = err;
	return NULL;
}

struct mm *mm_fork(struct mm *src, int *errp)
{
	struct mm *dst;

	if (!mm_tracing())
		return fork_mm(src, errp);
	trace_op_begin("fork", src, 0, MM_USER_END, mm_caps.fork);
	dst = fork_mm(src, errp);
	trace_op_end("fork");
	return dst;
}
