/*
 * test_migrate_smp.c - migration against a pin taken on another CPU
 * (docs/migrate.md, "Pins against the migration"). A pin needs no lock
 * that migration holds for write: gup-fast takes none, the slow path the
 * mmap_lock for read, as migration does. So a pin may land after
 * migrate_prepare()'s early reference check; only the check made after
 * the unmap (the refcount freeze) can see it. migrate_window_hook
 * (MIGRATE_CHECKED) runs CPU 0's pin in that window, for each folio size
 * and path:
 *
 *  - 4 KiB, a PTE-mapped 64 KiB folio, a PMD-mapped 2 MiB folio;
 *  - gup-fast (FOLL_FAST_ONLY) and the slow path (pin_user_pages);
 *  - every cap at 1 and at max.
 *
 * Afterwards the pinned page must be the page the mm maps, and a write
 * through the mm must show through the pin: the migration must have left
 * the folio where it was and counted it as busy. With one CPU online the
 * cases pin first, then migrate (the early check refuses the folio).
 *
 * The last case is the other side of the freeze: a gup-fast that read
 * the entry before the unmap grabs while the folio is frozen
 * (MIGRATE_FROZEN); the grab must fail and leave the count at 0.
 */
#include "migrate_cases.h"
#include "smp.h"

struct mrace {
	struct mm *mm;
	unsigned long a; /* the page CPU 0 pins */
	bool slow;	 /* pin_user_pages(), not gup-fast */
	unsigned go, pinned_flag, fired, frozen;
	long pinned, migrate_ret;
	struct page *page;
	int ref_frozen, ref_after; /* the old folio's count, frozen: before and after the grab */
};

static struct mrace *mrace_now;

static long pin_one(struct mrace *r)
{
	if (r->slow)
		return pin_user_pages(r->mm, r->a, 1, FOLL_WRITE, &r->page);
	return pin_user_pages_fast(r->mm, r->a, 1, FOLL_WRITE | FOLL_FAST_ONLY, &r->page);
}

/* CPU 1, the folio checked and not yet unmapped: let CPU 0 pin, wait. */
static void pin_in_window(enum migrate_window where, struct folio *folio)
{
	struct mrace *r = mrace_now;

	(void)folio;
	if (where != MIGRATE_CHECKED || r->fired++)
		return;
	flag_set(&r->go);
	flag_wait(&r->pinned_flag);
}

static void migrate_vs_pin(unsigned cpu, void *arg)
{
	struct mrace *r = arg;

	if (cpu == 1) {
		r->migrate_ret = mm_migrate_pages(r->mm, N0, N1, MPOL_MF_MOVE_ALL);
		return;
	}
	if (cpu != 0)
		return;
	flag_wait(&r->go);
	r->pinned = pin_one(r);
	flag_set(&r->pinned_flag);
}

/* What the pinned page holds where the test writes through the mm (not
 * where fill() put its bytes). */
static uint32_t seen(struct page *page)
{
	return *(uint32_t *)((char *)page_address(page) + 16);
}

static const struct {
	unsigned order;
	bool pmd;
	const char *name;
} race_sizes[] = { { 0, false, "4K" }, { 4, false, "64K" }, { PMD_ORDER, true, "2M PMD" } };

/* One round: map a folio of @s on node 0, race, check what the pin sees. */
static void race_one(unsigned s, bool slow, int batched)
{
	struct mm *mm = begin(batched);
	unsigned long pages = 1ul << race_sizes[s].order, len = pages * PAGE_SIZE;
	unsigned long a = test_mmap(mm, len, RW | (race_sizes[s].pmd ? 0 : VM_NOHUGEPMD),
				    ORDERS(race_sizes[s].order));
	struct mrace r = { .mm = mm, .a = a + (pages > 1 ? PAGE_SIZE : 0), .slow = slow };
	struct mm_counters c0;
	struct page *now;
	uint32_t v = 0x5eed;
	bool by_pmd;
	pte_t pte;

	fill(mm, a, pages, 3);
	page_at(mm, a, &by_pmd, &pte);
	CHECK_EQ(by_pmd, race_sizes[s].pmd);
	c0 = mm_counters_read();
	if (smp_nr_cpus() < 2) {
		r.pinned = pin_one(&r);
		r.migrate_ret = mm_migrate_pages(mm, N0, N1, MPOL_MF_MOVE_ALL);
	} else {
		mrace_now = &r;
		migrate_window_hook = pin_in_window;
		smp_run(2, migrate_vs_pin, &r);
		migrate_window_hook = NULL;
	}
	CHECK_EQ(r.pinned, 1);
	if (r.pinned != 1) {
		mm_case_end(mm, free_before);
		return;
	}
	now = page_at(mm, r.a, &by_pmd, &pte);
	CHECK_EQ(mm_access(mm, r.a + 16, &v, sizeof(v), true), 0);
	printf("    %s %s, caps %s: migrate returned %ld; pinned pfn %#llx (node %d), the mm "
	       "maps pfn %#llx (node %d), the pin sees %#x after the mm wrote %#x%s\n",
	       race_sizes[s].name, slow ? "slow path" : "gup-fast", batched ? "max" : "1",
	       r.migrate_ret, (unsigned long long)page_to_pfn(r.page), r.page->node,
	       (unsigned long long)page_to_pfn(now), now->node, seen(r.page), v,
	       now == r.page ? "" : ": THE PIN IS ON A PAGE THE MM NO LONGER MAPS");
	CHECK(now == r.page);
	CHECK_EQ(by_pmd, race_sizes[s].pmd); /* mapped back as it was */
	CHECK_EQ(seen(r.page), v);
	CHECK_EQ(r.migrate_ret, (long)pages); /* busy: every page of the folio stays */
	CHECK_EQ(counters_since(&c0).pgmigrate_fail, pages);
	CHECK_EQ(off_node(mm, a, pages, 0), 0);
	CHECK_MM_OK();
	unpin_user_pages(&r.page, 1);
	/* The folio was left exactly as it was: it moves now, bytes kept. */
	CHECK_EQ(mm_migrate_pages(mm, N0, N1, MPOL_MF_MOVE_ALL), 0);
	CHECK_EQ(off_node(mm, a, pages, 1), 0);
	CHECK_EQ(bad_bytes(mm, a, pages, 3), 0);
	mm_case_end(mm, free_before);
}

static void race_all(bool slow)
{
	if (smp_nr_cpus() < 2)
		printf("    1 CPU online: pin, then migrate\n");
	FOR_BOTH_CAPS(b)
		for (unsigned s = 0; s < sizeof(race_sizes) / sizeof(race_sizes[0]); s++)
			race_one(s, slow, b);
}

/* gup-fast pins the folio after migration checked its references and
 * before it unmapped it. Guards the refcount freeze after the unmap:
 * without it the migration copies the folio away from the pin, which
 * then sees none of the mm's writes. */
TEST(migrate_race_fast_pin_after_the_check)
{
	NEED_TWO_NODES();
	race_all(false);
}

/* The same pin by the slow path (the mmap_lock for read, as migration
 * holds it, and the PTE lock, which migration takes only to unmap). */
TEST(migrate_race_slow_pin_after_the_check)
{
	NEED_TWO_NODES();
	race_all(true);
}

/* CPU 0's gup-fast, between its read of the entry and its grab: let CPU
 * 1 migrate until the folio is frozen. */
static void gup_waits_for_freeze(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	struct mrace *r = mrace_now;

	(void)mm, (void)addr, (void)ptep;
	if (r->fired++)
		return;
	flag_set(&r->go);
	flag_wait(&r->frozen);
}

/* CPU 1, the folio frozen: let CPU 0 grab, wait for its gup-fast to end. */
static void frozen_window(enum migrate_window where, struct folio *folio)
{
	struct mrace *r = mrace_now;

	if (where != MIGRATE_FROZEN)
		return;
	r->ref_frozen = folio_ref_count(folio);
	flag_set(&r->frozen);
	flag_wait(&r->pinned_flag);
	r->ref_after = folio_ref_count(folio);
}

static void grab_vs_freeze(unsigned cpu, void *arg)
{
	struct mrace *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		r->migrate_ret = mm_migrate_pages(r->mm, N0, N1, MPOL_MF_MOVE_ALL);
		return;
	}
	if (cpu != 0)
		return;
	r->pinned = pin_one(r);
	flag_set(&r->pinned_flag);
}

/* gup-fast read the entry before the unmap and grabs while the folio is
 * frozen: folio_try_grab() must refuse the count of 0 and change nothing
 * (the migration then frees the folio without leaving 0). Guards the
 * grab's refusal of 0 against the freeze: a grab that took a reference
 * from 0 would give it back on its re-read and free the folio under the
 * migration. 4K and 64K (gup_fast_window_hook is at the PTE level). */
TEST(migrate_race_fast_grab_on_a_frozen_folio)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b)
		for (unsigned s = 0; s < 2; s++) {
			struct mm *mm = begin(b);
			unsigned long pages = 1ul << race_sizes[s].order, len = pages * PAGE_SIZE;
			unsigned long a =
				test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(race_sizes[s].order));
			struct mrace r = { .mm = mm, .a = a };

			fill(mm, a, pages, 4);
			if (smp_nr_cpus() < 2) {
				printf("    1 CPU online: migrate only\n");
				r.migrate_ret = mm_migrate_pages(mm, N0, N1, MPOL_MF_MOVE_ALL);
			} else {
				mrace_now = &r;
				gup_fast_window_hook = gup_waits_for_freeze;
				migrate_window_hook = frozen_window;
				smp_run(2, grab_vs_freeze, &r);
				migrate_window_hook = NULL;
				gup_fast_window_hook = NULL;
				printf("    %s, caps %s: the old folio's refcount %d when frozen, "
				       "%d "
				       "after gup-fast's grab, which took %ld\n",
				       race_sizes[s].name, b ? "max" : "1", r.ref_frozen,
				       r.ref_after, r.pinned);
				CHECK_EQ(r.ref_frozen, 0);
				CHECK_EQ(r.ref_after, 0);
				CHECK_EQ(r.pinned, 0);
			}
			CHECK_EQ(r.migrate_ret, 0);
			CHECK_EQ(off_node(mm, a, pages, 1), 0);
			CHECK_EQ(bad_bytes(mm, a, pages, 4), 0);
			CHECK_MM_OK();
			mm_case_end(mm, free_before);
		}
}

TEST_SUITE(migrate_race, migrate_race_fast_pin_after_the_check,
	   migrate_race_slow_pin_after_the_check, migrate_race_fast_grab_on_a_frozen_folio)
