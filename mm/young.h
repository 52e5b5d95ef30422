/*
 * young.h - aging: the young (accessed) bits of a range tested and
 * cleared, per run of one folio (mm/young.c).
 */
#ifndef MM_YOUNG_H
#define MM_YOUNG_H

#include <stdbool.h>

#include "mm.h"

/*
 * mm_clear_young - clear the young bit of every present entry of @mm in
 * [@start, @end) (page aligned), a run of one folio (at most mm_caps.young
 * entries; a PMD leaf is one) at a time. With @flush, each run that had a
 * young entry is flushed (aging: folio_referenced's clear_flush_young, so
 * the next access sets the bit again); without, none is (clear_refs, as
 * Linux's: a page still in a TLB may be accessed without the bit set).
 * Return: the pages of the runs that had one (a run counts whole, as
 * Linux's folio_referenced() counts a folio), or -EINVAL.
 * Context: takes @mm's mmap_lock for read.
 */
long mm_clear_young(struct mm *mm, unsigned long start, unsigned long end, bool flush);

#endif
