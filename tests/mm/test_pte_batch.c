/*
 * test_pte_batch.c - folio_pte_batch() on hand-built PTE tables: each
 * bound (folio end, table end, max_nr), each way a run ends (pfn gap,
 * empty entry, other permissions, differing dirty/young/write bits with
 * and without the FPB flag that ignores them), any_writable, runs that
 * start inside a folio, order-0 folios, and the exact ptep_get() count.
 * Runs on every PTE format unchanged: folding into arch blocks (arm64
 * contpte) is off here, so every entry is read on every format; the
 * hinted path, where a block is read once, is tested in test_contpte.c.
 */
#include "kernel.h"
#include "mm_internal.h"
#include "mm_test.h"
#include "pte_batch.h"

#define BT_BASE 0x40000000ul /* PMD aligned: slot n is BT_BASE + n pages */

/* A PTE table and a folio to map in it. */
struct bt {
	struct page *pt;
	pte_t *ptes;
	struct folio *folio;
	uint64_t pfn;
	bool contpte; /* mm_caps.contpte before the case */
	struct mm_snapshot snap;
};

static bool bt_setup(struct bt *b, unsigned order)
{
	mm_init(); /* once; the guest's selftest may run before anything else did */
	mm_snapshot_take(&b->snap);
	b->contpte = mm_caps.contpte;
	mm_caps.contpte = false;
	b->pt = pt_alloc(NULL);
	b->folio = folio_alloc(0, order, 0);
	CHECK(b->pt != NULL && b->folio != NULL);
	if (!b->pt || !b->folio) {
		if (b->pt)
			pt_free(NULL, b->pt);
		if (b->folio)
			folio_put(b->folio);
		mm_caps.contpte = b->contpte;
		return false;
	}
	b->ptes = page_address(b->pt);
	b->pfn = folio_pfn(b->folio);
	return true;
}

static void bt_teardown(struct bt *b)
{
	memset(b->ptes, 0, PAGE_SIZE);
	pt_free(NULL, b->pt);
	folio_put(b->folio);
	mm_caps.contpte = b->contpte;
	CHECK_NO_LEAK(&b->snap);
}

/* The entry mapping page @page of the folio (young, clean, read-write). */
static pte_t bt_pte(struct bt *b, unsigned long page)
{
	return pte_mkyoung(pfn_pte(b->pfn + page, vm_get_page_prot(VM_READ | VM_WRITE)));
}

/* Map pages [@page, @page + @nr) of the folio at slots from @slot. */
static void bt_map(struct bt *b, unsigned slot, unsigned long page, unsigned nr)
{
	set_ptes(NULL, BT_BASE + slot * PAGE_SIZE, b->ptes + slot, bt_pte(b, page), nr);
}

/* Replace the entry at @slot as mm/ would (set_ptes of one entry). */
static void bt_set(struct bt *b, unsigned slot, pte_t pte)
{
	set_ptes(NULL, BT_BASE + slot * PAGE_SIZE, b->ptes + slot, pte, 1);
}

/* folio_pte_batch from @slot, storing in *@gets the ptep_get()s it made. */
static unsigned bt_batch(struct bt *b, unsigned slot, unsigned max_nr, unsigned flags,
			 bool *any_writable, uint64_t *gets)
{
	uint64_t before = mm_counters_read().ptep_gets;
	unsigned nr = folio_pte_batch(b->folio, BT_BASE + slot * PAGE_SIZE, b->ptes + slot,
				      __ptep_get(b->ptes + slot), max_nr, flags, any_writable);

	*gets = mm_counters_read().ptep_gets - before;
	return nr;
}

#define ALL_FPB (FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG | FPB_MERGE_WRITE)

/* A fully mapped 64K folio is one run; 15 further entries read. */
TEST(whole_folio_is_one_run)
{
	struct bt b;
	uint64_t gets;

	if (!bt_setup(&b, 4))
		return;
	bt_map(&b, 0, 0, 16);
	CHECK_EQ(bt_batch(&b, 0, PTRS_PER_TABLE, 0, NULL, &gets), 16);
	CHECK_EQ(gets, 15);
	CHECK_EQ(bt_batch(&b, 0, PTRS_PER_TABLE, ALL_FPB, NULL, &gets), 16);
	bt_teardown(&b);
}

/* Entries that go on with the next pfns past the folio's last page are
 * not read: the folio's end bounds the run. */
TEST(bound_by_folio_end)
{
	struct bt b;
	uint64_t gets;

	if (!bt_setup(&b, 4))
		return;
	set_ptes(NULL, BT_BASE, b.ptes, bt_pte(&b, 0), 32);
	CHECK_EQ(bt_batch(&b, 0, PTRS_PER_TABLE, ALL_FPB, NULL, &gets), 16);
	CHECK_EQ(gets, 15);
	CHECK_EQ(bt_batch(&b, 12, PTRS_PER_TABLE, 0, NULL, &gets), 4);
	CHECK_EQ(gets, 3);
	bt_teardown(&b);
}

/* A folio whose mapping would cross the table's end: the run stops at
 * the last slot, even though the caller allowed more. */
TEST(bound_by_table_end)
{
	struct bt b;
	uint64_t gets;

	if (!bt_setup(&b, 4))
		return;
	bt_map(&b, PTRS_PER_TABLE - 8, 0, 8);
	CHECK_EQ(bt_batch(&b, PTRS_PER_TABLE - 8, 16, 0, NULL, &gets), 8);
	CHECK_EQ(gets, 7);
	CHECK_EQ(bt_batch(&b, PTRS_PER_TABLE - 1, 16, 0, NULL, &gets), 1);
	CHECK_EQ(gets, 0);
	bt_teardown(&b);
}

/* max_nr (the VMA, the range and the batch cap) bounds the run. */
TEST(bound_by_max_nr)
{
	struct bt b;
	uint64_t gets;

	if (!bt_setup(&b, 4))
		return;
	bt_map(&b, 0, 0, 16);
	CHECK_EQ(bt_batch(&b, 0, 5, 0, NULL, &gets), 5);
	CHECK_EQ(gets, 4);
	CHECK_EQ(bt_batch(&b, 0, 1, 0, NULL, &gets), 1);
	CHECK_EQ(gets, 0);
	bt_teardown(&b);
}

/* A pfn gap, an empty entry or another permission ends the run, whatever
 * the flags; the entry that ends it is read once. */
TEST(gap_none_and_permission_end_the_run)
{
	struct bt b;
	uint64_t gets;

	if (!bt_setup(&b, 4))
		return;
	bt_map(&b, 0, 0, 16);
	bt_set(&b, 7, bt_pte(&b, 8));
	CHECK_EQ(bt_batch(&b, 0, 16, ALL_FPB, NULL, &gets), 7);
	CHECK_EQ(gets, 7);
	bt_map(&b, 0, 0, 16);
	bt_set(&b, 9, (pte_t){ 0 });
	CHECK_EQ(bt_batch(&b, 0, 16, ALL_FPB, NULL, &gets), 9);
	bt_map(&b, 0, 0, 16);
	bt_set(&b, 4, pte_modify(bt_pte(&b, 4), vm_get_page_prot(VM_READ | VM_WRITE | VM_EXEC)));
	CHECK_EQ(bt_batch(&b, 0, 16, ALL_FPB, NULL, &gets), 4);
	bt_teardown(&b);
}

/* Dirty differences end a run unless FPB_IGNORE_DIRTY; entries that are
 * dirty alike (however the format records it) do not. */
TEST(dirty_bits_and_fpb_ignore_dirty)
{
	struct bt b;
	uint64_t gets;

	if (!bt_setup(&b, 4))
		return;
	bt_map(&b, 0, 0, 16);
	bt_set(&b, 5, pte_mkdirty(bt_pte(&b, 5)));
	CHECK_EQ(bt_batch(&b, 0, 16, 0, NULL, &gets), 5);
	CHECK_EQ(bt_batch(&b, 0, 16, FPB_IGNORE_DIRTY, NULL, &gets), 16);
	CHECK_EQ(bt_batch(&b, 0, 16, FPB_IGNORE_YOUNG | FPB_MERGE_WRITE, NULL, &gets), 5);
	set_ptes(NULL, BT_BASE, b.ptes, pte_mkdirty(bt_pte(&b, 0)), 16);
	bt_set(&b, 3, pte_mkwrite(pte_wrprotect(pte_mkdirty(bt_pte(&b, 3)))));
	CHECK_EQ(bt_batch(&b, 0, 16, 0, NULL, &gets), 16);
	bt_teardown(&b);
}

/* Young differences end a run unless FPB_IGNORE_YOUNG. */
TEST(young_bits_and_fpb_ignore_young)
{
	struct bt b;
	uint64_t gets;

	if (!bt_setup(&b, 4))
		return;
	bt_map(&b, 0, 0, 16);
	bt_set(&b, 3, pte_mkold(bt_pte(&b, 3)));
	CHECK_EQ(bt_batch(&b, 0, 16, 0, NULL, &gets), 3);
	CHECK_EQ(gets, 3);
	CHECK_EQ(bt_batch(&b, 0, 16, FPB_IGNORE_YOUNG, NULL, &gets), 16);
	CHECK_EQ(bt_batch(&b, 0, 16, FPB_IGNORE_DIRTY | FPB_MERGE_WRITE, NULL, &gets), 3);
	bt_teardown(&b);
}

/* Write differences end a run unless FPB_MERGE_WRITE, which reports
 * whether any entry of the run was writable. */
TEST(write_bits_fpb_merge_write_and_any_writable)
{
	struct bt b;
	uint64_t gets;
	bool w = false;

	if (!bt_setup(&b, 4))
		return;
	bt_map(&b, 0, 0, 16);
	bt_set(&b, 6, pte_wrprotect(bt_pte(&b, 6)));
	CHECK_EQ(bt_batch(&b, 0, 16, 0, &w, &gets), 6);
	CHECK(w);
	CHECK_EQ(bt_batch(&b, 0, 16, FPB_MERGE_WRITE, &w, &gets), 16);
	CHECK(w);
	CHECK_EQ(bt_batch(&b, 6, 16, 0, &w, &gets), 1);
	CHECK(!w);
	CHECK_EQ(bt_batch(&b, 6, 16, FPB_MERGE_WRITE, &w, &gets), 10);
	CHECK(w);
	wrprotect_ptes(NULL, BT_BASE, b.ptes, 16);
	CHECK_EQ(bt_batch(&b, 0, 16, FPB_MERGE_WRITE, &w, &gets), 16);
	CHECK(!w);
	CHECK_EQ(bt_batch(&b, 0, 16, 0, &w, &gets), 16);
	CHECK(!w);
	bt_teardown(&b);
}

/* Every difference the flags cover at once, ignored together. */
TEST(all_flags_together)
{
	struct bt b;
	uint64_t gets;
	bool w = true;

	if (!bt_setup(&b, 5))
		return;
	bt_map(&b, 0, 0, 32);
	bt_set(&b, 0, pte_wrprotect(pte_mkold(bt_pte(&b, 0))));
	bt_set(&b, 9, pte_mkdirty(bt_pte(&b, 9)));
	bt_set(&b, 17, pte_mkold(pte_mkdirty(pte_wrprotect(bt_pte(&b, 17)))));
	CHECK_EQ(bt_batch(&b, 0, 32, ALL_FPB, &w, &gets), 32);
	CHECK(w);
	CHECK_EQ(gets, 31);
	CHECK_EQ(bt_batch(&b, 1, 32, FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, &w, &gets), 16);
	bt_teardown(&b);
}

/* A run may start at any page of the folio and ends at the folio's end. */
TEST(run_starting_inside_a_folio)
{
	struct bt b;
	uint64_t gets;

	if (!bt_setup(&b, 4))
		return;
	bt_map(&b, 32, 0, 16);
	CHECK_EQ(bt_batch(&b, 32 + 5, PTRS_PER_TABLE, 0, NULL, &gets), 11);
	CHECK_EQ(gets, 10);
	CHECK_EQ(bt_batch(&b, 32 + 15, PTRS_PER_TABLE, 0, NULL, &gets), 1);
	CHECK_EQ(gets, 0);
	/* The folio mapped out of order: page 8 first, then 9.. */
	bt_map(&b, 100, 8, 8);
	CHECK_EQ(bt_batch(&b, 100, PTRS_PER_TABLE, 0, NULL, &gets), 8);
	bt_teardown(&b);
}

/* An order-0 folio is always a run of 1 and reads nothing more. */
TEST(order0_is_always_one)
{
	struct bt b;
	uint64_t gets;

	if (!bt_setup(&b, 0))
		return;
	set_ptes(NULL, BT_BASE, b.ptes, bt_pte(&b, 0), 8);
	CHECK_EQ(bt_batch(&b, 0, 8, ALL_FPB, NULL, &gets), 1);
	CHECK_EQ(gets, 0);
	bt_teardown(&b);
}

struct bad_call {
	struct bt *b;
	unsigned slot, max_nr;
	unsigned long addr;
	pte_t pte;
};

static void call_batch(void *arg)
{
	struct bad_call *c = arg;

	folio_pte_batch(c->b->folio, c->addr, c->b->ptes + c->slot, c->pte, c->max_nr, 0, NULL);
}

/* Contract violations panic: a first entry outside the folio, max_nr 0,
 * an address that is not the entry's slot. */
TEST(contract_violations_panic)
{
	struct bt b;
	struct bad_call c;

	if (!bt_setup(&b, 2))
		return;
	bt_map(&b, 0, 0, 4);
	c = (struct bad_call){ &b, 0, 4, BT_BASE, pfn_pte(b.pfn + 4, pte_pgprot(bt_pte(&b, 0))) };
	CHECK_PANICS(call_batch, &c, "does not map a page of the folio");
	c = (struct bad_call){ &b, 0, 0, BT_BASE, bt_pte(&b, 0) };
	CHECK_PANICS(call_batch, &c, "max_nr is 0");
	c = (struct bad_call){ &b, 1, 3, BT_BASE, bt_pte(&b, 1) };
	CHECK_PANICS(call_batch, &c, "is slot 0");
	bt_teardown(&b);
}

TEST_SUITE(pte_batch, whole_folio_is_one_run, bound_by_folio_end, bound_by_table_end,
	   bound_by_max_nr, gap_none_and_permission_end_the_run, dirty_bits_and_fpb_ignore_dirty,
	   young_bits_and_fpb_ignore_young, write_bits_fpb_merge_write_and_any_writable,
	   all_flags_together, run_starting_inside_a_folio, order0_is_always_one,
	   contract_violations_panic)
