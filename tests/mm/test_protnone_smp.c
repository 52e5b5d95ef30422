/*
 * test_protnone_smp.c - gup-fast against a CPU that makes the range
 * PROT_NONE. gup-fast looks at no VMA, so the entry is all it has: it
 * must refuse an entry user mode may not use, and an entry that became
 * one between its read and its grab (gup_fast_window_hook places CPU 1's
 * mprotect there). With one CPU online the case checks the sequential
 * order only.
 */
#include "gup.h"
#include "mm_cases.h"
#include "smp.h"

#define PN_RACE_PAGES 16 /* one 64K folio */

struct pn_race {
	struct mm *mm;
	unsigned long a;
	struct page *pages[PN_RACE_PAGES];
	long pinned;
	int err;
	unsigned go, done, hook_fired;
};

static struct pn_race *pn_race_now;

/* In the walk, after the entry was read (user-accessible) and before the
 * grab: CPU 1 makes the folio PROT_NONE. mprotect frees no table, so it
 * does not wait for this walk: it returns while CPU 0 is stopped here. */
static void mprotect_none_in_window(struct mm *mm, unsigned long addr, pte_t *ptep)
{
	struct pn_race *r = pn_race_now;

	(void)mm, (void)addr, (void)ptep;
	if (r->hook_fired++)
		return;
	flag_set(&r->go);
	flag_wait(&r->done);
}

static void mprotect_none_during_walk(unsigned cpu, void *arg)
{
	struct pn_race *r = arg;

	if (cpu == 1) {
		flag_wait(&r->go);
		r->err = mm_mprotect(r->mm, r->a, PN_RACE_PAGES * PAGE_SIZE, 0);
		flag_set(&r->done);
		return;
	}
	if (cpu == 0)
		r->pinned =
			pin_user_pages_fast(r->mm, r->a, PN_RACE_PAGES, FOLL_FAST_ONLY, r->pages);
}

/* CPU 1 makes a 64K folio PROT_NONE after CPU 0's gup-fast read its first
 * entry (still accessible) and before the grab: the grab succeeds (the
 * folio is alive), so the re-read after it must see the PROT_NONE entry
 * and give every pin back. Guards gup-fast's re-check of the run after
 * the grab: without it 16 pages stay pinned that user mode can no longer
 * reach (and a later mprotect back would find them pinned). */
TEST(protnone_gup_fast_mprotect_after_the_read)
{
	struct pn_race r = { 0 };
	uint64_t free0;
	struct folio *f;

	r.mm = mm_case_begin(&free0);
	r.a = test_mmap(r.mm, PN_RACE_PAGES * PAGE_SIZE, RW | VM_NOHUGEPMD, ORDERS(4));
	CHECK_EQ(mm_touch(r.mm, r.a, PN_RACE_PAGES * PAGE_SIZE, true), 0);
	f = folio_at(r.mm, r.a);
	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: mprotect PROT_NONE, then gup-fast\n");
		r.err = mm_mprotect(r.mm, r.a, PN_RACE_PAGES * PAGE_SIZE, 0);
		r.pinned = pin_user_pages_fast(r.mm, r.a, PN_RACE_PAGES, FOLL_FAST_ONLY, r.pages);
	} else {
		pn_race_now = &r;
		gup_fast_window_hook = mprotect_none_in_window;
		smp_run(2, mprotect_none_during_walk, &r);
		gup_fast_window_hook = NULL;
		printf("    mprotect PROT_NONE inside the walk (%d): gup-fast kept %ld pin(s)%s\n",
		       r.err, r.pinned, r.pinned > 0 ? ": PINNED A PROT_NONE PAGE" : "");
		CHECK_EQ(r.hook_fired, 1);
	}
	CHECK_EQ(r.err, 0);
	CHECK_EQ(r.pinned, 0);
	if (r.pinned > 0)
		unpin_user_pages(r.pages, (unsigned long)r.pinned);
	CHECK_EQ(folio_ref_count(f), PN_RACE_PAGES);
	CHECK(!folio_maybe_dma_pinned(f));
	CHECK(!pte_user(pte_at(r.mm, r.a)) && pte_present(pte_at(r.mm, r.a)));
	mm_case_end(r.mm, free0);
}

TEST_SUITE(protnone_smp, protnone_gup_fast_mprotect_after_the_read)
