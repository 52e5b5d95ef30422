/*
 * pgtable.c - the generic page-table layer: table pages and their locks,
 * the descent to a pmd entry, the walker, and freeing empty tables.
 *
 * Every table below the pgd is an order-0 folio flagged PG_pgtable whose
 * struct page holds the split PTE lock (only PTE tables use it). The
 * walker and mm_find_pmd() read upper levels directly; only PTE entries go
 * through ptep_get(), in the callers.
 */
#include "kernel.h"
#include "folio_walk.h"
#include "mm_internal.h"

#ifndef ptep_set_access_flags
/* The young and dirty bits the MMU may have set since the caller read the
 * entry are kept: the entry is replaced with a compare-and-exchange. */
bool ptep_set_access_flags(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t entry)
{
	uint64_t old = __ptep_get(ptep).val;
	pte_t new;

	do {
		new = entry;
		if (pte_dirty((pte_t){ old }))
			new = pte_mkdirty(new);
		if (pte_young((pte_t){ old }))
			new = pte_mkyoung(new);
		if (new.val == old)
			return false;
		arch_sched_point(SCHED_PTE_WRITE);
	} while (!__atomic_compare_exchange_n(&ptep->val, &old, new.val, false, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	addr &= ~(PAGE_SIZE - 1);
	flush_tlb_range(vma->mm, addr, addr + PAGE_SIZE);
	return true;
}
#endif

/* ---- protections ---------------------------------------------------------- */

pgprot_t vm_get_page_prot(unsigned vm_flags)
{
	bool write = vm_flags & VM_WRITE, exec = vm_flags & VM_EXEC;

	if (!(vm_flags & VM_ACCESS_FLAGS))
		return PAGE_USER_NONE;
	if (write)
		return exec ? PAGE_USER_RWX : PAGE_USER_RW;
	return exec ? PAGE_USER_RX : PAGE_USER_RO;
}

/* ---- table pages ---------------------------------------------------------- */

/* A zeroed PG_pgtable page with its lock ready; counts pt_allocs. */
static struct page *pt_page_alloc(void)
{
	struct folio *f = folio_alloc(0, 0, ALLOC_ZERO | ALLOC_ANY_NODE);

	if (!f)
		return NULL;
	page_set_flags(&f->page, PG_pgtable);
	spin_lock_init(&f->page.ptl, LOCK_PTL, "PTE table lock");
	count_event(pt_allocs, 1);
	return &f->page;
}

/* Return a table page whose lock the caller checked (or reused). */
static void pt_page_release(struct page *pt)
{
	if (!(pt->flags & PG_pgtable))
		panic("pt_free: pfn %#llx is not a page-table page (flags %#x)",
		      (unsigned long long)page_to_pfn(pt), pt->flags);
	page_clear_flags(pt, PG_pgtable);
	count_event(pt_frees, 1);
	folio_put(page_folio(pt));
}

struct page *pt_alloc(struct mm *mm)
{
	struct page *pt = pt_page_alloc();

	if (pt && mm)
		__atomic_fetch_add(&mm->nr_pt_pages, 1, __ATOMIC_RELAXED);
	return pt;
}

/* The mm's count of tables below the pgd goes down by one. */
static void mm_dec_pt_pages(struct mm *mm)
{
	if (!mm)
		return;
	if (__atomic_fetch_sub(&mm->nr_pt_pages, 1, __ATOMIC_RELAXED) == 0)
		panic("pt_free: mm %d has no page-table pages to free", mm->id);
}

void pt_free(struct mm *mm, struct page *pt)
{
	if (!(pt->flags & PG_pgtable) || spin_is_locked(&pt->ptl))
		panic("pt_free: pfn %#llx is %s", (unsigned long long)page_to_pfn(pt),
		      pt->flags & PG_pgtable ? "a table freed with its lock held"
					     : "not a page-table page");
	mm_dec_pt_pages(mm);
	pt_page_release(pt);
}

pgd_t *pgd_alloc(struct mm *mm)
{
	struct page *pt = pt_page_alloc();
	pgd_t *pgd;

	(void)mm;
	if (!pt)
		return NULL;
	pgd = page_address(pt);
	arch_pgd_init(pgd);
	return pgd;
}

void pgd_free(struct mm *mm, pgd_t *pgd)
{
	for (unsigned long a = 0; a < MM_USER_END; a += PGDIR_SIZE)
		if (!pgd_none(pgd[pgd_index(a)]))
			panic("pgd_free: mm %d still has a table under %#lx", mm ? mm->id : -1, a);
	pt_page_release(pfn_to_page(virt_to_phys(pgd) >> PAGE_SHIFT));
}

/* ---- entries to tables ---------------------------------------------------- */

static void *table_va(uint64_t pfn)
{
	return phys_to_virt(pfn << PAGE_SHIFT);
}

pud_t *pgd_table(pgd_t e)
{
	if (!pgd_present(e))
		panic("pgd_table: entry %#llx is not a table", (unsigned long long)e.val);
	return table_va(pgd_table_pfn(e));
}

pmd_t *pud_table(pud_t e)
{
	if (!pud_present(e) || pud_leaf(e))
		panic("pud_table: entry %#llx is not a table", (unsigned long long)e.val);
	return table_va(pud_table_pfn(e));
}

pte_t *pmd_table(pmd_t e)
{
	if (!pmd_present(e) || pmd_leaf(e))
		panic("pmd_table: entry %#llx is not a table", (unsigned long long)e.val);
	return table_va(pmd_table_pfn(e));
}

struct page *pmd_pt_page(pmd_t pmd)
{
	struct page *pt = pfn_to_page(pmd_table_pfn(pmd));

	if (!pmd_present(pmd) || pmd_leaf(pmd) || !pt || !(pt->flags & PG_pgtable))
		panic("pmd_pt_page: entry %#llx does not point at a page-table page",
		      (unsigned long long)pmd.val);
	return pt;
}

/* ---- the descent to a pmd entry ------------------------------------------ */

/*
 * Installing a table: allocate it unlocked, then take the mm's
 * page_table_lock and hook it up only if the entry is still none; a CPU
 * that lost the race gives its table back. The release store of the
 * entry publishes the zeroed table to the walkers, which read upper
 * entries without a lock.
 */

/* Make sure *@pgdp points at a PUD table (allocating with @alloc). */
static bool pgd_ensure_table(struct mm *mm, pgd_t *pgdp, bool alloc)
{
	struct page *pt;

	if (!pgd_none(pgdp_get(pgdp)))
		return true;
	if (!alloc || !(pt = pt_alloc(mm)))
		return false;
	spin_lock(&mm->page_table_lock);
	if (pgd_none(pgdp_get(pgdp))) {
		set_pgd(pgdp, pgd_mktable(page_to_pfn(pt)));
		pt = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (pt)
		pt_free(mm, pt);
	return true;
}

/* Make sure *@pudp points at a PMD table (allocating with @alloc). */
static bool pud_ensure_table(struct mm *mm, pud_t *pudp, bool alloc)
{
	struct page *pt;
	pud_t pud = pudp_get(pudp);

	if (!pud_none(pud))
		return !pud_leaf(pud);
	if (!alloc || !(pt = pt_alloc(mm)))
		return false;
	spin_lock(&mm->page_table_lock);
	if (pud_none(pudp_get(pudp))) {
		set_pud(pudp, pud_mktable(page_to_pfn(pt)));
		pt = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (pt)
		pt_free(mm, pt);
	return !pud_leaf(pudp_get(pudp));
}

pmd_t *mm_find_pmd(struct mm *mm, unsigned long addr, bool alloc)
{
	pgd_t *pgdp = pgd_offset_pgd(mm->pgd, addr);
	pud_t *pudp;

	count_event(pt_descents, 1);
	if (!pgd_ensure_table(mm, pgdp, alloc))
		return NULL;
	pudp = pud_offset(pgdp, addr);
	if (!pud_ensure_table(mm, pudp, alloc))
		return NULL;
	return pmd_offset(pudp, addr);
}

pte_t *pte_offset_map_lock_nested(struct mm *mm, pmd_t *pmdp, unsigned long addr,
				  struct spinlock **ptl, unsigned subclass)
{
	pmd_t pmd = pmdp_get(pmdp);
	struct page *pt;

	(void)mm;
	if (!pmd_present(pmd) || pmd_leaf(pmd))
		return NULL;
	pt = pmd_pt_page(pmd);
	spin_lock_nested(&pt->ptl, subclass);
	count_event(ptl_takes, 1);
	*ptl = &pt->ptl;
	return pmd_table(pmd) + pte_index(addr);
}

pte_t *pte_offset_map_lock(struct mm *mm, pmd_t *pmdp, unsigned long addr, struct spinlock **ptl)
{
	return pte_offset_map_lock_nested(mm, pmdp, addr, ptl, 0);
}

void pte_unmap_unlock(pte_t *ptep, struct spinlock *ptl)
{
	(void)ptep;
	spin_unlock(ptl);
}

/* ---- the walker ----------------------------------------------------------- */

struct walk {
	struct mm *mm;
	const struct pt_walk_ops *ops;
	void *priv;
};

/* One PTE table, locked once for the whole run [addr, end). */
static int walk_pte_table(struct walk *w, pmd_t *pmdp, unsigned long addr, unsigned long end)
{
	struct spinlock *ptl;
	pte_t *ptep;
	int ret;

	if (!w->ops->pte_range)
		return 0;
	ptep = pte_offset_map_lock(w->mm, pmdp, addr, &ptl);
	ret = w->ops->pte_range(w->mm, pmdp, ptep, addr, end, w->priv);
	pte_unmap_unlock(ptep, ptl);
	return ret;
}

static int walk_pmd_entry(struct walk *w, pmd_t *pmdp, unsigned long addr, unsigned long end)
{
	switch (pmd_state(pmdp_get(pmdp))) {
	case PMD_TABLE:
		return walk_pte_table(w, pmdp, addr, end);
	case PMD_LEAF:
		return w->ops->pmd_leaf ? w->ops->pmd_leaf(w->mm, pmdp, addr, end, w->priv) : 0;
	case PMD_NONE:
	case PMD_MIGRATION:
		break;
	}
	return 0;
}

static int walk_pmd_range(struct walk *w, pud_t *pudp, unsigned long addr, unsigned long end)
{
	pmd_t *pmds = pud_table(*pudp);
	unsigned long next;
	int ret = 0;

	for (; addr < end && !ret; addr = next) {
		next = pmd_addr_end(addr, end);
		ret = walk_pmd_entry(w, &pmds[pmd_index(addr)], addr, next);
	}
	return ret;
}

static int walk_pud_range(struct walk *w, pgd_t *pgdp, unsigned long addr, unsigned long end)
{
	pud_t *puds = pgd_table(*pgdp), *pudp;
	unsigned long next;
	int ret = 0;

	for (; addr < end && !ret; addr = next) {
		next = pud_addr_end(addr, end);
		pudp = &puds[pud_index(addr)];
		if (!pud_none(*pudp) && !pud_leaf(*pudp))
			ret = walk_pmd_range(w, pudp, addr, next);
	}
	return ret;
}

int walk_page_range(struct mm *mm, unsigned long start, unsigned long end,
		    const struct pt_walk_ops *ops, void *priv)
{
	struct walk w = { mm, ops, priv };
	unsigned long addr, next;
	int ret = 0;

	if (start >= end || ((start | end) & (PAGE_SIZE - 1)))
		panic("walk_page_range: bad range [%#lx, %#lx)", start, end);
	count_event(pt_descents, 1);
	for (addr = start; addr < end && !ret; addr = next) {
		pgd_t *pgdp = pgd_offset_pgd(mm->pgd, addr);

		next = pgd_addr_end(addr, end);
		if (!pgd_none(*pgdp))
			ret = walk_pud_range(&w, pgdp, addr, next);
	}
	return ret;
}

/* ---- freeing empty tables ------------------------------------------------- */

/* Every entry ORed, eight an iteration with no exit in between: a table
 * that is freed is read whole anyway, and this is under two instructions
 * an entry instead of four. (Not vectorized: GCC's x86_64 vector code
 * for it shuffles more than it ORs.) */
static bool __attribute__((optimize("no-tree-vectorize"))) table_empty(const void *table)
{
	const uint64_t *e = table;
	uint64_t any = 0;

	for (int i = 0; i < PTRS_PER_TABLE; i += 8)
		any |= e[i] | e[i + 1] | e[i + 2] | e[i + 3] | e[i + 4] | e[i + 5] | e[i + 6] |
		       e[i + 7];
	return !any;
}

/*
 * skip_empty - @addr's entry in @table (entries @size apart in address)
 * is empty: the first address after it, below @end (in @table's span),
 * whose entry is not, or @end. The upper tables of an mm are mostly
 * holes, and a full teardown visits every slot of them. Out of line: the
 * loops over dense tables (an mremap's freed source) stay as they were.
 */
static __attribute__((noinline)) unsigned long skip_empty(const void *table, unsigned long addr,
							  unsigned long end, unsigned long size)
{
	const uint64_t *e = table;
	unsigned idx = (unsigned)(addr / size % PTRS_PER_TABLE), i = idx + 1;
	unsigned last = (unsigned)((end - 1) / size % PTRS_PER_TABLE);

	while (i <= last && !e[i])
		i++;
	return i > last ? end : (addr & ~(size - 1)) + (i - idx) * size;
}

static struct page *table_page(const void *table)
{
	return pfn_to_page(virt_to_phys(table) >> PAGE_SHIFT);
}

/*
 * Each unhooked table asks for a flush of one page of the range inside its
 * span: that drops the MMU's cached upper-level entries for the span (x86
 * INVLPG, arm64 TLBI VAE1), and keeps the flushed range (and tlb_pages)
 * inside what the caller unmapped.
 */

/* Unhook the empty PTE tables under [addr, end) of the PMD table behind
 * @pudp, then the PMD table itself if that left it empty. */
static void free_pmd_range(struct mmu_gather *tlb, pud_t *pudp, unsigned long addr,
			   unsigned long end)
{
	pmd_t *pmds = pud_table(*pudp);
	unsigned long first = addr, next;

	for (; addr < end; addr = next) {
		pmd_t *pmdp = &pmds[pmd_index(addr)];

		if (pmd_none(pmdp_get(pmdp))) {
			addr = skip_empty(pmds, addr, end, PMD_SIZE);
			if (addr == end)
				break;
			pmdp = &pmds[pmd_index(addr)];
		}
		next = pmd_addr_end(addr, end);
		if (!pmd_present(pmdp_get(pmdp)) || pmd_leaf(pmdp_get(pmdp)) ||
		    !table_empty(pmd_table(pmdp_get(pmdp))))
			continue;
		tlb_gather_table(tlb, pmd_pt_page(pmdp_get(pmdp)), addr, addr + PAGE_SIZE);
		set_pmd(pmdp, (pmd_t){ 0 });
	}
	if (table_empty(pmds)) {
		tlb_gather_table(tlb, table_page(pmds), first, first + PAGE_SIZE);
		set_pud(pudp, (pud_t){ 0 });
	}
}

static void free_pud_range(struct mmu_gather *tlb, pgd_t *pgdp, unsigned long addr,
			   unsigned long end)
{
	pud_t *puds = pgd_table(*pgdp);
	unsigned long first = addr, next;

	for (; addr < end; addr = next) {
		pud_t *pudp = &puds[pud_index(addr)];

		if (pud_none(*pudp)) {
			addr = skip_empty(puds, addr, end, PUD_SIZE);
			if (addr == end)
				break;
			pudp = &puds[pud_index(addr)];
		}
		next = pud_addr_end(addr, end);
		if (pud_present(*pudp) && !pud_leaf(*pudp))
			free_pmd_range(tlb, pudp, addr, next);
	}
	if (table_empty(puds)) {
		tlb_gather_table(tlb, table_page(puds), first, first + PAGE_SIZE);
		set_pgd(pgdp, (pgd_t){ 0 });
	}
}

void free_pgtables_tlb(struct mmu_gather *tlb, unsigned long start, unsigned long end)
{
	unsigned long addr, next;

	if (start >= end)
		return;
	if (end > MM_USER_END)
		panic("free_pgtables: [%#lx, %#lx) reaches past the user half", start, end);
	for (addr = start; addr < end; addr = next) {
		pgd_t *pgdp = pgd_offset_pgd(tlb->mm->pgd, addr);

		if (pgd_none(*pgdp)) {
			addr = skip_empty(tlb->mm->pgd, addr, end, PGDIR_SIZE);
			if (addr == end)
				break;
			pgdp = pgd_offset_pgd(tlb->mm->pgd, addr);
		}
		next = pgd_addr_end(addr, end);
		free_pud_range(tlb, pgdp, addr, next);
	}
}

void free_pgtables(struct mm *mm, unsigned long start, unsigned long end)
{
	struct mmu_gather tlb;

	tlb_gather_init(&tlb, mm, false);
	free_pgtables_tlb(&tlb, start, end);
	tlb_finish(&tlb);
}
