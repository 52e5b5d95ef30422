/*
 * madvise.c - mm_madvise() and mm_reclaim_lazyfree() (see madvise.h).
 *
 * MADV_DONTNEED is the zap path (mm/zap.c) on a range of each VMA, with
 * the VMAs and the page tables left in place, as Linux's
 * zap_page_range_single(); a PMD leaf the range covers only partly is
 * split first (prepare_range()), as Linux's zap_pmd_range() does.
 *
 * MADV_FREE is batched as Linux's madvise_free_pte_range() since 6.10
 * (Lance Yang's clear_young_dirty_ptes()): folio_pte_batch() finds the
 * run of entries that maps a large folio (young and dirty ignored); when
 * the run is the whole folio, its young and dirty bits are cleared with
 * clear_young_dirty_ptes() in pieces of at most mm_caps.madvise entries and
 * the folio is marked lazyfree once, without splitting it. The run is
 * found to its natural bound whatever the cap, because "the range covers
 * this folio whole" must not depend on it (cap 1 and max end in the same
 * state); cap 1 clears entry by entry, as the per-PTE code did. A folio
 * only partly in the range is left as it is: Linux splits it and frees
 * the pages inside the range, ptelab has no folio split (Linux leaves it
 * too when the split fails). A whole PMD leaf is cleared as one entry
 * (Linux 6.12's madvise_free_huge_pmd(); a partly covered one Linux
 * splits, here it is left). A folio that is PG_dirty and mapped by
 * another mm as well is left, as Linux leaves it; a shared clean one is
 * marked, and its other mappings' dirty bits keep it (in Linux, the
 * rmap walk of reclaim; here mm_reclaim_lazyfree() keeps every folio
 * that another mm maps). Every cleared entry is flushed before the
 * mmap_lock is dropped, once per VMA: a CPU that still caches a dirty
 * entry writes without setting the bit again, and reclaim would discard
 * what it wrote.
 *
 * Context: DONTNEED and FREE hold the mmap_lock for write (Linux takes
 * it for read): the walker's PMD-leaf step runs without the
 * page_table_lock, which the write lock makes safe here, as for munmap
 * and mprotect.
 */
#include <errno.h>

#include "kernel.h"
#include "folio_walk.h"
#include "madvise.h"
#include "mm_internal.h"
#include "swapops.h"
#include "pte_batch.h"
#include "trace.h"

/* What one MADV_FREE walk of a VMA part cleared and has to flush. */
struct free_walk {
	unsigned long start, end;
};

static void free_track(struct free_walk *w, unsigned long addr, unsigned long end)
{
	if (addr < w->start)
		w->start = addr;
	if (end > w->end)
		w->end = end;
}

/* Linux's folio_mark_lazyfree(): reclaim may drop @folio while clean. */
static void folio_mark_lazyfree(struct folio *folio)
{
	if (!(page_flags(&folio->page) & PG_lazyfree))
		page_set_flags(&folio->page, PG_lazyfree);
}

/*
 * free_clear_ptes - clear young and dirty in the @nr entries from @ptep
 * (for @addr, one folio), at most mm_caps.madvise of them per call. The
 * flush covers the whole run if anything changed: an arch with blocks
 * widens a call to its blocks, which lie inside the folio.
 */
static void free_clear_ptes(struct free_walk *w, struct mm *mm, unsigned long addr, pte_t *ptep,
			    unsigned nr)
{
	bool changed = false;
	unsigned n;

	for (unsigned done = 0; done < nr; done += n) {
		n = cap_nr(mm_caps.madvise, nr - done);
		count_event(madv_free_runs, 1);
		count_event(madv_free_ptes, n);
		changed |=
			clear_young_dirty_ptes(mm, addr + (unsigned long)done * PAGE_SIZE,
					       ptep + done, n, CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
	}
	if (changed)
		free_track(w, addr, addr + (unsigned long)nr * PAGE_SIZE);
}

/* Linux's test before it clears PG_dirty: a dirty folio that other
 * mappings share is not freed lazily. */
static bool folio_free_dirty_ok(struct folio *folio, int exclusive_mapcount)
{
	if (!(page_flags(&folio->page) & PG_dirty))
		return true;
	if (folio_mapcount(folio) != exclusive_mapcount)
		return false;
	page_clear_flags(&folio->page, PG_dirty);
	return true;
}

/*
 * madvise_free_ptes - MADV_FREE of the run of present entries from @ptep
 * (value @pte), at most @left entries.
 * Return: the entries handled (at least 1).
 * Context: the PTE table lock is held.
 */
static unsigned madvise_free_ptes(struct free_walk *w, struct mm *mm, unsigned long addr,
				  pte_t *ptep, pte_t pte, unsigned long left)
{
	struct folio *folio = page_folio(pfn_to_page(pte_pfn(pte)));
	unsigned nr = 1;

	if (folio_test_large(folio)) {
		nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(CAP_MAX, left),
				     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, NULL);
		if (nr < folio_nr_pages(folio)) {
			count_event(madv_free_skipped, 1);
			return nr;
		}
	}
	if (!folio_free_dirty_ok(folio, (int)nr)) {
		count_event(madv_free_skipped, 1);
		return nr;
	}
	arch_sched_point(SCHED_WINDOW); /* PG_dirty cleared, the entries not yet */
	free_clear_ptes(w, mm, addr, ptep, nr);
	folio_mark_lazyfree(folio);
	return nr;
}

/* MADV_FREE of a run of swap entries: dropped, as Linux's
 * madvise_free_pte_range() frees them (a migration entry cannot be here:
 * the mmap_lock for write keeps migrations out). Out of line. */
static __attribute__((noinline, cold)) unsigned
free_swap_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte, unsigned long left)
{
	return is_swap_entry(pte) ? zap_swap_ptes(mm, addr, ptep, pte, left) : 1;
}

/* The walker's pte_range. Context: the table's lock is held. */
static int madvise_free_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
				  unsigned long end, void *priv)
{
	(void)pmdp;
	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = madvise_free_ptes(priv, mm, addr, ptep, pte,
					       (end - addr) >> PAGE_SHIFT);
		else if (!pte_none(pte))
			nr = free_swap_ptes(mm, addr, ptep, pte, (end - addr) >> PAGE_SHIFT);
		ptep += nr;
		addr += nr * PAGE_SIZE;
	}
	return 0;
}

/*
 * The walker's pmd_leaf: a leaf the range covers whole and no other
 * mapping shares is one entry to clear; any other is left (see the top).
 * Context: mmap_lock held for write (no lock on the entry).
 */
static int madvise_free_huge_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
				 void *priv)
{
	pmd_t pmd = pmdp_get(pmdp);
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmd)));

	(void)mm;
	if (end - addr != PMD_SIZE || folio_mapcount(folio) != 1) {
		count_event(madv_free_skipped, 1);
		return 0;
	}
	folio_free_dirty_ok(folio, 1);
	count_event(madv_free_runs, 1);
	count_event(madv_free_ptes, 1);
	if (pmd_young(pmd) || pmd_dirty(pmd)) {
		/* one exchange: a bit the MMU sets meanwhile is in the value */
		pmd = pmdp_get_and_clear(pmdp);
		set_pmd(pmdp, pmd_mkold(pmd_mkclean(pmd)));
		free_track(priv, addr, end);
	}
	folio_mark_lazyfree(folio);
	return 0;
}

static const struct pt_walk_ops free_ops = { .pmd_leaf = madvise_free_huge_pmd,
					     .pte_range = madvise_free_pte_range };

/* MADV_FREE of [s, e) in @v, flushed once. */
static void madvise_free_vma(struct vma *v, unsigned long s, unsigned long e)
{
	struct free_walk w = { ~0ul, 0 };

	walk_page_range(v->mm, s, e, &free_ops, &w);
	if (w.end > w.start)
		flush_tlb_range(v->mm, w.start, w.end);
}

/* MADV_DONTNEED of [s, e) in @v: the zap path, one gather. */
static int madvise_dontneed_vma(struct vma *v, unsigned long s, unsigned long e)
{
	struct mmu_gather tlb;
	int err = prepare_range(v->mm, s, e);

	if (err)
		return err;
	tlb_gather_init(&tlb, v->mm, false);
	zap_vma_range(&tlb, v, s, e);
	tlb_finish(&tlb);
	return 0;
}

static int madvise_vma(struct vma *v, unsigned long s, unsigned long e, int advice)
{
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
		return madvise_dontneed_vma(v, s, e);
	case MADV_FREE: /* private anon only, as Linux */
		if (v->flags & VM_SHARED)
			return -EINVAL;
		madvise_free_vma(v, s, e);
		return 0;
	case MADV_PAGEOUT: /* shared pages are not swapped (mm/shmem.h) */
		if (!(v->flags & VM_SHARED))
			madvise_pageout_vma(v, s, e);
		return 0;
	default: /* MADV_COLD */
		madvise_cold_vma(v, s, e);
		return 0;
	}
}

/*
 * Apply @advice to the mapped parts of [start, end), VMA by VMA, as
 * Linux's madvise_walk_vmas(). Return: 0, the first error, or -ENOMEM
 * when some of the range is unmapped (after the mapped parts are done).
 * Context: mmap_lock held for write.
 */
static int madvise_walk_vmas(struct mm *mm, unsigned long start, unsigned long end, int advice)
{
	unsigned long addr = start;
	bool hole = false;
	int err = 0;

	for (struct vma *v = find_vma_from(mm, start); v && v->start < end && !err; v = v->next) {
		unsigned long s = v->start > start ? v->start : start;
		unsigned long e = v->end < end ? v->end : end;

		hole |= s > addr;
		err = madvise_vma(v, s, e, advice);
		addr = e;
	}
	if (err)
		return err;
	return hole || addr < end ? -ENOMEM : 0;
}

/* Does @pte give the access a populate asks for? (A NUMA hinting entry
 * does not: the fault opens it.) */
static bool pte_populated(pte_t pte, bool write)
{
	return pte_present(pte) && pte_user(pte) && (!write || pte_write(pte));
}

/*
 * populate_pmd - fault in what [addr, end) (inside one PMD and one VMA
 * that allows the access) lacks. The entries are read without the PTE
 * lock: a stale answer only costs a fault that finds nothing to do.
 * Return: 0 or the fault's errno.
 * Context: mmap_lock held for read (tables are not freed under it).
 */
static int populate_pmd(struct mm *mm, unsigned long addr, unsigned long end, bool write)
{
	while (addr < end) {
		struct pmd_walk pw;
		int err;

		if (pmd_walk(mm, addr, &pw) == PMD_LEAF && pmd_user(pw.pmd) &&
		    (!write || pmd_write(pw.pmd)))
			return 0;
		if (pw.state == PMD_TABLE) {
			pte_t *ptep = pmd_table(pw.pmd) + pte_index(addr);

			while (addr < end && pte_populated(__ptep_get(ptep), write))
				addr += PAGE_SIZE, ptep++;
			if (addr == end)
				return 0;
		}
		err = __handle_mm_fault(mm, addr, write ? FAULT_WRITE : 0);
		if (err)
			return err;
	}
	return 0;
}

/*
 * MADV_POPULATE_READ/WRITE, as Linux's madvise_populate(): -ENOMEM at
 * the first hole (what comes before it is populated), -EINVAL for a VMA
 * that does not allow the access (PROT_NONE allows none).
 */
static int madvise_populate(struct mm *mm, unsigned long start, unsigned long end, bool write)
{
	int err = 0;

	read_lock(&mm->mmap_lock);
	while (start < end && !err) {
		struct vma *v = find_vma(mm, start);
		unsigned long e, next;

		if (!v)
			err = -ENOMEM;
		else if (write ? !(v->flags & VM_WRITE) : !(v->flags & VM_READ))
			err = -EINVAL;
		if (err)
			break;
		e = v->end < end ? v->end : end;
		for (; start < e && !err; start = next) {
			next = (start & PMD_MASK) + PMD_SIZE;
			next = next < e ? next : e;
			err = populate_pmd(mm, start, next, write);
		}
	}
	read_unlock(&mm->mmap_lock);
	return err;
}

static bool madvise_behavior_valid(int advice)
{
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
	case MADV_FREE:
	case MADV_COLD:
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
	case MADV_DONTFORK:
	case MADV_DOFORK:
	case MADV_PAGEOUT:
		return true;
	default:
		return false;
	}
}

/* The VMA-flag advice: mm_madvise_flags() (which changes nothing when
 * the range has a hole, where Linux changes the mapped parts). */
static int madvise_flags(struct mm *mm, unsigned long start, unsigned long len, int advice)
{
	switch (advice) {
	case MADV_HUGEPAGE:
		return mm_madvise_flags(mm, start, len, VM_HUGEPAGE, VM_NOHUGEPMD);
	case MADV_NOHUGEPAGE:
		return mm_madvise_flags(mm, start, len, VM_NOHUGEPMD, VM_HUGEPAGE);
	case MADV_DONTFORK:
		return mm_madvise_flags(mm, start, len, VM_DONTCOPY, 0);
	default: /* MADV_DOFORK */
		return mm_madvise_flags(mm, start, len, 0, VM_DONTCOPY);
	}
}

static int madvise_call(struct mm *mm, unsigned long start, unsigned long len, int advice)
{
	unsigned long end, rounded = (len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	int err;

	if (!madvise_behavior_valid(advice) || (start & (PAGE_SIZE - 1)) || (len && !rounded))
		return -EINVAL;
	end = start + rounded;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	switch (advice) {
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
		return madvise_populate(mm, start, end, advice == MADV_POPULATE_WRITE);
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
	case MADV_DONTFORK:
	case MADV_DOFORK:
		return madvise_flags(mm, start, rounded, advice);
	}
	mmap_write_lock(mm);
	err = madvise_walk_vmas(mm, start, end, advice);
	mmap_write_unlock(mm);
	return err;
}

int mm_madvise(struct mm *mm, unsigned long start, unsigned long len, int advice)
{
	int ret;

	if (!mm_tracing())
		return madvise_call(mm, start, len, advice);
	trace_op_begin("madvise", mm, start, start + len, mm_caps.madvise);
	ret = madvise_call(mm, start, len, advice);
	trace_op_end("madvise");
	return ret;
}
