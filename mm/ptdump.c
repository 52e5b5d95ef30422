/*
 * ptdump.c - print an mm as a student would want to read it: each VMA,
 * then its mappings as runs. A run is a stretch of entries that map
 * consecutive pages of one folio with the same permission and state bits,
 * which is exactly what folio_pte_batch() would batch (with dirty and
 * young respected). Example line:
 *   0x200000000-0x200010000  16 ptes  pfn 0x41230-0x4123f  folio 64K (page 0)  rw dirty young excl
 */
#include <stdio.h>

#include "kernel.h"
#include "mm_internal.h"

static const char *order_label(unsigned order)
{
	static const char *const label[] = { "4K",   "8K",	 "16K", "32K", "64K", "128K",
					     "256K", "512K", "1M",	"2M",  "4M" };

	return order <= MAX_ORDER ? label[order] : "?";
}

struct run {
	unsigned long start, nr;
	uint64_t pfn;
	pte_t first;
	struct folio *folio;
	bool excl;
};

static void print_run(const struct run *r)
{
	pte_t p = r->first;

	printf("  %#lx-%#lx %4lu pte%s pfn %#llx-%#llx folio %s (page %lu) %s%s%s%s\n", r->start,
	       r->start + r->nr * PAGE_SIZE, r->nr, r->nr == 1 ? " " : "s",
	       (unsigned long long)r->pfn, (unsigned long long)(r->pfn + r->nr - 1),
	       order_label(folio_order(r->folio)),
	       (unsigned long)(r->pfn - folio_pfn(r->folio)), pte_write(p) ? "rw" : "ro",
	       pte_dirty(p) ? " dirty" : "", pte_young(p) ? " young" : "", r->excl ? " excl" : "");
}

/* Does @pte at @addr extend run @r? */
static bool run_extends(const struct run *r, unsigned long addr, pte_t pte, struct folio *f,
			bool excl)
{
	pte_t want = pte_advance_pfn(r->first, r->nr);

	return r->nr && f == r->folio && addr == r->start + r->nr * PAGE_SIZE &&
	       pte.val == want.val && excl == r->excl;
}

static void dump_ptes(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
		      struct run *r)
{
	pte_t *ptes = pmd_table(*pmdp);

	for (; addr < end; addr += PAGE_SIZE) {
		pte_t pte = __ptep_get(&ptes[pte_index(addr)]);
		struct page *page;
		bool excl;

		if (!pte_present(pte))
			continue;
		page = pfn_to_page(pte_pfn(pte));
		excl = page->flags & PG_anon_exclusive;
		if (run_extends(r, addr, pte, page_folio(page), excl)) {
			r->nr++;
			continue;
		}
		if (r->nr)
			print_run(r);
		*r = (struct run){ addr, 1, pte_pfn(pte), pte, page_folio(page), excl };
	}
	(void)mm;
}

static void dump_vma(struct vma *v)
{
	struct run r = { 0 };

	printf("vma %#lx-%#lx %c%c%c orders %#lx node %d%s%s\n", v->start, v->end,
	       v->flags & VM_READ ? 'r' : '-', v->flags & VM_WRITE ? 'w' : '-',
	       v->flags & VM_EXEC ? 'x' : '-', v->orders, v->nid,
	       v->flags & VM_DONTCOPY ? " dontcopy" : "", v->flags & VM_NOHUGEPMD ? " nohugepmd" : "");
	for (unsigned long addr = v->start, next; addr < v->end; addr = next) {
		pmd_t *pmdp;

		next = pmd_addr_end(addr, v->end);
		pmdp = mm_find_pmd(v->mm, addr, false);
		if (!pmdp || pmd_none(*pmdp))
			continue;
		if (pmd_leaf(*pmdp)) {
			if (r.nr)
				print_run(&r), r.nr = 0;
			printf("  %#lx-%#lx  pmd  pfn %#llx folio 2M %s%s\n", addr, next,
			       (unsigned long long)pmd_pfn(*pmdp), pmd_write(*pmdp) ? "rw" : "ro",
			       pmd_dirty(*pmdp) ? " dirty" : "");
			continue;
		}
		dump_ptes(v->mm, pmdp, addr, next, &r);
	}
	if (r.nr)
		print_run(&r);
}

void mm_ptdump(struct mm *mm)
{
	printf("mm %d: %llu page-table pages\n", mm->id, (unsigned long long)mm->nr_pt_pages);
	for (struct vma *v = mm->vmas; v; v = v->next)
		dump_vma(v);
}
