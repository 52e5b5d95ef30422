/*
 * migrate_queue.c - finding the folios a migrate call moves: Linux's
 * queue_pages_range() / queue_folios_pte_range(), batched as in
 * "mempolicy: optimize queue_folios_pte_range by PTE batching".
 *
 * One walk_page_range() per VMA part: one descent, one PTE-lock take per
 * page table, a PMD leaf as one step. Per present PTE the checks are the
 * folio's (is it where the call wants it, may it move, is it queued
 * already), so after them only the folio matters: with mm_caps.migrate > 1 a
 * run of PTEs mapping the same large folio, found by folio_pte_batch()
 * (dirty ignored), is skipped in one step, and a failure counts the run's
 * PTEs at once. mm_caps.migrate = 1 is the code before the seed: one PTE a
 * step, and the "already queued?" test (the last large folio seen) per PTE.
 * Failures count PTEs in both (Linux's unbatched loop counted a failed
 * large folio once, at its first PTE), so both return the same number.
 *
 * One batch serves the whole call. It holds MIGRATE_CHUNK folios; the walk
 * stops at a PMD boundary when the next region might not fit, migrates
 * the batch and resumes there (one more descent), so every table is still
 * read whole under one lock take and no folio is seen by two batches.
 */
#include <errno.h>

#include "folio_walk.h"
#include "kernel.h"
#include "migrate.h"
#include "pte_batch.h"

#define QUEUE_FULL 2 /* walk stopped: the batch is full (resume at q->resume) */
#define QUEUE_STOP 3 /* walk stopped: STRICT without MOVE met a misplaced folio */

struct queue_ctx {
	const struct queue_want *want;
	struct vma *vma;
	unsigned flags;
	struct folio *large; /* the last large folio looked at ... */
	bool large_failed;   /* ... and whether it counted as failed */
	long nr_failed;	     /* pages (PTEs) not queued */
	unsigned long resume;
};

struct migrate_batch migrate_batch_buf;
struct spinlock migrate_lock = SPINLOCK_INIT(LOCK_MIGRATE, "migrate_lock");

void migrate_lock_mm(struct mm *mm)
{
	spin_lock(&migrate_lock);
	write_lock(&mm->family->lock);
	read_lock(&mm->mmap_lock);
}

void migrate_unlock_mm(struct mm *mm)
{
	read_unlock(&mm->mmap_lock);
	write_unlock(&mm->family->lock);
	spin_unlock(&migrate_lock);
}

/* Does the call want @folio moved (by the VMA policy, or its node map)? */
static bool queue_required(struct queue_ctx *q, struct folio *folio)
{
	int nid = folio->page.node;

	if (q->want->by_vma)
		return !mpol_allows(&q->vma->pol, q->vma->nid, nid);
	return q->want->map[nid] >= 0;
}

/* Strict without move: the first misplaced folio ends the call. */
static bool strictly_unmovable(unsigned flags)
{
	return (flags & (MPOL_MF_STRICT | MPOL_MF_MOVE | MPOL_MF_MOVE_ALL)) == MPOL_MF_STRICT;
}

/*
 * queue_folio - @folio, its page @idx mapped at @addr, is misplaced: queue
 * it if the call moves it. Return: false when it must count as failed
 * (no MOVE flag). A folio shared with another mm under MPOL_MF_MOVE
 * (without MOVE_ALL) stays where it is and is no failure either: the
 * call chose not to move it (Linux's migrate_folio_add(), 6.1 and 6.12).
 * A folio this call queued already is no failure.
 */
static bool queue_folio(struct queue_ctx *q, struct folio *folio, unsigned long idx,
			unsigned long addr)
{
	struct mempolicy target = q->vma->pol;
	int home = q->vma->nid;

	if (!(q->flags & (MPOL_MF_MOVE | MPOL_MF_MOVE_ALL)))
		return false;
	if (!(q->flags & MPOL_MF_MOVE_ALL) &&
	    folio_shared_with_other_mm(folio, q->vma->mm, addr - idx * PAGE_SIZE))
		return true;
	if (!q->want->by_vma) {
		home = q->want->map[folio->page.node];
		target = (struct mempolicy){ MPOL_BIND, 1ul << home };
	}
	migrate_batch_add(&migrate_batch_buf, folio, q->vma->mm, addr - idx * PAGE_SIZE, &target,
			  home);
	return true;
}

/* One mapped folio met at @addr (page @idx of it), @nr PTEs of it from
 * there (a PMD leaf: 512). Return: 0 or QUEUE_STOP. */
static int queue_one(struct queue_ctx *q, struct folio *folio, unsigned long idx,
		     unsigned long addr, unsigned long nr)
{
	if (!queue_required(q, folio))
		return 0;
	if (folio_test_large(folio)) {
		if (folio == q->large) {
			q->nr_failed += q->large_failed ? (long)nr : 0;
			return 0;
		}
		q->large = folio;
		q->large_failed = false;
	}
	if (queue_folio(q, folio, idx, addr))
		return 0;
	q->large_failed = true;
	q->nr_failed += (long)nr;
	return strictly_unmovable(q->flags) ? QUEUE_STOP : 0;
}

/* May the batch take a whole PMD region more (at most 512 folios)? */
static bool queue_has_room(void)
{
	return migrate_batch_buf.nr <= MIGRATE_CHUNK - PTRS_PER_TABLE;
}

/*
 * After a table or PMD leaf that ends at @end: stop the walk there when
 * the batch might not take the next PMD region. Only at a PMD boundary,
 * which no folio spans, so a folio is never migrated with part of its
 * PTEs still to be seen (a VMA that ends inside a region is handled in
 * queue_pages_range()). Checked after a table, not before, so the walk
 * never takes a lock it does not use.
 */
static int queue_check_full(struct queue_ctx *q, unsigned long end)
{
	if (queue_has_room() || (end & ~PMD_MASK))
		return 0;
	q->resume = end;
	return QUEUE_FULL;
}

/* The walker's pte_range: queue_folios_pte_range(). Context: the
 * table's lock is held. */
static int queue_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			   unsigned long end, void *priv)
{
	struct queue_ctx *q = priv;
	unsigned nr;
	int ret = 0;

	(void)mm, (void)pmdp;
	for (; addr < end && !ret; ptep += nr, addr += nr * PAGE_SIZE) {
		pte_t pte = ptep_get(ptep);
		struct folio *folio;
		uint64_t pfn;

		nr = 1;
		if (pte_none(pte))
			continue;
		if (!pte_present(pte)) {
			q->nr_failed += is_migration_entry(pte);
			continue;
		}
		pfn = pte_pfn(pte);
		folio = page_folio(pfn_to_page(pfn));
		if (folio_test_large(folio) && mm_caps.migrate > 1)
			nr = folio_pte_batch(folio, addr, ptep, pte,
					     cap_nr(mm_caps.migrate, (end - addr) >> PAGE_SHIFT),
					     FPB_IGNORE_DIRTY, NULL);
		ret = queue_one(q, folio, pfn - folio_pfn(folio), addr, nr);
	}
	return ret ?: queue_check_full(q, end);
}

/* The walker's pmd_leaf: the whole folio in one step (queue_folios_pmd).
 * The walker's read of the pmd took no lock: a COW fault may have split
 * the leaf since (the fault holds the mmap_lock for read, as this walk
 * does), so the pmd is read again under the page_table_lock and the
 * folio queued there; a pmd that is no leaf any more is passed over. */
static int queue_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end, void *priv)
{
	struct queue_ctx *q = priv;
	pmd_t pmd;
	int ret = 0;

	spin_lock(&mm->page_table_lock);
	pmd = pmdp_get(pmdp);
	if (pmd_state(pmd) == PMD_LEAF)
		ret = queue_one(q, page_folio(pfn_to_page(pmd_pfn(pmd))),
				(addr & ~PMD_MASK) >> PAGE_SHIFT, addr, (end - addr) >> PAGE_SHIFT);
	spin_unlock(&mm->page_table_lock);
	return ret ?: queue_check_full(q, end);
}

static const struct pt_walk_ops queue_ops = { .pmd_leaf = queue_pmd, .pte_range = queue_pte_range };

/* Migrate what is queued and start a new batch. Return: pages not moved. */
static long queue_flush(struct queue_ctx *q)
{
	long failed;

	migrate_phase(false);
	failed = migrate_run_batch(&migrate_batch_buf);
	migrate_phase(true);
	q->large = NULL;
	return failed;
}

/*
 * One batch for the whole call, whatever VMAs the range has: a folio that
 * several VMAs map is queued at its first and found queued (PG_locked) at
 * the others, so it is handled once. The batch is migrated when full,
 * only where the walk enters a new PMD region (no folio spans two).
 */
long queue_pages_range(struct mm *mm, unsigned long start, unsigned long end,
		       const struct queue_want *want, unsigned flags)
{
	struct queue_ctx q = { .want = want, .flags = flags };
	unsigned long last = start; /* where the last walk ended */
	long failed = 0;
	int ret = 0;

	migrate_phase(true);
	for (struct vma *v = find_vma_from(mm, start); v && v->start < end && ret != QUEUE_STOP;) {
		unsigned long s = v->start > last ? v->start : last;
		unsigned long e = v->end < end ? v->end : end;

		if (!queue_has_room() && (s & PMD_MASK) != ((last - 1) & PMD_MASK))
			failed += queue_flush(&q);
		q.vma = v;
		ret = walk_page_range(mm, s, e, &queue_ops, &q);
		last = ret == QUEUE_FULL ? q.resume : e;
		if (ret == QUEUE_FULL)
			failed += queue_flush(&q);
		if (last == e)
			v = v->next;
	}
	migrate_phase(false);
	if (ret == QUEUE_STOP)
		return -EIO; /* STRICT without MOVE queued nothing */
	return failed + migrate_run_batch(&migrate_batch_buf) + q.nr_failed;
}
