/*
 * madvise_cold.c - MADV_COLD (Linux's madvise_cold_or_pageout_pte_range()
 * without the pageout): each folio of the range mapped only there has its
 * young bits cleared (one clear and flush per run of mm_caps.young, as
 * aging does) and goes to the inactive tail, so that reclaim takes it
 * first and does not find it referenced. A folio another mapping shares
 * is left, as Linux leaves it ("do not interfere with other mappings").
 */
#include "kernel.h"
#include "lru.h"
#include "madvise.h"
#include "mm_internal.h"
#include "pte_batch.h"
#include "vmscan.h"

/* The run from @ptep (value @pte, at most @left entries). Return: its
 * length. Context: the PTE table lock is held. */
static unsigned cold_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte,
			  unsigned long left)
{
	struct folio *folio = page_folio(pfn_to_page(pte_pfn(pte)));
	unsigned nr = 1;

	if (folio_test_large(folio))
		nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(CAP_MAX, left),
				     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG | FPB_IGNORE_BLOCK, NULL);
	if (!pte_user(pte) || folio_mapcount(folio) != (int)nr)
		return nr;
	folio_referenced_ptes(mm, addr, ptep, nr);
	folio_deactivate(folio);
	return nr;
}

/* The walker's pte_range. Context: the table's lock is held. */
static int cold_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			  unsigned long end, void *priv)
{
	(void)pmdp, (void)priv;
	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = cold_ptes(mm, addr, ptep, pte, (end - addr) >> PAGE_SHIFT);
		ptep += nr;
		addr += nr * PAGE_SIZE;
	}
	return 0;
}

/* The walker's pmd_leaf: a leaf the range covers whole and nothing else
 * maps goes to the inactive tail. Context: mmap_lock held. */
static int cold_huge_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			 void *priv)
{
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmdp_get(pmdp))));

	(void)mm, (void)priv;
	if (end - addr == PMD_SIZE && folio_mapcount(folio) == 1)
		folio_deactivate(folio);
	return 0;
}

static const struct pt_walk_ops cold_ops = { .pmd_leaf = cold_huge_pmd,
					     .pte_range = cold_pte_range };

void madvise_cold_vma(struct vma *v, unsigned long s, unsigned long e)
{
	walk_page_range(v->mm, s, e, &cold_ops, NULL);
}
