/*
 * cow.c - write faults on read-only anonymous pages (and unshare faults
 * from GUP): reuse the page when this mapping owns it, else copy it.
 *
 * A page is reused when it is AnonExclusive, or when this PTE is its only
 * mapping and nothing but mappings holds references to its folio (no GUP
 * reference or pin anywhere in the folio), Linux's
 * wp_can_reuse_anon_folio() made per page, which the per-page mapcounts
 * here allow. Everything else gets a copy of the one 4 KiB page in a new
 * order-0 folio, as Linux does for PTE-mapped large folios. A PMD-mapped
 * folio is reused whole when the PMD is its only user, else split first.
 *
 * An unshare fault (FAULT_UNSHARE, from GUP) that reuses one page of a
 * large folio on the second ground also marks AnonExclusive every other
 * page of the folio that this PTE table alone maps: the same facts prove
 * them exclusive. A read-only pin of a previously shared 64 KiB folio
 * unshares its first page and pins it; the next page would then not be
 * reusable (the pin is a reference that is no mapping) and be copied,
 * and the 14 after it too, which is what Linux does. Here the first
 * unshare makes the whole run exclusive and the pin takes it with one
 * grab. A write fault still takes over only its own page, as in Linux
 * (the process writes one page; the others stay as they were).
 */
#include <errno.h>
#include <string.h>

#include "kernel.h"
#include "lru.h"
#include "mm_internal.h"

void (*wp_reuse_window_hook)(struct mm *mm, unsigned long addr);

/* May the mapping of @page by one PTE take the page over? */
static bool can_reuse(struct folio *folio, struct page *page)
{
	if (PageAnonExclusive(page))
		return true;
	return page_mapcount(page) + folio_entire_mapcount(folio) == 1 &&
	       folio_ref_count(folio) == folio_mapcount(folio);
}

/*
 * folio_run_range - the part of @page's folio (@page at @addr) that lies
 * inside @vma and inside @addr's PTE table: [*lo, *hi), at most a table.
 * Return: the address the folio's first page would have.
 */
static unsigned long folio_run_range(struct vma *vma, unsigned long addr, struct page *page,
				     unsigned long *lo, unsigned long *hi)
{
	struct folio *folio = page_folio(page);
	unsigned long first = addr - (unsigned long)(page - &folio->page) * PAGE_SIZE;
	unsigned long tbl = addr & PMD_MASK;

	*lo = first > vma->start ? first : vma->start;
	*lo = *lo > tbl ? *lo : tbl;
	*hi = first + folio_nr_pages(folio) * PAGE_SIZE;
	*hi = *hi < vma->end ? *hi : vma->end;
	*hi = *hi < tbl + PMD_SIZE ? *hi : tbl + PMD_SIZE;
	return first;
}

/* Has @folio no reference but its mappings? The count is read first: a
 * mapping takes its reference before its mapcount rises and drops it
 * after its mapcount falls, and while a migration of the folio waits for
 * the caller's table lock nothing raises the mapcount (fork waits for the
 * family lock, the remap for this lock), so the count read first stays
 * above a mapcount read after it while a migration holds references. */
static bool folio_only_mapped(struct folio *folio)
{
	int refs = folio_ref_count(folio);

	return refs == folio_mapcount(folio);
}

/*
 * wp_reuse_folio_run - @page (at @addr, entry @ptep) is being reused
 * although not AnonExclusive: when can_reuse() looked, its large folio had
 * no reference but its mappings. Mark exclusive each other page of the
 * folio that an entry of this table (inside @vma) maps and nothing else
 * maps.
 *
 * A page's mapcount counts present mappings only. A migration of the
 * folio that started after can_reuse() (its batch reference, a fully
 * ordered grab) turns the other mms' mappings into migration entries,
 * which keep the page shared but no longer count: a mapcount of 1 then
 * does not mean exclusive (make stress, mix pct seed 1003951). So the
 * mapcounts are read first and the pages marked only if the folio still
 * has no reference but its mappings after a full barrier: a mapcount that
 * fell to a migration entry is seen with the migration's reference, which
 * stays until the migration has unmapped this table too (it waits for the
 * lock held here). When the re-check fails nothing else is marked; each of
 * those pages is decided by its own fault.
 * Context: the PTE table lock is held.
 */
static void wp_reuse_folio_run(struct vma *vma, unsigned long addr, pte_t *ptep, struct page *page)
{
	struct folio *folio = page_folio(page);
	uint64_t pick[PTRS_PER_TABLE / 64] = { 0 };
	unsigned long lo, hi, first = folio_run_range(vma, addr, page, &lo, &hi);
	unsigned long n = (hi - lo) >> PAGE_SHIFT, i0 = (lo - first) >> PAGE_SHIFT;

	ptep -= (addr - lo) >> PAGE_SHIFT;
	for (unsigned long i = 0; i < n; i++) {
		pte_t pte = ptep_get(ptep + i);
		struct page *p = folio_page(folio, i0 + i);

		if (pte_present(pte) && pte_pfn(pte) == page_to_pfn(p) && page_mapcount(p) == 1)
			pick[i / 64] |= 1ull << (i % 64);
	}
	mm_full_barrier(); /* the mapcounts before the references */
	if (!folio_only_mapped(folio))
		return;
	for (unsigned long i = 0; i < n; i++)
		if (pick[i / 64] >> (i % 64) & 1)
			SetPageAnonExclusive(folio_page(folio, i0 + i));
}

/* Make the PTE at @ptep exclusive in place, and dirty for a write,
 * writable only where the VMA is (a forced write, FAULT_FORCE, leaves a
 * read-only VMA's entry read-only). */
static void wp_reuse(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t pte, struct page *page,
		     unsigned flags)
{
	if ((flags & FAULT_UNSHARE) && !PageAnonExclusive(page) &&
	    folio_test_large(page_folio(page))) {
		if (wp_reuse_window_hook)
			wp_reuse_window_hook(vma->mm, addr); /* tests: another CPU's step here */
		wp_reuse_folio_run(vma, addr, ptep, page);
	}
	SetPageAnonExclusive(page);
	count_event(cow_reuses, 1);
	if (!(flags & FAULT_WRITE))
		return;
	pte = pte_mkdirty(pte_mkyoung(pte));
	if (vma->flags & VM_WRITE)
		pte = pte_mkwrite(pte);
	ptep_set_access_flags(vma, addr, ptep, pte); /* flushes what it changed */
}

/*
 * wp_copy - replace the mapping of @page at @ptep by a private copy:
 * writable and dirty for a write, read-only (but exclusive) for an
 * unshare, whose copy is PG_dirty instead: its entry is clean over data
 * held nowhere else, and a MADV_FREE of a fork child that later shares
 * it would otherwise make it discardable (explorer mix shared_reclaim,
 * pct seed 272: the parent's words read zero after the reclaim).
 * Return: 0, or -ENOMEM with nothing changed.
 */
static int wp_copy(struct vma *vma, unsigned long addr, pte_t *ptep, struct page *page,
		   unsigned flags)
{
	struct folio *src = page_folio(page);
	struct folio *dst = vma_alloc_folio(vma, addr, 0, 0);
	pte_t pte;

	if (!dst)
		return -ENOMEM;
	arch_copy_pages(page_address(&dst->page), page_address(page), 1);
	count_event(folio_copies, 1);
	count_event(cow_copies, 1);
	folio_prepare_anon(dst);
	if (!(flags & FAULT_WRITE))
		page_set_flags(&dst->page, PG_dirty);
	folio_add_rmap_ptes(dst, &dst->page, 1);
	pte = vma_mk_pte(vma, folio_pfn(dst));
	pte = flags & FAULT_WRITE ? pte_mkdirty(pte) : pte_wrprotect(pte);
	ptep_get_and_clear(vma->mm, addr, ptep);
	flush_tlb_range(vma->mm, addr, addr + PAGE_SIZE);
	set_ptes(vma->mm, addr, ptep, pte, 1);
	folio_add_lru(dst, vma->mm, addr);
	folio_remove_rmap_ptes(src, page, 1);
	folio_put(src);
	return 0;
}

int do_wp_page(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t pte, unsigned flags)
{
	struct page *page = pfn_to_page(pte_pfn(pte));

	addr &= ~(PAGE_SIZE - 1);
	if (can_reuse(page_folio(page), page)) {
		wp_reuse(vma, addr, ptep, pte, page, flags);
		return 0;
	}
	return wp_copy(vma, addr, ptep, page, flags);
}

/* Is the PMD mapping at @pmd the only user of its folio? Then make every
 * page exclusive again (the whole folio is reused). */
static bool huge_pmd_reuse(pmd_t pmd)
{
	struct folio *folio = page_folio(pfn_to_page(pmd_pfn(pmd)));

	if (PageAnonExclusive(&folio->page))
		return true;
	if (folio_ref_count(folio) != 1 || folio_mapcount(folio) != 1)
		return false;
	for (unsigned long i = 0; i < folio_nr_pages(folio); i++)
		SetPageAnonExclusive(folio_page(folio, i));
	return true;
}

/* The PTE fault that follows a split reads the entry again under the
 * PTE table's lock (handle_pte_fault). */
int do_huge_pmd_wp_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags)
{
	unsigned long base = addr & PMD_MASK;
	int err;

	if (huge_pmd_reuse(pmdp_get(pmdp))) {
		count_event(cow_reuses, 1);
		if (flags & FAULT_WRITE) {
			pmd_t pmd = pmd_mkdirty(pmd_mkyoung(pmdp_get(pmdp)));

			set_pmd(pmdp, vma->flags & VM_WRITE ? pmd_mkwrite(pmd) : pmd);
			flush_tlb_range(vma->mm, base, base + PMD_SIZE);
		}
		return 0;
	}
	err = split_huge_pmd(vma, pmdp, addr);
	return err ? err : 1;
}
