/*
 * numa_maps.c - a numa_maps view of an mm (Linux's /proc/PID/numa_maps,
 * reduced to what ptelab has): per VMA its start, policy, pages per node
 * and the folios that map it by size.
 *
 *   200000000 bind:1 N0=0 N1=64 folios 4K=0 mTHP=4 2M-pte=0 2M-pmd=0
 *
 * (mTHP counts every size from 16K to 1M; 2M-pte and 2M-pmd are 2 MiB
 * folios mapped by PTEs and by a PMD.)
 * A folio is counted once per VMA, at the first entry that maps it.
 */
#include <stdio.h>

#include "kernel.h"
#include "mempolicy.h"
#include "mm_internal.h"

struct numa_count {
	unsigned long pages[MAX_NUMNODES];
	unsigned long folios[4]; /* 4K, 16K..1M (mTHP), 2M by PTEs, 2M by a PMD */
	struct folio *last;
};

static const char *const size_names[4] = { "4K", "mTHP", "2M-pte", "2M-pmd" };

static void count_folio(struct numa_count *c, struct folio *f, bool pmd, unsigned long pages)
{
	c->pages[f->page.node] += pages;
	if (f == c->last)
		return;
	c->last = f;
	if (pmd)
		c->folios[3]++;
	else if (folio_order(f) == PMD_ORDER)
		c->folios[2]++;
	else
		c->folios[folio_order(f) ? 1 : 0]++;
}

static int numa_pte_range(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
			  unsigned long end, void *priv)
{
	(void)mm, (void)pmdp;
	for (; addr < end; addr += PAGE_SIZE, ptep++) {
		pte_t pte = __ptep_get(ptep);

		if (pte_present(pte))
			count_folio(priv, page_folio(pfn_to_page(pte_pfn(pte))), false, 1);
	}
	return 0;
}

static int numa_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end, void *priv)
{
	(void)mm;
	count_folio(priv, page_folio(pfn_to_page(pmd_pfn(pmdp_get(pmdp)))), true,
		    (end - addr) >> PAGE_SHIFT);
	return 0;
}

static const struct pt_walk_ops numa_ops = { .pmd_leaf = numa_pmd, .pte_range = numa_pte_range };

/* "default", "bind:0,1", "prefer:1", "interleave:0,1", "local" into @buf. */
static int policy_name(const struct mempolicy *pol, char *buf, int size)
{
	static const char *const names[MPOL_MAX] = { "default", "prefer", "bind", "interleave",
						     "local" };
	int len = snprintf(buf, (size_t)size, "%s", names[pol->mode < MPOL_MAX ? pol->mode : 0]);

	for (int nid = 0, first = 1; nid < nr_pglists && len < size; nid++) {
		if (!(pol->nodes & (1ul << nid)))
			continue;
		len += snprintf(buf + len, (size_t)(size - len), "%c%d", first ? ':' : ',', nid);
		first = 0;
	}
	return len;
}

void mm_numa_maps_to(struct mm *mm, void (*out)(void *ctx, const char *line), void *ctx)
{
	char line[256];

	read_lock(&mm->mmap_lock);
	for (struct vma *v = mm->vmas; v; v = v->next) {
		struct numa_count c = { .last = NULL };
		int len;

		walk_page_range(mm, v->start, v->end, &numa_ops, &c);
		len = snprintf(line, sizeof(line), "%lx ", v->start);
		len += policy_name(&v->pol, line + len, (int)sizeof(line) - len);
		for (int nid = 0; nid < nr_pglists; nid++)
			len += snprintf(line + len, sizeof(line) - (size_t)len, " N%d=%lu", nid,
					c.pages[nid]);
		len += snprintf(line + len, sizeof(line) - (size_t)len, " folios");
		for (int k = 0; k < 4; k++)
			len += snprintf(line + len, sizeof(line) - (size_t)len, " %s=%lu",
					size_names[k], c.folios[k]);
		out(ctx, line);
	}
	read_unlock(&mm->mmap_lock);
}
