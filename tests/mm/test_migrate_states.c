/*
 * test_migrate_states.c - migration against every state a page table can
 * be in when a step or a lookup reaches it, and folios that more than one
 * VMA maps: each folio is handled once per call, and a PMD migration
 * entry is never read as a PTE table (mm/folio_walk.h classifies it).
 */
#include "folio_walk.h"
#include "migrate_cases.h"
#include "smp.h"

/*
 * A 2 MiB THP, PMD-mapped, forked; one side writes page 1 (its PMD is
 * split and that page copied into an order-0 folio). MOVE_ALL from the
 * writer moves the THP first (the other side's PMD becomes a migration
 * entry), then the order-0 folio, whose family walk meets that entry.
 */
static void thp_fork_write_move_all(int batched, bool parent_writes)
{
	unsigned long len = 2ul << 20, pages = len >> PAGE_SHIFT;
	struct mm *mm = begin(batched), *child, *w, *o;
	unsigned long a = test_mmap(mm, len, RW, ORDERS(PMD_ORDER));
	unsigned char x = 0x77;
	struct mm_counters c0;
	bool pmd;
	pte_t pte;

	fill(mm, a, pages, 3);
	child = mm_fork(mm, NULL);
	CHECK(child != NULL);
	w = parent_writes ? mm : child;
	o = parent_writes ? child : mm;
	CHECK_EQ(mm_access(w, a + PAGE_SIZE, &x, 1, true), 0);
	page_at(o, a, &pmd, &pte);
	CHECK(pmd);
	c0 = mm_counters_read();
	CHECK_EQ(mm_migrate_pages(w, N0, N1, MPOL_MF_MOVE_ALL), 0);
	CHECK_EQ(counters_since(&c0).thp_migration_success, 1);
	CHECK_EQ(counters_since(&c0).migrate_queued, 2);
	CHECK_EQ(off_node(w, a, pages, 1), 0);
	CHECK_EQ(off_node(o, a, pages, 1), 0);
	page_at(o, a, &pmd, &pte);
	CHECK(pmd);
	CHECK_EQ(bad_bytes(o, a, pages, 3), 0);
	CHECK_EQ(bad_bytes_at(w, a + 2 * PAGE_SIZE, 2, pages - 2, 3), 0);
	CHECK_EQ(((unsigned char *)page_address(folio_page(folio_at(w, a + PAGE_SIZE), 0)))[0],
		 0x77);
	CHECK_MM_OK();
	mm_put(child);
	mm_case_end(mm, free_before);
}

/* The crash of issue 18: the family walk of an order-0 folio met the PMD
 * migration entry an earlier THP of its group left, and read it as a
 * PTE table. Either side may write; both cap settings. */
TEST(pmd_migration_entry_in_the_family_walk)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b) {
		thp_fork_write_move_all(b, true);
		thp_fork_write_move_all(b, false);
	}
}

/* The folios split across VMAs: 64K in two VMAs, 2M-pte in three. */
static const struct {
	unsigned long len;
	unsigned order;
	unsigned long ro_from, ro_to; /* pages made read-only: the VMA cuts */
} splits[] = { { 64ul << 10, 4, 0, 8 }, { 2ul << 20, PMD_ORDER, 100, 300 } };

/* splits[@k]: its folio written, then split into VMAs by mprotect of the
 * pages [ro_from, ro_to) to read-only. Return: the address. */
static unsigned long split_mapping(struct mm *mm, int k)
{
	unsigned long len = splits[k].len;
	unsigned long a = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(splits[k].order));

	fill(mm, a, len >> PAGE_SHIFT, 4);
	CHECK_EQ(folio_order(folio_at(mm, a)), splits[k].order);
	CHECK_EQ(mm_mprotect(mm, a + splits[k].ro_from * PAGE_SIZE,
			     (splits[k].ro_to - splits[k].ro_from) * PAGE_SIZE, VM_READ),
		 0);
	CHECK(find_vma(mm, a) != find_vma(mm, a + len - PAGE_SIZE));
	return a;
}

/* migrate_pages from {0, 1} to {1, 2} maps 0 -> 1 and 1 -> 2: a folio on
 * node 0 that two or three VMAs map moves once (to 1), not once per VMA
 * (0 -> 1 -> 2). */
TEST(folio_across_vmas_moves_once)
{
	NEED_THREE_NODES();
	FOR_BOTH_CAPS(b)
		for (int k = 0; k < 2; k++) {
			struct mm *mm = begin(b);
			unsigned long pages = splits[k].len >> PAGE_SHIFT, a = split_mapping(mm, k);
			struct mm_counters c0 = mm_counters_read(), d;

			CHECK_EQ(migrate_pages(mm, N0 | N1, N1 | N2), 0);
			d = counters_since(&c0);
			CHECK_EQ(off_node(mm, a, pages, 1), 0);
			CHECK_EQ(d.migrate_queued, 1);
			CHECK_EQ(d.pgmigrate_success, pages);
			CHECK_EQ(d.folio_copies, pages);
			CHECK_EQ(bad_bytes(mm, a, pages, 4), 0);
			mm_case_end(mm, free_before);
		}
}

/* A pinned folio that several VMAs map fails once: its pages, not its
 * pages per VMA (64K in two VMAs: 16, not 32; 2M-pte in three: 512, not
 * 1536). */
TEST(pinned_folio_across_vmas_counts_once)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(b)
		for (int k = 0; k < 2; k++) {
			struct mm *mm = begin(b);
			unsigned long pages = splits[k].len >> PAGE_SHIFT, a = split_mapping(mm, k);
			struct mm_counters c0;
			struct page *pin[1];

			CHECK_EQ(pin_user_pages(mm, a, 1, FOLL_LONGTERM, pin), 1);
			c0 = mm_counters_read();
			CHECK_EQ(migrate_pages(mm, N0, N1), (long)pages);
			CHECK_EQ(counters_since(&c0).pgmigrate_fail, pages);
			CHECK_EQ(off_node(mm, a, pages, 0), 0);
			CHECK_EQ(mbind(mm, a, splits[k].len, MPOL_BIND, N1,
				       MPOL_MF_MOVE | MPOL_MF_STRICT),
				 -EIO);
			unpin_user_pages(pin, 1);
			CHECK_EQ(migrate_pages(mm, N0, N1), 0);
			CHECK_EQ(off_node(mm, a, pages, 1), 0);
			mm_case_end(mm, free_before);
		}
}

static struct mm *look_mm;
static unsigned long look_addr;
static int look_seen, look_errors, look_locked_ran;

static void collect_nothing(void *ctx, const char *line)
{
	(void)ctx, (void)line;
}

/* The lookups that take no lock, as the migrating CPU itself may run
 * them while the entry stands at @at. */
static void look_lockless(unsigned long at, const struct pmd_walk *pw, unsigned long idx)
{
	struct folio_walk fw;
	struct page *pages[2];

	look_errors += folio_walk(look_mm, at, 0, &fw) != NULL;
	look_errors += folio_walk(look_mm, at, FW_MIGRATION, &fw) != pw->folio;
	look_errors += !fw.migration || !fw.by_pmd || fw.page != folio_page(pw->folio, idx);
	look_errors += get_user_pages_fast(look_mm, at, 2, FOLL_FAST_ONLY, pages) != 0;
	look_errors += pin_user_pages_fast(look_mm, at, 1, FOLL_FAST_ONLY, pages) != 0;
}

/* The lookups that take the mmap_lock, from another CPU, as a reader
 * would run them beside the migration (CPU 0 holds the migrate_lock and
 * the mmap_lock for read meanwhile). Not a fault: it waits for the
 * migration to end (migrate/fault_on_a_migration_entry_waits). */
static void look_locked(unsigned cpu, void *arg)
{
	unsigned long at = *(unsigned long *)arg;
	const struct pmd_walk *pw = (const struct pmd_walk *)((unsigned long *)arg + 1);
	int nid = -1, status = 0;

	if (cpu != 1)
		return;
	look_errors += get_mempolicy(look_mm, &nid, NULL, at, MPOL_F_NODE | MPOL_F_ADDR) != 0;
	look_errors += nid != pw->folio->page.node;
	look_errors += move_pages(look_mm, 1, &at, NULL, &status, 0) != 0;
	look_errors += status != -ENOENT;
	mm_numa_maps_to(look_mm, collect_nothing, NULL);
	mm_ptdump_to(look_mm, collect_nothing, NULL);
	look_locked_ran = 1;
}

/* While a PMD migration entry stands at look_addr: every lookup says what
 * it documents and none reads the entry as a table. */
static void look_at_pmd_migration_entry(void)
{
	unsigned long idx = 5;
	struct {
		unsigned long at;
		struct pmd_walk pw;
	} a = { look_addr + idx * PAGE_SIZE, { 0 } };

	if (pmd_walk(look_mm, look_addr, &a.pw) != PMD_MIGRATION)
		return;
	look_seen++;
	look_lockless(a.at, &a.pw, idx);
	if (smp_nr_cpus() >= 2)
		smp_run(2, look_locked, &a);
}

/* Every lookup against each PMD state: none and table (nothing there),
 * a leaf, a table with a page, and a migration entry (from the hook). */
TEST(lookups_handle_every_pmd_state)
{
	NEED_TWO_NODES();
	struct mm *mm = begin(1);
	unsigned long len = 2ul << 20, at;
	unsigned long h = test_mmap(mm, len, RW, ORDERS(PMD_ORDER));
	unsigned long s = test_mmap(mm, len, RW | VM_NOHUGEPMD, ORDERS(0));
	struct folio_walk fw;
	struct pmd_walk pw;
	int status = 0;

	CHECK_EQ(pmd_walk(mm, h, &pw), PMD_NONE);
	CHECK(folio_walk(mm, h, FW_MIGRATION, &fw) == NULL);
	at = h;
	CHECK_EQ(move_pages(mm, 1, &at, NULL, &status, 0), 0);
	CHECK_EQ(status, -ENOENT);
	fill(mm, h, 512, 5);
	CHECK_EQ(pmd_walk(mm, h, &pw), PMD_LEAF);
	CHECK(folio_walk(mm, h + 3 * PAGE_SIZE, 0, &fw) == pw.folio);
	CHECK(fw.by_pmd && !fw.migration && fw.page == folio_page(pw.folio, 3));
	CHECK_EQ(mm_access(mm, s, &(unsigned char){ 1 }, 1, true), 0);
	CHECK_EQ(pmd_walk(mm, s, &pw), PMD_TABLE);
	CHECK(folio_walk(mm, s + PAGE_SIZE, FW_MIGRATION, &fw) == NULL);
	CHECK(folio_walk(mm, s, 0, &fw) == folio_at(mm, s));
	CHECK(!fw.by_pmd && !fw.migration);
	look_mm = mm;
	look_addr = h;
	look_seen = look_errors = look_locked_ran = 0;
	migrate_unmapped_hook = look_at_pmd_migration_entry;
	CHECK_EQ(migrate_pages(mm, N0, N1), 0);
	migrate_unmapped_hook = NULL;
	CHECK_EQ(look_seen, 1);
	CHECK_EQ(look_errors, 0);
	if (smp_nr_cpus() < 2)
		printf("    one CPU: the mmap_lock lookups (get_mempolicy, move_pages, numa_maps, "
		       "ptdump) need a second CPU\n");
	else
		CHECK_EQ(look_locked_ran, 1);
	CHECK_EQ(bad_bytes(mm, h, 512, 5), 0);
	CHECK_EQ(node_of(mm, h), 1);
	mm_case_end(mm, free_before);
}

TEST_SUITE(migrate_states, pmd_migration_entry_in_the_family_walk, folio_across_vmas_moves_once,
	   pinned_folio_across_vmas_counts_once, lookups_handle_every_pmd_state)
