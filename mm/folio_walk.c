/*
 * folio_walk.c - the PMD state and the page behind an address
 * (folio_walk.h).
 */
#include "kernel.h"
#include "folio_walk.h"
#include "mm_internal.h"

enum pmd_state pmd_state(pmd_t pmd)
{
	if (pmd_none(pmd))
		return PMD_NONE;
	if (is_pmd_migration_entry(pmd))
		return PMD_MIGRATION;
	if (pmd_leaf(pmd))
		return PMD_LEAF;
	if (pmd_present(pmd))
		return PMD_TABLE;
	panic("pmd_state: entry %#llx is neither present nor a migration entry",
	      (unsigned long long)pmd.val);
}

/* The folio behind pfn @pfn, which a leaf or migration entry maps. */
static struct folio *pfn_folio(uint64_t pfn)
{
	struct page *page = pfn_to_page(pfn);

	if (!page)
		panic("pfn_folio: pfn %#llx is not RAM", (unsigned long long)pfn);
	return page_folio(page);
}

enum pmd_state pmd_walk(struct mm *mm, unsigned long addr, struct pmd_walk *pw)
{
	pw->pmdp = mm_find_pmd(mm, addr, false);
	pw->pmd = pw->pmdp ? *pw->pmdp : (pmd_t){ 0 };
	pw->state = pmd_state(pw->pmd);
	pw->folio = NULL;
	if (pw->state == PMD_LEAF)
		pw->folio = pfn_folio(pmd_pfn(pw->pmd));
	else if (pw->state == PMD_MIGRATION)
		pw->folio = pfn_folio(migration_entry_pfn(pmd_pte(pw->pmd)));
	return pw->state;
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
