/*
 * mprotect.c - changing the protection of mapped entries.
 *
 * Batched as Linux's change_pte_range() with PTE batching: a run of PTEs
 * mapping consecutive pages of one large folio is taken out with one
 * clear_full_ptes() (which gathers the run's dirty and young bits) and put
 * back with one set_ptes() in the new protection. Making entries writable
 * is only allowed for AnonExclusive pages, a per-page property: the run is
 * cut where AnonExclusive changes, so every page still gets its own answer
 * (the batched result equals the per-page one). mm_caps.mprotect bounds the
 * run; 1 is the per-PTE code from before batching.
 */
#include "kernel.h"
#include "mm_internal.h"
#include "pte_batch.h"
#include "trace.h"

struct mprotect_walk {
	struct vma *vma;
	pgprot_t prot; /* the new protection */
	bool writable; /* the new flags have VM_WRITE */
};

/* Length of the prefix of the @nr pages from @page with the same
 * AnonExclusive state as @page. */
static unsigned same_exclusive_prefix(struct page *page, unsigned nr)
{
	bool want = PageAnonExclusive(page);
	unsigned i = 1;

	while (i < nr && PageAnonExclusive(page + i) == want)
		i++;
	return i;
}

/*
 * change_run - take the @nr entries from @ptep (the first maps @page) out
 * with one clear_full_ptes() and put them back with one set_ptes() in the
 * new protection. @brk: the rewrite may fold them into an arch block, so
 * the cleared run is flushed before it is written back (clearing is not
 * the break of break-before-make while the TLB may hold the old entries).
 * Inlined so that the one-entry path has @nr and @brk as constants.
 */
static inline __attribute__((always_inline)) unsigned change_run(struct mprotect_walk *w,
								 unsigned long addr, pte_t *ptep,
								 struct page *page, unsigned nr,
								 bool brk)
{
	struct mm *mm = w->vma->mm;
	pte_t pte = pte_modify(clear_full_ptes(mm, addr, ptep, nr, 0), w->prot);

	if (w->writable && PageAnonExclusive(page))
		pte = pte_mkwrite(pte);
	else
		pte = pte_wrprotect(pte);
	if (brk)
		flush_tlb_range(mm, addr, addr + (unsigned long)nr * PAGE_SIZE);
	set_ptes(mm, addr, ptep, pte, nr);
	return nr;
}

/*
 * The least folio order whose runs are batched: any large folio (1) where
 * the arch has no blocks; on an arch with blocks (arm64 contpte) a folio
 * that can hold one, since a smaller folio's run gains nothing from the
 * block-aware batched hooks, which cost more than the single-entry ones
 * (arm64 mprotect 16K: 226 instructions a page batched, 177 at cap 1).
 * Tested before the cap, so that both variants pay for the test.
 */
static inline unsigned batch_min_order(void)
{
	unsigned b = arch_pte_block_order();

	return b ? b : 1;
}

/*
 * change_present_ptes - re-protect the run of at most @left entries
 * starting at @ptep (value @pte). Return: entries handled (at least 1).
 * Context: the PTE table lock is held.
 */
static unsigned change_present_ptes(struct mprotect_walk *w, unsigned long addr, pte_t *ptep,
				    pte_t pte, unsigned long left)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio = page_folio(page);
	unsigned nr;

	if (!folio_test_large(folio) || folio_order(folio) < batch_min_order() ||
	    mm_caps.mprotect <= 1)
		return change_run(w, addr, ptep, page, 1, false);
	nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(mm_caps.mprotect, left),
			     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG | FPB_MERGE_WRITE, NULL);
	if (w->writable && nr > 1)
		nr = same_exclusive_prefix(page, nr);
	return change_run(w, addr, ptep, page, nr,
			  set_ptes_needs_break(addr, ptep, pte_modify(pte, w->prot), nr));
}

/* The walker's pte_range. Context: the table's lock is held. */
static int change_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			    unsigned long end, void *priv)
{
	(void)mm, (void)pmdp;
	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(pte))
			nr = change_present_ptes(priv, addr, ptep, pte, (end - addr) >> PAGE_SHIFT);
		ptep += nr;
		addr += nr * PAGE_SIZE;
	}
	return 0;
}

/* The walker's pmd_leaf: the range covers the whole leaf (split_range()
 * split the others); writable only if the folio is exclusive. */
static int change_huge_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			   void *priv)
{
	struct mprotect_walk *w = priv;
	pmd_t pmd;

	(void)mm;
	if (addr & ~PMD_MASK || end - addr != PMD_SIZE)
		panic("change_protection: partial PMD leaf at %#lx", addr);
	TRACE(trace_pmd(addr, "re-protected"));
	/* cleared and rewritten, as the PTEs are: no young or dirty bit lost */
	pmd = pmd_modify(pmdp_get_and_clear(pmdp), w->prot);
	if (w->writable && PageAnonExclusive(pfn_to_page(pmd_pfn(pmd))))
		set_pmd(pmdp, pmd_mkwrite(pmd));
	else
		set_pmd(pmdp, pmd_wrprotect(pmd));
	return 0;
}

static const struct pt_walk_ops mprotect_ops = { .pmd_leaf = change_huge_pmd,
						 .pte_range = change_pte_range };

/* Context: no PTE lock held; the caller flushes the TLB for the range. */
void change_protection(struct vma *vma, unsigned long start, unsigned long end, unsigned newflags)
{
	struct mprotect_walk w = { vma, vm_get_page_prot(newflags), newflags & VM_WRITE };

	walk_page_range(vma->mm, start, end, &mprotect_ops, &w);
}
