/*
 * test_contpte.c - blocks of entries the MMU may cache as one (arm64
 * contpte), through the generic hooks only, so the file runs unchanged on
 * every format. On a format that folds (arch_has_pte_blocks()), each case checks
 * when blocks form, that ptep_get() sees a block's young and dirty, that
 * whole-block operations keep the block and partial ones split it first,
 * that a block is read once by folio_pte_batch(), and that the checker
 * finds a misprogrammed block. On a format without blocks the same steps
 * must show no block, no fold or unfold, and per-entry behaviour.
 */
#include "mm_cases.h"
#include "pte_batch.h"

#define CT_BASE 0x40000000ul /* PMD aligned: slot n is CT_BASE + n pages */

/* A PTE table outside any mm and a folio to map in it. */
struct ct {
	struct page *pt;
	pte_t *ptes;
	struct folio *folio;
	uint64_t pfn;
	struct mm_snapshot snap;
	struct mm_counters c0;
};

static bool ct_setup(struct ct *t, unsigned order)
{
	mm_init();
	mm_snapshot_take(&t->snap);
	t->pt = pt_alloc(NULL);
	t->folio = folio_alloc(0, order, 0);
	CHECK(t->pt && t->folio);
	if (!t->pt || !t->folio)
		return false;
	t->ptes = page_address(t->pt);
	t->pfn = folio_pfn(t->folio);
	t->c0 = mm_counters_read();
	return true;
}

static void ct_teardown(struct ct *t)
{
	memset(t->ptes, 0, PAGE_SIZE);
	pt_free(NULL, t->pt);
	folio_put(t->folio);
	mm_caps.contpte = true;
	CHECK_NO_LEAK(&t->snap);
}

/* Page @page of the folio: young, clean, writable. */
static pte_t ct_pte(struct ct *t, unsigned long page)
{
	return pte_mkyoung(pfn_pte(t->pfn + page, vm_get_page_prot(VM_READ | VM_WRITE)));
}

/* set_ptes of pages [@page, +@nr) at slots from @slot. */
static void ct_map(struct ct *t, unsigned slot, unsigned long page, unsigned nr)
{
	set_ptes(NULL, CT_BASE + slot * PAGE_SIZE, t->ptes + slot, ct_pte(t, page), nr);
}

/* Entries in [slot, slot + nr) for which @test holds. */
static unsigned ct_count(struct ct *t, unsigned slot, unsigned nr, bool (*test)(pte_t))
{
	unsigned n = 0;

	for (unsigned i = slot; i < slot + nr; i++)
		n += test(__ptep_get(t->ptes + i));
	return n;
}

static bool is_cont(pte_t p)
{
	return pte_cont(p);
}
static bool is_dirty(pte_t p)
{
	return pte_dirty(p);
}
static bool is_write(pte_t p)
{
	return pte_write(p);
}
static bool is_present(pte_t p)
{
	return pte_present(p);
}

/* Does this PTE format really fold an aligned run into a block? */
static bool folds_a_run(void)
{
	struct ct t;
	bool has;

	if (!ct_setup(&t, 4))
		return false;
	ct_map(&t, 0, 0, 16);
	has = pte_cont(__ptep_get(t.ptes));
	ct_teardown(&t);
	return has;
}

/* A format folds exactly when it says it has blocks. */
TEST(format_folds_as_it_declares)
{
	CHECK_EQ(folds_a_run(), arch_has_pte_blocks());
	mm_caps.contpte = false;
	CHECK(!folds_a_run()); /* folds_a_run() turns it back on */
	CHECK_EQ(folds_a_run(), arch_has_pte_blocks());
}

/* Only fully covered runs aligned in VA and PA fold, and only with
 * contpte=on; the checker accepts every result. */
TEST(set_ptes_folds_aligned_runs_only)
{
	bool has = arch_has_pte_blocks();
	struct ct t;

	if (!ct_setup(&t, 5))
		return;
	ct_map(&t, 0, 0, 32);
	CHECK_EQ(ct_count(&t, 0, 32, is_cont), has ? 32 : 0);
	CHECK_EQ(counters_since(&t.c0).cont_folds, has ? 2 : 0);
	memset(t.ptes, 0, PAGE_SIZE);
	ct_map(&t, 8, 0, 16);  /* VA not aligned */
	ct_map(&t, 48, 8, 16); /* PA not aligned */
	ct_map(&t, 64, 16, 8); /* not a whole block */
	mm_caps.contpte = false;
	ct_map(&t, 96, 16, 16); /* folding off */
	CHECK_EQ(ct_count(&t, 0, PTRS_PER_TABLE, is_cont), 0);
	CHECK_EQ(counters_since(&t.c0).cont_folds, has ? 2 : 0);
	CHECK_EQ(arch_check_pte_table(t.ptes, &(const char *){ NULL }), -1);
	ct_teardown(&t);
}

/* The MMU may mark any entry of a block: ptep_get() of every entry of the
 * block reports it, the raw entry does not. */
TEST(ptep_get_gathers_young_and_dirty)
{
	bool has = arch_has_pte_blocks();
	const char *why = NULL;
	struct ct t;

	if (!ct_setup(&t, 4))
		return;
	set_ptes(NULL, CT_BASE, t.ptes, pte_mkold(ct_pte(&t, 0)), 16);
	set_pte(t.ptes + 9, pte_mkyoung(pte_mkdirty(__ptep_get(t.ptes + 9))));
	CHECK_EQ(pte_dirty(ptep_get(t.ptes + 2)), has);
	CHECK_EQ(pte_young(ptep_get(t.ptes + 15)), has);
	CHECK(pte_dirty(ptep_get(t.ptes + 9)));
	CHECK(!pte_dirty(__ptep_get(t.ptes + 2)));
	CHECK_EQ(arch_check_pte_table(t.ptes, &why), -1);
	ct_teardown(&t);
}

/* ptep_get() stops reading a block once young and dirty are both known:
 * an entry that says only one of them must not end the read. First
 * entry dirty and old, a later one young; then first young and clean, a
 * later one dirty. */
TEST(ptep_get_reads_on_until_young_and_dirty_are_known)
{
	bool has = arch_has_pte_blocks();
	struct ct t;

	if (!ct_setup(&t, 4))
		return;
	set_ptes(NULL, CT_BASE, t.ptes, pte_mkold(pte_mkclean(ct_pte(&t, 0))), 16);
	set_pte(t.ptes + 0, pte_mkdirty(__ptep_get(t.ptes + 0)));
	set_pte(t.ptes + 11, pte_mkyoung(__ptep_get(t.ptes + 11)));
	CHECK(pte_dirty(ptep_get(t.ptes + 0)));
	CHECK_EQ(pte_young(ptep_get(t.ptes + 0)), has);
	set_ptes(NULL, CT_BASE, t.ptes, pte_mkclean(ct_pte(&t, 0)), 16);
	set_pte(t.ptes + 13, pte_mkdirty(__ptep_get(t.ptes + 13)));
	CHECK(pte_young(ptep_get(t.ptes + 0)));
	CHECK_EQ(pte_dirty(ptep_get(t.ptes + 0)), has);
	ct_teardown(&t);
}

/* The dirtiness the MMU writes into one entry (arm64 FEAT_HAFDBS: AP[2]
 * cleared, no software bit) is the whole block's too. */
TEST(ptep_get_sees_a_hardware_dirty_entry)
{
	bool has = arch_has_pte_blocks();
	struct ct t;

	if (!ct_setup(&t, 4))
		return;
	set_ptes(NULL, CT_BASE, t.ptes, pte_mkclean(ct_pte(&t, 0)), 16);
	CHECK(!pte_dirty(ptep_get(t.ptes + 0)));
	set_pte(t.ptes + 5, pte_mkdirty_hw(__ptep_get(t.ptes + 5)));
	CHECK(pte_dirty(__ptep_get(t.ptes + 5)));
	CHECK(!pte_dirty(__ptep_get(t.ptes + 0)));
	CHECK_EQ(pte_dirty(ptep_get(t.ptes + 0)), has);
	CHECK_EQ(pte_dirty(ptep_get(t.ptes + 15)), has);
	ct_teardown(&t);
}

/* Write-protecting one entry splits its block first (break-before-make:
 * one flush), and the split keeps the block's dirtiness in every entry. */
TEST(partial_change_unfolds_and_keeps_state)
{
	bool has = arch_has_pte_blocks();
	struct mm_counters d;
	struct ct t;

	if (!ct_setup(&t, 4))
		return;
	ct_map(&t, 0, 0, 16);
	set_pte(t.ptes + 9, pte_mkdirty(__ptep_get(t.ptes + 9)));
	t.c0 = mm_counters_read();
	ptep_set_wrprotect(NULL, CT_BASE + 3 * PAGE_SIZE, t.ptes + 3);
	d = counters_since(&t.c0);
	CHECK_EQ(d.cont_unfolds, has);
	CHECK_EQ(d.tlb_flushes, has);
	CHECK_EQ(ct_count(&t, 0, 16, is_cont), 0);
	CHECK_EQ(ct_count(&t, 0, 16, is_write), 15);
	CHECK(!pte_write(__ptep_get(t.ptes + 3)));
	CHECK_EQ(ct_count(&t, 0, 16, is_dirty), has ? 16 : 1);
	CHECK_EQ(arch_check_pte_table(t.ptes, &(const char *){ NULL }), -1);
	ct_teardown(&t);
}

/* Write-protecting or clearing a whole block keeps it whole (no split);
 * clearing half of one splits it and leaves the other half mapped. */
TEST(whole_block_ops_keep_the_block)
{
	bool has = arch_has_pte_blocks();
	struct ct t;
	pte_t old;

	if (!ct_setup(&t, 4))
		return;
	ct_map(&t, 0, 0, 16);
	set_pte(t.ptes + 12, pte_mkdirty(__ptep_get(t.ptes + 12)));
	wrprotect_ptes(NULL, CT_BASE, t.ptes, 16);
	CHECK_EQ(ct_count(&t, 0, 16, is_cont), has ? 16 : 0);
	CHECK_EQ(ct_count(&t, 0, 16, is_write), 0);
	old = clear_full_ptes(NULL, CT_BASE, t.ptes, 16, 0);
	CHECK(pte_dirty(old) && pte_young(old) && !pte_cont(old));
	CHECK_EQ(pte_pfn(old), t.pfn);
	CHECK_EQ(ct_count(&t, 0, 16, is_present), 0);
	CHECK_EQ(counters_since(&t.c0).cont_unfolds, 0);
	ct_map(&t, 0, 0, 16);
	clear_full_ptes(NULL, CT_BASE, t.ptes, 8, 0);
	CHECK_EQ(counters_since(&t.c0).cont_unfolds, has);
	CHECK_EQ(ct_count(&t, 8, 8, is_present), 8);
	CHECK_EQ(ct_count(&t, 0, 16, is_cont), 0);
	ct_teardown(&t);
}

/* Young and dirty from a fault apply to a whole block in place; adding
 * the write permission to one entry splits it. */
TEST(access_flags_apply_to_the_whole_block)
{
	bool has = arch_has_pte_blocks();
	struct vma vma = { .mm = NULL };
	unsigned long addr = CT_BASE + 4 * PAGE_SIZE;
	struct ct t;
	pte_t e;

	if (!ct_setup(&t, 4))
		return;
	ct_map(&t, 0, 0, 16);
	e = pte_mkdirty(ptep_get(t.ptes + 4));
	CHECK(ptep_set_access_flags(&vma, addr, t.ptes + 4, e));
	CHECK_EQ(ct_count(&t, 0, 16, is_dirty), has ? 16 : 1);
	CHECK_EQ(ct_count(&t, 0, 16, is_cont), has ? 16 : 0);
	CHECK(!ptep_set_access_flags(&vma, addr, t.ptes + 4, e));
	wrprotect_ptes(NULL, CT_BASE, t.ptes, 16);
	e = pte_mkwrite(ptep_get(t.ptes + 4));
	CHECK(ptep_set_access_flags(&vma, addr, t.ptes + 4, e));
	CHECK_EQ(ct_count(&t, 0, 16, is_write), 1);
	CHECK_EQ(ct_count(&t, 0, 16, is_cont), 0);
	CHECK_EQ(counters_since(&t.c0).cont_unfolds, has);
	ct_teardown(&t);
}

/* Entries written one at a time fold when the last of a block is written
 * and all 16 agree; an odd entry (other permissions) prevents it. */
TEST(single_entry_writes_fold_at_the_last_entry)
{
	bool has = arch_has_pte_blocks();
	struct ct t;

	if (!ct_setup(&t, 5))
		return;
	for (unsigned i = 0; i < 15; i++)
		ct_map(&t, i, i, 1);
	CHECK_EQ(counters_since(&t.c0).cont_folds, 0);
	ct_map(&t, 15, 15, 1);
	CHECK_EQ(counters_since(&t.c0).cont_folds, has);
	CHECK_EQ(ct_count(&t, 0, 16, is_cont), has ? 16 : 0);
	for (unsigned i = 16; i < 32; i++)
		set_ptes(NULL, CT_BASE + i * PAGE_SIZE, t.ptes + i,
			 i == 20 ? pte_wrprotect(ct_pte(&t, i)) : ct_pte(&t, i), 1);
	CHECK_EQ(counters_since(&t.c0).cont_folds, has);
	CHECK_EQ(ct_count(&t, 16, 16, is_cont), 0);
	ct_teardown(&t);
}

/* folio_pte_batch() reads a block once: the hint covers the rest of it. */
TEST(batch_reads_a_block_once)
{
	bool has = arch_has_pte_blocks();
	uint64_t gets;
	struct ct t;

	if (!ct_setup(&t, 5))
		return;
	ct_map(&t, 0, 0, 32);
	CHECK_EQ(pte_batch_hint(t.ptes + 3, __ptep_get(t.ptes + 3)), has ? 13 : 1);
	gets = mm_counters_read().ptep_gets;
	CHECK_EQ(folio_pte_batch(t.folio, CT_BASE, t.ptes, ptep_get(t.ptes), 32, 0, NULL), 32);
	CHECK_EQ(mm_counters_read().ptep_gets - gets, has ? 2 : 32);
	gets = mm_counters_read().ptep_gets;
	CHECK_EQ(folio_pte_batch(t.folio, CT_BASE + 3 * PAGE_SIZE, t.ptes + 3, ptep_get(t.ptes + 3),
				 20, 0, NULL),
		 20);
	CHECK_EQ(mm_counters_read().ptep_gets - gets, has ? 2 : 20);
	ct_teardown(&t);
}

/* In an mm: faults fold 64K folios, fork keeps the parent's blocks and
 * folds the child's, COW splits one block, batched mprotect keeps them,
 * unbatched mprotect splits and refolds each, munmap of a page splits one;
 * the checker passes after every step. */
TEST(blocks_through_fault_fork_mprotect_munmap)
{
	bool has = arch_has_pte_blocks();
	uint64_t free0;
	struct mm *mm = mm_case_begin(&free0), *c;
	unsigned long a = test_mmap(mm, 256 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	struct mm_counters c0 = mm_counters_read(), d;

	CHECK_EQ(mm_touch(mm, a, 256 << 10, true), 0);
	CHECK_EQ(counters_since(&c0).cont_folds, has ? 4 : 0);
	CHECK_EQ(pte_cont(pte_at(mm, a + 0x5000)), has);
	c0 = mm_counters_read();
	c = mm_fork(mm, NULL);
	d = counters_since(&c0);
	CHECK(d.cont_folds == (has ? 4 : 0) && d.cont_unfolds == 0);
	CHECK_EQ(pte_cont(pte_at(c, a)) + pte_cont(pte_at(mm, a)), has ? 2 : 0);
	CHECK_EQ(mm_touch(c, a + 0x3000, 1, true), 0);
	CHECK_EQ(counters_since(&c0).cont_unfolds, has);
	CHECK_MM_OK();
	mm_put(c);
	caps_set_all(false);
	c0 = mm_counters_read();
	CHECK_EQ(mm_mprotect(mm, a, 256 << 10, VM_READ), 0);
	d = counters_since(&c0);
	CHECK(d.cont_unfolds == (has ? 4 : 0) && d.cont_folds == (has ? 4 : 0));
	caps_set_all(true);
	c0 = mm_counters_read();
	CHECK_EQ(mm_mprotect(mm, a, 256 << 10, RW), 0);
	CHECK_EQ(mm_munmap(mm, a + 0x4000, PAGE_SIZE), 0);
	d = counters_since(&c0);
	CHECK(d.cont_unfolds == has && d.cont_folds == (has ? 4 : 0));
	mm_case_end(mm, free0);
}

/* A block that breaks the rules (one entry without the contiguous bit)
 * is reported by the checker, on a format that has blocks. */
TEST(checker_finds_a_misprogrammed_block)
{
	bool has = arch_has_pte_blocks();
	uint64_t free0;
	struct mm *mm = mm_case_begin(&free0);
	unsigned long a = test_mmap(mm, 64 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	pte_t *ptep, saved;

	CHECK_EQ(mm_touch(mm, a, 64 << 10, true), 0);
	ptep = pte_offset_kernel(mm_find_pmd(mm, a, false), a + 7 * PAGE_SIZE);
	saved = __ptep_get(ptep);
	set_pte(ptep, pte_mkyoung(pte_mkdirty(pfn_pte(pte_pfn(saved), vm_get_page_prot(RW)))));
	CHECK_EQ(mm_check(NULL) > 0, has);
	set_pte(ptep, saved);
	CHECK_MM_OK();
	mm_case_end(mm, free0);
}

/* contpte=off: faults make no block, and nothing folds later either. */
TEST(contpte_off_never_folds)
{
	uint64_t free0;
	struct mm *mm = mm_case_begin(&free0);
	unsigned long a = test_mmap(mm, 256 << 10, RW | VM_NOHUGEPMD, ORDERS(4));
	struct mm_counters c0 = mm_counters_read();

	mm_caps.contpte = false;
	CHECK_EQ(mm_touch(mm, a, 256 << 10, true), 0);
	CHECK_EQ(mm_mprotect(mm, a, 256 << 10, VM_READ), 0);
	CHECK_EQ(counters_since(&c0).cont_folds, 0);
	CHECK(!pte_cont(pte_at(mm, a)));
	mm_caps.contpte = true;
	mm_case_end(mm, free0);
}

TEST_SUITE(contpte, format_folds_as_it_declares, set_ptes_folds_aligned_runs_only,
	   ptep_get_gathers_young_and_dirty, ptep_get_sees_a_hardware_dirty_entry,
	   ptep_get_reads_on_until_young_and_dirty_are_known,
	   partial_change_unfolds_and_keeps_state, whole_block_ops_keep_the_block,
	   access_flags_apply_to_the_whole_block, single_entry_writes_fold_at_the_last_entry,
	   batch_reads_a_block_once, blocks_through_fault_fork_mprotect_munmap,
	   checker_finds_a_misprogrammed_block, contpte_off_never_folds)
