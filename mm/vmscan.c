/*
 * vmscan.c - direct reclaim of anon folios from a node's inactive tail
 * (the contract is in vmscan.h; the lists and their locking in lru.h).
 *
 * Locking: the reclaimer holds its mm's mmap_lock (the fault's), so the
 * VMAs and tables it walks stay; it looks at each folio under the PTE
 * lock of the table that maps it, holding the reference isolation took.
 * So zap cannot free the folio under it, and a migration's freeze of it
 * fails (the count is one above the mappings) until it is put back; a
 * fork that copies its entries meanwhile waits for the PTE lock, and one
 * that came first made the mapcount exceed the run: the folio is kept.
 * gup-fast is the one taker without a lock: the unmap clears and flushes
 * first, and then looks at the count after a full barrier, as
 * MADV_PAGEOUT does (pageout.c): a grab before the clear is seen there
 * and the entries are put back, one after it sees the cleared entry.
 */
#include "kernel.h"
#include "lru.h"
#include "madvise.h"
#include "mm_internal.h"
#include "pte_batch.h"
#include "swap.h"
#include "swapops.h"
#include "thp_policy.h"
#include "vmscan.h"

void (*reclaim_window_hook)(struct mm *mm, unsigned long addr);

static unsigned long watermark[MAX_NUMNODES];

bool reclaim_watermarks; /* a node has a watermark (vmscan.h) */

void reclaim_set_low(int nid, unsigned long pages)
{
	bool any = false;

	for (int i = 0; i < MAX_NUMNODES; i++) {
		if (nid < 0 || i == nid)
			__atomic_store_n(&watermark[i], pages, __ATOMIC_RELAXED);
		any |= __atomic_load_n(&watermark[i], __ATOMIC_RELAXED) != 0;
	}
	__atomic_store_n(&reclaim_watermarks, any, __ATOMIC_RELAXED);
	lru_update_kept();
}

bool reclaim_watermark_set(void)
{
	return __atomic_load_n(&reclaim_watermarks, __ATOMIC_RELAXED);
}

unsigned long reclaim_low(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES ? __atomic_load_n(&watermark[nid], __ATOMIC_RELAXED)
					      : 0;
}

/* One folio's look: what the walk found. A PMD-mapped folio is split on
 * the first walk (@split) with its swap slots taken first (@dest, when
 * @dest_held), and written on the second. */
struct reclaim_ctx {
	struct lru_isolated *iso;
	enum reclaim_result res;
	bool seen, split, dest_held;
	struct swap_dest *dest; /* the caller's, not zeroed: 1 KiB a folio */
};

/* The pages to flush after a young run of @n entries from @ptep (@left
 * entries of the folio from there): the run, and the rest of an arch
 * block its last entry is in, which the hook cleared with it (arm64: a
 * contpte block has one young state; at young=1 the first entry's clear
 * clears the block, and a flush of that entry alone leaves the others
 * cached young, so an access meanwhile would not set the bit again). */
static unsigned run_flush_pages(pte_t *ptep, unsigned n, unsigned left)
{
	unsigned rest = pte_batch_hint(ptep + n - 1, __ptep_get(ptep + n - 1)) - 1;

	return n + (rest < left - n ? rest : left - n);
}

bool folio_referenced_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	bool young = false;

	for (unsigned done = 0; done < nr;) {
		unsigned n = cap_nr(mm_caps.young, nr - done);
		unsigned long a = addr + done * PAGE_SIZE;

		count_event(young_runs, 1);
		if (clear_young_dirty_ptes(mm, a, ptep + done, n, CYDP_CLEAR_YOUNG)) {
			flush_tlb_range(mm, a,
					a + run_flush_pages(ptep + done, n, nr - done) * PAGE_SIZE);
			count_event(young_cleared, 1);
			young = true;
		}
		done += n;
	}
	return young;
}

/* pageout_clear() and one flush of the @nr entries. */
static pte_t unmap_clear(struct mm *mm, unsigned long addr, pte_t *ptep, unsigned nr)
{
	pte_t first = pageout_clear(mm, addr, ptep, nr);

	flush_tlb_range(mm, addr, addr + (unsigned long)nr * PAGE_SIZE);
	return first;
}

/* After the clear and flush: does nothing but the @nr mappings and the
 * isolation hold @folio? */
static bool only_mapped_here(struct folio *folio, unsigned nr)
{
	mm_full_barrier();
	return folio_ref_count(folio) == (int)nr + 1;
}

/* The mappings of @folio go: rmap and their references (the isolation's
 * stays, the last). */
static void unmap_done(struct folio *folio, unsigned nr)
{
	folio_remove_rmap_ptes(folio, &folio->page, (int)nr);
	folio_put_refs(folio, (int)nr);
	count_event(pgsteal, nr);
}

/* Discard the clean lazyfree @folio mapped by the @nr entries from
 * @ptep. Context: the PTE lock held. */
static enum reclaim_result discard_lazyfree(struct mm *mm, unsigned long addr, pte_t *ptep,
					    struct folio *folio, unsigned nr)
{
	pte_t pte = unmap_clear(mm, addr, ptep, nr);

	if (pte_dirty(pte) || (page_flags(&folio->page) & PG_dirty)) {
		page_clear_flags(&folio->page, PG_lazyfree); /* written since MADV_FREE */
		count_event(lazyfree_redirtied, 1);
		set_ptes(mm, addr, ptep, pte_mknoncont(pte), nr);
		return RECLAIM_ACTIVATE;
	}
	if (!only_mapped_here(folio, nr)) {
		set_ptes(mm, addr, ptep, pte_mknoncont(pte), nr);
		return RECLAIM_ACTIVATE;
	}
	unmap_done(folio, nr);
	count_event(lazyfree_discarded, 1);
	return RECLAIM_FREED;
}

/* Write @folio, mapped by the @nr entries from @ptep, to swap (to the
 * slots @c holds, else to slots taken here) and leave swap entries there.
 * Context: the PTE lock held. */
static enum reclaim_result swap_out(struct mm *mm, unsigned long addr, pte_t *ptep,
				    struct folio *folio, unsigned nr, struct reclaim_ctx *c)
{
	struct swap_dest *d = c->dest;
	pte_t pte;

	if (!c->dest_held && swap_alloc_folio(d, nr)) {
		count_event(reclaim_nospace, 1);
		return RECLAIM_KEEP;
	}
	c->dest_held = false; /* used or given back below */
	pte = unmap_clear(mm, addr, ptep, nr);
	if (!only_mapped_here(folio, nr)) {
		set_ptes(mm, addr, ptep, pte_mknoncont(pte), nr); /* from none: no flush */
		swap_dest_free(d);
		return RECLAIM_ACTIVATE;
	}
	for (unsigned i = 0; i < nr; i++) {
		struct page *page = folio_page(folio, i);

		swap_write_page(swap_dest_slot(d, i), page_address(page));
		set_pte(ptep + i, make_swap_entry(swap_dest_slot(d, i), PageAnonExclusive(page)));
	}
	unmap_done(folio, nr);
	count_event(pswpout, nr);
	return RECLAIM_FREED;
}

/*
 * reclaim_ptes - the isolated folio @iso at @ptep (its record's address,
 * at most @left entries of this table): referenced, kept, or freed.
 * Context: the PTE lock held; the isolation's reference held.
 */
static enum reclaim_result reclaim_ptes(struct mm *mm, struct reclaim_ctx *c, pte_t *ptep,
					unsigned long left)
{
	struct lru_isolated *iso = c->iso;
	struct folio *folio = iso->folio;
	unsigned nr = (unsigned)iso->nr;
	pte_t pte = ptep_get(ptep);

	if (!pte_present(pte) || !pte_user(pte) || pte_pfn(pte) != folio_pfn(folio) || left < nr)
		return RECLAIM_SHARED; /* not mapped here: a fork's other mm may map it */
	if (nr > 1 &&
	    folio_pte_batch(folio, iso->addr, ptep, pte, nr,
			    FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG | FPB_IGNORE_BLOCK, NULL) != nr)
		return RECLAIM_ACTIVATE;
	if (folio_mapcount(folio) > (int)nr)
		return RECLAIM_SHARED;
	if (folio_mapcount(folio) != (int)nr || folio_ref_count(folio) != (int)nr + 1)
		return RECLAIM_ACTIVATE; /* mapped elsewhere too, pinned or held */
	if (folio_referenced_ptes(mm, iso->addr, ptep, nr))
		return RECLAIM_ACTIVATE;
	arch_sched_point(SCHED_WINDOW); /* counts looked at, not yet cleared */
	if (reclaim_window_hook)
		reclaim_window_hook(mm, iso->addr); /* tests: a gup-fast grab here */
	if (page_flags(&folio->page) & PG_lazyfree)
		return discard_lazyfree(mm, iso->addr, ptep, folio, nr);
	return swap_out(mm, iso->addr, ptep, folio, nr, c);
}

/* The walker's pte_range: the first table of the folio's range only (a
 * run split over two tables is not one run). Context: its PTE lock held. */
static int reclaim_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			     unsigned long end, void *priv)
{
	struct reclaim_ctx *c = priv;

	(void)pmdp;
	if (!c->seen && addr == c->iso->addr)
		c->res = reclaim_ptes(mm, c, ptep, (end - addr) >> PAGE_SHIFT);
	c->seen = true;
	return 0;
}

/*
 * reclaim_pmd - the isolated PMD-mapped folio at @pmdp: referenced (its
 * leaf was young: cleared, flushed, activated), kept, or split to PTEs
 * for reclaim_one()'s second walk to write or discard as one run of 512
 * entries (Linux's try_to_unmap_one() with TTU_SPLIT_HUGE_PMD). Its swap
 * slots are taken before the split, so a folio swap has no room for
 * stays whole. Context: the page_table_lock held (a write fault splits a
 * leaf under it too, do_huge_pmd_wp_page()); the isolation's reference.
 */
static enum reclaim_result reclaim_pmd(struct mm *mm, struct reclaim_ctx *c, pmd_t *pmdp)
{
	struct folio *folio = c->iso->folio;
	unsigned long addr = c->iso->addr;
	pmd_t pmd = pmdp_get(pmdp);

	if (!pmd_leaf(pmd) || pmd_pfn(pmd) != folio_pfn(folio))
		return RECLAIM_SHARED; /* not mapped here */
	if (!pmd_user(pmd))
		return RECLAIM_ACTIVATE; /* a NUMA hinting leaf */
	if (folio_mapcount(folio) > 1)
		return RECLAIM_SHARED;
	if (folio_mapcount(folio) != 1 || folio_ref_count(folio) != 2)
		return RECLAIM_ACTIVATE; /* mapped elsewhere too, pinned or held */
	count_event(young_runs, 1);
	if (pmdp_test_and_clear_young(pmdp)) {
		flush_tlb_range(mm, addr, addr + PMD_SIZE);
		count_event(young_cleared, 1);
		return RECLAIM_ACTIVATE;
	}
	if (!(page_flags(&folio->page) & PG_lazyfree)) {
		if (swap_alloc_folio(c->dest, PTRS_PER_TABLE)) {
			count_event(reclaim_nospace, 1);
			return RECLAIM_KEEP;
		}
		c->dest_held = true;
	}
	if (split_huge_pmd(find_vma(mm, addr), pmdp, addr))
		return RECLAIM_KEEP; /* no page for the table: reclaim_one() frees the slots */
	count_event(reclaim_pmd_splits, 1);
	c->split = true;
	return RECLAIM_ACTIVATE; /* until the second walk says otherwise */
}

/* The walker's pmd_leaf: the folio's own leaf only (its record's
 * address, the whole 2 MiB). */
static int reclaim_huge_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			    void *priv)
{
	struct reclaim_ctx *c = priv;

	if (!c->seen && addr == c->iso->addr && end - addr == PMD_SIZE &&
	    c->iso->nr == PTRS_PER_TABLE) {
		spin_lock(&mm->page_table_lock);
		c->res = reclaim_pmd(mm, c, pmdp);
		spin_unlock(&mm->page_table_lock);
	}
	c->seen = true;
	return 0;
}

static const struct pt_walk_ops reclaim_ops = { .pmd_leaf = reclaim_huge_pmd,
						.pte_range = reclaim_pte_range };

/*
 * The family walk for @iso (reclaim_shared()), under @mm's family lock
 * for write, taken by trylock for this folio alone: the caller holds
 * @mm's mmap_lock, which ranks after it, so it may not wait. Not taken
 * (a member changes its VMAs, forks, exits or migrates): activated.
 */
static enum reclaim_result reclaim_in_family(struct mm *mm, struct lru_isolated *iso,
					     struct swap_dest *d)
{
	enum reclaim_result res;

	if (!write_trylock(&mm->family->lock)) {
		count_event(reclaim_family_busy, 1);
		return RECLAIM_ACTIVATE;
	}
	res = reclaim_shared(mm->family, iso, d);
	write_unlock(&mm->family->lock);
	return res;
}

/* One isolated folio, looked at in @mm first: then put back or freed.
 * A PMD-mapped one is split on the first walk and written on a second;
 * one that other mms of the family map, or that @mm does not map at the
 * record's address, goes to the family walk. */
static unsigned long reclaim_one(struct mm *mm, struct lru_isolated *iso)
{
	struct swap_dest dest;
	struct reclaim_ctx c = { .iso = iso, .res = RECLAIM_SHARED, .dest = &dest };
	unsigned long end = iso->addr + iso->nr * PAGE_SIZE;
	struct vma *v = find_vma(mm, iso->addr);

	if (v && end <= v->end && end > iso->addr) {
		walk_page_range(mm, iso->addr, end, &reclaim_ops, &c);
		if (c.split) {
			c.seen = false;
			walk_page_range(mm, iso->addr, end, &reclaim_ops, &c);
		}
	}
	if (c.dest_held)
		swap_dest_free(&dest); /* the split folio was kept after all */
	if (c.res == RECLAIM_SHARED)
		c.res = reclaim_in_family(mm, iso, &dest);
	if (c.res != RECLAIM_FREED) {
		lru_putback(iso, c.res == RECLAIM_KEEP ? LRU_INACTIVE : LRU_ACTIVE);
		return 0;
	}
	lru_release(iso); /* the last reference: frees it */
	return iso->nr;
}

unsigned long reclaim_node(struct mm *mm, int nid, unsigned long want)
{
	unsigned long freed = 0, scanned = 0;
	unsigned long budget = 2 * (lru_pages(nid, LRU_INACTIVE) + lru_pages(nid, LRU_ACTIVE));
	struct lru_isolated iso[RECLAIM_BATCH];

	while (freed < want && scanned < budget) {
		unsigned n;

		lru_balance(nid);
		n = lru_isolate(nid, mm, iso, RECLAIM_BATCH, want - freed);
		if (!n)
			break;
		for (unsigned i = 0; i < n; i++) {
			scanned += iso[i].nr;
			if (freed >= want) { /* the batch's rest goes back as it was */
				lru_putback(&iso[i], LRU_INACTIVE);
				continue;
			}
			freed += reclaim_one(mm, &iso[i]);
		}
	}
	return freed;
}

/* The pages the largest folio a fault in @vma may allocate has. */
static unsigned long fault_need(struct vma *vma)
{
	unsigned long orders = vma_fault_orders(vma) | 1;

	if (!(vma->flags & VM_NOHUGEPMD))
		orders |= 1ul << PMD_ORDER;
	return 1ul << (63 - __builtin_clzl(orders));
}

void __reclaim_before_fault(struct vma *vma)
{
	for (int nid = 0; nid < nr_pglists; nid++) {
		unsigned long low = reclaim_low(nid), need, free = node_free_pages(nid);

		if (!low)
			continue;
		need = low + fault_need(vma);
		if (free >= need)
			continue;
		count_event(reclaim_stalls, 1);
		reclaim_node(vma->mm, nid,
			     need - free > RECLAIM_BATCH ? need - free : RECLAIM_BATCH);
	}
}
