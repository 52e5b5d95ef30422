/*
 * migrate.h - what the policy side (mempolicy.c, migrate_queue.c,
 * move_pages.c) shares with the migration proper (migrate.c).
 *
 * A migrate call fills a batch of queued folios (at most MIGRATE_CHUNK;
 * the queue walk stops at a page-table boundary when it is nearly full)
 * and hands it to migrate_run_batch(), then goes on queueing. A queued folio
 * is locked (PG_locked) until migrate_run_batch() is done with it, which is
 * how a second PTE of the same folio knows it is already queued.
 */
#ifndef MM_MIGRATE_H
#define MM_MIGRATE_H

#include "mempolicy.h"
#include "mm_internal.h"
#include "swapops.h"

#define MIGRATE_CHUNK 4096

struct migrate_item {
	struct folio *folio;
	unsigned long addr;	  /* where the folio's page 0 is mapped (or would be) */
	struct mm *mm;		  /* an mm mapping it: its anon family maps it, no other */
	struct mempolicy target;  /* where the new folio is allocated */
	int home;		  /* node index the target policy falls back from */
	int status;		  /* node index after migrate_run_batch(), or -errno */
	struct folio *dst;	  /* same-order destination, or NULL */
	struct list_head pieces;  /* order-0 destinations when the folio is split */
	unsigned long nr_entries; /* migration entries made by the unmap */
	bool isolated;		  /* the batch holds a reference on folio */
	struct shmem *shm;	  /* a shared page (PG_shmem): its object, else NULL */
	unsigned long shm_index;  /* ... and its offset there */
};

struct migrate_batch {
	int nr;
	struct migrate_item item[MIGRATE_CHUNK];
};

/* The one batch (migrate_lock: one migration at a time). */
extern struct migrate_batch migrate_batch_buf;

/*
 * migrate_batch_add - queue @folio (found mapped in @mm with page 0 at
 * @addr) to move by @target (from @home), taking the batch's reference
 * on it (isolation: a fault or zap may unmap it while it waits; the batch
 * drops the reference when the folio moves or stays). Return: false when
 * it is already queued, or was freed since it was found. Context: a PTE
 * lock may be held.
 */
bool migrate_batch_add(struct migrate_batch *b, struct folio *folio, struct mm *mm,
		       unsigned long addr, const struct mempolicy *target, int home);

/*
 * folio_shared_with_other_mm - is @folio, found in @mm with page 0 at
 * @addr, mapped by another mm too? A page mapped twice says so at once; a
 * large folio whose pages each have one mapping may still be split
 * between mms (part mapped by a parent, part by its child), so the other
 * mms of the anon family are asked (Linux knows it from the folio's mm
 * ids). MPOL_MF_MOVE leaves such a folio where it is.
 * folio_mapped_in_family - the family walk: does an mm of @mm's anon
 * family other than @mm map a page of @folio?
 */
bool folio_mapped_in_family(struct folio *folio, struct mm *mm, unsigned long addr);

static inline bool folio_shared_with_other_mm(struct folio *folio, struct mm *mm,
					      unsigned long addr)
{
	if (folio_maybe_mapped_shared(folio))
		return true;
	if (!folio_test_large(folio) || (mm_list == mm && !mm->next_mm))
		return false; /* a small folio says it all; or @mm is the only mm */
	return folio_mapped_in_family(folio, mm, addr);
}

/*
 * migrate_run_batch - move every queued folio of @b: allocate its new folio,
 * unmap it everywhere with migration entries, flush, freeze its refcount
 * (a reference besides the entries': map it back, -EBUSY), copy, remap,
 * free the old one. Sets each item's status, unlocks every folio, empties @b.
 * Batching: mm_caps.migrate_unmap (PTEs per unmap/remap run) and
 * mm_caps.migrate_flush (folios per TLB flush). Counts pgmigrate_*.
 * Return: the pages that were not moved.
 * Context: no PTE lock held.
 */
long migrate_run_batch(struct migrate_batch *b);

/* One migration at a time (LOCK_MIGRATE, taken before the mmap_lock):
 * migrate_batch_buf and migrate.c's scratch state are global. */
extern struct spinlock migrate_lock;

/*
 * migrate_lock_mm - what a call that moves folios of @mm holds throughout:
 * migrate_lock, @mm's anon family lock for write (the unmap and remap walk
 * and rewrite every member's tables, so none may change its VMAs or
 * tables, fork or go meanwhile: anon_family.h) and @mm's mmap_lock for
 * read (faults and GUP in any member go on). migrate_unlock_mm() drops
 * them.
 */
void migrate_lock_mm(struct mm *mm);
void migrate_unlock_mm(struct mm *mm);
/* What a queue walk looks for, and where it sends what it finds. */
struct queue_want {
	bool by_vma;	       /* mbind: folios the VMA's policy does not allow, moved by it */
	int map[MAX_NUMNODES]; /* else: a folio on node i moves to node map[i] (-1: stays) */
};

/*
 * queue_pages_range - queue the folios mapped in [start, end) of @mm that
 * @want asks for into migrate_batch_buf, migrating each batch as it
 * fills and the last one at the end. @flags: MPOL_MF_*.
 * Return: pages not moved (failed, or found without MOVE; not the shared
 * ones MOVE leaves), or -EIO when MPOL_MF_STRICT without MOVE met one (the
 * walk stops there).
 * Context: migrate_lock_mm(@mm) held, no PTE lock; the walk takes each
 * table's once.
 */
long queue_pages_range(struct mm *mm, unsigned long start, unsigned long end,
		       const struct queue_want *want, unsigned flags);

/* Tests: called after a group's unmap and flush, before the copy, while
 * the migration entries are in place. NULL: none. */
extern void (*migrate_unmapped_hook)(void);

/* Tests: called at two points of one folio's migration, so that another
 * CPU's step can land there: MIGRATE_CHECKED once migrate_prepare()'s
 * reference check passed, before the unmap; MIGRATE_FROZEN once the
 * refcount is frozen, before the copy. NULL: none. */
enum migrate_window { MIGRATE_CHECKED, MIGRATE_FROZEN };
extern void (*migrate_window_hook)(enum migrate_window where, struct folio *folio);

static inline void migrate_phase(bool queueing)
{
	if (migrate_phase_hook)
		migrate_phase_hook(queueing);
}

#endif
