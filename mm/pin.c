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
	if (!(__atomic_load_n(&mm->flags, __ATOMIC_RELAXED) & MMF_HAS_PINNED))
		__atomic_fetch_or(&mm->flags, MMF_HAS_PINNED, __ATOMIC_SEQ_CST);
}

void gup_put_folio(struct folio *folio, unsigned refs, unsigned flags)
{
	if (flags & FOLL_PIN)
		folio_unpin(folio, (int)refs);
	else
		folio_put_refs(folio, (int)refs);
}

/* Panic unless the @n pinned pages from @pages are still AnonExclusive
 * (see the top of this file). */
static void check_pinned_pages(struct page **pages, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		struct folio *f = page_folio(pages[i]);

		if ((f->page.flags & PG_anon) && !PageAnonExclusive(pages[i]))
			panic("unpin_user_pages: pinned page pfn %#llx is not AnonExclusive: the "
			      "pin no longer sees the page the process maps",
			      (unsigned long long)page_to_pfn(pages[i]));
	}
}

/*
 * How many entries from pages[i] belong to its folio (adjacent in
 * @pages, any pages of it): one release. Not capped by caps.gup_grab:
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
