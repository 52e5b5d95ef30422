/*
 * tlb.c - TLB flushing: flush_tlb_range(), the one place mm/ asks for a
 * flush (counted here: one tlb_flushes per call, tlb_pages by the pages
 * the range covers, whatever the arch then does), and the mmu_gather that
 * lets an unmap flush once for everything it cleared before it gives the
 * pages and page tables back.
 */
#include "kernel.h"
#include "lockless_walk.h"
#include "mm_internal.h"
#include "trace.h"

void flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
	unsigned long first = start & ~(PAGE_SIZE - 1);
	unsigned long last = (end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);

	if (end <= start)
		return;
	TRACE(trace_flush(start, end, (last - first) >> PAGE_SHIFT));
	count_event(tlb_flushes, 1);
	count_event(tlb_pages, (last - first) >> PAGE_SHIFT);
	arch_sched_point(SCHED_TLB);
	arch_flush_tlb_range(mm, start, end);
}

void tlb_gather_init(struct mmu_gather *tlb, struct mm *mm, bool full)
{
	tlb->mm = mm;
	tlb->full = full;
	tlb->nr = 0;
	tlb->start = ~0ul;
	tlb->end = 0;
	list_init(&tlb->tables);
}

/* Widen the range to flush by [addr, end). */
static void tlb_track(struct mmu_gather *tlb, unsigned long addr, unsigned long end)
{
	if (addr < tlb->start)
		tlb->start = addr;
	if (end > tlb->end)
		tlb->end = end;
}

/*
 * Give back the gathered tables: each was counted in mm->nr_pt_pages.
 * The entries that pointed at them were cleared and flushed, so no MMU
 * walks them any more; a lockless walker (gup-fast) on another CPU may
 * still be reading one, so the tables wait for it (lockless_walk_sync(),
 * whose barrier orders the cleared entries before its reads of the
 * walkers' sequences). Only a gather that frees tables pays for it, and
 * only with more than one CPU online.
 */
static void tlb_free_tables(struct mmu_gather *tlb)
{
	if (list_empty(&tlb->tables))
		return;
	lockless_walk_sync();
	while (!list_empty(&tlb->tables)) {
		struct page *pt = list_entry(tlb->tables.next, struct page, lru);

		list_del(&pt->lru);
		spin_lock_init(&pt->ptl, LOCK_PTL, "PTE table lock");
		pt_free(tlb->mm, pt);
	}
}

/*
 * Flush what was cleared so far, then release what was gathered. A full
 * teardown (@tlb->full) only flushes at the end, as Linux's fullmm gather
 * does: the mm is off the MMU by then (mm_put() switches away first), so
 * no CPU can reach a freed page through a stale entry of it before the
 * final flush (which an arch with ASIDs needs before it reuses one).
 */
/* What a release gives back, for trace=on. */
static __attribute__((noinline, cold)) void trace_gather_release(const struct mmu_gather *tlb)
{
	unsigned long refs = 0, tables = 0;
	struct list_head *pos;

	for (int i = 0; i < tlb->nr; i++)
		refs += (unsigned long)tlb->item[i].refs;
	list_for_each(pos, &tlb->tables)
		tables++;
	trace_gather(refs, tables);
}

static void tlb_flush_release(struct mmu_gather *tlb, bool last)
{
	if (tlb->end > tlb->start && (last || !tlb->full)) {
		flush_tlb_range(tlb->mm, tlb->start, tlb->end);
		tlb->start = ~0ul;
		tlb->end = 0;
	}
	TRACE(trace_gather_release(tlb));
	for (int i = 0; i < tlb->nr; i++)
		folio_put_refs(tlb->item[i].folio, tlb->item[i].refs);
	tlb_free_tables(tlb);
	tlb->nr = 0;
}

void tlb_gather_folio(struct mmu_gather *tlb, struct folio *f, int refs, unsigned long addr,
		      unsigned long end)
{
	if (tlb->nr == GATHER_MAX)
		tlb_flush_release(tlb, false);
	tlb->item[tlb->nr].folio = f;
	tlb->item[tlb->nr].refs = refs;
	tlb->nr++;
	tlb_track(tlb, addr, end);
}

/* The table's lock word becomes the list link, so it must not be held. */
void tlb_gather_table(struct mmu_gather *tlb, struct page *pt, unsigned long addr,
		      unsigned long end)
{
	if (!(pt->flags & PG_pgtable) || spin_is_locked(&pt->ptl))
		panic("tlb_gather_table: table pfn %#llx under %#lx is %s",
		      (unsigned long long)page_to_pfn(pt), addr,
		      pt->flags & PG_pgtable ? "locked" : "not a page-table page");
	list_add(&pt->lru, &tlb->tables);
	tlb_track(tlb, addr, end);
}

void tlb_gather_range(struct mmu_gather *tlb, unsigned long addr, unsigned long end)
{
	tlb_track(tlb, addr, end);
}

void tlb_finish(struct mmu_gather *tlb)
{
	tlb_flush_release(tlb, true);
}
