/*
 * kmap.c - building the kernel half's page tables at boot: the direct map
 * of every RAM range (and whatever else the arch maps there), with the
 * largest leaves that fit. Generic: the arch supplies only its leaf
 * entries (kernel_{pud,pmd,pte}_leaf in <asm/pgtable.h>'s terms, declared
 * in mm_internal.h) and whether 1 GiB leaves may be used.
 *
 * Table pages come from memblock and must lie inside the boot map (they
 * are written through the direct map the boot code set up).
 */
#include <string.h>

#include "kernel.h"
#include "memblock.h"
#include "mm_internal.h"

/* A zeroed table page from memblock, reachable through the boot map. */
void *kmap_table(uint64_t *pa)
{
	if (memblock_alloc(PAGE_SIZE, PAGE_SIZE, 0, "kernel page tables", pa))
		panic("kmap_table: no memory for kernel page tables");
	if (*pa + PAGE_SIZE > BOOT_MAP_SIZE)
		panic("kmap_table: table page %#llx is beyond the boot map",
		      (unsigned long long)*pa);
	return memset(phys_to_virt(*pa), 0, PAGE_SIZE);
}

static pud_t *kpud(pgd_t *pgd, unsigned long va)
{
	pgd_t *g = &pgd[pgd_index(va)];
	uint64_t pa;

	if (pgd_none(*g)) {
		kmap_table(&pa);
		*g = pgd_mktable(pa >> PAGE_SHIFT);
	}
	return pud_offset(g, va);
}

static pmd_t *kpmd(pgd_t *pgd, unsigned long va)
{
	pud_t *u = kpud(pgd, va);
	uint64_t pa;

	if (pud_none(*u)) {
		kmap_table(&pa);
		*u = pud_mktable(pa >> PAGE_SHIFT);
	}
	if (pud_leaf(*u))
		panic("kmap: %#lx is already inside a 1 GiB leaf", va);
	return pmd_offset(u, va);
}

static pte_t *kpte(pgd_t *pgd, unsigned long va)
{
	pmd_t *m = kpmd(pgd, va);
	uint64_t pa;

	if (pmd_none(*m)) {
		kmap_table(&pa);
		*m = pmd_mktable(pa >> PAGE_SHIFT);
	}
	if (pmd_leaf(*m))
		panic("kmap: %#lx is already inside a 2 MiB leaf", va);
	return pte_offset_kernel(m, va);
}

/* Map one leaf of the largest size that fits at @va -> @pa; return its size. */
static uint64_t kmap_one(const struct kmap *k, unsigned long va, uint64_t pa, uint64_t left,
			 uint64_t prot)
{
	uint64_t both = va | pa;

	if (k->pud_leaves && !(both & (PUD_SIZE - 1)) && left >= PUD_SIZE) {
		pud_t *u = kpud(k->pgd, va);

		if (!pud_none(*u))
			panic("kmap: %#lx mapped twice", va);
		*u = kernel_pud_leaf(pa, prot);
		return PUD_SIZE;
	}
	if (!(both & (PMD_SIZE - 1)) && left >= PMD_SIZE) {
		pmd_t *m = kpmd(k->pgd, va);

		if (!pmd_none(*m))
			panic("kmap: %#lx mapped twice", va);
		*m = kernel_pmd_leaf(pa, prot);
		return PMD_SIZE;
	}
	*kpte(k->pgd, va) = kernel_pte_leaf(pa, prot);
	return PAGE_SIZE;
}

void kmap_range(const struct kmap *k, unsigned long va, uint64_t pa, uint64_t size, uint64_t prot)
{
	for (uint64_t done = 0, step; done < size; done += step)
		step = kmap_one(k, va + done, pa + done, size - done, prot);
}

void kmap_ram(const struct kmap *k, uint64_t prot)
{
	for (int n = 0; n < machine.nr_nodes; n++)
		for (int r = 0; r < machine.node[n].nr_ranges; r++) {
			const struct mem_range *mr = &machine.node[n].range[r];
			uint64_t start = mr->base & ~(PAGE_SIZE - 1);
			uint64_t end = (mr->base + mr->size) & ~(PAGE_SIZE - 1);

			if (end > start)
				kmap_range(k, PAGE_OFFSET + start, start, end - start, prot);
		}
}
