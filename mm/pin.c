/*
 * pin.c - the references GUP hands out, counted as Linux counts them,
 * and their release.
 *
 * FOLL_GET takes plain references. FOLL_PIN takes pins: a small folio
 * counts @refs pins as refs * GUP_PIN_COUNTING_BIAS extra references (so
 * "maybe pinned" is refcount >= the bias), a large folio adds @refs
 * references and counts the pins in pincount (folio_pin() in folio.c
 * does the counting and its checks). The first pin in an mm sets
 * MMF_HAS_PINNED, which fork reads: it copies a maybe-pinned
 * AnonExclusive page for the child instead of sharing it.
 *
 * A pinned anon page stays AnonExclusive until it is unpinned: the pin
 * was taken on an exclusive page (GUP unshares first), fork copies such
 * a page instead of sharing it, and nothing else clears the flag on a
 * page that still has a reference. unpin checks this (mm_debug_vm), as
 * Linux's sanity_check_pinned_pages() does.
 */
#include "gup.h"
#include "kernel.h"
#include "mm_internal.h"

/* Atomic: gup-fast pins without the mmap_lock. */
void mm_set_has_pinned(struct mm *mm)
{
	if (!(__atomic_load_n(&mm->flags, __ATOMIC_RELAXED) & MMF_HAS_PINNED)) {
		arch_sched_point(SCHED_ATOMIC);
		__atomic_fetch_or(&mm->flags, MMF_HAS_PINNED, __ATOMIC_SEQ_CST);
	}
}

void gup_put_folio(struct folio *folio, unsigned refs, unsigned flags)
{
	if (flags & FOLL_PIN)
		folio_unpin(folio, (int)refs);
	else
		folio_put_refs(folio, (int)refs);
}

/* Panic unless the pinned @page is still AnonExclusive (see the top of
 * this file). */
static void check_pinned_page(struct page *page)
{
	if ((page_flags(&page_folio(page)->page) & PG_anon) && !PageAnonExclusive(page))
		panic("unpin_user_pages: pinned page pfn %#llx is not AnonExclusive: the "
		      "pin no longer sees the page the process maps",
		      (unsigned long long)page_to_pfn(page));
}

static void check_pinned_pages(struct page **pages, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		check_pinned_page(pages[i]);
}

/*
 * How many entries from pages[i] belong to its folio (adjacent in
 * @pages, any pages of it): one release. Not capped by mm_caps.gup_grab:
 * Linux's unpin_user_pages() grouped a folio's entries long before the
 * seeds, so the unbatched variant releases the way Linux did then. A
 * small folio is one run (an array that names one 4 KiB page twice gets
 * two releases, which is as correct and saves a look at every neighbour).
 */
static unsigned release_run(struct page **pages, unsigned long i, unsigned long n)
{
	struct folio *f = page_folio(pages[i]);
	unsigned long max = n - i;
	unsigned k = 1;

	if (!folio_test_large(f))
		return 1;
	while (k < max && page_folio(pages[i + k]) == f)
		k++;
	return k;
}

/* Release @n entries of @pages taken with @flags' kind of reference. */
static void put_runs(struct page **pages, unsigned long n, unsigned flags, bool make_dirty)
{
	for (unsigned long i = 0, k; i < n; i += k) {
		struct folio *f = page_folio(pages[i]);

		k = release_run(pages, i, n);
		if (make_dirty)
			page_set_flags(&f->page, PG_dirty);
		gup_put_folio(f, (unsigned)k, flags);
	}
}

static void release_pages(struct page **pages, unsigned long n, unsigned flags, bool make_dirty)
{
	if ((flags & FOLL_PIN) && mm_debug_vm)
		check_pinned_pages(pages, n);
	put_runs(pages, n, flags, make_dirty);
}

/* gup-fast giving back what a fork may have shared meanwhile: those pages
 * need not be AnonExclusive, so the check is not made (Linux's
 * gup_fast_unpin_user_pages()). */
void gup_fast_unpin_pages(struct page **pages, unsigned long n)
{
	put_runs(pages, n, FOLL_PIN, false);
}

static void __attribute__((noinline)) check_pinned_range(struct page *page, unsigned long k)
{
	for (unsigned long i = 0; i < k; i++)
		check_pinned_page(page + i);
}

/* Release @k pages from @page, all of folio @f. */
static inline void release_in_folio(struct folio *f, struct page *page, unsigned long k,
				    unsigned flags, bool make_dirty)
{
	if ((flags & FOLL_PIN) && mm_debug_vm)
		check_pinned_range(page, k);
	if (make_dirty)
		page_set_flags(&f->page, PG_dirty);
	gup_put_folio(f, (unsigned)k, flags);
}

/*
 * release_range() of a range that spans folios. A folio's struct pages
 * are adjacent; the next folio's first page is found through its PFN (the
 * memmaps of two nodes need not be), looked up once, at the first
 * boundary.
 */
static void __attribute__((noinline))
release_folios(struct page *page, unsigned long npages, unsigned flags, bool make_dirty)
{
	uint64_t pfn = page_to_pfn(page);

	for (;;) {
		struct folio *f = page_folio(page);
		unsigned long k = folio_pages_from(f, page);

		if (k >= npages)
			return release_in_folio(f, page, npages, flags, make_dirty);
		release_in_folio(f, page, k, flags, make_dirty);
		npages -= k;
		pfn += k;
		page = pfn_to_page(pfn);
		if (!page)
			panic("unpin_user_page_range: pfn %#llx is not RAM",
			      (unsigned long long)pfn);
	}
}

/* Release @npages consecutive pages from @page, which may span folios:
 * one update per folio. A range within one folio (the common case:
 * io_uring keeps one per folio) is released inline. */
static inline void release_range(struct page *page, unsigned long npages, unsigned flags,
				 bool make_dirty)
{
	struct folio *f;

	if (!npages)
		return;
	f = page_folio(page);
	if (folio_pages_from(f, page) >= npages)
		release_in_folio(f, page, npages, flags, make_dirty);
	else
		release_folios(page, npages, flags, make_dirty);
}

void put_user_page_range(struct page *page, unsigned long npages)
{
	release_range(page, npages, FOLL_GET, false);
}

void unpin_user_page_range_dirty_lock(struct page *page, unsigned long npages, bool make_dirty)
{
	release_range(page, npages, FOLL_PIN, make_dirty);
}

void put_user_pages(struct page **pages, unsigned long n)
{
	release_pages(pages, n, FOLL_GET, false);
}

void unpin_user_pages(struct page **pages, unsigned long n)
{
	release_pages(pages, n, FOLL_PIN, false);
}

void unpin_user_pages_dirty_lock(struct page **pages, unsigned long n, bool make_dirty)
{
	release_pages(pages, n, FOLL_PIN, make_dirty);
}
