/*
 * pin.c - the pin primitive: FOLL_PIN references, as Linux counts them.
 *
 * A pin is a reference that promises the page stays where it is for DMA
 * or another long-lived user. Small folios count @refs pins as
 * refs * GUP_PIN_COUNTING_BIAS extra references (so "maybe pinned" is
 * refcount >= the bias); large folios add @refs references and count the
 * pins in pincount. The first pin in an mm sets MMF_HAS_PINNED, which fork
 * reads. GUP (mm/gup.c) is the one caller that takes pins from page
 * tables; tests call these directly.
 */
#include "kernel.h"
#include "mm_internal.h"

void folio_pin_refs(struct folio *f, int refs)
{
	if (folio_test_large(f)) {
		folio_ref_add(f, refs);
		f->page.pincount += refs;
	} else {
		folio_ref_add(f, refs * GUP_PIN_COUNTING_BIAS);
	}
}

void folio_unpin_refs(struct folio *f, int refs)
{
	if (folio_test_large(f)) {
		if (f->page.pincount < refs)
			panic("folio_unpin_refs: pfn %#llx has %d pins, unpinning %d",
			      (unsigned long long)folio_pfn(f), f->page.pincount, refs);
		f->page.pincount -= refs;
		folio_put_refs(f, refs);
	} else {
		if (folio_ref_count(f) < refs * GUP_PIN_COUNTING_BIAS)
			panic("folio_unpin_refs: pfn %#llx refcount %d below %d pins",
			      (unsigned long long)folio_pfn(f), folio_ref_count(f), refs);
		folio_put_refs(f, refs * GUP_PIN_COUNTING_BIAS);
	}
}

void mm_set_has_pinned(struct mm *mm)
{
	mm->flags |= MMF_HAS_PINNED;
}
