/*
 * test_tlb.c (host) - the strict TLB model's own cases: it serves hits,
 * drops what a flush or switch covers, and reports each kind of bug it
 * exists to find. The bugs are made by writing entries behind mm/'s back
 * (raw set_pte(), no flush), with the reports captured instead of failing
 * the case; every case puts the entries back before mm/ looks again.
 * Host runner only (arch/host is not in the guest).
 */
#include "mm/mm_cases.h"

#include <host_tlb.h>

static uint64_t free_before;
static char msg[400];
static unsigned long reports0;

static struct mm *begin(void)
{
	return mm_case_begin(&free_before);
}

static void end(struct mm *mm)
{
	mm_case_end(mm, free_before);
}

static bool arm64_format(void)
{
	return strcmp(HOST_PTE_FORMAT, "arm64") == 0;
}

/* The PTE for @a (a PTE table must map it). */
static pte_t *ptep_of(struct mm *mm, unsigned long a)
{
	pmd_t *pmdp = mm_find_pmd(mm, a, false);

	CHECK(pmdp && pmd_present(*pmdp) && !pmd_leaf(*pmdp));
	return pte_offset_kernel(pmdp, a);
}

/* Capture the model's reports from now on. */
static void capture(void)
{
	msg[0] = '\0';
	reports0 = host_tlb_reports;
	host_tlb_capture(msg, sizeof(msg));
}

/* Stop capturing; return the reports made meanwhile. */
static unsigned long captured(void)
{
	host_tlb_capture(NULL, 0);
	return host_tlb_reports - reports0;
}

/* One byte at @a through the MMU with faults off (current_mm NULL): the
 * cached entry or the walk answers, nothing is mapped behind the test. */
static int raw_access(struct mm *mm, unsigned long a, bool write)
{
	unsigned char b = 0;
	int err;

	switch_mm(mm);
	current_mm = NULL;
	err = arch_copy_user(a, &b, 1, write);
	current_mm = mm;
	return err;
}

/* Write @bad at @ptep behind mm/'s back (no flush), then a @write (or a
 * read) of @a with faults off: it must fail with one report that says
 * @needle. */
static void expect_stale(struct mm *mm, unsigned long a, pte_t *ptep, pte_t bad, bool write,
			 const char *needle)
{
	capture();
	set_pte(ptep, bad);
	CHECK(raw_access(mm, a, write) != 0);
	CHECK_EQ(captured(), 1);
	CHECK_HAS(msg, needle);
}

/* Four 4 KiB pages, written (mapped dirty and cached). */
static unsigned long map_four(struct mm *mm)
{
	unsigned long a = test_mmap(mm, 4 * PAGE_SIZE, RW | VM_NOHUGEPMD, ORDERS(0));

	CHECK_EQ(mm_touch(mm, a, 4 * PAGE_SIZE, true), 0);
	return a;
}

/* Accesses after the first walk are hits; a flush or a switch of mm
 * drops them, and no report is made on the way. */
TEST(serves_hits_until_a_flush)
{
	struct mm *mm = begin(), *other = mm_create();
	unsigned long a = map_four(mm), hits = host_tlb_hits, fills;

	capture();
	CHECK_EQ(mm_touch(mm, a, 4 * PAGE_SIZE, false), 0);
	CHECK_EQ(host_tlb_hits - hits, 4);
	flush_tlb_range(mm, a, a + PAGE_SIZE);
	fills = host_tlb_fills;
	CHECK_EQ(mm_touch(mm, a, 4 * PAGE_SIZE, false), 0);
	CHECK_EQ(host_tlb_fills - fills, 1);
	switch_mm(other);
	CHECK_EQ(mm_touch(mm, a, 4 * PAGE_SIZE, false), 0);
	CHECK_EQ(host_tlb_fills - fills, 5);
	CHECK_EQ(captured(), 0);
	mm_put(other);
	end(mm);
}

/* An entry cleared without a flush: the next access through the cached
 * copy is reported; with the flush, the access just misses. */
TEST(access_after_clear_without_flush)
{
	struct mm *mm = begin();
	unsigned long a = map_four(mm);
	pte_t *ptep = ptep_of(mm, a), old = __ptep_get(ptep);

	expect_stale(mm, a, ptep, (pte_t){ 0 }, false, "not valid (missing flush)");
	set_pte(ptep, old);
	capture();
	CHECK_EQ(raw_access(mm, a, false), 0);
	set_pte(ptep, (pte_t){ 0 });
	flush_tlb_range(mm, a, a + PAGE_SIZE);
	CHECK(raw_access(mm, a, false) != 0);
	set_pte(ptep, old);
	CHECK_EQ(captured(), 0);
	end(mm);
}

/* Write-protected without a flush: a write through the cached writable
 * entry is reported. */
TEST(write_after_wrprotect_without_flush)
{
	struct mm *mm = begin();
	unsigned long a = map_four(mm);
	pte_t *ptep = ptep_of(mm, a), old = __ptep_get(ptep);

	expect_stale(mm, a, ptep, pte_wrprotect(old), true, "read-only (missing flush)");
	set_pte(ptep, old);
	flush_tlb_range(mm, a, a + PAGE_SIZE);
	end(mm);
}

/* Made writable without a flush, while a read-only copy is cached: x86
 * re-walks (nothing to report); arm64 faults, the handler finds nothing
 * to change, and the fault would repeat for ever: reported. */
TEST(relaxed_without_flush_is_stuck_on_arm64_only)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, PAGE_SIZE, RW | VM_NOHUGEPMD, ORDERS(0));
	unsigned char b = 1;
	pte_t *ptep;

	CHECK_EQ(mm_touch(mm, a, PAGE_SIZE, false), 0); /* clean: read-only to arm64's MMU */
	ptep = ptep_of(mm, a);
	capture();
	set_pte(ptep, pte_mkdirty(__ptep_get(ptep)));
	CHECK_EQ(mm_access(mm, a, &b, 1, true), 0);
	CHECK_EQ(captured(), arm64_format());
	if (arm64_format())
		CHECK_HAS(msg, "fault makes no progress");
	end(mm);
}

/* Two entries swapped (valid to valid, new output addresses) and then
 * flushed: break-before-make is broken on arm64; x86 allows it (no
 * access used the stale copies). */
TEST(output_address_change_needs_bbm_on_arm64)
{
	struct mm *mm = begin();
	unsigned long a = map_four(mm);
	pte_t *p0 = ptep_of(mm, a), e0 = __ptep_get(p0), e1 = __ptep_get(p0 + 1);

	capture();
	set_pte(p0, e1);
	set_pte(p0 + 1, e0);
	flush_tlb_range(mm, a, a + 2 * PAGE_SIZE);
	CHECK_EQ(captured(), arm64_format() ? 2 : 0);
	if (arm64_format())
		CHECK_HAS(msg, "output address changed without break-before-make");
	set_pte(p0, e0);
	set_pte(p0 + 1, e1);
	flush_tlb_range(mm, a, a + 2 * PAGE_SIZE);
	end(mm);
}

/* A PMD leaf written over a table whose pages are cached: walking it
 * caches a 2 MiB entry over the 4 KiB ones, a TLB conflict; the flush
 * afterwards finds the table back under a cached block (both formats). */
TEST(block_over_cached_pages_is_a_conflict)
{
	struct mm *mm = begin();
	unsigned long a = test_mmap(mm, 2 << 20, RW, ORDERS(PMD_ORDER));
	pmd_t *pmdp, leaf, table;

	CHECK_EQ(mm_touch(mm, a, 2 << 20, true), 0);
	pmdp = mm_find_pmd(mm, a, false);
	CHECK(pmdp && pmd_leaf(*pmdp));
	leaf = *pmdp;
	CHECK_EQ(mm_mprotect(mm, a, PAGE_SIZE, VM_READ), 0); /* splits */
	CHECK_EQ(mm_mprotect(mm, a, PAGE_SIZE, RW), 0);
	CHECK_EQ(mm_touch(mm, a, 2 * PAGE_SIZE, false), 0);
	table = *pmdp;
	capture();
	*pmdp = leaf;
	CHECK_EQ(raw_access(mm, a + 2 * PAGE_SIZE, false), 0);
	CHECK(host_tlb_reports - reports0 >= 1);
	CHECK_HAS(msg, "TLB conflict");
	msg[0] = '\0';
	*pmdp = table;
	flush_tlb_range(mm, a, a + (2 << 20));
	CHECK_HAS(msg, "2M block replaced by a table");
	captured();
	end(mm);
}

/* ---- the shootdown and the cpumask ----------------------------------------- */

/*
 * Go on as CPU @cpu. A host CPU's TLB, live mm and cpumask bit are
 * per-CPU state that outlives its thread, so one thread can play two
 * CPUs in turn, each step finished before the other CPU's next: the
 * interleaving is exact, and with no smp_run() going the model reports
 * a stale entry instead of serving it (tlb.c).
 */
static void as_cpu(unsigned cpu)
{
	host_cpu_number = cpu;
}

/* CPU 1 reads @a of @mm (its TLB caches the page, @mm stays live there);
 * back on CPU 0. */
static void cached_on_cpu1(struct mm *mm, unsigned long a)
{
	as_cpu(1);
	CHECK_EQ(raw_access(mm, a, false), 0);
	as_cpu(0);
}

/* CPU 1 switches away from everything; back on CPU 0. */
static void cpu1_idle(void)
{
	as_cpu(1);
	switch_mm(NULL);
	as_cpu(0);
}

/* A CPU that has the mm live is in its cpumask (and leaves it when it
 * switches away), and a flush on CPU 0 reaches it: its next access
 * misses and walks the cleared entry (a fault, no report). */
TEST(flush_reaches_the_cpus_in_the_cpumask)
{
	struct mm *mm;
	unsigned long a, ipis;
	pte_t *ptep, old;

	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: no other CPU to flush\n");
		CHECK(true);
		return;
	}
	mm = begin();
	a = map_four(mm);
	ptep = ptep_of(mm, a);
	old = __ptep_get(ptep);
	cached_on_cpu1(mm, a);
	CHECK_EQ(__atomic_load_n(&mm->context.cpumask, __ATOMIC_RELAXED), 3ul);
	ipis = host_tlb_ipis;
	capture();
	set_pte(ptep, (pte_t){ 0 });
	flush_tlb_range(mm, a, a + PAGE_SIZE);
	CHECK_EQ(host_tlb_ipis - ipis, 1); /* CPU 1 only: 2 and 3 have no mm live */
	as_cpu(1);
	CHECK(raw_access(mm, a, false) != 0);
	as_cpu(0);
	set_pte(ptep, old);
	CHECK_EQ(captured(), 0);
	cpu1_idle();
	CHECK_EQ(__atomic_load_n(&mm->context.cpumask, __ATOMIC_RELAXED), 1ul);
	end(mm);
}

/* CPU 1 has the mm live but its cpumask bit is wrongly clear (the bug a
 * wrong mask update makes): CPU 0's flush does not reach it, and its
 * next access uses the stale entry, which the model reports. */
TEST(cpu_left_out_of_the_cpumask_keeps_a_stale_entry)
{
	struct mm *mm;
	unsigned long a, ipis;
	pte_t *ptep, old;

	if (smp_nr_cpus() < 2) {
		printf("    1 CPU online: no other CPU to leave out\n");
		CHECK(true);
		return;
	}
	mm = begin();
	a = map_four(mm);
	ptep = ptep_of(mm, a);
	old = __ptep_get(ptep);
	cached_on_cpu1(mm, a);
	__atomic_fetch_and(&mm->context.cpumask, ~2ul, __ATOMIC_SEQ_CST);
	ipis = host_tlb_ipis;
	capture();
	set_pte(ptep, (pte_t){ 0 });
	flush_tlb_range(mm, a, a + PAGE_SIZE);
	CHECK_EQ(host_tlb_ipis - ipis, 0);
	as_cpu(1);
	CHECK(raw_access(mm, a, false) != 0);
	as_cpu(0);
	CHECK_EQ(captured(), 1);
	CHECK_HAS(msg, "not valid (missing flush)");
	printf("    CPU 1 out of the mask, after CPU 0's flush: %s\n", msg[0] ? msg : "no report");
	set_pte(ptep, old);
	cpu1_idle();
	end(mm);
}

TEST_SUITE(tlb_model, serves_hits_until_a_flush, access_after_clear_without_flush,
	   write_after_wrprotect_without_flush, relaxed_without_flush_is_stuck_on_arm64_only,
	   output_address_change_needs_bbm_on_arm64, block_over_cached_pages_is_a_conflict,
	   flush_reaches_the_cpus_in_the_cpumask, cpu_left_out_of_the_cpumask_keeps_a_stale_entry);
