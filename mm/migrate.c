/*
 * migrate.c - moving queued folios to another node: Linux's
 * migrate_pages_batch() with migration entries (docs/migrate.md).
 *
 * Per folio: refuse it (-EBUSY) when it is maybe pinned or has references
 * besides its mappings (a pin or GUP reference would go on seeing the old
 * page); allocate its new folio on the target (same order; when no block
 * of that order is free, order-0 pieces: the folio is split, and a PMD
 * mapping is first split into PTEs); replace every mapping, in every mm of
 * its anon family, by a migration entry (mm/swapops.h) that keeps the
 * pfn, write, dirty, young and AnonExclusive; flush the TLB; freeze the
 * refcount; copy; turn each migration entry into a mapping of the new
 * page with the same bits; free the old folio.
 *
 * The first reference check is only an early refusal: GUP needs no lock
 * that the migration holds for write (gup-fast none, the slow path the
 * mmap_lock for read), so a pin may land after it. The check that counts
 * is the freeze after the unmap and flush (folio_ref_freeze(): the count
 * must be exactly the migration entries' references, and becomes 0 in the
 * same exchange, so no grab succeeds after it). A pin taken before the
 * freeze makes it fail: each migration entry is turned back into the
 * mapping it replaced, of the same folio, and the folio counts as busy. A
 * grab after the freeze fails (folio_try_grab() refuses a count of 0),
 * and a slow-path walk finds migration entries (it faults and retries).
 * So a folio either moves whole or stays exactly as it was.
 *
 * Batching, each knob one thing (1 = the code before it):
 *  - mm_caps.migrate_unmap: how many PTEs one clear and one set cover. A run
 *    of PTEs mapping consecutive pages of the folio with the same bits is
 *    cleared with one clear_full_ptes() (on arm64 whole contpte blocks are
 *    cleared without unfolding) and put back with one set_ptes() (which
 *    folds the blocks again); at 1 each PTE is cleared with its own
 *    get-and-clear and set alone.
 *  - mm_caps.migrate_flush: how many folios share one TLB flush. At 1 nothing
 *    is deferred: each clear is flushed at once, per PTE or per run as
 *    migrate_unmap says (ptep_clear_flush, Linux before migrate_pages_batch).
 *    At N the folios are handled in groups of N: unmap all, one flush per
 *    mm the group touched, copy all, remap all. max makes the group the
 *    whole batch, at most MIGRATE_CHUNK (4096) folios (migrate.h), so a
 *    call moving more folios flushes once per MIGRATE_CHUNK of them.
 */
#include <errno.h>
#include <string.h>

#include "kernel.h"
#include "lru.h"
#include "migrate.h"
#include "page_internal.h"
#include "folio_walk.h"
#include "pte_batch.h"
#include "shmem.h"

void (*migrate_unmapped_hook)(void);
void (*migrate_window_hook)(enum migrate_window where, struct folio *folio);

/* ---- queueing --------------------------------------------------------------- */

bool migrate_batch_add(struct migrate_batch *b, struct folio *folio, struct mm *mm,
		       unsigned long addr, const struct mempolicy *target, int home)
{
	struct migrate_item *it;

	if (page_flags(&folio->page) & PG_locked)
		return false;
	if (b->nr == MIGRATE_CHUNK)
		panic("migrate_batch_add: batch full (%d folios)", b->nr);
	if (folio_order(folio) > PMD_ORDER)
		folio_bug("migrate_batch_add", folio, "folio larger than a PMD");
	/* Isolation: the batch's own reference, since a fault or a zap on
	 * another CPU may unmap the folio while it waits; none is taken from
	 * a folio that went meanwhile (the lookup held no lock). */
	if (!folio_try_grab(folio, 1, false))
		return false;
	page_set_flags(&folio->page, PG_locked);
	it = &b->item[b->nr++];
	*it = (struct migrate_item){ .folio = folio,
				     .addr = addr,
				     .mm = mm,
				     .target = *target,
				     .home = home,
				     .isolated = true };
	list_init(&it->pieces);
	count_event(migrate_queued, 1);
	return true;
}

/* Every mm of @it's anon family: the migration holds the family lock
 * for write (migrate_lock_mm()), so the members and their tables stay. */
#define for_each_family_mm(m, it) for_each_family_member(m, (it)->mm->family)

/* Does @m map a page of @folio (page 0 at @addr, in one PMD region)? */
static bool mm_maps_folio(struct mm *m, struct folio *folio, unsigned long addr)
{
	unsigned long n = folio_nr_pages(folio);
	struct pmd_walk pw;
	pte_t *ptes;

	switch (pmd_walk(m, addr, &pw)) {
	case PMD_NONE:
		return false;
	case PMD_LEAF:
	case PMD_MIGRATION:
		return pw.folio == folio;
	case PMD_TABLE:
		break;
	}
	ptes = pte_offset_kernel(pw.pmdp, addr);
	for (unsigned long i = 0; i < n; i++) {
		pte_t pte = __ptep_get(ptes + i);

		if (pte_present(pte) && pte_pfn(pte) - folio_pfn(folio) < n)
			return true;
	}
	return false;
}

bool folio_mapped_in_family(struct folio *folio, struct mm *mm, unsigned long addr)
{
	for_each_family_member(m, mm->family)
		if (m != mm && mm_maps_folio(m, folio, addr))
			return true;
	return false;
}

/* ---- deferred TLB flushes ------------------------------------------------- */

/* The mms with a range cleared by one group's unmap and not yet flushed
 * (each mm carries its range), so a group of any size over any number of
 * mms ends in one flush per mm. */
struct flush_set {
	struct mm *first;
};

static void flush_set_flush(struct flush_set *flushes)
{
	while (flushes->first) {
		struct mm *mm = flushes->first;

		flushes->first = mm->flush_next;
		flush_tlb_range(mm, mm->flush_start, mm->flush_end);
		mm->flush_start = mm->flush_end = 0;
		mm->flush_next = NULL;
	}
}

/* [start, end) of @mm was cleared: flush it now (@flushes NULL) or later. */
static void flush_later(struct flush_set *flushes, struct mm *mm, unsigned long start,
			unsigned long end)
{
	if (!flushes) {
		flush_tlb_range(mm, start, end);
		return;
	}
	if (mm->flush_start >= mm->flush_end) {
		mm->flush_start = start;
		mm->flush_end = end;
		mm->flush_next = flushes->first;
		flushes->first = mm;
		return;
	}
	if (start < mm->flush_start)
		mm->flush_start = start;
	if (end > mm->flush_end)
		mm->flush_end = end;
}

/* ---- step 1: refuse, or allocate the destination ---------------------------- */

static void free_pieces(struct migrate_item *it)
{
	while (!list_empty(&it->pieces)) {
		struct page *p = list_entry(it->pieces.next, struct page, lru);

		list_del(&p->lru);
		folio_put((struct folio *)p);
	}
}

/* Split every PMD mapping of @it's folio into PTEs. Return: 0 or -ENOMEM
 * (the splits made stay: they change no content). */
static int split_pmd_mappings(struct migrate_item *it)
{
	for_each_family_mm(m, it) {
		struct pmd_walk pw;
		int err = 0;

		spin_lock(&m->page_table_lock);
		if (pmd_walk(m, it->addr, &pw) == PMD_LEAF && pw.folio == it->folio)
			err = split_huge_pmd(find_vma(m, it->addr), pw.pmdp, it->addr);
		spin_unlock(&m->page_table_lock);
		if (err)
			return err;
	}
	return 0;
}

/* No block of the folio's order on the target: order-0 pieces instead. */
static int alloc_pieces(struct migrate_item *it)
{
	unsigned long n = folio_nr_pages(it->folio);

	for (unsigned long i = 0; i < n; i++) {
		struct folio *p = mpol_alloc(&it->target, it->home, it->addr + i * PAGE_SIZE, 0, 0);

		if (!p) {
			free_pieces(it);
			return -ENOMEM;
		}
		list_add_tail(&p->page.lru, &it->pieces);
	}
	if (folio_entire_mapcount(it->folio) && split_pmd_mappings(it)) {
		free_pieces(it);
		return -ENOMEM;
	}
	count_event(thp_migration_split, 1);
	return 0;
}

/* The mms of @it's family that map its folio at it->addr. */
static unsigned long family_mappings(struct migrate_item *it)
{
	unsigned long n = 0;

	for_each_family_mm(m, it)
		n += mm_maps_folio(m, it->folio, it->addr);
	return n;
}

/*
 * shared_prepare - a shared page: note its object, and refuse it (-EBUSY)
 * unless its references are its mappings, the object's and the batch's,
 * and the family maps it at it->addr only (an mremap in one member moves
 * a mapping where the walk would not find it). Under the object's lock,
 * which a fault takes its reference under: a fault that came before is
 * counted here, one that comes after finds the page PG_locked and waits.
 */
static int shared_prepare(struct migrate_item *it)
{
	struct folio *f = it->folio;
	struct vma *vma = find_vma(it->mm, it->addr);
	int err = 0;

	if (!vma || !vma->shm)
		folio_bug("migrate_prepare", f, "shared page outside a shared VMA");
	it->shm = vma->shm;
	it->shm_index = vma_shmem_index(vma, it->addr);
	spin_lock(&it->shm->lock);
	if (shmem_folio(it->shm, it->shm_index) != f ||
	    folio_ref_count(f) != folio_mapcount(f) + 2 ||
	    family_mappings(it) != (unsigned long)folio_mapcount(f))
		err = -EBUSY;
	spin_unlock(&it->shm->lock);
	return err;
}

/*
 * migrate_prepare - may @it's folio move, and where to? Return: 0 with
 * the destination allocated, -EBUSY (pinned, or references that are no
 * mapping), -ENOMEM (the target has no memory): the folio is untouched.
 * The reference check here spares the unmap of a folio that is busy
 * already; migrate_freeze() makes the one that decides.
 */
static int migrate_prepare(struct migrate_item *it)
{
	struct folio *f = it->folio;

	it->shm = NULL;
	if (page_flags(&f->page) & PG_shmem) {
		if (folio_maybe_dma_pinned(f) || shared_prepare(it))
			return -EBUSY;
	} else if (folio_maybe_dma_pinned(f) || folio_ref_count(f) != folio_mapcount(f) + 1) {
		return -EBUSY;
	}
	it->dst = mpol_alloc(&it->target, it->home, it->addr, folio_order(f), 0);
	if (it->dst)
		return 0;
	if (!folio_test_large(f))
		return -ENOMEM;
	return alloc_pieces(it);
}

/* ---- step 2: unmap into migration entries ----------------------------------- */

/* Replace the PMD leaf @pmdp of @m by a migration entry. */
static void unmap_pmd(struct migrate_item *it, struct mm *m, pmd_t *pmdp, struct flush_set *flushes)
{
	struct folio *f = it->folio;
	pmd_t pmd = pmdp_get(pmdp);

	set_pmd(pmdp, pte_pmd(make_migration_entry(folio_pfn(f), pmd_pte(pmd),
						   PageAnonExclusive(&f->page))));
	folio_remove_rmap_pmd(f);
	it->nr_entries++;
	flush_later(flushes, m, it->addr, it->addr + PMD_SIZE);
}

/*
 * unmap_run - the @nr entries from @ptep (for @addr; the first is @pte)
 * map consecutive pages of the folio with the same bits: clear them (one
 * clear_full_ptes, or ptep_get_and_clear for one), flush them unless the flush is deferred (@flushes: the
 * caller adds the table's range), write their migration entries (the
 * first entry's bits once, then the next pfn and each page's
 * AnonExclusive), drop their mapcounts. The references stay with the
 * entries.
 * Context: the PTE table lock is held.
 */
static void unmap_run(struct migrate_item *it, struct mm *m, unsigned long addr, pte_t *ptep,
		      pte_t pte, unsigned nr, struct flush_set *flushes)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	uint64_t base;
	pte_t old;

	if (nr == 1) { /* the per-PTE path, at its own cost */
		old = ptep_get_and_clear(m, addr, ptep);
		if (!flushes)
			flush_tlb_range(m, addr, addr + PAGE_SIZE);
		set_pte(ptep, make_migration_entry(pte_pfn(pte), old, PageAnonExclusive(page)));
	} else {
		old = clear_full_ptes(m, addr, ptep, nr, 0);
		if (!flushes)
			flush_tlb_range(m, addr, addr + nr * PAGE_SIZE);
		base = pte_to_swp_val(make_migration_entry(pte_pfn(pte), old, false));
		for (unsigned i = 0; i < nr; i++)
			set_pte(ptep + i,
				swp_entry_to_pte((base + i) |
						 (PageAnonExclusive(page + i) ? SWP_EXCL : 0)));
	}
	folio_remove_rmap_ptes(it->folio, page, (int)nr);
	it->nr_entries += nr;
}

/* The PTEs of @m's table at @pmdp that map @it's folio. */
static void unmap_ptes(struct migrate_item *it, struct mm *m, pmd_t *pmdp,
		       struct flush_set *flushes)
{
	struct folio *f = it->folio;
	unsigned long n = folio_nr_pages(f), end = it->addr + n * PAGE_SIZE, addr = it->addr;
	uint64_t first = folio_pfn(f);
	unsigned long lo = end, hi = addr;
	struct spinlock *ptl;
	pte_t *ptep = pte_offset_map_lock(m, pmdp, addr, &ptl);
	unsigned nr;

	for (; addr < end; addr += nr * PAGE_SIZE, ptep += nr) {
		pte_t pte = ptep_get(ptep);

		nr = 1;
		if (!pte_present(pte) || pte_pfn(pte) - first >= n)
			continue;
		if (folio_test_large(f) && mm_caps.migrate_unmap > 1)
			nr = folio_pte_batch(
				f, addr, ptep, pte,
				cap_nr(mm_caps.migrate_unmap, (end - addr) >> PAGE_SHIFT), 0, NULL);
		unmap_run(it, m, addr, ptep, pte, nr, flushes);
		lo = addr < lo ? addr : lo;
		hi = addr + nr * PAGE_SIZE;
	}
	pte_unmap_unlock(ptep, ptl);
	if (flushes && hi > lo)
		flush_later(flushes, m, lo, hi);
}

/* try_to_migrate(): every mapping of @it's folio in its anon family. The
 * PMD entry is classified under the mm's page_table_lock (a fault in @m
 * may change it). A PMD migration entry there belongs to another folio of
 * the group (this folio's own are made here, after its walk of that mm).
 * Each member is looked at @it's address only: a member that mremap
 * moved the folio in maps it elsewhere, and that mapping stays (the
 * folio is still mapped after the walk: migrate_finish() restores it). */
static void migrate_unmap(struct migrate_item *it, struct flush_set *flushes)
{
	for_each_family_mm(m, it) {
		struct pmd_walk pw;
		enum pmd_state st;

		spin_lock(&m->page_table_lock);
		st = pmd_walk(m, it->addr, &pw);
		if (st == PMD_LEAF && pw.folio == it->folio)
			unmap_pmd(it, m, pw.pmdp, flushes);
		spin_unlock(&m->page_table_lock);
		if (st == PMD_TABLE)
			unmap_ptes(it, m, pw.pmdp, flushes);
	}
}

/* ---- step 3: copy and remap --------------------------------------------------- */

/* The destination folio and page of source page @i. */
static struct folio *dst_folio(struct migrate_item *it, struct folio **pieces, unsigned long i)
{
	return it->dst ? it->dst : pieces[i];
}

static struct page *dst_page(struct migrate_item *it, struct folio **pieces, unsigned long i)
{
	return it->dst ? folio_page(it->dst, i) : &pieces[i]->page;
}

/* Copy the data and the folio flags that travel. */
static void migrate_copy(struct migrate_item *it, struct folio **pieces)
{
	struct folio *f = it->folio;
	unsigned long n = folio_nr_pages(f);
	uint32_t keep = page_flags(&f->page) &
			(PG_anon | PG_shmem | PG_dirty | PG_referenced | PG_lazyfree);

	if (it->dst) {
		arch_copy_pages(page_address(&it->dst->page), page_address(&f->page), n);
		page_set_flags(&it->dst->page, keep);
	} else {
		for (unsigned long i = 0; i < n; i++) {
			arch_copy_pages(page_address(&pieces[i]->page),
					page_address(folio_page(f, i)), 1);
			page_set_flags(&pieces[i]->page, keep);
		}
	}
	count_event(folio_copies, n);
}

/* Same bits except AnonExclusive, next pfn? (a run of migration entries) */
static bool entry_follows(pte_t next, pte_t first, unsigned k)
{
	return (pte_to_swp_val(next) & ~SWP_EXCL) == ((pte_to_swp_val(first) + k) & ~SWP_EXCL);
}

/*
 * remap_run - map the destination of the run of migration entries from
 * @ptep (the first is @m, for source page @i) at @addr of @vma: consecutive
 * pfns with the same bits, one destination folio, at most @limit entries
 * (and the migrate_unmap cap). Each entry is read once, and its
 * AnonExclusive goes to its new page as it is read.
 * Context: the PTE lock is held.
 * Return: the run's length.
 */
static unsigned remap_run(struct migrate_item *it, struct folio **pieces, struct vma *vma,
			  unsigned long addr, pte_t *ptep, pte_t m, unsigned long i,
			  unsigned long limit)
{
	struct folio *d = dst_folio(it, pieces, i);
	struct page *page = dst_page(it, pieces, i);
	pte_t pte = pte_restore_migration(vma_mk_pte(vma, page_to_pfn(page)), m), e = m;
	unsigned nr = 0;

	if (!it->dst || !folio_test_large(it->dst))
		limit = 1;
	limit = cap_nr(mm_caps.migrate_unmap, limit);
	for (;;) {
		if (migration_entry_excl(e))
			SetPageAnonExclusive(page + nr);
		if (++nr == limit)
			break;
		e = ptep_get(ptep + nr);
		if (!entry_follows(e, m, nr))
			break;
	}
	set_ptes(vma->mm, addr, ptep, pte, nr);
	folio_add_rmap_ptes(d, page, (int)nr);
	if (!it->dst)
		folio_get(d);
	return nr;
}

/* remove_migration_ptes() for @m's table at @pmdp. Out of line: inlined
 * into migrate_move() its per-PTE loop spilled a register (6 more
 * instructions a PTE under icount at migrate_unmap=1). */
static __attribute__((noinline)) void remap_ptes(struct migrate_item *it, struct folio **pieces,
						 struct mm *m, pmd_t *pmdp)
{
	unsigned long n = folio_nr_pages(it->folio), addr = it->addr, end = addr + n * PAGE_SIZE;
	uint64_t first = folio_pfn(it->folio);
	struct spinlock *ptl;
	pte_t *ptep = pte_offset_map_lock(m, pmdp, addr, &ptl);
	struct vma *vma = NULL;
	unsigned nr;

	for (; addr < end; addr += nr * PAGE_SIZE, ptep += nr) {
		pte_t e = ptep_get(ptep);
		unsigned long i = migration_entry_pfn(e) - first;

		nr = 1;
		if (!is_migration_entry(e) || i >= n)
			continue;
		if (!vma || addr >= vma->end)
			vma = find_vma(m, addr);
		nr = remap_run(it, pieces, vma, addr, ptep, e, i,
			       ((end < vma->end ? end : vma->end) - addr) >> PAGE_SHIFT);
	}
	pte_unmap_unlock(ptep, ptl);
}

/* A PMD migration entry becomes a PMD mapping of the 2 MiB destination. */
static void remap_pmd(struct migrate_item *it, struct mm *m, pmd_t *pmdp)
{
	struct vma *vma = find_vma(m, it->addr);
	pte_t e = pmd_pte(pmdp_get(pmdp));
	pmd_t pmd = vma_mk_pmd(vma, it->dst, false);

	if (migration_entry_excl(e))
		for (unsigned long i = 0; i < folio_nr_pages(it->dst); i++)
			SetPageAnonExclusive(folio_page(it->dst, i));
	folio_add_rmap_pmd(it->dst);
	spin_lock(&m->page_table_lock);
	set_pmd(pmdp, pte_pmd(pte_restore_migration(pmd_pte(pmd), e)));
	spin_unlock(&m->page_table_lock);
}

/* Fill @pieces from @it's list (order-0 destinations, in page order). */
static void pieces_array(struct migrate_item *it, struct folio **pieces)
{
	unsigned long i = 0;
	struct list_head *e;

	list_for_each(e, &it->pieces)
		pieces[i++] = (struct folio *)list_entry(e, struct page, lru);
}

/* remove_migration_ptes(): every migration entry of @it's folio, in every
 * mm of its family, becomes a mapping of its destination page (it->dst or
 * @pieces), with the entry's bits. */
static void migrate_remap(struct migrate_item *it, struct folio **pieces)
{
	struct folio *f = it->folio;

	for_each_family_mm(m, it) {
		struct pmd_walk pw;

		switch (pmd_walk(m, it->addr, &pw)) {
		case PMD_TABLE:
			remap_ptes(it, pieces, m, pw.pmdp);
			break;
		case PMD_MIGRATION:
			if (pw.folio == f)
				remap_pmd(it, m, pw.pmdp);
			break;
		case PMD_NONE:
		case PMD_LEAF:
			break;
		}
	}
}

/* The folio lost every mapping while it was queued (a COW fault or a
 * zap on another CPU) and the freeze found only the batch's reference:
 * free it and the destination, as Linux does with a folio freed under a
 * migration (counted as moved). */
static void migrate_drop(struct migrate_item *it)
{
	it->status = it->dst ? it->dst->page.node : it->folio->page.node;
	if (it->dst)
		folio_put(it->dst);
	else
		free_pieces(it);
	page_clear_flags(&it->folio->page, PG_locked);
	it->isolated = false;
	folio_free_frozen(it->folio);
}

/* Copy, remap everywhere, free the old folio (frozen: no reference is
 * left) and the allocation references of the destination. */
static void migrate_move(struct migrate_item *it)
{
	static struct folio *pieces[PTRS_PER_TABLE];
	struct folio *f = it->folio;
	unsigned long refs = it->nr_entries + (it->shm ? 1 : 0); /* the object's too */

	if (!refs) {
		migrate_drop(it);
		return;
	}
	if (!it->dst)
		pieces_array(it, pieces);
	migrate_copy(it, pieces);
	folio_lru_migrate(f, it->dst, pieces);
	if (it->dst && refs > 1)
		folio_ref_add(it->dst, (int)refs - 1);
	if (it->shm) /* order 0: it->dst, never pieces */
		shmem_replace_folio(it->shm, it->shm_index, f, it->dst);
	migrate_remap(it, pieces);
	it->status = dst_folio(it, pieces, 0)->page.node;
	if (!it->dst)
		free_pieces(it); /* their allocation references: unmapped pieces go */
	page_clear_flags(&f->page, PG_locked);
	it->isolated = false; /* the frozen count held the reference */
	folio_free_frozen(f);
}

/*
 * migrate_freeze - after the unmap and its flush: is every reference to
 * @it's folio one of its migration entries' or the batch's own (taken at
 * queueing, as Linux's isolation does)? Then its refcount becomes 0
 * in the same exchange. A large folio's pincount is looked at too (its
 * pins are in its refcount as well, so a count that matched with a pin
 * left would be a bug elsewhere; it stays busy then). The ordering: the
 * entries were written and flushed before the exchange, and gup-fast
 * grabs (an exchange on the same count) before it re-reads the entry,
 * so a grab either comes first and fails the freeze, or comes after and
 * fails itself; a slow-path walk takes the entry's lock and finds the
 * migration entry.
 */
static bool migrate_freeze(struct migrate_item *it)
{
	struct folio *f = it->folio;

	/* the entries', the batch's, and a shared page's object's */
	int count = (int)it->nr_entries + 1 + (it->shm ? 1 : 0);

	if (!folio_ref_freeze(f, count))
		return false;
	if (!folio_test_large(f) || !folio_pincount(f))
		return true;
	folio_ref_unfreeze(f, count);
	return false;
}

/* The freeze failed: a reference was taken after migrate_prepare()
 * looked. Each migration entry becomes the mapping it replaced (the
 * entries kept the folio's references and bits, and the folio's pages
 * kept their AnonExclusive), the destination is freed, the folio is
 * busy. No flush: the entries go from invalid to valid. */
static void migrate_restore(struct migrate_item *it)
{
	struct folio *dst = it->dst;

	it->dst = it->folio; /* remap onto the folio itself */
	migrate_remap(it, NULL);
	it->dst = dst;
	if (dst)
		folio_put(dst);
	else
		free_pieces(it);
	it->status = -EBUSY;
}

/* After the group's flush: freeze and move @it's folio, or restore it
 * (also when a mapping the walk could not find is left: see
 * migrate_unmap()). */
static void migrate_finish(struct migrate_item *it)
{
	if (folio_mapcount(it->folio) || !migrate_freeze(it)) {
		migrate_restore(it);
		return;
	}
	if (migrate_window_hook)
		migrate_window_hook(MIGRATE_FROZEN, it->folio);
	migrate_move(it);
}

/* ---- the batch ---------------------------------------------------------------- */

/* Count @it's outcome. Return: the pages that did not move. */
static long migrate_account(struct migrate_item *it, unsigned long pages, bool thp)
{
	if (it->status < 0) {
		count_event(pgmigrate_fail, pages);
		return (long)pages;
	}
	count_event(pgmigrate_success, pages);
	if (thp)
		count_event(thp_migration_success, 1);
	return 0;
}

/* @n items: prepare all, unmap all, (one flush), then each: freeze and
 * move, or restore. */
static long migrate_group(struct migrate_item *it, int n)
{
	struct flush_set flushes = { NULL }, *defer = mm_caps.migrate_flush > 1 ? &flushes : NULL;
	long failed = 0;

	for (int k = 0; k < n; k++) {
		it[k].status = migrate_prepare(&it[k]);
		if (it[k].status)
			continue;
		if (migrate_window_hook)
			migrate_window_hook(MIGRATE_CHECKED, it[k].folio);
		migrate_unmap(&it[k], defer);
	}
	flush_set_flush(&flushes);
	if (migrate_unmapped_hook)
		migrate_unmapped_hook();
	for (int k = 0; k < n; k++) {
		unsigned long pages = folio_nr_pages(it[k].folio);
		bool thp = folio_order(it[k].folio) == PMD_ORDER && it[k].dst;

		if (!it[k].status)
			migrate_finish(&it[k]);
		failed += migrate_account(&it[k], pages, thp);
		if (it[k].isolated) { /* not moved: unlock it, drop the batch's reference */
			page_clear_flags(&it[k].folio->page, PG_locked);
			folio_put(it[k].folio);
		}
	}
	return failed;
}

long migrate_run_batch(struct migrate_batch *b)
{
	unsigned group = mm_caps.migrate_flush;
	long failed = 0;

	for (int i = 0, n; i < b->nr; i += n) {
		n = (int)cap_nr(group, (unsigned long)(b->nr - i));
		failed += migrate_group(&b->item[i], n);
	}
	b->nr = 0;
	return failed;
}
