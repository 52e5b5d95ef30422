/*
 * pin.c - the pin primitive: FOLL_PIN references, as Linux counts them.
 *
 * A pin is a reference that promises the page stays where it is for DMA
 * or another long-lived user. Small folios count @refs pins as
 * refs * GUP_PIN_COUNTING_BIAS extra references (so "maybe pinned" is
 * refcount >= the bias); large folios add @refs references and count the
 * pins in pincount (folio_pin() in folio.c does the counting and checks).
 * The first pin in an mm sets MMF_HAS_PINNED, which fork reads. GUP
 * (mm/gup.c) is the one caller that takes pins from page tables; tests
 * call these directly.
 */
#include "kernel.h"
#include "mm_internal.h"

void folio_pin_refs(struct folio *f, int refs)
{
	folio_pin(f, refs);
}

void folio_unpin_refs(struct folio *f, int refs)
{
	folio_unpin(f, refs);
}

void mm_set_has_pinned(struct mm *mm)
{
	mm->flags |= MMF_HAS_PINNED;
}
