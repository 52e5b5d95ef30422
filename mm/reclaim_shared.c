/*
 * reclaim_shared.c - reclaim of an anon folio that several mms of one
 * anon family map (a fork's parent and children): Linux's rmap walk of
 * try_to_unmap() over the anon_vma, done here over the family's members
 * (ptelab's reverse map is the family, as migration's is).
 *
 * Steps (the contract is reclaim_shared() in vmscan.h), after a PMD-mapped
 * folio's leaves are split (split_leaves()):
 *  1. Look: in each member, under its PTE lock, the folio's address holds
 *     either nothing of it or one whole run of its pages from the first;
 *     the young bits of each run are tested and cleared (one flush per
 *     young run, as folio_referenced() walks every mapping). The runs
 *     must add up to the folio's mapcount (a member that mremap moved it
 *     in maps it elsewhere) and the references to the mappings' and the
 *     isolation's; a young folio is activated.
 *  2. Unmap: each member's run, under its PTE lock and looked at again,
 *     is cleared (one clear per mm_caps.pageout entries) and flushed once
 *     per mm, and becomes migration entries: a fault there waits
 *     (migration_entry_wait()) instead of finding none and mapping a zero
 *     page. The references stay with the entries.
 *  3. Decide, after a full barrier: references other than the entries'
 *     and the isolation's (a gup-fast grab before a clear) put every run
 *     back as it was. Else the data goes to swap once, each slot counted
 *     once per mm, and each member's migration entries become swap
 *     entries (not AnonExclusive: the page was shared); a clean lazyfree
 *     folio is discarded instead (its entries become none).
 *
 * Locking: the caller holds the family lock for write (by trylock: its
 * mmap_lock is held, which ranks after it), so no member changes its
 * VMAs or frees a table (their mmap_lock writers and teardown read the
 * family lock), forks or migrates; a member's faults and GUP run beside
 * (they hold only their mmap_lock for read) and meet the PTE locks or the
 * migration entries. No PTE lock is held from one member to the next.
 */
#include "kernel.h"
#include "folio_walk.h"
#include "mm_internal.h"
#include "page_internal.h"
#include "pte_batch.h"
#include "swap.h"
#include "swapops.h"
#include "vmscan.h"

void (*reclaim_shared_window_hook)(enum shared_window where, struct folio *folio);

/* The mms that map the folio, at most this many (a larger family keeps
 * the folio: counted in reclaim_shared_busy). */
#define SHARED_MAX 16

struct shared_ctx {
	struct lru_isolated *iso;
	unsigned nr; /* the folio's pages: each member's run */
	unsigned maps;
	struct mm *mm[SHARED_MAX];
	pte_t first[SHARED_MAX]; /* each run's first entry, dirty and young of all */
	bool young, dirty;
};

/* @m's PTE table for @addr, locked (NULL: no table there). */
static pte_t *lock_table(struct mm *m, unsigned long addr, struct spinlock **ptl)
{
	struct pmd_walk pw;

	if (pmd_walk(m, addr, &pw) != PMD_TABLE)
		return NULL;
	return pte_offset_map_lock(m, pw.pmdp, addr, ptl);
}

/* The @nr entries from @ptep: 0 when none maps a page of @folio, 1 when
 * they are one whole run of it from its first page, -1 otherwise (a part
 * mapped, COW-broken, hinting-protected, or another order). */
static int run_state(struct folio *folio, unsigned long addr, pte_t *ptep, unsigned nr)
{
	unsigned long first = folio_pfn(folio);
	pte_t pte = ptep_get(ptep);
	unsigned found = 0;

	if (pte_present(pte) && pte_pfn(pte) == first && pte_user(pte) &&
	    folio_pte_batch(folio, addr, ptep, pte, nr,
			    FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG | FPB_IGNORE_BLOCK, NULL) == nr)
		return 1;
	for (unsigned i = 0; i < nr; i++) {
		pte_t e = ptep_get(ptep + i);

		found += pte_present(e) && pte_pfn(e) - first < nr;
	}
	return found ? -1 : 0;
}

/* Step 1 in member @m: its run noted, its young bits cleared. False when
 * the folio cannot go (a part mapped there, or too many members map it). */
static bool look_member(struct shared_ctx *s, struct mm *m)
{
	struct folio *folio = s->iso->folio;
	unsigned long addr = s->iso->addr;
	struct vma *v = find_vma(m, addr);
	struct spinlock *ptl;
	pte_t *ptep;
	int st;

	if (!v || addr + s->nr * PAGE_SIZE > v->end)
		return true; /* not here; a mapping elsewhere fails the count */
	ptep = lock_table(m, addr, &ptl);
	if (!ptep)
		return true;
	st = run_state(folio, addr, ptep, s->nr);
	if (st > 0 && s->maps == SHARED_MAX)
		st = -1;
	if (st > 0) {
		s->mm[s->maps++] = m;
		s->young |= folio_referenced_ptes(m, addr, ptep, s->nr);
	}
	pte_unmap_unlock(ptep, ptl);
	return st >= 0;
}

/* Step 2 in the @i-th member: its run, still whole, to migration entries.
 * False (nothing changed there) when it is not whole any more. */
static bool unmap_member(struct shared_ctx *s, unsigned i)
{
	struct folio *folio = s->iso->folio;
	unsigned long addr = s->iso->addr, pfn = folio_pfn(folio);
	struct mm *m = s->mm[i];
	struct spinlock *ptl;
	pte_t *ptep = lock_table(m, addr, &ptl), pte;

	if (!ptep)
		return false;
	if (run_state(folio, addr, ptep, s->nr) <= 0) {
		pte_unmap_unlock(ptep, ptl);
		return false;
	}
	pte = pageout_clear(m, addr, ptep, s->nr);
	flush_tlb_range(m, addr, addr + (unsigned long)s->nr * PAGE_SIZE);
	for (unsigned k = 0; k < s->nr; k++)
		set_pte(ptep + k, make_migration_entry(pfn + k, pte, false));
	folio_remove_rmap_ptes(folio, &folio->page, (int)s->nr);
	pte_unmap_unlock(ptep, ptl);
	s->first[i] = pte;
	s->dirty |= pte_dirty(pte);
	return true;
}

/* The migration entries of the @i-th member become @entry(k) for page k:
 * its run back as it was (@slots NULL, @restore), swap entries of
 * @slots, or none (@slots NULL, !@restore). */
static void finish_member(struct shared_ctx *s, unsigned i, const struct swap_dest *slots,
			  bool restore)
{
	struct folio *folio = s->iso->folio;
	unsigned long addr = s->iso->addr;
	struct spinlock *ptl;
	pte_t *ptep = lock_table(s->mm[i], addr, &ptl);

	if (!ptep || !is_migration_entry(ptep_get(ptep)) ||
	    migration_entry_pfn(ptep_get(ptep)) != folio_pfn(folio))
		folio_bug("reclaim_shared", folio, "its migration entries went");
	if (restore) {
		set_ptes(s->mm[i], addr, ptep, pte_mknoncont(s->first[i]), s->nr);
		folio_add_rmap_ptes(folio, &folio->page, (int)s->nr);
	} else {
		for (unsigned k = 0; k < s->nr; k++)
			set_pte(ptep + k, slots ? make_swap_entry(swap_dest_slot(slots, k), false)
						: (pte_t){ 0 });
	}
	pte_unmap_unlock(ptep, ptl);
}

/* Every run unmapped so far (the first @done members) put back. */
static void restore_members(struct shared_ctx *s, unsigned done)
{
	for (unsigned i = 0; i < done; i++)
		finish_member(s, i, NULL, true);
}

/* Step 3, the data kept: written to the slots of @d, each named by every
 * member's entry. */
static void write_out(struct shared_ctx *s, struct swap_dest *d)
{
	struct folio *folio = s->iso->folio;

	for (unsigned k = 0; k < s->nr; k++) {
		swap_write_page(swap_dest_slot(d, k), page_address(folio_page(folio, k)));
		for (unsigned i = 1; i < s->maps; i++)
			swap_dup(swap_dest_slot(d, k), 1);
	}
	for (unsigned i = 0; i < s->maps; i++)
		finish_member(s, i, d, false);
	count_event(pswpout, s->nr);
}

/*
 * A PMD-mapped folio: each member's leaf at the address has its young
 * bit tested and cleared (one flush each); when none was young, its slots
 * are taken (@d, @held) and every leaf is split to a PTE table under its
 * mm's page_table_lock, as a write fault splits one (reclaim_pmd() does
 * the same for a folio one mm maps; migration's split_pmd_mappings() for
 * the family), so that the steps below see runs of 512 entries.
 * Return: RECLAIM_SHARED to go on, else the folio's fate.
 */
static enum reclaim_result split_leaves(struct anon_family *fam, struct lru_isolated *iso,
					struct swap_dest *d, bool lazy, bool *held)
{
	unsigned long addr = iso->addr;
	bool young = false, any = false;
	int err = 0;

	for_each_family_member(m, fam) {
		struct pmd_walk pw;

		spin_lock(&m->page_table_lock);
		if (pmd_walk(m, addr, &pw) == PMD_LEAF && pw.folio == iso->folio &&
		    pmd_user(pw.pmd)) {
			any = true;
			count_event(young_runs, 1);
			if (pmdp_test_and_clear_young(pw.pmdp)) {
				flush_tlb_range(m, addr, addr + PMD_SIZE);
				count_event(young_cleared, 1);
				young = true;
			}
		}
		spin_unlock(&m->page_table_lock);
	}
	if (!any)
		return RECLAIM_SHARED;
	if (young)
		return RECLAIM_ACTIVATE;
	if (!lazy) {
		if (swap_alloc_folio(d, PTRS_PER_TABLE)) {
			count_event(reclaim_nospace, 1);
			return RECLAIM_KEEP;
		}
		*held = true;
	}
	for_each_family_member(m, fam) {
		struct pmd_walk pw;

		spin_lock(&m->page_table_lock);
		if (pmd_walk(m, addr, &pw) == PMD_LEAF && pw.folio == iso->folio) {
			err = split_huge_pmd(find_vma(m, addr), pw.pmdp, addr);
			count_event(reclaim_pmd_splits, !err);
		}
		spin_unlock(&m->page_table_lock);
		if (err)
			return RECLAIM_KEEP; /* no page for a table; the splits made stay */
	}
	return RECLAIM_SHARED;
}

/* Steps 1 to 3 (the top of this file); the slots in @d are taken here
 * unless @held says they are already, and @held says so after. */
static enum reclaim_result unmap_shared(struct anon_family *fam, struct lru_isolated *iso,
					struct swap_dest *d, bool lazy, bool *held)
{
	struct folio *folio = iso->folio;
	struct shared_ctx s = { .iso = iso, .nr = (unsigned)iso->nr };
	bool ok = true, busy, redirtied;
	unsigned done = 0, refs;

	for_each_family_member(m, fam)
		ok &= look_member(&s, m);
	refs = s.maps * s.nr;
	if (!ok || !s.maps || folio_mapcount(folio) != (int)refs ||
	    folio_ref_count(folio) != (int)refs + 1) {
		count_event(reclaim_shared_busy, 1);
		return RECLAIM_ACTIVATE; /* mapped elsewhere or in part, pinned or held */
	}
	if (s.young)
		return RECLAIM_ACTIVATE;
	if (!lazy && !*held) {
		if (swap_alloc_folio(d, s.nr)) {
			count_event(reclaim_nospace, 1);
			return RECLAIM_KEEP;
		}
		*held = true;
	}
	arch_sched_point(SCHED_WINDOW); /* looked at, not yet unmapped */
	if (reclaim_shared_window_hook)
		reclaim_shared_window_hook(SHARED_LOOKED, folio);
	while (done < s.maps && unmap_member(&s, done))
		done++;
	arch_sched_point(SCHED_WINDOW); /* unmapped: a grab before it is counted below */
	if (reclaim_shared_window_hook)
		reclaim_shared_window_hook(SHARED_UNMAPPED, folio);
	mm_full_barrier();
	busy = done < s.maps || folio_ref_count(folio) != (int)refs + 1;
	redirtied = !busy && lazy && (s.dirty || (page_flags(&folio->page) & PG_dirty));
	if (busy || redirtied) {
		restore_members(&s, done);
		if (redirtied) {
			page_clear_flags(&folio->page, PG_lazyfree); /* written since MADV_FREE */
			count_event(lazyfree_redirtied, 1);
		}
		count_event(reclaim_shared_busy, busy);
		return RECLAIM_ACTIVATE;
	}
	if (lazy) {
		for (unsigned i = 0; i < s.maps; i++)
			finish_member(&s, i, NULL, false);
		count_event(lazyfree_discarded, 1);
	} else {
		write_out(&s, d);
	}
	folio_put_refs(folio, (int)refs);
	count_event(pgsteal, s.nr);
	count_event(reclaim_shared, 1);
	return RECLAIM_FREED;
}

enum reclaim_result reclaim_shared(struct anon_family *fam, struct lru_isolated *iso,
				   struct swap_dest *d)
{
	bool lazy = page_flags(&iso->folio->page) & PG_lazyfree, held = false;
	enum reclaim_result res = RECLAIM_SHARED;

	if ((iso->addr & PMD_MASK) != ((iso->addr + (iso->nr - 1) * PAGE_SIZE) & PMD_MASK))
		return RECLAIM_ACTIVATE; /* a run over two tables (mremap moved it) */
	if (iso->nr == PTRS_PER_TABLE && folio_entire_mapcount(iso->folio))
		res = split_leaves(fam, iso, d, lazy, &held);
	if (res == RECLAIM_SHARED)
		res = unmap_shared(fam, iso, d, lazy, &held);
	if (res != RECLAIM_FREED && held)
		swap_dest_free(d); /* the folio stays */
	return res;
}
