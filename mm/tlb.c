/*
 * tlb.c - the one place mm/ asks for a TLB flush: counted here (one
 * tlb_flushes per call, tlb_pages by the pages the range covers, whatever
 * the arch then does), carried out by arch_flush_tlb_range().
 */
#include "kernel.h"
#include "pgtable.h"

void flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
	unsigned long first = start & ~(PAGE_SIZE - 1);
	unsigned long last = (end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);

	if (end <= start)
		return;
	count_event(tlb_flushes, 1);
	count_event(tlb_pages, (last - first) >> PAGE_SHIFT);
	arch_flush_tlb_range(mm, start, end);
}
