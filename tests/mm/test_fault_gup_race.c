/*
 * test_fault_gup_race.c - a write fault and a GUP slow-path pin against a
 * migration on another CPU (docs/smp.md). Each case lands CPU 1's
 * migration in the window between CPU 0's read of an entry and its use
 * of what the entry pointed at:
 *
 *  - wp_fault_window_hook: a write fault on a COW-shared page has read the
 *    read-only PTE and chosen cow.c, which has not acted yet;
 *  - gup_pmd_window_hook: the slow path has read a PMD leaf without the
 *    page_table_lock and has not grabbed its folio yet;
 *  - wp_reuse_window_hook: an unshare fault has decided to reuse a page of
 *    a large folio and has not looked at the folio's other pages yet.
 *
 * The hook starts the migration and waits until it got through (its
 * entries stand, or it returned) or until it waits for the lock that the
 * window is held under. Held: the migration runs after the step, which
 * must then have used the entry as it was; not held: the step must see
 * what the migration did. With one CPU online each case says so and
 * checks the sequential order only.
 */
#include "migrate_cases.h"
#include "smp.h"
#include "spinlock.h"

struct mig_race {
	struct mm *mm, *child;
	unsigned long a;
	struct spinlock *lock; /* the lock the window may be held under */
	unsigned go, unmapped, migrated, stepped, hook_fired, saw_waiter;
	long migrate_ret, ret;
	struct page *page;
};

static struct mig_race *mig_now;

/* Start CPU 1's migration; wait until it got past the window (@until)
 * or waits for r->lock. */
static void migrate_in_window(struct mig_race *r, unsigned *until)
{
	r->saw_waiter = go_until_through_or_waiting(&r->go, until, r->lock);
}

/* CPU 1's migration, its entries standing: let CPU 0 go on, and keep
 * them standing until CPU 0's step is over. */
static void migration_unmapped(void)
{
	flag_set(&mig_now->unmapped);
	flag_wait(&mig_now->stepped);
}

/* CPU 1 migrates node 0 to 1 when told; CPU 0 runs @step. */
static void migrate_on_cpu1(unsigned cpu, struct mig_race *r, void (*step)(struct mig_race *))
{
	if (cpu == 1) {
		flag_wait(&r->go);
		r->migrate_ret = mm_migrate_pages(r->mm, N0, N1, MPOL_MF_MOVE_ALL);
		flag_set(&r->migrated);
		return;
	}
	step(r);
	flag_set(&r->stepped);
}

/* ---- race 2: a write fault on a COW page ------------------------------------ */

static void wp_in_window(struct mm *mm, unsigned long addr)
{
	struct mig_race *r = mig_now;

	if (mm != r->mm || addr >> PAGE_SHIFT != r->a >> PAGE_SHIFT || r->hook_fired++)
		return;
	migrate_in_window(r, &r->unmapped);
}

static void wp_write(struct mig_race *r)
{
	uint32_t v = 2;

	r->ret = mm_access(r->mm, r->a, &v, sizeof(v), true);
}

static void wp_during_migration(unsigned cpu, void *arg)
{
	migrate_on_cpu1(cpu, arg, wp_write);
}

/* The parent writes a page it shares with its child after fork while CPU
 * 1 migrates the mm: the migration lands after the fault read the
 * read-only PTE and before cow.c copies the page. cow.c must act on the
 * entry the fault read (the PTE lock kept: the migration waits) or see
 * the migration entry; it must never take a migration entry for a page.
 * Guards the PTE lock held from the read through cow.c: without it cow.c
 * reads the migration entry, whose pfn is no page (a NULL page_folio). */
TEST(fault_gup_race_wp_fault_meets_migration)
{
	struct mig_race r = { 0 };
	uint64_t free0;
	uint32_t v = 1, parent = 0, child = 0;

	NEED_TWO_NODES();
	r.mm = mm_case_begin(&free0);
	r.a = test_mmap(r.mm, PAGE_SIZE, RW | VM_NOHUGEPMD, 1);
	CHECK_EQ(mm_access(r.mm, r.a, &v, sizeof(v), true), 0);
	r.child = mm_fork(r.mm, NULL);
	CHECK(r.child != NULL);
	r.lock = &pmd_pt_page(pmdp_get(mm_find_pmd(r.mm, r.a, false)))->ptl;
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: migrate, then write\n");
		r.migrate_ret = mm_migrate_pages(r.mm, N0, N1, MPOL_MF_MOVE_ALL);
		wp_write(&r);
	} else {
		mig_now = &r;
		wp_fault_window_hook = wp_in_window;
		migrate_unmapped_hook = migration_unmapped;
		smp_run(2, wp_during_migration, &r);
		migrate_unmapped_hook = NULL;
		wp_fault_window_hook = NULL;
		printf("    write fault on a COW page: the migration %s\n",
		       r.saw_waiter ? "waited for the PTE lock"
				    : "unmapped the page in the window");
		CHECK_EQ(r.hook_fired, 1);
		CHECK(r.saw_waiter);
	}
	CHECK_EQ(r.ret, 0);
	CHECK_EQ(r.migrate_ret, 0);
	CHECK_EQ(mm_access(r.mm, r.a, &parent, sizeof(parent), false), 0);
	CHECK_EQ(mm_access(r.child, r.a, &child, sizeof(child), false), 0);
	CHECK_EQ(parent, 2);
	CHECK_EQ(child, 1);
	CHECK(folio_at(r.mm, r.a) != folio_at(r.child, r.a));
	/* SMP: the migration ran after the copy, and moved it too. */
	CHECK_EQ(off_node(r.mm, r.a, 1, smp_nr_cpus() < 2 ? 0 : 1), 0);
	mm_put(r.child);
	mm_case_end(r.mm, free0);
}

/* ---- race 3: a slow-path pin of a PMD-mapped THP ---------------------------- */

static void gup_pmd_in_window(struct mm *mm, unsigned long addr)
{
	struct mig_race *r = mig_now;

	(void)addr;
	if (mm != r->mm || r->hook_fired++)
		return;
	migrate_in_window(r, &r->migrated);
}

static void pin_thp(struct mig_race *r)
{
	r->ret = pin_user_pages(r->mm, r->a, 1, 0, &r->page);
}

static void pin_during_migration(unsigned cpu, void *arg)
{
	migrate_on_cpu1(cpu, arg, pin_thp);
}

/* A slow-path pin of a page of a PMD-mapped 2 MiB folio while CPU 1
 * migrates it: the whole migration (unmap, copy, remap, free of the old
 * folio) lands after the walk read the leaf and before it grabbed the
 * folio. The pin must land on the folio the mm maps and see its data.
 * Guards the leaf re-read under the page_table_lock before the grab:
 * without it the grab goes to the freed old folio ("folio is free"). */
TEST(fault_gup_race_pin_thp_meets_migration)
{
	struct mig_race r = { 0 };
	uint64_t free0;
	uint32_t v = 0x5a5a;
	bool by_pmd = false;
	pte_t pte;
	struct page *now;

	NEED_TWO_NODES();
	r.mm = mm_case_begin(&free0);
	r.a = (test_mmap(r.mm, 2 * PMD_SIZE, RW, ORDERS(PMD_ORDER)) + PMD_SIZE - 1) & PMD_MASK;
	CHECK_EQ(mm_access(r.mm, r.a, &v, sizeof(v), true), 0);
	CHECK(page_at(r.mm, r.a, &by_pmd, &pte) != NULL && by_pmd);
	r.lock = &r.mm->page_table_lock;
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: migrate, then pin\n");
		r.migrate_ret = mm_migrate_pages(r.mm, N0, N1, MPOL_MF_MOVE_ALL);
		pin_thp(&r);
	} else {
		mig_now = &r;
		gup_pmd_window_hook = gup_pmd_in_window;
		smp_run(2, pin_during_migration, &r);
		gup_pmd_window_hook = NULL;
		printf("    pin of a THP: the migration %s\n",
		       r.saw_waiter ? "waited for the page_table_lock" : "ran in the window");
		CHECK_EQ(r.hook_fired, 1);
	}
	CHECK_EQ(r.migrate_ret, 0);
	CHECK_EQ(r.ret, 1);
	if (r.ret == 1) {
		now = page_at(r.mm, r.a, &by_pmd, &pte);
		printf("    pinned pfn %#llx (node %d), the mm maps pfn %#llx (node %d)%s\n",
		       (unsigned long long)page_to_pfn(r.page), r.page->node,
		       (unsigned long long)page_to_pfn(now), now->node,
		       now == r.page ? "" : ": THE PIN IS ON A PAGE THE MM NO LONGER MAPS");
		CHECK(now == r.page);
		CHECK_EQ(*(uint32_t *)page_address(r.page), v);
		unpin_user_pages(&r.page, 1);
	}
	CHECK_EQ(off_node(r.mm, r.a, 1, 1), 0);
	mm_case_end(r.mm, free0);
}

/* ---- race 4: an unshare fault's reuse of a large folio ----------------------- */

#define RUN_PAGES 16		/* one 64K folio */
#define WINDOW_NS 2000000000ull /* CPU 0's longest wait for the migration to reach it */

/* CPU 0, reusing page 0 of the parent's folio: start CPU 1's migration
 * from the child and wait until it has turned the child's mappings into
 * migration entries (page 1's mapcount falls to the parent's one) and
 * waits for the parent's PTE lock, or returned, or WINDOW_NS passed. */
static void reuse_in_window(struct mm *mm, unsigned long addr)
{
	struct mig_race *r = mig_now;
	uint64_t t0 = time_ns();

	if (mm != r->mm || addr >> PAGE_SHIFT != r->a >> PAGE_SHIFT || r->hook_fired++)
		return;
	flag_set(&r->go);
	while (!__atomic_load_n(&r->migrated, __ATOMIC_ACQUIRE) && time_ns() - t0 < WINDOW_NS &&
	       (page_mapcount(r->page + 1) != 1 || !spin_is_contended(r->lock)))
		arch_cpu_relax();
	r->saw_waiter = page_mapcount(r->page + 1) == 1 && spin_is_contended(r->lock);
}

static void pin_read(struct mig_race *r)
{
	struct page *page;

	r->ret = pin_user_pages(r->mm, r->a, 1, 0, &page);
	if (r->ret == 1)
		r->page = page;
}

static void reuse_during_migration(unsigned cpu, void *arg)
{
	struct mig_race *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		r->migrate_ret = mm_migrate_pages(r->child, N0, N1, MPOL_MF_MOVE_ALL);
		flag_set(&r->migrated);
		return;
	}
	if (cpu == 0)
		pin_read(r);
}

/* Pages of the run both mms map that are marked AnonExclusive. */
static unsigned shared_but_exclusive(struct mig_race *r)
{
	unsigned n = 0;

	for (unsigned long i = 1; i < RUN_PAGES; i++) {
		struct folio *f = folio_at(r->mm, r->a + i * PAGE_SIZE);
		struct page *p =
			page_at(r->mm, r->a + i * PAGE_SIZE, &(bool){ false }, &(pte_t){ 0 });

		n += f && f == folio_at(r->child, r->a + i * PAGE_SIZE) && PageAnonExclusive(p);
	}
	return n;
}

/* A 64K folio shared by a parent and its child after fork; the child
 * unmapped page 0, so the parent alone maps it. A read-only pin of page 0
 * in the parent unshares it: page 0 is reused (its only mapping, no
 * reference but mappings) and the other pages that the parent alone maps
 * become AnonExclusive with it. CPU 1 migrates the folio from the child
 * in that window: the child's mappings of pages 1-15 are migration
 * entries (not AnonExclusive, no mapcount) when the fault looks at them.
 * They must stay shared. Guards the reuse's re-check of the folio's
 * references after it read the mapcounts: without it pages 1-15 are
 * marked AnonExclusive while the child maps them too (make stress, mix
 * pct seed 1003951: "AnonExclusive but mapped 2 times"). */
TEST(fault_gup_race_unshare_reuse_meets_migration)
{
	struct mig_race r = { 0 };
	uint64_t free0;
	struct page *pinned;
	unsigned bad;

	NEED_TWO_NODES();
	r.mm = mm_case_begin(&free0);
	r.a = test_mmap(r.mm, RUN_PAGES * PAGE_SIZE, RW | VM_NOHUGEPMD, ORDERS(4));
	fill(r.mm, r.a, RUN_PAGES, 5);
	r.child = mm_fork(r.mm, NULL);
	CHECK(r.child != NULL);
	CHECK_EQ(mm_munmap(r.child, r.a, PAGE_SIZE), 0);
	r.page = &folio_at(r.mm, r.a)->page;
	CHECK_EQ(folio_nr_pages(page_folio(r.page)), RUN_PAGES);
	r.lock = &pmd_pt_page(pmdp_get(mm_find_pmd(r.mm, r.a, false)))->ptl;
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: pin, then migrate\n");
		pin_read(&r);
		r.migrate_ret = mm_migrate_pages(r.child, N0, N1, MPOL_MF_MOVE_ALL);
	} else {
		mig_now = &r;
		wp_reuse_window_hook = reuse_in_window;
		smp_run(2, reuse_during_migration, &r);
		wp_reuse_window_hook = NULL;
		CHECK_EQ(r.hook_fired, 1);
		CHECK(r.saw_waiter);
	}
	bad = shared_but_exclusive(&r);
	printf("    unshare reuse%s: migrate returned %ld; %u of pages 1-%d shared with the "
	       "child but AnonExclusive\n",
	       r.saw_waiter ? " with the child's entries standing" : "", r.migrate_ret, bad,
	       RUN_PAGES - 1);
	CHECK_EQ(bad, 0);
	CHECK_MM_OK();
	CHECK_EQ(r.ret, 1);
	pinned = page_at(r.mm, r.a, &(bool){ false }, &(pte_t){ 0 });
	CHECK(r.ret != 1 || pinned == r.page);
	CHECK_EQ(bad_bytes_at(r.child, r.a + PAGE_SIZE, 1, RUN_PAGES - 1, 5), 0);
	CHECK_EQ(bad_bytes(r.mm, r.a, RUN_PAGES, 5), 0);
	if (r.ret == 1)
		unpin_user_pages(&r.page, 1);
	mm_put(r.child);
	mm_case_end(r.mm, free0);
}

/* ---- the full teardown's flush ----------------------------------------------- */

static void switch_on_cpu1(unsigned cpu, void *arg)
{
	if (cpu == 1)
		switch_mm(arg);
}

static void put_mm(void *arg)
{
	mm_put(arg);
}

/* mm_put()'s full teardown frees pages before its one flush, which is
 * right only if no other CPU's TLB can hold the mm: with the mm still
 * live on CPU 1 it must panic before it tears anything down. Guards
 * mm_check_unloaded(). */
TEST(fault_gup_race_teardown_while_live_elsewhere_panics)
{
	uint64_t free0;
	struct mm *mm;
	uint32_t v = 3;

	if (smp_nr_cpus() < 2)
		SKIP_CASE("needs a second CPU (MM_TEST_CPUS=2 or more)");
	mm = mm_case_begin(&free0);
	CHECK_EQ(mm_access(mm, test_mmap(mm, PAGE_SIZE, RW, 1), &v, sizeof(v), true), 0);
	smp_run(2, switch_on_cpu1, mm);
	CHECK_PANICS(put_mm, mm, "live on other CPUs (mask 0x2)");
	smp_run(2, switch_on_cpu1, NULL);
	__atomic_store_n(&mm->users, 1, __ATOMIC_RELAXED); /* it panicked before the teardown */
	mm_case_end(mm, free0);
}

TEST_SUITE(fault_gup_race, fault_gup_race_wp_fault_meets_migration,
	   fault_gup_race_pin_thp_meets_migration, fault_gup_race_unshare_reuse_meets_migration,
	   fault_gup_race_teardown_while_live_elsewhere_panics)
