/*
 * swap_pool.c - the pages set aside for the swap device (swap.h).
 *
 * A slot's backing page comes from the allocator when it is needed, so a
 * page written to swap costs a free page for the one it frees: fine for
 * MADV_PAGEOUT, which is asked for, but reclaim under pressure would free
 * nothing. swap_reserve() sets pages aside first, as a swap device's
 * pages are not the RAM being reclaimed: a slot takes a page of the pool
 * while it has one, and gives a page back to the pool while the pool is
 * short of what was reserved.
 *
 * Context: pool_lock (LOCK_LEAF) guards the list and the counts; pages
 * are allocated and freed outside it.
 */
#include "kernel.h"
#include "mm_internal.h"
#include "lru.h"
#include "swap.h"

static struct list_head pool = { &pool, &pool }; /* free pool pages, linked by lru */
static unsigned long pool_free, pool_lent, pool_reserved;
static struct spinlock pool_lock = SPINLOCK_INIT(LOCK_LEAF, "swap pool lock");

/* The first free pool page, off the list; NULL when none.
 * Context: pool_lock held. */
static struct folio *pool_pop(void)
{
	struct folio *f;

	if (!pool_free)
		return NULL;
	f = (struct folio *)list_entry(pool.next, struct page, lru);
	list_del(&f->page.lru);
	pool_free--;
	return f;
}

long swap_reserve(unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++) {
		struct folio *f = folio_alloc(0, 0, ALLOC_ANY_NODE);

		if (!f) {
			lru_update_kept();
			return (long)i;
		}
		spin_lock(&pool_lock);
		list_add(&f->page.lru, &pool);
		pool_free++;
		pool_reserved++;
		spin_unlock(&pool_lock);
	}
	lru_update_kept();
	return (long)pages;
}

void swap_unreserve(void)
{
	for (;;) {
		struct folio *f = NULL;

		spin_lock(&pool_lock);
		if ((f = pool_pop()))
			pool_reserved--;
		spin_unlock(&pool_lock);
		if (!f)
			break;
		folio_put(f);
	}
	lru_update_kept();
}

unsigned long swap_pool_reserved(void)
{
	unsigned long n;

	spin_lock(&pool_lock);
	n = pool_reserved;
	spin_unlock(&pool_lock);
	return n;
}

unsigned long swap_pool_free(void)
{
	return __atomic_load_n(&pool_free, __ATOMIC_RELAXED);
}

struct folio *swap_page_get(void)
{
	struct folio *f = NULL;

	spin_lock(&pool_lock);
	if ((f = pool_pop()))
		pool_lent++;
	spin_unlock(&pool_lock);
	return f ? f : folio_alloc(0, 0, ALLOC_ANY_NODE);
}

void swap_page_put(struct folio *f)
{
	bool kept = false;

	spin_lock(&pool_lock);
	if (pool_lent) { /* pages are alike: this one stands for a lent one */
		list_add(&f->page.lru, &pool);
		pool_free++;
		pool_lent--;
		kept = true;
	}
	spin_unlock(&pool_lock);
	if (!kept)
		folio_put(f);
}
