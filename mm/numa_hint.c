/*
 * numa_hint.c - NUMA hinting, as Linux's NUMA balancing does it: a scan
 * (change_prot_numa()) makes the entries of a range PROT_NONE while the
 * VMA stays accessible, so the next access to each folio takes a hinting
 * fault (do_numa_page()), which gives the folio's entries their access
 * back and asks for the folio to move to the node of the CPU that
 * touched it, when it is elsewhere.
 *
 * A hinting entry is the PROT_NONE encoding (docs/mm-core.md) with the
 * entry's own write bit kept (harmless while the entry is invalid), so the
 * restore puts back exactly the permission the entry had; in a VMA with
 * access, a present entry that is not pte_user() is such an entry.
 *
 * Batched as Linux 6.17's change_prot_numa(): the scan takes a run of
 * entries mapping consecutive pages of one folio with one
 * clear_full_ptes() and one set_ptes(), and skips a whole run whose folio
 * is already on the target node (or already marked) after one look; the
 * fault restores the run it hit the same way. mm_caps.numa_hint bounds the
 * runs; 1 is the per-PTE code from before the batching.
 */
#include <errno.h>

#include "kernel.h"
#include "mempolicy.h"
#include "mm_internal.h"
#include "pte_batch.h"
#include "trace.h"

int cpu_nid[NR_CPUS];

struct numa_scan {
	int nid;		   /* folios already on this node are left as they are */
	unsigned long nr;	   /* entries made PROT_NONE (a PMD leaf counts its pages) */
	unsigned long first, last; /* the flush: from the first entry changed to the last's end */
};

/* @pte (a run's value) with protection @prot, keeping its write bit. */
static pte_t pte_reprotect(pte_t pte, pgprot_t prot)
{
	pte_t new = pte_modify(pte, prot);

	return pte_write(pte) ? pte_mkwrite(new) : pte_wrprotect(new);
}

/* The same for a PMD leaf (pmd_modify() keeps it a leaf). */
static pmd_t pmd_reprotect(pmd_t pmd, pgprot_t prot)
{
	pmd_t new = pmd_modify(pmd, prot);

	return pmd_write(pmd) ? pmd_mkwrite(new) : pmd_wrprotect(new);
}

/* The run of at most @left entries from @ptep (value @pte, present, not
 * yet marked): its length. Context: the PTE table lock is held. */
static unsigned numa_run(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
			 unsigned long left)
{
	if (!folio_test_large(folio) || mm_caps.numa_hint <= 1)
		return 1;
	return folio_pte_batch(folio, addr, ptep, pte, cap_nr(mm_caps.numa_hint, left),
			       FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, NULL);
}

/*
 * numa_mark_ptes - the scan's pte_range: mark every run whose folio is
 * not on the target node. A marked entry or a folio on the target node
 * is passed over by its whole run. Context: the table's lock is held.
 */
static int numa_mark_ptes(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			  unsigned long end, void *priv)
{
	struct numa_scan *s = priv;

	(void)pmdp;
	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(pte)) {
			struct folio *folio = page_folio(pfn_to_page(pte_pfn(pte)));

			nr = numa_run(folio, addr, ptep, pte, (end - addr) >> PAGE_SHIFT);
			if (pte_user(pte) && folio->page.node != s->nid) {
				arch_sched_point(SCHED_WINDOW); /* a run read, not yet cleared */
				pte = clear_full_ptes(mm, addr, ptep, nr, 0);
				set_ptes(mm, addr, ptep, pte_reprotect(pte, PAGE_USER_NONE), nr);
				s->first = s->nr ? s->first : addr;
				s->last = addr + (unsigned long)nr * PAGE_SIZE;
				s->nr += nr;
			}
		}
		ptep += nr;
		addr += (unsigned long)nr * PAGE_SIZE;
	}
	return 0;
}

/* The scan's pmd_leaf: the whole leaf or nothing (a leaf the range covers
 * in part is marked too: its folio is one). Context: takes the
 * page_table_lock, which every change of a leaf holds. */
static int numa_mark_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			 void *priv)
{
	struct numa_scan *s = priv;
	pmd_t pmd;

	(void)end;
	spin_lock(&mm->page_table_lock);
	pmd = pmdp_get(pmdp);
	if (pmd_leaf(pmd) && pmd_user(pmd) && pfn_to_page(pmd_pfn(pmd))->node != s->nid) {
		pmd = pmdp_get_and_clear(pmdp);
		set_pmd(pmdp, pmd_reprotect(pmd, PAGE_USER_NONE));
		s->first = s->nr ? s->first : (addr & PMD_MASK);
		s->last = (addr & PMD_MASK) + PMD_SIZE;
		s->nr += PTRS_PER_TABLE;
	}
	spin_unlock(&mm->page_table_lock);
	return 0;
}

static const struct pt_walk_ops numa_scan_ops = { .pmd_leaf = numa_mark_pmd,
						  .pte_range = numa_mark_ptes };

long change_prot_numa(struct mm *mm, unsigned long start, unsigned long end, int nid)
{
	struct numa_scan s = { .nid = nid };

	if (start >= end || ((start | end) & (PAGE_SIZE - 1)) || nid < 0 || nid >= nr_pglists)
		return -EINVAL;
	TRACE(trace_op_begin("numa_hint", mm, start, end, mm_caps.numa_hint));
	read_lock(&mm->mmap_lock);
	for (struct vma *v = find_vma_from(mm, start); v && v->start < end; v = v->next) {
		unsigned long s0 = v->start > start ? v->start : start;
		unsigned long e0 = v->end < end ? v->end : end;

		if (v->flags & VM_ACCESS_FLAGS) /* a PROT_NONE VMA has nothing to hint */
			walk_page_range(mm, s0, e0, &numa_scan_ops, &s);
	}
	if (s.nr) /* one flush for the scan: the TLB may hold the marked entries */
		flush_tlb_range(mm, s.first, s.last);
	read_unlock(&mm->mmap_lock);
	count_event(numa_pte_updates, s.nr);
	TRACE(trace_op_end("numa_hint"));
	return (long)s.nr;
}

/*
 * numa_restore_run - give the marked run at @ptep (value @pte, for @addr)
 * its access back: at most @left entries of @folio. Return: its length.
 * Context: the PTE table lock is held.
 */
static unsigned numa_restore_run(struct vma *vma, struct folio *folio, unsigned long addr,
				 pte_t *ptep, pte_t pte, unsigned long left)
{
	pgprot_t prot = vm_get_page_prot(vma->flags);
	unsigned nr = numa_run(folio, addr, ptep, pte, left);
	pte_t new = pte_reprotect(pte, prot);
	bool brk = set_ptes_needs_break(addr, ptep, new, nr);

	arch_sched_point(SCHED_WINDOW); /* a run read, not yet cleared */
	pte = clear_full_ptes(vma->mm, addr, ptep, nr, 0);
	if (brk)
		flush_tlb_range(vma->mm, addr, addr + (unsigned long)nr * PAGE_SIZE);
	set_ptes(vma->mm, addr, ptep, pte_reprotect(pte, prot), nr);
	return nr;
}

int do_numa_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, pte_t pte, struct numa_fault *nf)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio = page_folio(page);
	unsigned long lo = addr & PMD_MASK, hi = lo + PMD_SIZE, base, a, end;
	pte_t *ptep;

	addr &= ~(PAGE_SIZE - 1);
	base = addr - (unsigned long)(page - &folio->page) * PAGE_SIZE;
	lo = lo > vma->start ? lo : vma->start;
	hi = hi < vma->end ? hi : vma->end;
	a = base > lo ? base : lo;
	end = base + folio_nr_pages(folio) * PAGE_SIZE;
	end = end < hi ? end : hi;
	ptep = pte_offset_kernel(pmdp, a);
	while (a < end) {
		pte_t e = ptep_get(ptep);
		unsigned nr = 1;

		if (pte_present(e) && !pte_user(e) && page_folio(pfn_to_page(pte_pfn(e))) == folio)
			nr = numa_restore_run(vma, folio, a, ptep, e, (end - a) >> PAGE_SHIFT);
		ptep += nr;
		a += (unsigned long)nr * PAGE_SIZE;
	}
	count_event(numa_hint_faults, 1);
	numa_fault_note(nf, addr, folio);
	return 0;
}

int do_huge_pmd_numa_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, struct numa_fault *nf)
{
	pmd_t pmd = pmdp_get_and_clear(pmdp);

	set_pmd(pmdp, pmd_reprotect(pmd, vm_get_page_prot(vma->flags)));
	count_event(numa_hint_faults, 1);
	numa_fault_note(nf, addr & PMD_MASK, page_folio(pfn_to_page(pmd_pfn(pmd))));
	return 0;
}

void numa_fault_note(struct numa_fault *nf, unsigned long addr, struct folio *folio)
{
	int nid = numa_node_id();

	if (nf && folio->page.node != nid) {
		nf->addr = addr;
		nf->nid = nid;
		nf->pages = folio_nr_pages(folio);
	}
}

void numa_migrate_misplaced(struct mm *mm, const struct numa_fault *nf)
{
	unsigned long addr = nf->addr;
	int node = nf->nid, status = -1;

	if (!nf->pages)
		return;
	arch_sched_point(SCHED_WINDOW); /* noted under the lock, moved without it */
	if (move_pages(mm, 1, &addr, &node, &status, MPOL_MF_MOVE) == 0 && status == node)
		count_event(numa_pages_migrated, nf->pages);
}
