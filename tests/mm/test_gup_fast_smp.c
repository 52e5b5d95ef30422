/*
 * test_gup_fast_smp.c - gup-fast against the CPUs that change what it
 * walks: fork, munmap, migration (docs/smp.md, "gup-fast against the
 * other CPUs"). Each deterministic case puts the other CPU's step inside
 * the window one check of gup-fast closes, and fails with that check
 * removed:
 *
 *  - the fork cases hold the PTE lock of the second of two tables, so
 *    CPU 1's fork stops there, half done (table 1 write-protected, the
 *    write_protect_seq odd), and CPU 0 pins in table 2 meanwhile: the pin
 *    must not land on a page the fork then shares; pin_between_fork_passes
 *    holds table 1's lock instead, so the fork stops between its passes;
 *  - the munmap and migration cases use gup_fast_window_hook (between the
 *    read of an entry and the grab of its folio) to run CPU 1's munmap or
 *    migration there.
 *
 * A free-running loop (CPU 1 pins while CPU 0 forks and writes, over and
 * over) checks cow.c's promise without any hook. With one CPU online
 * each case says so and checks the sequential order only.
 */
#include "migrate_cases.h"
#include "lockless_walk.h"
#include "smp.h"
#include "spinlock.h"

#define RACE_ROUNDS 40 /* rounds of the free-running loop */
#define RACE_PAGES 16  /* pages per pin: one 64K folio */

struct race {
	struct mm *mm, *child;
	unsigned long a1, a2; /* a page in table 1, one in table 2 */
	struct spinlock *ptl1, *ptl2;
	struct page *pages[2]; /* gup-fast's, over a1 and the page after it */
	long pinned;
	struct page *page;
	unsigned go, done, unmapped, hook_fired;
	uint64_t waits0;
	int table_freed;
	uint64_t table_pfn;
	long migrate_ret;
	long fast_during_migration;
	int err;
};

static struct race *race_now;

/* The entry at @a, read atomically (another CPU may be changing it). */
static pte_t pte_now(struct mm *mm, unsigned long a)
{
	pmd_t *pmdp = mm_find_pmd(mm, a, false);
	pte_t *ptep = pmd_table(pmdp_get(pmdp)) + pte_index(a);

	return (pte_t){ __atomic_load_n(&ptep->val, __ATOMIC_ACQUIRE) };
}

/* ---- fork ------------------------------------------------------------------ */

/* A fresh mm with one page written in each of two PTE tables. */
static void fork_setup(struct race *r, uint64_t *free0)
{
	unsigned long base;
	uint32_t v = 1;

	r->mm = mm_case_begin(free0);
	base = test_mmap(r->mm, 2 * PMD_SIZE, RW | VM_NOHUGEPMD, 1);
	r->a1 = base;
	r->a2 = (base + PMD_SIZE) & PMD_MASK;
	CHECK_EQ(mm_access(r->mm, r->a1, &v, sizeof(v), true), 0);
	CHECK_EQ(mm_access(r->mm, r->a2, &v, sizeof(v), true), 0);
	r->ptl2 = &pmd_pt_page(pmdp_get(mm_find_pmd(r->mm, r->a2, false)))->ptl;
}

/* CPU 0, with table 2's lock held: wait until CPU 1's fork has
 * write-protected table 1 (it then waits for this lock, half done). */
static void wait_for_half_fork(struct race *r)
{
	while (pte_write(pte_now(r->mm, r->a1)))
		arch_cpu_relax();
}

/* After the fork: the parent writes @a2, and a page pinned there must be
 * the page the parent maps and hold what it wrote (cow.c's promise). */
static void fork_check(struct race *r, const char *what)
{
	uint32_t v = 0xabcd;
	bool by_pmd;
	pte_t pte;
	struct page *now;

	CHECK(r->child != NULL);
	CHECK_EQ(mm_access(r->mm, r->a2, &v, sizeof(v), true), 0);
	now = page_at(r->mm, r->a2, &by_pmd, &pte);
	if (r->pinned == 1) {
		uint32_t seen = *(uint32_t *)page_address(r->page);

		printf("    %s: gup-fast pinned pfn %#llx; the parent maps pfn %#llx, the pin "
		       "sees %#x after the parent wrote %#x%s\n",
		       what, (unsigned long long)page_to_pfn(r->page),
		       (unsigned long long)page_to_pfn(now), seen, v,
		       r->page == now && seen == v ? "" : ": THE PIN LOST THE PARENT'S PAGE");
		CHECK(r->page == now);
		CHECK_EQ(seen, v);
		gup_fast_unpin_pages(&r->page, 1); /* shared, if the check failed */
	} else {
		printf("    %s: gup-fast took nothing (%ld): the slow path's turn\n", what,
		       r->pinned);
		CHECK_EQ(r->pinned, 0);
	}
	mm_put(r->child);
}

static void fork_on_cpu1(unsigned cpu, struct race *r)
{
	if (cpu == 1) {
		r->child = mm_fork(r->mm, NULL);
		flag_set(&r->done);
	}
}

/* CPU 0 pins while the fork is stopped half way: write_protect_seq is odd. */
static void pin_during_fork(unsigned cpu, void *arg)
{
	struct race *r = arg;

	fork_on_cpu1(cpu, r);
	if (cpu != 0)
		return;
	wait_for_half_fork(r);
	r->pinned = pin_user_pages_fast(r->mm, r->a2, 1, FOLL_WRITE | FOLL_FAST_ONLY, &r->page);
	spin_unlock(r->ptl2);
}

/* The pin starts while the fork is copying: gup-fast must see the odd
 * write_protect_seq and leave the page to the slow path (which waits for
 * the fork's mmap_lock). Guards the odd-seq check: without it the pin
 * lands in table 2, the fork (which read MMF_HAS_PINNED clear) shares the
 * page, and the parent's write copies it away from the pin. */
TEST(gup_fast_race_pin_while_fork_copies)
{
	struct race r = { 0 };
	uint64_t free0;

	fork_setup(&r, &free0);
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: fork, then pin\n");
		r.child = mm_fork(r.mm, NULL);
		r.pinned = pin_user_pages_fast(r.mm, r.a2, 1, FOLL_WRITE | FOLL_FAST_ONLY, &r.page);
		CHECK_EQ(r.pinned, 0); /* write-protected by the fork: a fault's turn */
	} else {
		spin_lock(r.ptl2);
		smp_run(2, pin_during_fork, &r);
	}
	fork_check(&r, "pin during the fork");
	mm_case_end(r.mm, free0);
}

/* In the walk, before the grab: start the fork and let it get half way. */
static void fork_in_window(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	struct race *r = race_now;

	(void)mm, (void)addr, (void)ptep;
	if (r->hook_fired++)
		return;
	flag_set(&r->go);
	wait_for_half_fork(r);
}

static void fork_starts_inside_walk(unsigned cpu, void *arg)
{
	struct race *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		fork_on_cpu1(cpu, r);
		return;
	}
	r->pinned = pin_user_pages_fast(r->mm, r->a2, 1, FOLL_WRITE | FOLL_FAST_ONLY, &r->page);
	spin_unlock(r->ptl2);
}

/* The fork begins after gup-fast read write_protect_seq and before it
 * grabs: the pin lands between the fork's pin check (pass 1 found none)
 * and its copy of table 2. gup-fast must see the seq moved and give the
 * pin back. Guards the seq re-read after the walk: without it the fork
 * shares the pinned page (no copy reserved for it) and the parent's
 * write copies it away from the pin. */
TEST(gup_fast_race_fork_begins_inside_the_walk)
{
	struct race r = { 0 };
	uint64_t free0;

	fork_setup(&r, &free0);
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: pin, then fork\n");
		r.pinned = pin_user_pages_fast(r.mm, r.a2, 1, FOLL_WRITE | FOLL_FAST_ONLY, &r.page);
		CHECK_EQ(r.pinned, 1);
		r.child = mm_fork(r.mm, NULL); /* copies the pinned page for the child */
	} else {
		race_now = &r;
		spin_lock(r.ptl2);
		gup_fast_window_hook = fork_in_window;
		smp_run(2, fork_starts_inside_walk, &r);
		gup_fast_window_hook = NULL;
	}
	fork_check(&r, "fork inside the walk");
	mm_case_end(r.mm, free0);
}

/* Does a CPU wait in spin_lock(@l) (the holder aside)? */
static bool lock_has_waiter(struct spinlock *l)
{
	return spin_is_contended(l);
}

/*
 * In the walk of a1 and the page after it, before each grab. First
 * (a1): start the fork and wait until it waits for table 1's lock: pass
 * 1 is over (it takes no PTE lock), having reserved a copy for the page
 * pinned at a2 only, and pass 2 has not reached a1; then gup-fast grabs
 * a1. Second (a1 + 4K): let the fork run to its end with that pin held.
 */
static void pin_between_fork_passes(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	struct race *r = race_now;

	(void)mm, (void)ptep;
	if (r->hook_fired++ == 0) {
		flag_set(&r->go);
		while (!lock_has_waiter(r->ptl1))
			arch_cpu_relax();
		return;
	}
	if (addr != r->a1 + PAGE_SIZE)
		return;
	spin_unlock(r->ptl1);
	flag_wait(&r->done);
}

static void fork_between_pins(unsigned cpu, void *arg)
{
	struct race *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		fork_on_cpu1(cpu, r);
		return;
	}
	r->pinned = pin_user_pages_fast(r->mm, r->a1, 2, FOLL_WRITE | FOLL_FAST_ONLY, r->pages);
	if (r->hook_fired < 2)
		spin_unlock(r->ptl1); /* the walk stopped at a1: let the fork finish */
}

/* After the fork: the page pinned before it (at a2) is still the
 * parent's, exclusive, and sees the parent's write; the child has the
 * data from before the fork. The pin on a1 was given back. */
static void check_pinned_before_fork(struct race *r)
{
	uint32_t v = 0xbeef, child_sees = 0;
	bool by_pmd;
	pte_t pte;
	struct page *now = page_at(r->mm, r->a2, &by_pmd, &pte);
	bool excl = PageAnonExclusive(now);
	uint32_t seen;

	CHECK(r->child != NULL);
	CHECK_EQ(r->pinned, 0);
	CHECK_EQ(mm_access(r->mm, r->a2, &v, sizeof(v), true), 0);
	CHECK_EQ(mm_access(r->child, r->a2, &child_sees, sizeof(child_sees), false), 0);
	seen = *(uint32_t *)page_address(r->page);
	printf("    pin between the passes: gup-fast took %ld; the page pinned before the fork "
	       "is %s, the pin sees %#x after the parent wrote %#x%s; the child sees %#x\n",
	       r->pinned, excl ? "exclusive" : "SHARED", seen, v,
	       page_at(r->mm, r->a2, &by_pmd, &pte) == r->page ? "" : ": THE PIN LOST THE PAGE",
	       child_sees);
	CHECK(excl);
	CHECK(page_at(r->mm, r->a2, &by_pmd, &pte) == r->page);
	CHECK_EQ(seen, v);
	CHECK_EQ(child_sees, 1);
	/* a1, pinned only after pass 1, is shared: no copy was reserved for it. */
	CHECK(page_at(r->child, r->a1, &by_pmd, &pte) == page_at(r->mm, r->a1, &by_pmd, &pte));
	CHECK(!PageAnonExclusive(page_at(r->mm, r->a1, &by_pmd, &pte)));
	gup_fast_unpin_pages(&r->page, 1); /* unpin_user_pages() panics on a shared page */
	mm_put(r->child);
}

/* a2 (table 2) is pinned before the fork, so pass 1 reserves one copy,
 * for a2. A gup-fast pin on a1 (table 1, earlier) that read
 * write_protect_seq before the fork began lands after pass 1 and stays
 * held while pass 2 copies table 1 (gup-fast gives it back only after
 * its walk). Pass 2 must not give a1 the copy reserved for a2: a1 is
 * shared (its pin is given back) and a2 keeps its copy, so the parent
 * keeps a2 exclusive and its writes reach the pin. Guards the tie of a
 * reserved copy to its page: without it a2 is shared, and the parent's
 * write copies it away from the pin. */
TEST(gup_fast_race_pin_between_fork_passes)
{
	struct race r = { 0 };
	uint64_t free0;
	uint32_t v = 1;

	fork_setup(&r, &free0);
	CHECK_EQ(mm_access(r.mm, r.a1 + PAGE_SIZE, &v, sizeof(v), true), 0);
	CHECK_EQ(pin_user_pages(r.mm, r.a2, 1, FOLL_WRITE, &r.page), 1);
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: pin, then fork\n");
		r.child = mm_fork(r.mm, NULL);
	} else {
		race_now = &r;
		r.ptl1 = &pmd_pt_page(pmdp_get(mm_find_pmd(r.mm, r.a1, false)))->ptl;
		spin_lock(r.ptl1);
		gup_fast_window_hook = pin_between_fork_passes;
		smp_run(2, fork_between_pins, &r);
		gup_fast_window_hook = NULL;
		CHECK_EQ(r.hook_fired, 2);
	}
	check_pinned_before_fork(&r);
	mm_case_end(r.mm, free0);
}

/* ---- munmap ---------------------------------------------------------------- */

static uint64_t cpu_lockless_waits(unsigned cpu)
{
	return __atomic_load_n(&mm_counters_cpu[cpu].c.lockless_waits, __ATOMIC_RELAXED);
}

/* In the walk, before the grab: let CPU 1 munmap, and wait until its
 * munmap returned or waits for this walk. Then: is the table this walk
 * reads still a page-table page? */
static void munmap_in_window(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	struct race *r = race_now;
	struct page *pt = pfn_to_page(virt_to_phys(ptep) >> PAGE_SHIFT);

	(void)mm, (void)addr;
	if (r->hook_fired++)
		return;
	flag_set(&r->go);
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && cpu_lockless_waits(1) == r->waits0)
		arch_cpu_relax();
	r->table_pfn = page_to_pfn(pt);
	r->table_freed = !(__atomic_load_n(&pt->flags, __ATOMIC_ACQUIRE) & PG_pgtable);
}

static void munmap_during_walk(unsigned cpu, void *arg)
{
	struct race *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		r->err = mm_munmap(r->mm, r->a1, PMD_SIZE);
		flag_set(&r->done);
		return;
	}
	r->pinned = get_user_pages_fast(r->mm, r->a1, 1, FOLL_FAST_ONLY, &r->page);
}

/* CPU 1 munmaps the range (its PTE table is freed) while CPU 0's gup-fast
 * is inside its walk of that table: the table must not be freed before
 * the walk ends (lockless_walk_sync() waits, counted in lockless_waits),
 * and the walk takes nothing (the folio's refcount is zero by then).
 * Guards the table-free wait: without it the table is freed under the
 * walker. */
TEST(gup_fast_race_munmap_frees_the_table)
{
	struct race r = { 0 };
	uint64_t free0;
	uint32_t v = 7;
	struct mm_counters c0;

	r.mm = mm_case_begin(&free0);
	r.a1 = (test_mmap(r.mm, 2 * PMD_SIZE, RW | VM_NOHUGEPMD, 1) + PMD_SIZE - 1) & PMD_MASK;
	CHECK_EQ(mm_access(r.mm, r.a1, &v, sizeof(v), true), 0);
	c0 = mm_counters_read();
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: munmap, then gup-fast\n");
		CHECK_EQ(mm_munmap(r.mm, r.a1, PMD_SIZE), 0);
		r.pinned = get_user_pages_fast(r.mm, r.a1, 1, FOLL_FAST_ONLY, &r.page);
	} else {
		race_now = &r;
		r.waits0 = cpu_lockless_waits(1);
		gup_fast_window_hook = munmap_in_window;
		smp_run(2, munmap_during_walk, &r);
		gup_fast_window_hook = NULL;
		printf("    munmap during the walk: PTE table pfn %#llx %s; munmap waited for the "
		       "walk %llu time(s); gup-fast took %ld\n",
		       (unsigned long long)r.table_pfn,
		       r.table_freed ? "FREED UNDER THE WALKER" : "still a page table while walked",
		       (unsigned long long)(cpu_lockless_waits(1) - r.waits0), r.pinned);
		CHECK_EQ(r.table_freed, 0);
		CHECK_EQ(cpu_lockless_waits(1) - r.waits0, 1);
	}
	CHECK_EQ(r.err, 0);
	CHECK_EQ(r.pinned, 0);
	CHECK(counters_since(&c0).pt_frees > 0); /* the table did go */
	mm_case_end(r.mm, free0);
}

/* ---- migration ------------------------------------------------------------- */

/* CPU 1's migration, its entries installed: let CPU 0 go on, wait. */
static void migration_window(void)
{
	struct race *r = race_now;

	flag_set(&r->unmapped);
	flag_wait(&r->done);
}

/* In the walk, before the grab: start the migration, wait for its
 * entries to stand. */
static void migrate_in_window(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	struct race *r = race_now;

	(void)mm, (void)addr, (void)ptep;
	if (r->hook_fired++)
		return;
	flag_set(&r->go);
	flag_wait(&r->unmapped);
}

static void migrate_during_walk(unsigned cpu, void *arg)
{
	struct race *r = arg;
	struct page *p;

	if (cpu == 1) {
		flag_wait(&r->go);
		r->migrate_ret = mm_migrate_pages(r->mm, N0, N1, MPOL_MF_MOVE_ALL);
		return;
	}
	r->pinned = pin_user_pages_fast(r->mm, r->a1, 1, FOLL_WRITE | FOLL_FAST_ONLY, &r->page);
	/* The migration entries still stand: gup-fast must stop at them. */
	r->fast_during_migration =
		pin_user_pages_fast(r->mm, r->a1, 1, FOLL_WRITE | FOLL_FAST_ONLY, &p);
	if (r->fast_during_migration > 0)
		gup_fast_unpin_pages(&p, 1);
	flag_set(&r->done);
}

/* CPU 1 migrates the page (node 0 to 1) after CPU 0's gup-fast read its
 * entry and before it grabbed the folio: the grab succeeds (the folio is
 * alive), so the re-read of the entry after the grab must see the
 * migration entry and give the pin back; a second gup-fast while the
 * entries stand takes nothing. Guards the PTE re-read: without it the pin
 * stays, and the migration's refcount freeze then finds it and leaves the
 * page where it was, as busy (the migration fails for a pin that was
 * never kept). */
TEST(gup_fast_race_migration_after_the_read)
{
	struct race r = { 0 };
	uint64_t free0;
	uint32_t v = 9, seen = 0;
	bool by_pmd;
	pte_t pte;

	NEED_TWO_NODES();
	r.mm = mm_case_begin(&free0);
	r.a1 = test_mmap(r.mm, PAGE_SIZE, RW, 1);
	CHECK_EQ(mm_access(r.mm, r.a1, &v, sizeof(v), true), 0);
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: migrate, then pin\n");
		r.migrate_ret = mm_migrate_pages(r.mm, N0, N1, MPOL_MF_MOVE_ALL);
	} else {
		race_now = &r;
		gup_fast_window_hook = migrate_in_window;
		migrate_unmapped_hook = migration_window;
		smp_run(2, migrate_during_walk, &r);
		migrate_unmapped_hook = NULL;
		gup_fast_window_hook = NULL;
		printf("    migration after the read: gup-fast took %ld, and %ld while the "
		       "migration entries stood\n",
		       r.pinned, r.fast_during_migration);
		CHECK_EQ(r.fast_during_migration, 0);
	}
	CHECK_EQ(r.migrate_ret, 0);
	CHECK_EQ(off_node(r.mm, r.a1, 1, 1), 0);
	if (r.pinned == 1) {
		struct page *now = page_at(r.mm, r.a1, &by_pmd, &pte);

		v = 10;
		CHECK_EQ(mm_access(r.mm, r.a1, &v, sizeof(v), true), 0);
		seen = *(uint32_t *)page_address(r.page);
		printf("    pinned pfn %#llx (node %d), the mm maps pfn %#llx (node %d)%s\n",
		       (unsigned long long)page_to_pfn(r.page), r.page->node,
		       (unsigned long long)page_to_pfn(now), now->node,
		       now == r.page ? "" : ": THE PIN IS ON A PAGE THE MM NO LONGER MAPS");
		CHECK(now == r.page);
		CHECK_EQ(seen, v);
		gup_fast_unpin_pages(&r.page, 1); /* unmapped, if the check failed */
	} else {
		CHECK_EQ(r.pinned, 0);
	}
	mm_case_end(r.mm, free0);
}

/* ---- free-running: pins while fork and writes ------------------------------ */

struct loop {
	struct mm *mm;
	unsigned long a;
	unsigned arrived, round;
	struct page *pages[RACE_PAGES];
	long pinned;
	unsigned bad_page, bad_value, forks;
};

/* Two CPUs meet: each arrival bumps the count; wait for the pair. */
static void meet(struct loop *l, unsigned n)
{
	__atomic_fetch_add(&l->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&l->arrived, __ATOMIC_ACQUIRE) < n)
		arch_cpu_relax();
}

static void loop_cpu(unsigned cpu, void *arg)
{
	struct loop *l = arg;

	for (unsigned r = 0; r < RACE_ROUNDS; r++) {
		meet(l, 6 * r + 2);
		if (cpu == 1) {
			l->pinned = pin_user_pages_fast(l->mm, l->a, RACE_PAGES,
							FOLL_WRITE | FOLL_LONGTERM, l->pages);
		} else {
			struct mm *child = mm_fork(l->mm, NULL);

			l->forks += child != NULL;
			if (child)
				mm_put(child);
		}
		meet(l, 6 * r + 4);
		if (cpu == 0) {
			for (unsigned i = 0; i < RACE_PAGES; i++) {
				uint32_t v = r * 100 + i;

				mm_access(l->mm, l->a + i * PAGE_SIZE, &v, sizeof(v), true);
			}
		}
		meet(l, 6 * r + 6);
		if (cpu == 1) {
			for (long i = 0; i < l->pinned; i++) {
				bool by_pmd;
				pte_t pte;

				l->bad_page += page_at(l->mm, l->a + (unsigned long)i * PAGE_SIZE,
						       &by_pmd, &pte) != l->pages[i];
				l->bad_value += *(uint32_t *)page_address(l->pages[i]) !=
						r * 100 + (uint32_t)i;
			}
			if (l->pinned > 0)
				unpin_user_pages(l->pages, (unsigned long)l->pinned);
		}
	}
}

/* CPU 1 pins a 64K folio with gup-fast (slow path for the rest) while CPU
 * 0 forks, then CPU 0 writes every page, RACE_ROUNDS times: every pinned
 * page is still the page the parent maps and holds the parent's write. */
TEST(gup_fast_race_pins_while_fork_writes)
{
	struct loop l = { 0 };
	uint64_t free0;

	if (smp_nr_cpus() < 2)
		SKIP_CASE("needs 2 CPUs: a pin beside the fork");
	l.mm = mm_case_begin(&free0);
	l.a = test_mmap(l.mm, RACE_PAGES * PAGE_SIZE, RW | VM_NOHUGEPMD, ORDERS(4));
	CHECK_EQ(mm_touch(l.mm, l.a, RACE_PAGES * PAGE_SIZE, true), 0);
	smp_run(2, loop_cpu, &l);
	printf("    %u forks, %u rounds: %u pinned pages not the parent's, %u without its write\n",
	       l.forks, RACE_ROUNDS, l.bad_page, l.bad_value);
	CHECK_EQ(l.forks, RACE_ROUNDS);
	CHECK_EQ(l.bad_page, 0);
	CHECK_EQ(l.bad_value, 0);
	mm_case_end(l.mm, free0);
}

TEST_SUITE(gup_fast_race, gup_fast_race_pin_while_fork_copies,
	   gup_fast_race_fork_begins_inside_the_walk, gup_fast_race_pin_between_fork_passes,
	   gup_fast_race_munmap_frees_the_table, gup_fast_race_migration_after_the_read,
	   gup_fast_race_pins_while_fork_writes)
