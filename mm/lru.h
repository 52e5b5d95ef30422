/*
 * lru.h - the two-list LRU of anonymous folios, one per node (Linux's
 * lruvec with its anon lists): inactive and active, each newest at the
 * head and oldest at the tail. Reclaim (vmscan.c) takes folios from the
 * inactive tail; a folio found referenced goes to the active head; when
 * the inactive list is shorter than the active one, the active tail moves
 * to the inactive head (deactivation). MADV_COLD moves a folio to the
 * inactive tail, to be reclaimed first.
 *
 * A folio enters the inactive list when it is first mapped (fault, COW
 * copy, swap-in, fork's copy, migration's destination): a folio is young
 * when it is mapped, so the first scan that reaches it finds it
 * referenced and activates it. Only a folio used once (a stream written
 * and not read again) is reclaimed on that first pass after its bit was
 * cleared, which is the working-set protection Linux gets from putting
 * new anon folios on the inactive list.
 *
 * Membership: a folio on a list has PG_lru (and PG_active on the active
 * one) in its head's flags, and a link in a table beside the memmap (one
 * per page frame, reserved at boot with the memmap: the folio's own lru
 * field belongs to whoever holds the folio before it is mapped, fork's
 * copy list and migration's pieces). The link also records where the
 * folio was mapped when it entered: the anon family of the mm (the mms a
 * fork makes share it) and the address of its first page, which is the
 * reverse map reclaim uses (ptelab keeps no anon_vma). The record is a
 * hint: reclaim checks under the PTE lock of each mm it looks in that
 * the entry there still maps the folio's first page.
 *
 * Locking. Each node's lists, counts and every link, PG_lru and PG_active
 * of its folios change only under that node's lru lock (class LOCK_LEAF:
 * taken under a PTE lock, nothing taken under it). A folio stays on its
 * list while it is mapped and referenced; its last reference is dropped
 * by folio_free() (zap, migration's free of the old folio, reclaim),
 * which takes it off under the lock (folio_lru_del()). Isolation takes
 * a folio off the list only with a reference taken by folio_try_grab()
 * under the lock, which fails at a count of 0: a folio whose last put has
 * happened but whose folio_free() has not yet taken the lock is left to
 * it. So a folio is freed either on the list (folio_free() takes it off)
 * or isolated (its isolator's put frees it, with PG_lru clear), never
 * both: test lru/isolate_skips_a_folio_being_freed_smp.
 */
#ifndef MM_LRU_H
#define MM_LRU_H

#include <stdbool.h>

#include "page.h"

struct mm;
struct spinlock;

enum lru_list { LRU_INACTIVE, LRU_ACTIVE, NR_LRU_LISTS };

/* lru_links_alloc - reserve node @idx's link table beside its memmap.
 * Context: boot, from page_alloc_init(), before memblock closes. */
void lru_links_alloc(int idx);

/*
 * lru_kept - are new folios put on the lists? Only while reclaim can run:
 * a watermark is set or a swap pool is reserved (lru_update_kept(), which
 * reclaim_set_low() and the swap pool call when either changes). A kernel that never
 * reclaims pays one test per new folio and one per freed folio, not a
 * lock each (zap 4K: 143 instructions a folio more with the lists always
 * kept). A folio mapped while the lists were not kept is on none:
 * reclaim does not see it, as Linux's unevictable folios.
 */
extern bool lru_kept;
void lru_update_kept(void);

void __folio_add_lru(struct folio *f, struct mm *mm, unsigned long addr);
void __folio_lru_del(struct folio *f);

/*
 * folio_add_lru - put the new anon folio @f, mapped in @mm with its first
 * page at @addr, on its node's inactive head (while lru_kept).
 * Context: the caller holds a reference (the mapping's); any lock but an
 * lru lock.
 */
static inline void folio_add_lru(struct folio *f, struct mm *mm, unsigned long addr)
{
	if (__atomic_load_n(&lru_kept, __ATOMIC_RELAXED))
		__folio_add_lru(f, mm, addr);
}

/* Tests: called by folio_free() with the folio on a list and its count
 * 0, before it takes the lru lock (another CPU's isolation lands here). */
extern void (*lru_free_window_hook)(struct folio *f);

/* Tests only (NULL otherwise): called by a move between lists (the
 * aging of lru_balance(), which holds no reference) with the folio off
 * both lists and the lru lock @lock held, so that a test can land the
 * folio's last put there. */
extern void (*lru_move_window_hook)(struct folio *f, struct spinlock *lock);

/*
 * folio_lru_del - take @f off its list if it is on one. The unlocked
 * test of PG_lru is exact: it is set only by a holder of a reference,
 * and there is none left; it is cleared only by isolation (which holds
 * a reference) and here, never for a moment by a move between lists
 * (lru_move(): lru_balance() holds no reference).
 * Context: from folio_free(): the refcount is 0.
 */
static inline void folio_lru_del(struct folio *f)
{
	if (page_flags(&f->page) & PG_lru)
		__folio_lru_del(f);
}

/*
 * folio_lru_migrate - migration's destination takes @old's place: @dst
 * (or, when @dst is NULL, each order-0 piece of @pieces, one per page of
 * @old) goes on the list @old is on with @old's record, before it is
 * mapped. Nothing when @old is on no list.
 * Context: @old frozen; the destination held by its allocation reference.
 */
void __folio_lru_migrate(struct folio *old, struct folio *dst, struct folio **pieces);
static inline void folio_lru_migrate(struct folio *old, struct folio *dst, struct folio **pieces)
{
	/* Unlocked: @old is frozen, so no isolation takes it off and no
	 * one puts it on meanwhile. */
	if (page_flags(&old->page) & PG_lru)
		__folio_lru_migrate(old, dst, pieces);
}

/*
 * folio_lru_moved - mremap moved @mm's mapping of @f's first page from
 * @from to @to: a record naming @from in @mm's family follows it, so
 * reclaim finds the folio where it is now (Linux's rmap needs no such
 * step: an anon VMA keeps its page offset when it moves).
 * Context: @mm's mmap_lock held for write, which keeps out every
 * isolation from @mm's family (reclaim holds @mm's mmap_lock for read,
 * or the family lock for write) and every change of the entry.
 */
void __folio_lru_moved(struct folio *f, struct mm *mm, unsigned long from, unsigned long to);
static inline void folio_lru_moved(struct folio *f, struct mm *mm, unsigned long from,
				   unsigned long to)
{
	if (__atomic_load_n(&lru_kept, __ATOMIC_RELAXED))
		__folio_lru_moved(f, mm, from, to);
}

/* folio_deactivate - @f (on a list) to the inactive tail (MADV_COLD).
 * Context: a reference or the PTE lock of a mapping keeps @f alive. */
void folio_deactivate(struct folio *f);

/* The folio isolated from a list, and its record. */
struct lru_isolated {
	struct folio *folio;
	unsigned long addr;
	unsigned long nr; /* pages */
};

/*
 * lru_isolate - take up to @max folios recorded in @mm's anon family off
 * node @nid's inactive tail, each with a reference (pgscan counts their
 * pages), and no more once they hold @pages pages; the others stay where
 * they are. The record names the family of the mm that mapped the folio
 * when it entered, not that mm: a fork child maps its parent's folios
 * and may outlive it, and the family lives while any member does. A
 * record of a family that is gone is compared, never followed.
 * Return: the number taken into @out.
 */
unsigned lru_isolate(int nid, struct mm *mm, struct lru_isolated *out, unsigned max,
		     unsigned long pages);

/* lru_putback - an isolated folio back on the head of list @l, and the
 * isolation's reference dropped (which may free it). */
void lru_putback(struct lru_isolated *iso, enum lru_list l);

/* lru_release - an isolated folio that reclaim unmapped: the isolation's
 * reference dropped (the last: it frees the folio). */
void lru_release(struct lru_isolated *iso);

/* Is @f isolated by reclaim (the invariant checker's question)? */
bool lru_isolated(struct folio *f);

/* lru_balance - move the active tail to the inactive head until the
 * inactive list holds at least half of node @nid's pages (pgdeactivate). */
void lru_balance(int nid);

/* Pages on node @nid's list @l. */
unsigned long lru_pages(int nid, enum lru_list l);

/*
 * lru_check - walk every node's lists: each entry a live anon folio head
 * with PG_lru, PG_active matching its list, the counts matching the
 * lists, and (with @all_mapped) every folio mapped. Return: 0, or the
 * number of problems (each printed).
 */
int lru_check(bool all_mapped);

/* The folios on node @nid's list @l, head (newest) first, into @out (at
 * most @max). Return: how many (tests). */
unsigned lru_snapshot(int nid, enum lru_list l, struct folio **out, unsigned max);

#endif
