/*
 * lru.c - the per-node two-list LRU of anon folios (the contract and the
 * locking are in lru.h).
 */
#include <string.h>

#include "kernel.h"
#include "lru.h"
#include "swap.h"
#include "vmscan.h"
#include "memblock.h"
#include "mm_internal.h"
#include "page_internal.h"

/* One per page frame; only a folio head's is used. */
struct lru_link {
	struct list_head node;
	/* The anon family of the mm that mapped the folio when it entered
	 * (compared, never followed: it may be gone), and the address of its
	 * first page there, | LINK_ISOLATED. */
	const struct anon_family *family;
	unsigned long addr;
};

/* In lru_link.addr (page aligned): the folio is isolated (lru_isolate()
 * took it; lru_putback() or lru_release() ends that). */
#define LINK_ISOLATED 1ul

struct lruvec {
	struct spinlock lock;
	struct list_head lists[NR_LRU_LISTS];
	unsigned long nr_pages[NR_LRU_LISTS];
	struct lru_link *links; /* pglists[i].end_pfn - start_pfn of them */
};

static struct lruvec lruvecs[MAX_NUMNODES];

void (*lru_free_window_hook)(struct folio *f);

void lru_links_alloc(int idx)
{
	struct pglist *pg = &pglists[idx];
	struct lruvec *lv = &lruvecs[idx];
	uint64_t bytes = (pg->end_pfn - pg->start_pfn) * sizeof(struct lru_link), pa;

	if (memblock_alloc(bytes, PAGE_SIZE, idx, "lru links", &pa))
		panic("lru_links_alloc: no room for node %d's links (%llu KiB)", idx,
		      (unsigned long long)(bytes >> 10));
	lv->links = phys_to_virt(pa);
	memset(lv->links, 0, bytes);
	spin_lock_init(&lv->lock, LOCK_LEAF, "lru_lock");
	for (int l = 0; l < NR_LRU_LISTS; l++)
		list_init(&lv->lists[l]);
}

static struct lruvec *folio_lruvec(const struct folio *f)
{
	return &lruvecs[f->page.node];
}

static struct lru_link *folio_link(struct lruvec *lv, const struct folio *f)
{
	return &lv->links[folio_pfn(f) - pglists[f->page.node].start_pfn];
}

static struct folio *link_folio(struct lruvec *lv, int nid, const struct lru_link *k)
{
	return (struct folio *)&pglists[nid].memmap[k - lv->links];
}

static enum lru_list folio_lru_list(const struct folio *f)
{
	return page_flags(&f->page) & PG_active ? LRU_ACTIVE : LRU_INACTIVE;
}

/* Add @n to list @l's count: a relaxed store, since lru_pages() reads it
 * without the lock. Context: the lru lock held. */
static void lru_count(struct lruvec *lv, enum lru_list l, long n)
{
	__atomic_store_n(&lv->nr_pages[l], lv->nr_pages[l] + (unsigned long)n, __ATOMIC_RELAXED);
}

/* Off its list. Context: the lru lock held; @f has PG_lru. */
static void lru_unlink(struct lruvec *lv, struct folio *f)
{
	enum lru_list l = folio_lru_list(f);

	list_del(&folio_link(lv, f)->node);
	lru_count(lv, l, -(long)folio_nr_pages(f));
	page_clear_flags(&f->page, PG_lru | PG_active);
}

/* Onto list @l, at the head (or the tail, @tail). Context: the lru lock
 * held; @f has no PG_lru. */
static void lru_link(struct lruvec *lv, struct folio *f, enum lru_list l, bool tail)
{
	struct lru_link *k = folio_link(lv, f);

	if (tail)
		list_add_tail(&k->node, &lv->lists[l]);
	else
		list_add(&k->node, &lv->lists[l]);
	lru_count(lv, l, (long)folio_nr_pages(f));
	page_set_flags(&f->page, PG_lru | (l == LRU_ACTIVE ? PG_active : 0));
}

void (*lru_move_window_hook)(struct folio *f, struct spinlock *lock);

/* From its list to the head (or the tail, @tail) of list @l, PG_lru kept
 * set throughout: folio_lru_del()'s unlocked test of PG_lru must never
 * see a listed folio as unlisted, and a move (lru_balance()) holds no
 * reference, so the folio's last put may run beside it. Context: the lru
 * lock held; @f has PG_lru. */
static void lru_move(struct lruvec *lv, struct folio *f, enum lru_list l, bool tail)
{
	struct lru_link *k = folio_link(lv, f);
	long n = (long)folio_nr_pages(f);

	list_del(&k->node);
	lru_count(lv, folio_lru_list(f), -n);
	if (lru_move_window_hook)
		lru_move_window_hook(f, &lv->lock); /* tests: the last put on another CPU here */
	if (tail)
		list_add_tail(&k->node, &lv->lists[l]);
	else
		list_add(&k->node, &lv->lists[l]);
	lru_count(lv, l, n);
	if (l == LRU_ACTIVE)
		page_set_flags(&f->page, PG_active);
	else
		page_clear_flags(&f->page, PG_active);
}

bool lru_kept;

void lru_update_kept(void)
{
	__atomic_store_n(&lru_kept, reclaim_watermark_set() || swap_pool_reserved() > 0,
			 __ATOMIC_RELAXED);
}

void __folio_add_lru(struct folio *f, struct mm *mm, unsigned long addr)
{
	struct lruvec *lv = folio_lruvec(f);
	struct lru_link *k = folio_link(lv, f);

	spin_lock(&lv->lock);
	if (page_flags(&f->page) & PG_lru)
		folio_bug("folio_add_lru", f, "already on an LRU list");
	k->family = mm->family;
	k->addr = addr;
	lru_link(lv, f, LRU_INACTIVE, false);
	spin_unlock(&lv->lock);
}

void __folio_lru_moved(struct folio *f, struct mm *mm, unsigned long from, unsigned long to)
{
	struct lruvec *lv = folio_lruvec(f);
	struct lru_link *k = folio_link(lv, f);

	spin_lock(&lv->lock);
	if ((page_flags(&f->page) & PG_lru) && k->family == mm->family && k->addr == from)
		k->addr = to;
	spin_unlock(&lv->lock);
}

void __folio_lru_del(struct folio *f)
{
	struct lruvec *lv = folio_lruvec(f);

	if (lru_free_window_hook)
		lru_free_window_hook(f); /* tests: an isolation on another CPU here */
	if (!(page_flags(&f->page) & PG_lru))
		return;
	spin_lock(&lv->lock);
	lru_unlink(lv, f);
	spin_unlock(&lv->lock);
}

/* @f (not on a list) onto list @l of its node with the record (@fam, @addr). */
static void lru_add_as(struct folio *f, enum lru_list l, const struct anon_family *fam,
		       unsigned long addr)
{
	struct lruvec *lv = folio_lruvec(f);
	struct lru_link *k = folio_link(lv, f);

	spin_lock(&lv->lock);
	k->family = fam;
	k->addr = addr;
	lru_link(lv, f, l, false);
	spin_unlock(&lv->lock);
}

void __folio_lru_migrate(struct folio *old, struct folio *dst, struct folio **pieces)
{
	struct lruvec *lv = folio_lruvec(old);
	struct lru_link *k = folio_link(lv, old);
	enum lru_list l = LRU_INACTIVE;
	const struct anon_family *fam = NULL;
	unsigned long addr = 0;

	spin_lock(&lv->lock);
	if (page_flags(&old->page) & PG_lru) {
		l = folio_lru_list(old);
		fam = k->family;
		addr = k->addr;
	}
	spin_unlock(&lv->lock);
	if (!fam)
		return;
	if (dst) {
		lru_add_as(dst, l, fam, addr);
		return;
	}
	for (unsigned long i = 0; i < folio_nr_pages(old); i++)
		lru_add_as(pieces[i], l, fam, addr + i * PAGE_SIZE);
}

void folio_deactivate(struct folio *f)
{
	struct lruvec *lv = folio_lruvec(f);

	spin_lock(&lv->lock);
	if (page_flags(&f->page) & PG_lru) {
		if (folio_lru_list(f) == LRU_ACTIVE)
			count_event(pgdeactivate, folio_nr_pages(f));
		lru_move(lv, f, LRU_INACTIVE, true);
	}
	spin_unlock(&lv->lock);
}

/* The grab, not a plain get: a count of 0 is a folio whose last put has
 * happened and whose folio_free() waits for this lock to take it off. */
unsigned lru_isolate(int nid, struct mm *mm, struct lru_isolated *out, unsigned max,
		     unsigned long pages)
{
	struct lruvec *lv = &lruvecs[nid];
	struct list_head *head = &lv->lists[LRU_INACTIVE], *e, *prev;
	unsigned long taken = 0;
	unsigned n = 0;

	spin_lock(&lv->lock);
	for (e = head->prev; e != head && n < max && taken < pages; e = prev) {
		struct lru_link *k = list_entry(e, struct lru_link, node);
		struct folio *f = link_folio(lv, nid, k);

		prev = e->prev;
		if (k->family != mm->family || !folio_try_grab(f, 1, false))
			continue;
		lru_unlink(lv, f);
		out[n++] = (struct lru_isolated){ f, k->addr, folio_nr_pages(f) };
		k->addr |= LINK_ISOLATED;
		taken += folio_nr_pages(f);
		count_event(pgscan, folio_nr_pages(f));
	}
	spin_unlock(&lv->lock);
	return n;
}

void lru_putback(struct lru_isolated *iso, enum lru_list l)
{
	struct lruvec *lv = folio_lruvec(iso->folio);

	spin_lock(&lv->lock);
	folio_link(lv, iso->folio)->addr &= ~LINK_ISOLATED;
	lru_link(lv, iso->folio, l, false);
	spin_unlock(&lv->lock);
	if (l == LRU_ACTIVE)
		count_event(pgactivate, iso->nr);
	folio_put(iso->folio);
}

void lru_release(struct lru_isolated *iso)
{
	struct lruvec *lv = folio_lruvec(iso->folio);

	spin_lock(&lv->lock);
	folio_link(lv, iso->folio)->addr &= ~LINK_ISOLATED;
	spin_unlock(&lv->lock);
	folio_put(iso->folio);
}

bool lru_isolated(struct folio *f)
{
	struct lruvec *lv = folio_lruvec(f);
	bool isolated;

	spin_lock(&lv->lock);
	isolated = folio_link(lv, f)->addr & LINK_ISOLATED;
	spin_unlock(&lv->lock);
	return isolated;
}

void lru_balance(int nid)
{
	struct lruvec *lv = &lruvecs[nid];

	spin_lock(&lv->lock);
	while (lv->nr_pages[LRU_INACTIVE] < lv->nr_pages[LRU_ACTIVE]) {
		struct lru_link *k = list_entry(lv->lists[LRU_ACTIVE].prev, struct lru_link, node);
		struct folio *f = link_folio(lv, nid, k);

		count_event(pgdeactivate, folio_nr_pages(f));
		lru_move(lv, f, LRU_INACTIVE, false);
	}
	spin_unlock(&lv->lock);
}

unsigned long lru_pages(int nid, enum lru_list l)
{
	return nid >= 0 && nid < nr_pglists
		       ? __atomic_load_n(&lruvecs[nid].nr_pages[l], __ATOMIC_RELAXED)
		       : 0;
}

/* Problems with list @l of node @nid. Context: its lru lock held. */
static int check_list(int nid, enum lru_list l, bool all_mapped)
{
	struct lruvec *lv = &lruvecs[nid];
	unsigned long pages = 0;
	struct list_head *e;
	int bad = 0;

	list_for_each(e, &lv->lists[l]) {
		struct folio *f = link_folio(lv, nid, list_entry(e, struct lru_link, node));
		uint32_t flags = page_flags(&f->page);
		const char *what = NULL;

		if ((flags & (PG_buddy | PG_tail)) || folio_ref_count(f) <= 0)
			what = "free or not a head";
		else if (!(flags & PG_lru) || !(flags & PG_anon) || folio_lru_list(f) != l)
			what = "flags disagree with the list";
		else if (all_mapped && !folio_mapcount(f))
			what = "not mapped";
		if (what) {
			printf("lru_check: node %d list %d: pfn %#llx: %s (flags %#x)\n", nid, l,
			       (unsigned long long)folio_pfn(f), what, flags);
			bad++;
			continue;
		}
		pages += folio_nr_pages(f);
	}
	if (!bad && pages != lv->nr_pages[l]) {
		printf("lru_check: node %d list %d: %lu pages listed, count %lu\n", nid, l, pages,
		       lv->nr_pages[l]);
		bad++;
	}
	return bad;
}

int lru_check(bool all_mapped)
{
	int bad = 0;

	for (int nid = 0; nid < nr_pglists; nid++) {
		spin_lock(&lruvecs[nid].lock);
		for (int l = 0; l < NR_LRU_LISTS; l++)
			bad += check_list(nid, (enum lru_list)l, all_mapped);
		spin_unlock(&lruvecs[nid].lock);
	}
	return bad;
}

unsigned lru_snapshot(int nid, enum lru_list l, struct folio **out, unsigned max)
{
	struct lruvec *lv = &lruvecs[nid];
	struct list_head *e;
	unsigned n = 0;

	spin_lock(&lv->lock);
	list_for_each(e, &lv->lists[l]) {
		if (n < max)
			out[n] = link_folio(lv, nid, list_entry(e, struct lru_link, node));
		n++;
	}
	spin_unlock(&lv->lock);
	return n < max ? n : max;
}
