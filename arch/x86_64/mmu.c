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
#include "mm_internal.h"
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

pud_t kernel_pud_leaf(uint64_t pa, uint64_t prot)
{
	return (pud_t){ (pa & _PAGE_PUD_PFN_MASK) | prot | _PAGE_PSE };
}

pmd_t kernel_pmd_leaf(uint64_t pa, uint64_t prot)
{
	return (pmd_t){ (pa & _PAGE_PMD_PFN_MASK) | prot | _PAGE_PSE };
}

pte_t kernel_pte_leaf(uint64_t pa, uint64_t prot)
{
	return (pte_t){ (pa & _PAGE_PFN_MASK) | prot };
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

void arch_mm_init(void)
{
	uint64_t image_end = (virt_to_phys(_kernel_end) + PMD_SIZE - 1) & PMD_MASK;

	struct kmap k;

	cpu_features();
	kernel_pgd = kmap_table(&kernel_pgd_phys);
	k = (struct kmap){ kernel_pgd, gbpages };
	kmap_ram(&k, KERNEL_RW_NX); /* the direct map, not executable */
	kmap_range(&k, KERNEL_MAP_BASE, 0, image_end, KERNEL_RW);
	write_cr3(kernel_pgd_phys);
	write_cr4(read_cr4() | X86_CR4_PGE);
	/* Without WP the kernel's stores ignore read-only user entries, and
	 * arch_copy_user() would write straight through a COW mapping. */
	write_cr0(read_cr0() | X86_CR0_WP);
	printf("mm: kernel page tables at %#llx: direct map with %s pages, image [0, %#llx)\n",
	       (unsigned long long)kernel_pgd_phys, gbpages ? "1G" : "2M",
	       (unsigned long long)image_end);
}
