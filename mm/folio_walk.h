/*
 * folio_walk.h - one answer to "what does this mm map at this address",
 * for every caller (Linux's folio_walk_start()). Every state a PMD entry
 * can be in is classified here, once: none, a PTE table, a leaf, or a
 * migration entry standing in for a leaf. A caller switches on the state,
 * so a new state is a new enum value that the compiler makes every
 * switch handle, not a test one hand-written lookup forgets (a PMD
 * migration entry read as a table was such a bug).
 */
#ifndef MM_FOLIO_WALK_H
#define MM_FOLIO_WALK_H

#include "swapops.h"

enum pmd_state {
	PMD_NONE,      /* no entry (or no table above it) */
	PMD_TABLE,     /* a PTE table */
	PMD_LEAF,      /* a 2 MiB leaf (PROT_NONE included) */
	PMD_MIGRATION, /* a migration entry for a 2 MiB leaf */
};

/* A PMD value that is none of the states (not present, yet no migration
 * entry): a broken table. Panics. */
void pmd_state_bug(pmd_t pmd) __attribute__((noreturn));

/*
 * pmd_state - the state of the PMD value @pmd (inline: every walk asks it
 * once per PMD).
 */
static inline enum pmd_state pmd_state(pmd_t pmd)
{
	if (pmd_none(pmd))
		return PMD_NONE;
	if (pmd_leaf(pmd))
		return PMD_LEAF;
	if (pmd_present(pmd))
		return PMD_TABLE;
	if (!is_pmd_migration_entry(pmd))
		pmd_state_bug(pmd);
	return PMD_MIGRATION;
}

/* What the PMD entry for an address holds, read once. */
struct pmd_walk {
	pmd_t *pmdp; /* the entry; NULL when a level above is missing */
	pmd_t pmd;   /* its value */
	enum pmd_state state;
	struct folio *folio; /* PMD_LEAF, PMD_MIGRATION: the folio it maps */
};

/*
 * pmd_walk - one descent (pt_descents) to the PMD entry for @addr in @mm,
 * nothing allocated; fill @pw. Return: pw->state.
 * Context: no lock needed for the descent (upper tables are never freed
 * while the mm is in use); a PTE table found may be locked by the caller.
 */
static inline enum pmd_state pmd_walk(struct mm *mm, unsigned long addr, struct pmd_walk *pw)
{
	pw->pmdp = mm_find_pmd(mm, addr, false);
	pw->pmd = pw->pmdp ? *pw->pmdp : (pmd_t){ 0 };
	pw->state = pmd_state(pw->pmd);
	pw->folio = NULL;
	if (pw->state == PMD_LEAF)
		pw->folio = page_folio(pfn_to_page(pmd_pfn(pw->pmd)));
	else if (pw->state == PMD_MIGRATION)
		pw->folio = page_folio(pfn_to_page(migration_entry_pfn(pmd_pte(pw->pmd))));
	return pw->state;
}

/* Is the leaf or migration entry of @pw one of @folio's? */
static inline bool pmd_walk_maps(const struct pmd_walk *pw, const struct folio *folio)
{
	return (pw->state == PMD_LEAF || pw->state == PMD_MIGRATION) && pw->folio == folio;
}

#define FW_MIGRATION 0x1 /* also answer for a page behind a migration entry */

/* The page mapped at an address and how. */
struct folio_walk {
	struct page *page;   /* the 4 KiB page at the address */
	struct folio *folio; /* its folio */
	pte_t pte;	     /* the entry that maps it (a PMD as pmd_pte()) */
	bool by_pmd;	     /* mapped by a PMD leaf (or PMD migration entry) */
	bool migration;	     /* by a migration entry (only with FW_MIGRATION) */
};

/*
 * folio_walk - the page @mm maps at @addr, read with raw entry access
 * (one pt_descent, no lock, no counted ptep_get: callers want the page,
 * not a block's access bits). @flags: FW_MIGRATION.
 * Return: the folio (and @fw filled), or NULL when nothing present is
 * mapped there (none, or a migration entry without FW_MIGRATION).
 */
struct folio *folio_walk(struct mm *mm, unsigned long addr, unsigned flags, struct folio_walk *fw);

/* The swap entry @mm has at @addr into *@entry (raw access, as
 * folio_walk()). Return: true if there is one (mm/swapops.h). */
bool swap_entry_at(struct mm *mm, unsigned long addr, pte_t *entry);

#endif
