/*
 * test_mremap_smp.c - mremap against gup-fast, the one walker that does
 * not wait for the mmap_lock mremap holds for write. gup_fast_window_hook
 * runs CPU 1's mremap between gup-fast's read of the entry and its grab:
 * the grab then comes after the move, so the old address maps nothing
 * any more and gup-fast must take nothing there (the slow path's fault
 * then finds no VMA). The page itself is not freed (the mm maps it at the
 * new address), so what would go wrong is quieter than a use after free:
 * a pin on a page for an address that no longer maps it, whose later
 * writes land in the moved mapping. Each case fails with the re-check
 * that guards it removed:
 *
 *  - moved PTE by PTE (destination not PMD aligned): the old entry is
 *    none when gup-fast re-reads it (gup_fast_changed(), the entry);
 *  - moved with its whole PTE table (both ends aligned): the entries in
 *    the table are unchanged, the table now hangs at the new address, and
 *    only the re-read of the PMD sees it (gup_fast_changed(), the PMD).
 *    The old PMD table may be freed empty by the same mremap: its free
 *    waits for the walk (lockless_walk_sync()), as munmap's does.
 *
 * With one CPU online each case says so and checks the sequential order.
 */
#include "gup.h"
#include "mm_cases.h"
#include "smp.h"

struct mrace {
	struct mm *mm;
	unsigned long a, dst, len; /* move [a, a + len) to dst */
	unsigned go, done, fired;
	uint64_t waits0;
	long moved, pinned;
	struct page *page;
};

static struct mrace *mrace_now;

static uint64_t cpu1_lockless_waits(void)
{
	return __atomic_load_n(&mm_counters_cpu[1].c.lockless_waits, __ATOMIC_RELAXED);
}

/* In the walk, before the grab: let CPU 1 mremap, and wait until it
 * returned or waits for this walk to free a table. */
static void mremap_in_window(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	struct mrace *r = mrace_now;

	(void)mm, (void)addr, (void)ptep;
	if (r->fired++)
		return;
	flag_set(&r->go);
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && cpu1_lockless_waits() == r->waits0)
		arch_cpu_relax();
}

static void mremap_during_walk(unsigned cpu, void *arg)
{
	struct mrace *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		r->moved = mm_mremap(r->mm, r->a, r->len, r->len, MREMAP_MAYMOVE | MREMAP_FIXED,
				     r->dst);
		flag_set(&r->done);
		return;
	}
	r->pinned = pin_user_pages_fast(r->mm, r->a, 1, FOLL_WRITE | FOLL_FAST_ONLY, &r->page);
}

/* A fresh mm with a 2 MiB-aligned PMD of 4 KiB pages written at @r->a, to
 * move @len of it to a free destination 2 MiB aligned + @off. */
static void race_setup(struct mrace *r, uint64_t *free0, unsigned long len, unsigned long off)
{
	uint32_t v = 0x5a;
	unsigned long base;

	r->mm = mm_case_begin(free0);
	base = test_mmap(r->mm, 8 * PMD_SIZE, RW | VM_NOHUGEPMD, 1);
	CHECK_EQ(mm_munmap(r->mm, base, 8 * PMD_SIZE), 0);
	r->a = (base + PMD_SIZE - 1) & PMD_MASK;
	r->dst = r->a + 4 * PMD_SIZE + off;
	r->len = len;
	CHECK_EQ(mm_mmap(r->mm, r->a, PMD_SIZE, RW | VM_NOHUGEPMD, MAP_FIXED_ADDR, 1), (long)r->a);
	CHECK_EQ(mm_touch(r->mm, r->a, PMD_SIZE, true), 0);
	CHECK_EQ(mm_access(r->mm, r->a, &v, sizeof(v), true), 0);
}

/* Run the race (or, on one CPU, mremap then gup-fast) and check: the move
 * happened, gup-fast took nothing at the old address, the page is mapped
 * at the new one with its contents, nothing is left pinned. */
static void race_run(struct mrace *r, const char *what)
{
	uint32_t v = 0;

	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: mremap, then gup-fast\n");
		r->moved = mm_mremap(r->mm, r->a, r->len, r->len, MREMAP_MAYMOVE | MREMAP_FIXED,
				     r->dst);
		r->pinned =
			pin_user_pages_fast(r->mm, r->a, 1, FOLL_WRITE | FOLL_FAST_ONLY, &r->page);
	} else {
		mrace_now = r;
		r->waits0 = cpu1_lockless_waits();
		gup_fast_window_hook = mremap_in_window;
		smp_run(2, mremap_during_walk, r);
		gup_fast_window_hook = NULL;
		printf("    %s during the walk: gup-fast took %ld%s; the free of a table waited "
		       "%llu time(s)\n",
		       what, r->pinned,
		       r->pinned > 0 ? " page(s) AT AN ADDRESS THAT NO LONGER MAPS THEM" : "",
		       (unsigned long long)(cpu1_lockless_waits() - r->waits0));
	}
	CHECK_EQ(r->moved, (long)r->dst);
	CHECK_EQ(r->pinned, 0);
	if (r->pinned > 0)
		unpin_user_pages(&r->page, (unsigned long)r->pinned);
	CHECK(folio_at(r->mm, r->a) == NULL);
	CHECK_EQ(mm_access(r->mm, r->dst, &v, sizeof(v), false), 0);
	CHECK_EQ(v, 0x5a);
	CHECK_MM_OK();
}

/* Moved PTE by PTE: guarded by gup-fast's re-read of the entry. Half
 * the table moves, so the old table stays (and its PMD entry with it). */
TEST(mremap_race_gup_fast_pte_move)
{
	struct mrace r = { 0 };
	uint64_t free0;
	struct mm_counters c0;

	race_setup(&r, &free0, PMD_SIZE / 2, 64 << 10);
	c0 = mm_counters_read();
	race_run(&r, "mremap PTE by PTE");
	CHECK_EQ(counters_since(&c0).mremap_ptes_moved, PTRS_PER_TABLE / 2);
	mm_case_end(r.mm, free0);
}

/* Moved with its whole PTE table: guarded by gup-fast's re-read of the
 * PMD (the entry in the moved table is unchanged). */
TEST(mremap_race_gup_fast_table_move)
{
	struct mrace r = { 0 };
	uint64_t free0;
	struct mm_counters c0;

	race_setup(&r, &free0, PMD_SIZE, 0);
	c0 = mm_counters_read();
	race_run(&r, "mremap of the whole table");
	CHECK_EQ(counters_since(&c0).mremap_table_moves, 1);
	mm_case_end(r.mm, free0);
}

TEST_SUITE(mremap_race, mremap_race_gup_fast_pte_move, mremap_race_gup_fast_table_move)
