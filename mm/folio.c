/*
 * folio.c - folio reference counts, mapcounts and pins.
 *
 * Every entry point checks before it changes anything, so a panic (which
 * the host runner can catch) leaves the folio as it was when no other CPU
 * changes it meanwhile. Each call counts one ref_update or
 * mapcount_update, whatever the amount, so that a batch of 16 PTEs shows
 * up as one update where the unbatched path shows 16.
 *
 * SMP: every count is changed by one atomic add or sub of the call's
 * whole amount (a batch of nr is one add of nr to refcount, pincount and
 * large_mapcount; per-page mapcounts take one add per page). Callers hold
 * a PTE lock, or a reference, that keeps the folio alive; the checks read
 * the counts as they are now, so they are exact on one CPU and a best
 * effort against other CPUs. Dropping the last reference is decided by
 * the atomic sub itself (acquire-release: whatever the other holders did
 * to the folio is visible to the CPU that frees it).
 *
 * Context: no locks taken except the allocator's (folio_free); callers
 * may hold a PTE lock.
 */
#include <stdio.h>

#include "counters.h"
#include "kernel.h"
#include "page_internal.h"

void folio_describe(const struct folio *f, char *buf, size_t size)
{
	const struct page *h = &f->page;
	uint64_t pfn = 0;
	int mapped = 0;
	bool known = memmap_lookup(h, &pfn);

	if (known && (h->flags & PG_large) && h->order <= MAX_ORDER)
		for (unsigned long i = 0; i < 1ul << h->order; i++)
			mapped += h[i].mapcount != 0;
	snprintf(buf, size,
		 "folio pfn %#llx%s order %u node %u refcount %d mapcount %d entire_mapcount %d "
		 "large_mapcount %d pages_mapped %d pincount %d flags %#x",
		 (unsigned long long)pfn, known ? "" : " (not in any memmap)", h->order, h->node,
		 h->refcount, h->mapcount, h->entire_mapcount, h->large_mapcount, mapped,
		 h->pincount, h->flags);
}

void folio_bug(const char *func, const struct folio *f, const char *what)
{
	char state[320];

	folio_describe(f, state, sizeof(state));
	panic("%s: %s: %s", func, what, state);
}

/* Panic unless @f is the head of an allocated folio with references. */
static void check_live(const char *func, const struct folio *f)
{
	uint32_t flags = page_flags(&f->page);
	int ref = folio_ref_count(f);

	if (flags & PG_reserved)
		folio_bug(func, f, "reserved page, not a folio");
	if (flags & PG_tail)
		folio_bug(func, f, "tail page, not a folio head");
	if ((flags & PG_buddy) || ref == 0)
		folio_bug(func, f, "folio is free (double free or use after free)");
	if (ref < 0)
		folio_bug(func, f, "negative refcount");
}

/* Panic if @f, about to lose its last reference with @unpins pins being
 * dropped, is still mapped or pinned. The look at each page's own
 * mapcount (which the folio's already sums) is mm_debug_vm's: it costs
 * ten instructions a page on every free. */
static void check_freeable(const char *func, const struct folio *f, int unpins)
{
	if (folio_mapcount(f) || folio_entire_mapcount(f))
		folio_bug(func, f, "freeing a mapped folio");
	for (unsigned long i = 0; mm_debug_vm && i < folio_nr_pages(f); i++)
		if (page_mapcount(folio_page((struct folio *)f, i)))
			folio_bug(func, f, "freeing a folio with a mapped page");
	if (folio_pincount(f) - unpins)
		folio_bug(func, f, "freeing a pinned folio");
}

/* Add @nr (>= 0) references; one ref_update. */
static void ref_add(const char *func, struct folio *f, int nr)
{
	check_live(func, f);
	if (nr < 0 || folio_ref_count(f) > INT32_MAX - nr)
		folio_bug(func, f, "refcount add out of range");
	arch_sched_point(SCHED_ATOMIC);
	__atomic_fetch_add(&f->page.refcount, nr, __ATOMIC_RELAXED);
	count_event(ref_updates, 1);
}

/* put_refs()'s fast path found that other CPUs dropped references
 * between its check and its sub: the last one went with it (@old == @nr),
 * or the count went negative. */
static void __attribute__((noinline, cold))
put_refs_raced(const char *func, struct folio *f, int nr, int old)
{
	if (old < nr)
		folio_bug(func, f, "refcount went negative (a racing put)");
	check_freeable(func, f, 0);
	folio_free(f);
}

/*
 * put_refs - drop @nr references, @unpins of them pins of a large folio;
 * free @f when none is left. Checks everything first (what another CPU
 * drops meanwhile is checked after the atomic sub: the count went
 * negative, or the last reference went with the folio still mapped).
 * One ref_update.
 */
static void put_refs(const char *func, struct folio *f, int nr, int unpins)
{
	int old;
	bool checked = false;

	check_live(func, f);
	if (nr <= 0)
		folio_bug(func, f, "put of a non-positive number of references");
	if (nr > folio_ref_count(f))
		folio_bug(func, f, "refcount would go negative");
	if (unpins > folio_pincount(f))
		folio_bug(func, f, "unpinning more pins than the folio has");
	if (nr == folio_ref_count(f)) {
		check_freeable(func, f, unpins);
		checked = true;
	}
	if (unpins) {
		arch_sched_point(SCHED_ATOMIC);
		__atomic_fetch_sub(&f->page.pincount, unpins, __ATOMIC_RELAXED);
	}
	arch_sched_point(SCHED_ATOMIC);
	old = __atomic_fetch_sub(&f->page.refcount, nr, __ATOMIC_ACQ_REL);
	count_event(ref_updates, 1);
	if (old < nr)
		folio_bug(func, f, "refcount went negative (a racing put)");
	if (old == nr) {
		if (!checked) /* another CPU dropped its references meanwhile */
			check_freeable(func, f, 0);
		folio_free(f);
	}
}

/*
 * put_refs_fast - put_refs(@func, @f, @nr, @unpins) when its checks pass
 * in the common case, with the same checks as one masked test and three
 * compares: a live folio that keeps references after the put (ref > nr >
 * 0, so check_freeable() has nothing to check yet) and has the @unpins
 * pins. Return: false, having done nothing, when put_refs() must decide.
 */
static inline bool put_refs_fast(const char *func, struct folio *f, int nr, int unpins)
{
	int old, ref = folio_ref_count(f);

	if ((page_flags(&f->page) & (PG_reserved | PG_tail | PG_buddy)) || nr <= 0 || ref <= nr ||
	    (unpins && unpins > folio_pincount(f)))
		return false;
	if (unpins) {
		arch_sched_point(SCHED_ATOMIC);
		__atomic_fetch_sub(&f->page.pincount, unpins, __ATOMIC_RELAXED);
	}
	arch_sched_point(SCHED_ATOMIC);
	old = __atomic_fetch_sub(&f->page.refcount, nr, __ATOMIC_ACQ_REL);
	count_event(ref_updates, 1);
	if (old <= nr)
		put_refs_raced(func, f, nr, old);
	return true;
}

void folio_get(struct folio *f)
{
	ref_add("folio_get", f, 1);
}

/* Says which of folio_ref_add()'s inline checks failed, and panics. */
void folio_ref_add_bug(const struct folio *f, int nr)
{
	char what[64];

	check_live("folio_ref_add", f);
	snprintf(what, sizeof(what), "refcount add of %d out of range", nr);
	folio_bug("folio_ref_add", f, what);
}

/* folio_ref_sub - drop @nr references that are known not to be the last. */
void folio_ref_sub(struct folio *f, int nr)
{
	check_live("folio_ref_sub", f);
	if (nr < 0 || nr >= folio_ref_count(f))
		folio_bug("folio_ref_sub", f, "refcount would reach zero (use folio_put_refs)");
	arch_sched_point(SCHED_ATOMIC);
	__atomic_fetch_sub(&f->page.refcount, nr, __ATOMIC_RELEASE);
	count_event(ref_updates, 1);
}

void folio_put(struct folio *f)
{
	put_refs("folio_put", f, 1, 0);
}

void folio_put_refs(struct folio *f, int nr)
{
	put_refs("folio_put_refs", f, nr, 0);
}

void folio_pin(struct folio *f, int nr)
{
	if (nr <= 0 || nr > INT32_MAX / GUP_PIN_COUNTING_BIAS)
		folio_bug("folio_pin", f, "pin count out of range");
	if (!folio_test_large(f)) {
		ref_add("folio_pin", f, nr * GUP_PIN_COUNTING_BIAS);
		return;
	}
	ref_add("folio_pin", f, nr);
	arch_sched_point(SCHED_ATOMIC);
	__atomic_fetch_add(&f->page.pincount, nr, __ATOMIC_RELAXED);
}

void folio_unpin(struct folio *f, int nr)
{
	if (nr <= 0 || nr > INT32_MAX / GUP_PIN_COUNTING_BIAS)
		folio_bug("folio_unpin", f, "pin count out of range");
	if (!folio_test_large(f)) {
		/* The fast path's ref > nr * bias covers the check below. */
		if (put_refs_fast("folio_unpin", f, nr * GUP_PIN_COUNTING_BIAS, 0))
			return;
		if (folio_ref_count(f) < nr * GUP_PIN_COUNTING_BIAS)
			folio_bug("folio_unpin", f, "unpinning a folio that is not pinned");
		put_refs("folio_unpin", f, nr * GUP_PIN_COUNTING_BIAS, 0);
		return;
	}
	if (!put_refs_fast("folio_unpin", f, nr, nr))
		put_refs("folio_unpin", f, nr, nr);
}

/*
 * folio_try_grab - take @nr references (pins when @pin) on @f without a
 * lock that keeps it alive: nothing is taken from a folio whose count is
 * zero (being freed). Two steps, as Linux's try_grab_folio_fast(): first
 * @nr plain references by compare-and-swap; only then, with the folio
 * held, is its size read to finish a pin (pincount for a large folio,
 * the rest of the bias for a small one). Size read before the CAS could
 * belong to a folio freed and reallocated at another order between the
 * read and the CAS: a pin counted the large way on what is now an order-0
 * folio, which its unpin then finds not pinned (make stress, mix pct seed
 * 1001944). The struct may by then be another folio than the caller's
 * lookup found; the caller re-reads the entry and gives the references
 * back through the same folio, which the references keep stable.
 * Both steps are fully ordered, as Linux's folio_ref_try_add() and the
 * smp_mb__after_atomic() after its pin count: the increments are visible
 * to every CPU before any later load of this one (gup-fast's re-read of
 * the pmd and the entries, its AnonExclusive look). GCC's __sync builtins
 * are full barriers: LOCK CMPXCHG / LOCK XADD on x86, LDXR/STLXR then
 * DMB ISH on arm64, where an acquire CAS (LDAXR/STXR) would let the
 * re-read pass the store. The pairing is in docs/gup.md ("the grab's
 * barrier"). One ref_update: one logical grab.
 */
bool folio_try_grab(struct folio *f, int nr, bool pin)
{
	int old = folio_ref_count(f), seen;

	if (nr <= 0 || nr > INT32_MAX / GUP_PIN_COUNTING_BIAS)
		folio_bug("folio_try_grab", f, "grab count out of range");
	for (;; old = seen) {
		if (old <= 0)
			return false;
		arch_sched_point(SCHED_ATOMIC);
		seen = __sync_val_compare_and_swap(&f->page.refcount, old, old + nr);
		if (seen == old)
			break;
	}
	if (pin) {
		arch_sched_point(SCHED_ATOMIC);
		if (folio_test_large(f))
			__sync_fetch_and_add(&f->page.pincount, nr);
		else
			__sync_fetch_and_add(&f->page.refcount, nr * (GUP_PIN_COUNTING_BIAS - 1));
	}
	count_event(ref_updates, 1);
	return true;
}

bool folio_ref_freeze(struct folio *f, int count)
{
	int old = count;

	check_live("folio_ref_freeze", f);
	if (count <= 0)
		folio_bug("folio_ref_freeze", f, "freezing at a non-positive count");
	if (!__atomic_compare_exchange_n(&f->page.refcount, &old, 0, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return false;
	count_event(ref_updates, 1);
	return true;
}

void folio_ref_unfreeze(struct folio *f, int count)
{
	if (folio_ref_count(f) || count <= 0)
		folio_bug("folio_ref_unfreeze", f, "not frozen, or a non-positive count");
	__atomic_store_n(&f->page.refcount, count, __ATOMIC_RELEASE);
}

void folio_free_frozen(struct folio *f)
{
	if (folio_ref_count(f) || (page_flags(&f->page) & (PG_reserved | PG_tail | PG_buddy)))
		folio_bug("folio_free_frozen", f, "not a frozen folio");
	check_freeable("folio_free_frozen", f, 0);
	folio_free(f);
}

bool folio_maybe_dma_pinned(const struct folio *f)
{
	if (folio_test_large(f))
		return folio_pincount(f) > 0;
	return folio_ref_count(f) >= GUP_PIN_COUNTING_BIAS;
}

/* The failure report of check_run(), kept out of line and cold so that
 * its message buffer and division stay off the hot path: check_run() runs
 * once per run, which for 4 KiB folios is once per page. */
static void __attribute__((noinline, cold))
run_bug(const char *func, const struct folio *f, const struct page *page, int nr)
{
	char what[96];

	snprintf(what, sizeof(what), "pages [%ld, +%d) are not inside the folio",
		 (long)((intptr_t)page - (intptr_t)&f->page) / (long)sizeof(struct page), nr);
	folio_bug(func, f, what);
}

/* Panic unless [@page, @page + @nr) is a non-empty run inside live @f. */
static inline void check_run(const char *func, const struct folio *f, const struct page *page,
			     int nr)
{
	uintptr_t first = (uintptr_t)&f->page, p = (uintptr_t)page;

	check_live(func, f);
	if (nr <= 0 || p < first ||
	    p + (uintptr_t)nr * sizeof(struct page) >
		    first + folio_nr_pages(f) * sizeof(struct page))
		run_bug(func, f, page, nr);
}

void folio_add_rmap_ptes_run(struct folio *f, struct page *page, int nr)
{
	check_run("folio_add_rmap_ptes", f, page, nr);
	arch_sched_point(SCHED_ATOMIC);
	for (int i = 0; i < nr; i++)
		__atomic_fetch_add(&page[i].mapcount, 1, __ATOMIC_RELAXED);
	if (folio_test_large(f))
		__atomic_fetch_add(&f->page.large_mapcount, nr, __ATOMIC_RELAXED);
	count_event(mapcount_updates, 1);
}

void folio_remove_rmap_ptes(struct folio *f, struct page *page, int nr)
{
	check_run("folio_remove_rmap_ptes", f, page, nr);
	for (int i = 0; i < nr; i++)
		if (page_mapcount(&page[i]) <= 0)
			folio_bug("folio_remove_rmap_ptes", f, "page mapcount underflow");
	if (folio_test_large(f) && folio_mapcount(f) < nr)
		folio_bug("folio_remove_rmap_ptes", f, "large_mapcount underflow");
	arch_sched_point(SCHED_ATOMIC);
	for (int i = 0; i < nr; i++)
		__atomic_fetch_sub(&page[i].mapcount, 1, __ATOMIC_RELAXED);
	if (folio_test_large(f))
		__atomic_fetch_sub(&f->page.large_mapcount, nr, __ATOMIC_RELAXED);
	count_event(mapcount_updates, 1);
}

/* Panic unless @f is a live PMD_ORDER folio. */
static void check_pmd_folio(const char *func, const struct folio *f)
{
	check_live(func, f);
	if (folio_order(f) != PMD_ORDER)
		folio_bug(func, f, "PMD mapping of a folio that is not PMD-sized");
}

void folio_add_rmap_pmd(struct folio *f)
{
	check_pmd_folio("folio_add_rmap_pmd", f);
	arch_sched_point(SCHED_ATOMIC);
	__atomic_fetch_add(&f->page.entire_mapcount, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&f->page.large_mapcount, 1, __ATOMIC_RELAXED);
	count_event(mapcount_updates, 1);
}

void folio_remove_rmap_pmd(struct folio *f)
{
	check_pmd_folio("folio_remove_rmap_pmd", f);
	if (folio_entire_mapcount(f) <= 0 || folio_mapcount(f) <= 0)
		folio_bug("folio_remove_rmap_pmd", f, "entire_mapcount underflow");
	arch_sched_point(SCHED_ATOMIC);
	__atomic_fetch_sub(&f->page.entire_mapcount, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&f->page.large_mapcount, 1, __ATOMIC_RELAXED);
	count_event(mapcount_updates, 1);
}

bool folio_maybe_mapped_shared(const struct folio *f)
{
	int entire = folio_entire_mapcount(f), large = folio_mapcount(f);

	if (!folio_test_large(f))
		return large > 1;
	if (entire > 1 || (entire && large > entire))
		return true;
	if (entire || large <= 1)
		return false;
	if ((unsigned long)large > folio_nr_pages(f))
		return true;
	for (unsigned long i = 0; i < folio_nr_pages(f); i++)
		if (page_mapcount(folio_page((struct folio *)f, i)) > 1)
			return true;
	return false;
}
