/*
 * mm_cases.h - helpers shared by the address-space test cases (both
 * runners): look up what maps an address, snapshot free memory, check
 * invariants after every step.
 */
#ifndef TESTS_MM_CASES_H
#define TESTS_MM_CASES_H

#include <errno.h>

#include "kernel.h"
#include "mm_internal.h"
#include "mm_test.h"
#include "spinlock.h"

/* What maps @addr in @mm: the page (NULL if nothing), whether by a PMD
 * leaf, and the entry (a PMD leaf as pmd_pte()). Reads tables directly
 * (no counters). */
static inline struct page *page_at(struct mm *mm, unsigned long addr, bool *by_pmd, pte_t *pte)
{
	pmd_t *pmdp = mm_find_pmd(mm, addr, false);

	*by_pmd = false;
	if (!pmdp || pmd_none(*pmdp))
		return NULL;
	if (pmd_leaf(*pmdp)) {
		*by_pmd = true;
		*pte = pmd_pte(*pmdp);
		return pfn_to_page(pmd_pfn(*pmdp) + ((addr & ~PMD_MASK) >> PAGE_SHIFT));
	}
	*pte = __ptep_get(&pmd_table(*pmdp)[pte_index(addr)]);
	return pte_present(*pte) ? pfn_to_page(pte_pfn(*pte)) : NULL;
}

static inline struct folio *folio_at(struct mm *mm, unsigned long addr)
{
	bool pmd;
	pte_t pte;
	struct page *p = page_at(mm, addr, &pmd, &pte);

	return p ? page_folio(p) : NULL;
}

/* The invariant checker finds nothing. */
#define CHECK_MM_OK() CHECK_EQ(mm_check(NULL), 0)

/* The differential tests' invariant check: after every step on the host
 * runners; in the guest after every DIFF_CHECK_EVERY-th step and the last,
 * since there each check walks the memmap of all of RAM under QEMU TCG
 * (mm_diff and mremap's diff spent 30 of the 4-CPU selftest's 105 s of
 * guest time in it) and the host runners run the same steps on both PTE
 * formats, checked every step. */
#ifdef HOST_PTE_FORMAT
#define DIFF_CHECK_EVERY 1
#else
#define DIFF_CHECK_EVERY 6
#endif
static inline bool diff_check_due(int step, int steps)
{
	return (step + 1) % DIFF_CHECK_EVERY == 0 || step == steps - 1;
}

/* Orders bitmask for "up to order @o": just @o and 0. */
#define ORDERS(o) ((1ul << (o)) | 1ul)

/* mmap that the test expects to succeed. */
static inline unsigned long test_mmap(struct mm *mm, unsigned long len, unsigned flags,
				      unsigned long orders)
{
	long a = mm_mmap(mm, 0, len, flags, 0, orders);

	CHECK(a > 0);
	return a > 0 ? (unsigned long)a : 0;
}

#define RW (VM_READ | VM_WRITE)

/* Start a case: every cap at max, free memory noted in *@free_before,
 * a new mm. */
static inline struct mm *mm_case_begin(uint64_t *free_before)
{
	struct mm *mm;

	caps_set_all(true);
	*free_before = total_free_pages();
	mm = mm_create();
	CHECK(mm != NULL);
	return mm;
}

/* End a case: the checker passes before and after @mm goes, and every
 * page is free again. */
static inline void mm_case_end(struct mm *mm, uint64_t free_before)
{
	CHECK_MM_OK();
	mm_put(mm);
	CHECK_MM_OK();
	CHECK_EQ(total_free_pages(), free_before);
	caps_set_all(true);
}

/* Counter deltas since @c0. */
static inline struct mm_counters counters_since(const struct mm_counters *c0)
{
	struct mm_counters d;

	mm_counters_since(&d, c0);
	return d;
}

/* The entry mapping @addr (none if a PMD maps it or nothing does). */
static inline pte_t pte_at(struct mm *mm, unsigned long addr)
{
	bool by_pmd;
	pte_t pte = { 0 };

	if (!page_at(mm, addr, &by_pmd, &pte) || by_pmd)
		return (pte_t){ 0 };
	return pte;
}

/* Two CPUs of a race case meet through flags: flag_set() publishes
 * what the setter did before it, flag_wait() spins (a switch point for
 * the explorer) until the flag is set and sees it. */
static inline void flag_wait(unsigned *w)
{
	while (!__atomic_load_n(w, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
}

static inline void flag_set(unsigned *w)
{
	__atomic_store_n(w, 1, __ATOMIC_RELEASE);
}

/* A window hook's half of a two-CPU race: let the other CPU go (@go) and
 * wait until its step is through (@done) or waits for @lock, which the
 * window is held under. Return: whether it waited for the lock. */
static inline bool go_until_through_or_waiting(unsigned *go, unsigned *done, struct spinlock *lock)
{
	flag_set(go);
	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE) && !spin_is_contended(lock))
		arch_cpu_relax();
	return !__atomic_load_n(done, __ATOMIC_ACQUIRE);
}

#endif
