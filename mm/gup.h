/*
 * gup.h - get_user_pages and pinning: references on the pages behind a
 * range of an mm, for the kernel (or a device) to use directly.
 */
#ifndef MM_GUP_H
#define MM_GUP_H

#include "mm.h"

#define FOLL_WRITE (1u << 0)	/* the caller will write: break COW first */
#define FOLL_GET (1u << 1)	/* take plain references (get_user_pages) */
#define FOLL_PIN (1u << 2)	/* take pins (pin_user_pages) */
#define FOLL_LONGTERM (1u << 3) /* the pin is held indefinitely (FOLL_PIN only) */
#define FOLL_TOUCH (1u << 4)	/* mark the pages accessed (and dirty for FOLL_WRITE) */

/*
 * get_user_pages - take a reference on each of @nr_pages pages from @start.
 * pin_user_pages - the same with FOLL_PIN (and MMF_HAS_PINNED set on @mm).
 * Missing pages are faulted in; FOLL_WRITE breaks COW; a FOLL_PIN of an
 * anon page that is not AnonExclusive unshares it first.
 * Return: the number of pages taken (may be short when the range runs into
 * a hole or a protection change), or a negative errno when not even the
 * first page could be taken (then nothing is held).
 */
long get_user_pages(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		    struct page **pages);
long pin_user_pages(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		    struct page **pages);

/* Drop what get_user_pages (put_user_pages) or pin_user_pages took; runs of
 * pages of one folio are released with one call. @make_dirty marks the
 * folios dirty first (unpin_user_pages_dirty_lock in Linux). */
void put_user_pages(struct page **pages, unsigned long n);
void unpin_user_pages(struct page **pages, unsigned long n, bool make_dirty);

#endif
