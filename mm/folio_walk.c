/*
 * folio_walk.c - the PMD state and the page behind an address
 * (folio_walk.h).
 */
#include "kernel.h"
#include "folio_walk.h"
#include "mm_internal.h"
#include "swapops.h"

void pmd_state_bug(pmd_t pmd)
{
	panic("pmd_state: entry %#llx is neither present nor a migration entry",
	      (unsigned long long)pmd.val);
}

/* Fill @fw for page @pfn mapped by @pte; NULL unless present or allowed. */
static struct folio *fw_fill(struct folio_walk *fw, pte_t pte, uint64_t pfn, bool by_pmd,
			     bool migration)
{
	fw->page = pfn_to_page(pfn);
	fw->folio = page_folio(fw->page);
	fw->pte = pte;
	fw->by_pmd = by_pmd;
	fw->migration = migration;
	return fw->folio;
}

struct folio *folio_walk(struct mm *mm, unsigned long addr, unsigned flags, struct folio_walk *fw)
{
	unsigned long idx = (addr & ~PMD_MASK) >> PAGE_SHIFT;
	struct pmd_walk pw;
	pte_t pte;

	switch (pmd_walk(mm, addr, &pw)) {
	case PMD_NONE:
		return NULL;
	case PMD_LEAF:
		return fw_fill(fw, pmd_pte(pw.pmd), pmd_pfn(pw.pmd) + idx, true, false);
	case PMD_MIGRATION:
		if (!(flags & FW_MIGRATION))
			return NULL;
		return fw_fill(fw, pmd_pte(pw.pmd), migration_entry_pfn(pmd_pte(pw.pmd)) + idx,
			       true, true);
	case PMD_TABLE:
		break;
	}
	pte = __ptep_get(pte_offset_kernel(pw.pmdp, addr));
	if (pte_present(pte))
		return fw_fill(fw, pte, pte_pfn(pte), false, false);
	if ((flags & FW_MIGRATION) && is_migration_entry(pte))
		return fw_fill(fw, pte, migration_entry_pfn(pte), false, true);
	return NULL;
}

bool swap_entry_at(struct mm *mm, unsigned long addr, pte_t *entry)
{
	struct pmd_walk pw;

	if (pmd_walk(mm, addr, &pw) != PMD_TABLE)
		return false;
	*entry = __ptep_get(pte_offset_kernel(pw.pmdp, addr));
	return is_swap_entry(*entry);
}
