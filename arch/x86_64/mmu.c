/*
 * mmu.c (x86_64) - the kernel's own page tables and the MMU hooks.
 *
 * arch_mm_init() replaces the boot page tables (4 GiB direct map plus an
 * identity map) by the kernel's PML4: the direct map of every RAM range
 * of `machine` at PAGE_OFFSET (1 GiB pages when CPUID has them, else
 * 2 MiB, 4 KiB at unaligned edges) and the kernel image at
 * KERNEL_VBASE - KERNEL_PBASE + phys, as boot.S maps it. Nothing else:
 * there is no identity map afterwards, so the GDT, IDT, TSS and stacks
 * must use kernel-virtual addresses by then. Kernel entries are global;
 * CR4.PGE keeps them across CR3 loads. EFER.NXE (user data is mapped NX)
 * and CR0.WP (kernel stores honour read-only user entries, or COW would
 * break under arch_copy_user) are switched on here too.
 *
 * Every user PML4 shares entries 256..511 (the kernel half) with the
 * kernel's, copied at pgd_alloc() time; the kernel half never changes
 * after arch_mm_init(), so the copies never go stale.
 */
#include <string.h>

#include "kernel.h"
#include "memblock.h"
#include "mm.h"
#include "pgtable.h"

#include <asm/mmu.h>

#define INVLPG_MAX 32 /* pages; a larger range reloads CR3 instead */
#define X86_CR0_WP (1ul << 16)
#define X86_CR4_PGE (1ul << 7)
#define MSR_EFER 0xc0000080u
#define EFER_NXE (1ull << 11)
#define CPUID_EXT_NX (1u << 20)
#define CPUID_EXT_GBPAGES (1u << 26)
#define KERNEL_MAP_BASE (KERNEL_VBASE - KERNEL_PBASE) /* virtual of phys 0 */
#define KERNEL_HALF_FIRST 256			      /* PML4 entries 256..511 are the kernel's */

/* Kernel leaves: writable, global, A and D preset (nothing for the MMU
 * to write back); the direct map is not executable, the image is. */
#define KERNEL_RW (_PAGE_PRESENT | _PAGE_RW | _PAGE_ACCESSED | _PAGE_DIRTY | _PAGE_GLOBAL)
#define KERNEL_RW_NX (KERNEL_RW | _PAGE_NX)

extern char _kernel_end[];

static pgd_t *kernel_pgd;
static uint64_t kernel_pgd_phys;
static bool gbpages;

void arch_flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
	if (mm != current_mm)
		return; /* not in the TLB: loading its CR3 will flush */
	if (end - start > INVLPG_MAX * PAGE_SIZE) {
		write_cr3(read_cr3());
		return;
	}
	for (unsigned long a = start & ~(PAGE_SIZE - 1); a < end; a += PAGE_SIZE)
		invlpg(a);
}

/* Everything, global kernel entries included (toggling PGE drops them). */
void arch_flush_tlb_all(void)
{
	uint64_t cr4 = read_cr4();

	if (cr4 & X86_CR4_PGE) {
		write_cr4(cr4 & ~X86_CR4_PGE);
		write_cr4(cr4);
	} else {
		write_cr3(read_cr3());
	}
}

void arch_switch_mm(struct mm *mm, uint64_t pgd_phys)
{
	(void)mm;
	if (!kernel_pgd_phys)
		panic("arch_switch_mm: called before arch_mm_init");
	write_cr3(pgd_phys ? pgd_phys : kernel_pgd_phys);
}

void arch_pgd_init(void *pgd)
{
	pgd_t *p = pgd;

	if (!kernel_pgd)
		panic("arch_pgd_init: no kernel page tables yet (arch_mm_init not run)");
	memcpy(p + KERNEL_HALF_FIRST, kernel_pgd + KERNEL_HALF_FIRST,
	       (PTRS_PER_TABLE - KERNEL_HALF_FIRST) * sizeof(pgd_t));
}

/* ---- building the kernel's tables ------------------------------------------ */

/* A zeroed table page from memblock, reachable through the boot map. */
static void *early_table(uint64_t *pa)
{
	if (memblock_alloc(PAGE_SIZE, PAGE_SIZE, 0, "kernel page tables", pa))
		panic("arch_mm_init: no memory for kernel page tables");
	if (*pa + PAGE_SIZE > BOOT_MAP_SIZE)
		panic("arch_mm_init: table page %#llx is beyond the boot map",
		      (unsigned long long)*pa);
	return memset(phys_to_virt(*pa), 0, PAGE_SIZE);
}

static pud_t *kpud(unsigned long va)
{
	pgd_t *g = &kernel_pgd[pgd_index(va)];
	uint64_t pa;

	if (pgd_none(*g)) {
		early_table(&pa);
		*g = pgd_mktable(pa >> PAGE_SHIFT);
	}
	return pud_offset(g, va);
}

static pmd_t *kpmd(unsigned long va)
{
	pud_t *u = kpud(va);
	uint64_t pa;

	if (pud_none(*u)) {
		early_table(&pa);
		*u = pud_mktable(pa >> PAGE_SHIFT);
	}
	if (pud_leaf(*u))
		panic("arch_mm_init: %#lx is already inside a 1 GiB mapping", va);
	return pmd_offset(u, va);
}

static pte_t *kpte(unsigned long va)
{
	pmd_t *m = kpmd(va);
	uint64_t pa;

	if (pmd_none(*m)) {
		early_table(&pa);
		*m = pmd_mktable(pa >> PAGE_SHIFT);
	}
	if (pmd_leaf(*m))
		panic("arch_mm_init: %#lx is already inside a 2 MiB mapping", va);
	return pte_offset_kernel(m, va);
}

/* Map one leaf of the largest size that fits at @va -> @pa; return its
 * size. */
static uint64_t kmap_one(unsigned long va, uint64_t pa, uint64_t left, uint64_t prot)
{
	uint64_t both = va | pa;

	if (gbpages && !(both & (PUD_SIZE - 1)) && left >= PUD_SIZE) {
		pud_t *u = kpud(va);

		if (!pud_none(*u))
			panic("arch_mm_init: %#lx mapped twice", va);
		*u = (pud_t){ (pa & _PAGE_PUD_PFN_MASK) | prot | _PAGE_PSE };
		return PUD_SIZE;
	}
	if (!(both & (PMD_SIZE - 1)) && left >= PMD_SIZE) {
		pmd_t *m = kpmd(va);

		if (!pmd_none(*m))
			panic("arch_mm_init: %#lx mapped twice", va);
		*m = (pmd_t){ (pa & _PAGE_PMD_PFN_MASK) | prot | _PAGE_PSE };
		return PMD_SIZE;
	}
	*kpte(va) = (pte_t){ (pa & _PAGE_PFN_MASK) | prot };
	return PAGE_SIZE;
}

/* Map [pa, pa + size) at @va (page aligned) with kernel leaf bits @prot. */
static void kmap_range(unsigned long va, uint64_t pa, uint64_t size, uint64_t prot)
{
	for (uint64_t done = 0, step; done < size; done += step)
		step = kmap_one(va + done, pa + done, size - done, prot);
}

/* NX is required (user data must not be executable); 1 GiB pages are
 * used when present. */
static void cpu_features(void)
{
	uint32_t a, b, c, d;

	cpuid(0x80000000u, &a, &b, &c, &d);
	if (a < 0x80000001u)
		panic("arch_mm_init: no CPUID leaf 0x80000001 (NX cannot be checked)");
	cpuid(0x80000001u, &a, &b, &c, &d);
	if (!(d & CPUID_EXT_NX))
		panic("arch_mm_init: the CPU has no NX (CPUID 0x80000001 EDX bit 20)");
	gbpages = d & CPUID_EXT_GBPAGES;
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
}

/* The direct map of every RAM range, not executable. */
static void map_ram(void)
{
	for (int n = 0; n < machine.nr_nodes; n++)
		for (int r = 0; r < machine.node[n].nr_ranges; r++) {
			const struct mem_range *mr = &machine.node[n].range[r];
			uint64_t start = mr->base & ~(PAGE_SIZE - 1);
			uint64_t end = (mr->base + mr->size) & ~(PAGE_SIZE - 1);

			if (end > start)
				kmap_range(PAGE_OFFSET + start, start, end - start, KERNEL_RW_NX);
		}
}

void arch_mm_init(void)
{
	uint64_t image_end = (virt_to_phys(_kernel_end) + PMD_SIZE - 1) & PMD_MASK;

	cpu_features();
	kernel_pgd = early_table(&kernel_pgd_phys);
	map_ram();
	kmap_range(KERNEL_MAP_BASE, 0, image_end, KERNEL_RW);
	write_cr3(kernel_pgd_phys);
	write_cr4(read_cr4() | X86_CR4_PGE);
	/* Without WP the kernel's stores ignore read-only user entries, and
	 * arch_copy_user() would write straight through a COW mapping. */
	write_cr0(read_cr0() | X86_CR0_WP);
	printf("mm: kernel page tables at %#llx: direct map with %s pages, image [0, %#llx)\n",
	       (unsigned long long)kernel_pgd_phys, gbpages ? "1G" : "2M",
	       (unsigned long long)image_end);
}
