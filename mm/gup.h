/*
 * gup.h - get_user_pages and pinning: references on the pages behind a
 * range of an mm, for the kernel (or a device) to use directly.
 *
 * Two kinds of reference, as in Linux:
 *  - FOLL_GET (get_user_pages): plain references, released with
 *    put_user_pages(). They keep the memory allocated, nothing more.
 *  - FOLL_PIN (pin_user_pages): pins, released with unpin_user_pages().
 *    A pin promises that the page it returned is the page the process
 *    maps, for as long as the pin is held (DMA, O_DIRECT, RDMA). A pin of
 *    a small folio adds GUP_PIN_COUNTING_BIAS to its refcount, a pin of a
 *    large one adds 1 and counts in pincount (folio_maybe_dma_pinned()).
 *    The first pin sets MMF_HAS_PINNED on the mm, and fork copies a maybe
 *    pinned AnonExclusive page for the child instead of sharing it.
 *
 * The walk (mm/gup.c) and the commit of runs of one folio are batched
 * as the two GUP batching series do ("walk multiple PTEs per
 * follow_page_pte() call" and "batch contiguous same-folio PTEs into one
 * refcount grab"); mm_caps.gup_walk and mm_caps.gup_grab turn each
 * off (docs/gup.md follows one call through).
 */
#ifndef MM_GUP_H
#define MM_GUP_H

#include "mm.h"

#define FOLL_WRITE (1u << 0)	 /* the caller will write: break COW first */
#define FOLL_GET (1u << 1)	 /* take plain references (get_user_pages) */
#define FOLL_PIN (1u << 2)	 /* take pins (pin_user_pages) */
#define FOLL_LONGTERM (1u << 3)	 /* the pin is held indefinitely (FOLL_PIN only) */
#define FOLL_TOUCH (1u << 4)	 /* mark the folios accessed (and dirty for FOLL_WRITE) */
#define FOLL_FAST_ONLY (1u << 5) /* *_fast: lockless walk only, never fall back */
/* Access against the VMA's protection, as ptrace does: a read of a VMA
 * with any access, a write of one without VM_WRITE, which breaks COW and
 * takes the page when it is AnonExclusive although its entry stays
 * read-only (Linux's can_follow_write_pte). Slow path only: gup-fast
 * leaves such a page to it. A VMA without any access (PROT_NONE) is
 * refused, where Linux lets ptrace in. */
#define FOLL_FORCE (1u << 6)

/*
 * get_user_pages - take a reference on each of the @nr_pages pages from
 * @start (page aligned) and store the pages in @pages.
 * pin_user_pages - the same with pins (FOLL_PIN), and MMF_HAS_PINNED set.
 * @flags: FOLL_WRITE, FOLL_TOUCH, and FOLL_LONGTERM for pin_user_pages;
 *	the functions add FOLL_GET or FOLL_PIN themselves.
 *
 * Missing pages are faulted in; FOLL_WRITE takes the write fault on a
 * read-only (COW) entry; a read-only pin of an anon page that is not
 * AnonExclusive takes an unshare fault first, so the pinned page stays
 * the one the process maps even after a later fork or write.
 *
 * Return: the number of pages taken, which is short when the range runs
 * into a hole, a VMA without the access, or an error after the first
 * page (retrying from there returns the error); or a negative errno when
 * not even the first page could be taken, and then nothing is held:
 * -EINVAL (bad flags, unaligned @start, NULL @pages), -EFAULT (no VMA, or
 * one without the access), -ENOMEM (a fault ran out of memory, or the
 * refcount would overflow).
 * Context: no PTE lock held.
 */
long get_user_pages(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		    struct page **pages);
long pin_user_pages(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		    struct page **pages);

/*
 * get_user_pages_fast / pin_user_pages_fast - the same, trying first a
 * lockless walk that takes no PTE lock and never faults: each run is
 * grabbed, then its entries are read again, and a run whose entries
 * changed is given back. What the lockless walk cannot take (a missing
 * page, a needed fault or unshare, a changed entry) is left to the slow
 * path above, unless FOLL_FAST_ONLY, which returns what it got (0 if
 * nothing: never an error for a page that merely needs a fault).
 */
/* Tests only (NULL otherwise): called by gup-fast on the first entry of
 * each run after it was read and before its folio is grabbed, so that a
 * test can make another CPU's step (a munmap, a migration) land in that
 * window (as migrate_unmapped_hook in migrate.h). */
extern void (*gup_fast_window_hook)(struct mm *mm, unsigned long addr, pte_t *ptep);

/* Tests only (NULL otherwise): called by the slow path when its lockless
 * read of the pmd found a leaf, before it takes the page_table_lock to
 * read the leaf again and grab its folio, so that a test can land a
 * migration between the first read and the grab. */
extern void (*gup_pmd_window_hook)(struct mm *mm, unsigned long addr);

/* Tests only (NULL otherwise): called by the slow path after each fault
 * and before it walks to the address again, so that a test can make
 * another CPU's step (a NUMA scan, a migration) undo what the fault did. */
extern void (*gup_fault_window_hook)(struct mm *mm, unsigned long addr);

long get_user_pages_fast(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
			 struct page **pages);
long pin_user_pages_fast(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
			 struct page **pages);

/*
 * Releasing (mm/pin.c). put_user_pages() drops what get_user_pages()
 * took, unpin_user_pages() what pin_user_pages() took; entries of one
 * folio next to each other in @pages are released with one refcount
 * update, as Linux has done since before the seeds (so not capped by
 * mm_caps.gup_grab). unpin_user_pages_dirty_lock()
 * marks each folio dirty first when @make_dirty (the caller wrote to the
 * pages, e.g. by DMA). Panics on a page that holds no such reference.
 */
void put_user_pages(struct page **pages, unsigned long n);
void unpin_user_pages(struct page **pages, unsigned long n);
void unpin_user_pages_dirty_lock(struct page **pages, unsigned long n, bool make_dirty);

/*
 * The same for @npages physically consecutive pages from @page, which
 * may span folios: one update per folio, and no look at each page (Linux's
 * unpin_user_page_range_dirty_lock(); io_uring keeps a buffer of large
 * folios as such ranges and releases it this way). The range must be
 * pages the caller got or pinned, each once.
 */
void put_user_page_range(struct page *page, unsigned long npages);
void unpin_user_page_range_dirty_lock(struct page *page, unsigned long npages, bool make_dirty);

#endif
