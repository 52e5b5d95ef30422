/*
 * test_numa_hint.c - NUMA hinting (mm/numa_hint.c): change_prot_numa()
 * marks the entries of folios off the target node PROT_NONE while the
 * VMA keeps its access, per run of one folio; the next access takes a
 * hinting fault that gives the folio's entries back (their own write
 * bits) and moves the folio to the faulting CPU's node. The test's CPU
 * is put on node 1 through cpu_nid[] for the case and back on node 0.
 */
#include "folio_walk.h"
#include "migrate_cases.h"

static int *this_cpu_nid(void)
{
	return &cpu_nid[smp_processor_id()];
}

static int nid_saved;

/* A case: begin() with the test's CPU on node 0, whatever node the machine
 * gave it; nh_end() puts its node back. */
static struct mm *nh_begin(int batched)
{
	nid_saved = *this_cpu_nid();
	*this_cpu_nid() = 0;
	return begin(batched);
}

static void nh_end(struct mm *mm)
{
	mm_case_end(mm, free_before);
	*this_cpu_nid() = nid_saved;
}

/* Is every page of [a, +pages) mapped by a present entry closed to user
 * mode (a hinting entry in these cases)? Does none of them? */
static unsigned long hinted_pages(struct mm *mm, unsigned long a, unsigned long pages)
{
	unsigned long n = 0;

	for (unsigned long i = 0; i < pages; i++) {
		bool by_pmd;
		pte_t pte;

		n += page_at(mm, a + i * PAGE_SIZE, &by_pmd, &pte) && !pte_user(pte);
	}
	return n;
}

static const struct {
	unsigned order;
	bool pmd;
} nh_sizes[] = { { 0, false }, { 4, false }, { PMD_ORDER, false }, { PMD_ORDER, true } };
#define NH_NR_SIZES (sizeof(nh_sizes) / sizeof(nh_sizes[0]))
#define NH_LEN (4ul << 20)
#define NH_PAGES (NH_LEN / PAGE_SIZE)

static unsigned long nh_map(struct mm *mm, unsigned k)
{
	unsigned long a = test_mmap(mm, NH_LEN, RW | (nh_sizes[k].pmd ? 0 : VM_NOHUGEPMD),
				    ORDERS(nh_sizes[k].order));

	fill(mm, a, NH_PAGES, k);
	return a;
}

/* Every size, both caps: the scan from node 1 marks every entry of the
 * node-0 folios with one flush; the VMA keeps its access; a read of one
 * page takes one hinting fault, which opens that folio's entries only
 * and moves it to node 1 (the CPU's); the bytes stay. */
TEST(numa_hint_marks_then_fault_moves_the_folio)
{
	NEED_TWO_NODES();
	for (unsigned k = 0; k < NH_NR_SIZES; k++) {
		FOR_BOTH_CAPS(batched) {
			struct mm *mm = nh_begin(batched);
			unsigned long a = nh_map(mm, k), fp;
			struct mm_counters c0 = mm_counters_read(), d;
			unsigned char b;

			CHECK_EQ(change_prot_numa(mm, a, a + NH_LEN, 1), (long)NH_PAGES);
			d = counters_since(&c0);
			CHECK(batched ? d.tlb_flushes == 1
				      : d.tlb_flushes >= 1); /* cap 1: unfolds */
			CHECK_EQ(d.numa_pte_updates, NH_PAGES);
			CHECK_EQ(hinted_pages(mm, a, NH_PAGES), NH_PAGES);
			CHECK_EQ(find_vma(mm, a)->flags & VM_ACCESS_FLAGS, RW);
			CHECK_MM_OK();
			fp = folio_nr_pages(folio_at(mm, a));
			*this_cpu_nid() = 1;
			c0 = mm_counters_read();
			CHECK_EQ(mm_access(mm, a + PAGE_SIZE - 1, &b, 1, false), 0);
			*this_cpu_nid() = 0;
			d = counters_since(&c0);
			CHECK_EQ(b, pattern(0, k));
			CHECK_EQ(d.numa_hint_faults, 1);
			CHECK_EQ(d.numa_pages_migrated, fp);
			CHECK_EQ(off_node(mm, a, fp, 1), 0);
			CHECK_EQ(hinted_pages(mm, a, NH_PAGES), NH_PAGES - fp);
			CHECK_EQ(off_node(mm, a + fp * PAGE_SIZE, NH_PAGES - fp, 0), 0);
			CHECK_MM_OK();
			CHECK_EQ(bad_bytes(mm, a, NH_PAGES, k), 0); /* the others open, in place */
			CHECK_EQ(hinted_pages(mm, a, NH_PAGES), 0);
			CHECK_EQ(off_node(mm, a + fp * PAGE_SIZE, NH_PAGES - fp, 0), 0);
			nh_end(mm);
		}
	}
}

/* Folios already on the target node are skipped by whole runs, and marked
 * entries are not marked again: a second scan marks nothing and does not
 * flush; a node-1 half is left alone by a scan for node 1. */
TEST(numa_hint_skips_folios_on_the_target_node)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(batched) {
		struct mm *mm = nh_begin(batched);
		unsigned long a = nh_map(mm, 1);
		struct mm_counters c0;

		CHECK_EQ(change_prot_numa(mm, a, a + NH_LEN, 0), 0);
		CHECK_EQ(mbind(mm, a, NH_LEN / 2, MPOL_BIND, N1, MPOL_MF_MOVE), 0);
		CHECK_EQ(change_prot_numa(mm, a, a + NH_LEN, 1), (long)NH_PAGES / 2);
		CHECK_EQ(hinted_pages(mm, a, NH_PAGES / 2), 0);
		CHECK_EQ(hinted_pages(mm, a + NH_LEN / 2, NH_PAGES / 2), NH_PAGES / 2);
		c0 = mm_counters_read();
		CHECK_EQ(change_prot_numa(mm, a, a + NH_LEN, 1), 0);
		CHECK_EQ(counters_since(&c0).tlb_flushes, 0);
		CHECK_MM_OK();
		nh_end(mm);
	}
}

/* The batched scan and restore take a run at once: never more entry reads
 * than at cap 1, fewer on a format whose blocks tell the run's length
 * (arm64); and arm64 blocks stay folded through the mark and the fault's
 * restore. */
TEST(numa_hint_batches_per_folio)
{
	uint64_t gets[2], unfolds[2];

	NEED_TWO_NODES();
	FOR_BOTH_CAPS(batched) {
		struct mm *mm = nh_begin(batched);
		unsigned long a = nh_map(mm, 1);
		struct mm_counters c0 = mm_counters_read(), d;
		unsigned char b;

		CHECK_EQ(change_prot_numa(mm, a, a + NH_LEN, 1), (long)NH_PAGES);
		CHECK_EQ(mm_access(mm, a, &b, 1, false), 0); /* node 0: opened, not moved */
		d = counters_since(&c0);
		gets[batched] = d.ptep_gets;
		unfolds[batched] = d.cont_unfolds;
		CHECK_EQ(d.numa_pages_migrated, 0);
		CHECK_EQ(hinted_pages(mm, a, 16), 0);
		if (batched)
			CHECK_EQ(pte_cont(pte_at(mm, a)), arch_has_pte_blocks());
		nh_end(mm);
	}
	printf("    entry reads: cap 1 %llu, batched %llu; blocks unfolded: %llu, %llu\n",
	       (unsigned long long)gets[0], (unsigned long long)gets[1],
	       (unsigned long long)unfolds[0], (unsigned long long)unfolds[1]);
	CHECK(gets[1] <= gets[0]);
	CHECK_EQ(gets[1] < gets[0], arch_has_pte_blocks());
	CHECK_EQ(unfolds[1], 0);
}

/* The restore gives each entry its own write bit back: after a fork the
 * parent's entries are read-only (shared with the child) and stay so
 * through the hint; the child's write still copies; the parent, once
 * alone, writes in place. */
TEST(numa_hint_keeps_each_entry_write_bit)
{
	NEED_TWO_NODES();
	FOR_BOTH_CAPS(batched) {
		struct mm *mm = nh_begin(batched), *child;
		unsigned long a = nh_map(mm, 1);
		unsigned char b = 0x77;

		CHECK(pte_write(pte_at(mm, a)));
		CHECK_EQ(change_prot_numa(mm, a, a + 64 * PAGE_SIZE, 1), 64);
		CHECK_EQ(mm_access(mm, a, &b, 1, false), 0);
		CHECK(pte_user(pte_at(mm, a)) && pte_write(pte_at(mm, a)));
		child = mm_fork(mm, NULL);
		CHECK(child != NULL);
		if (!child) {
			nh_end(mm);
			break;
		}
		CHECK_EQ(change_prot_numa(mm, a, a + 64 * PAGE_SIZE, 1), 16); /* the open folio */
		CHECK_EQ(change_prot_numa(mm, a, a + 64 * PAGE_SIZE, 1), 0);
		CHECK_EQ(mm_access(mm, a + 16 * PAGE_SIZE, &b, 1, false), 0);
		CHECK(pte_user(pte_at(mm, a + 16 * PAGE_SIZE)) &&
		      !pte_write(pte_at(mm, a + 16 * PAGE_SIZE)));
		CHECK_MM_OK();
		b = 0x77;
		CHECK_EQ(mm_access(child, a + 16 * PAGE_SIZE, &b, 1, true), 0);
		CHECK_EQ(bad_bytes(mm, a, 64, 1), 0);
		mm_put(child);
		nh_end(mm);
	}
}

/* GUP's slow path opens a hinting entry through its fault (the folio
 * does not move: GUP holds the mmap_lock); gup-fast leaves it alone. */
TEST(numa_hint_gup_opens_without_moving)
{
	NEED_TWO_NODES();
	for (unsigned k = 0; k < NH_NR_SIZES; k++) {
		struct mm *mm = nh_begin(1);
		unsigned long a = nh_map(mm, k);
		struct page *pages[16];
		struct mm_counters c0;

		CHECK_EQ(change_prot_numa(mm, a, a + NH_LEN, 1), (long)NH_PAGES);
		CHECK_EQ(pin_user_pages_fast(mm, a, 16, FOLL_FAST_ONLY, pages), 0);
		*this_cpu_nid() = 1;
		c0 = mm_counters_read();
		CHECK_EQ(pin_user_pages(mm, a, 16, FOLL_WRITE, pages), 16);
		*this_cpu_nid() = 0;
		CHECK_EQ(counters_since(&c0).numa_pages_migrated, 0);
		CHECK(counters_since(&c0).numa_hint_faults >= 1);
		CHECK(pages[0] == &folio_at(mm, a)->page || nh_sizes[k].pmd);
		CHECK_EQ(off_node(mm, a, 16, 0), 0);
		unpin_user_pages(pages, 16);
		CHECK_MM_OK();
		nh_end(mm);
	}
}

static unsigned remarks_left;

/* Another CPU's NUMA scan of the page, between GUP's fault and its next
 * walk (by hand: GUP holds the mmap_lock the scan takes). */
static void remark_after_fault(struct mm *mm, unsigned long addr)
{
	struct pmd_walk pw;
	struct spinlock *ptl;
	pte_t *ptep;

	if (!remarks_left || pmd_walk(mm, addr, &pw) != PMD_TABLE)
		return;
	remarks_left--;
	ptep = pte_offset_map_lock(mm, pw.pmdp, addr, &ptl);
	set_pte(ptep, pte_modify(ptep_get(ptep), PAGE_USER_NONE));
	pte_unmap_unlock(ptep, ptl);
	flush_tlb_range(mm, addr, addr + PAGE_SIZE);
}

/*
 * A scan on another CPU may mark the entry again after each hinting fault
 * of a GUP, before the GUP walks to it again (and a migration may put a
 * migration entry there each time): the fault made progress, the other
 * CPU undid it, and the GUP faults again, as often as that happens. So
 * the slow path's bound on faults at one address counts only faults that
 * find the entry as the last one left it (explore/numa_hint seed 1000797
 * panicked: "no progress at 0x40204000 after 3 faults" after a hinting
 * fault and two migrations).
 */
TEST(numa_hint_gup_faults_again_after_each_rescan)
{
	NEED_TWO_NODES();
	struct mm *mm = nh_begin(1);
	unsigned long a = nh_map(mm, 0);
	struct page *page = NULL;

	CHECK_EQ(change_prot_numa(mm, a, a + PAGE_SIZE, 1), 1);
	remarks_left = 5;
	gup_fault_window_hook = remark_after_fault;
	CHECK_EQ(pin_user_pages(mm, a, 1, FOLL_WRITE, &page), 1);
	gup_fault_window_hook = NULL;
	CHECK_EQ(remarks_left, 0);
	CHECK(page == &folio_at(mm, a)->page);
	if (page)
		unpin_user_pages(&page, 1);
	CHECK_MM_OK();
	nh_end(mm);
}

/* A PROT_NONE VMA has nothing to hint; mprotect over hinting entries
 * opens them (the new protection replaces the hint). */
TEST(numa_hint_and_mprotect)
{
	NEED_TWO_NODES();
	struct mm *mm = nh_begin(1);
	unsigned long a = nh_map(mm, 1);

	CHECK_EQ(mm_mprotect(mm, a, NH_LEN / 2, 0), 0);
	CHECK_EQ(change_prot_numa(mm, a, a + NH_LEN, 1), (long)NH_PAGES / 2);
	CHECK_EQ(mm_mprotect(mm, a, NH_LEN, VM_READ), 0);
	CHECK_EQ(hinted_pages(mm, a, NH_PAGES), 0);
	CHECK_EQ(bad_bytes(mm, a, NH_PAGES, 1), 0);
	CHECK_EQ(change_prot_numa(mm, a, a + NH_LEN, 9), -EINVAL);
	CHECK_MM_OK();
	nh_end(mm);
}

/* The periodic scan (numa_scan=): with a step every 4 faults, the faults
 * of a fresh region on CPU 0 (node 1 for the case) step over the mm's
 * VMAs and mark the node-0 folios of the first region, one MiB a step,
 * whatever the faults touch; reads of the first region then take hinting
 * faults that move its folios to node 1, the bytes in place. Off (0), the
 * same faults mark nothing. */
TEST(numa_scan_steps_every_n_faults)
{
	NEED_TWO_NODES();
	for (int on = 0; on < 2; on++) {
		struct mm *mm = nh_begin(true);
		unsigned long a = nh_map(mm, 1),
			      b = test_mmap(mm, NH_LEN, RW | VM_NOHUGEPMD, ORDERS(0));
		struct mm_counters c0, d;
		unsigned char x = 0;

		*this_cpu_nid() = 1;
		numa_scan_set(on ? 4 : 0);
		c0 = mm_counters_read();
		for (unsigned long i = 0; i < 64; i++) /* 64 faults: 16 steps */
			CHECK_EQ(mm_access(mm, b + i * PAGE_SIZE, &x, 1, true), 0);
		numa_scan_set(0);
		d = counters_since(&c0);
		CHECK_EQ(d.numa_scans, on ? 16 : 0);
		CHECK_EQ(hinted_pages(mm, a, NH_PAGES), on ? NH_PAGES : 0);
		CHECK_MM_OK();
		c0 = mm_counters_read();
		CHECK_EQ(bad_bytes(mm, a, NH_PAGES, 1), 0);
		d = counters_since(&c0);
		CHECK_EQ(d.numa_hint_faults, on ? NH_PAGES >> 4 : 0);
		CHECK_EQ(d.numa_pages_migrated, on ? NH_PAGES : 0);
		CHECK_EQ(off_node(mm, a, NH_PAGES, on ? 1 : 0), 0);
		*this_cpu_nid() = 0;
		CHECK_MM_OK();
		nh_end(mm);
	}
}

TEST_SUITE(numa_hint, numa_hint_marks_then_fault_moves_the_folio,
	   numa_hint_skips_folios_on_the_target_node, numa_hint_batches_per_folio,
	   numa_hint_keeps_each_entry_write_bit, numa_hint_gup_opens_without_moving,
	   numa_hint_and_mprotect, numa_hint_gup_faults_again_after_each_rescan,
	   numa_scan_steps_every_n_faults)
