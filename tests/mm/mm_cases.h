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
#include "test.h"

/* What maps @addr in @mm: the folio and page (NULL if nothing), and
 * whether by a PMD leaf. Reads tables directly (no counters). */
static inline struct page *page_at(struct mm *mm, unsigned long addr, bool *by_pmd, pte_t *pte)
{
	pmd_t *pmdp = mm_find_pmd(mm, addr, false);

	*by_pmd = false;
	if (!pmdp || pmd_none(*pmdp))
		return NULL;
	if (pmd_leaf(*pmdp)) {
		*by_pmd = true;
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

#endif
