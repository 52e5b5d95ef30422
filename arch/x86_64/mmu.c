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
#include "percpu.h"
#include "pgtable.h"
#include "trace.h"

#include <asm/apic.h>
#include <asm/mmu.h>

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

/*
 * INVLPG only drops this CPU's entries; every other CPU that has @mm
 * loaded (mm->context.cpumask) gets the range by IPI (arch/x86_64/tlb.c).
 * Context: the page-table change is complete (the caller cleared or
 * changed the entries before asking).
 */
void arch_flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
	if (mm == this_cpu()->arch.loaded_mm) {
		TRACE(trace_flush_how(
			(end - start + PAGE_SIZE - 1) / PAGE_SIZE > X86_TLB_FLUSH_CEILING
				? "this CPU: a CR3 reload (more pages than the ceiling)"
				: "this CPU: INVLPG a page"));
		x86_flush_tlb_local(start, end);
	}
	x86_flush_tlb_others(mm, start, end);
}

/*
 * Interrupts are off while this CPU's mask bits and loaded_mm change, so
 * a flush IPI sees the state before or after, never a root loaded that
 * loaded_mm does not name yet (arch/x86_64/tlb.c compares with it).
 */
void arch_switch_mm(struct mm *mm, uint64_t pgd_phys)
{
	struct percpu *pc = this_cpu();
	unsigned long bit = 1ul << pc->cpu, flags;
	struct mm *prev;

	if (!kernel_pgd_phys)
		panic("arch_switch_mm: called before arch_mm_init");
	__asm__ volatile("pushfq; pop %0; cli" : "=r"(flags) : : "memory");
	prev = pc->arch.loaded_mm;
	if (mm)
		__atomic_fetch_or(&mm->context.cpumask, bit, __ATOMIC_SEQ_CST);
	pc->arch.loaded_mm = mm;
	write_cr3(pgd_phys ? pgd_phys : kernel_pgd_phys);
	if (prev && prev != mm)
		__atomic_fetch_and(&prev->context.cpumask, ~bit, __ATOMIC_SEQ_CST);
	__asm__ volatile("push %0; popfq" : : "r"(flags) : "memory", "cc");
}

unsigned long arch_mm_cpus_elsewhere(struct mm *mm)
{
	return __atomic_load_n(&mm->context.cpumask, __ATOMIC_ACQUIRE) & ~(1ul << this_cpu()->cpu);
}

void x86_mmu_cpu_init(void)
{
	if (!kernel_pgd_phys)
		return; /* arch_mm_init() runs it on every CPU once it has the tables */
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr3(kernel_pgd_phys);
	write_cr4(read_cr4() | X86_CR4_PGE);
	/* Without WP the kernel's stores ignore read-only user entries, and
	 * arch_copy_user() would write straight through a COW mapping. */
	write_cr0(read_cr0() | X86_CR0_WP);
}

static void mmu_cpu_init_on(unsigned cpu, void *arg)
{
	(void)arg;
	if (cpu)
		x86_mmu_cpu_init();
}

/* rep movsq, as Linux's copy_page() on CPUs without fast rep movsb. (QEMU
 * counts each of its iterations as one instruction: 512 a page, against
 * about 1260 for newlib's memcpy loop; see docs/linux.md.) */
void arch_copy_pages(void *to, const void *from, unsigned long nr)
{
	unsigned long words = nr * (PAGE_SIZE / 8);

	__asm__ volatile("rep movsq" : "+D"(to), "+S"(from), "+c"(words) : : "memory");
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
	if (apic_mmio_phys()) /* the xAPIC's registers, uncached, in the direct map */
		kmap_range(&k, PAGE_OFFSET + apic_mmio_phys(), apic_mmio_phys(), PAGE_SIZE,
			   KERNEL_RW_NX | _PAGE_PCD | _PAGE_PWT);
	x86_mmu_cpu_init();
	smp_run(smp_nr_cpus(), mmu_cpu_init_on, NULL); /* the secondaries too */
	if (mm_boot_verbose)
		printf("mm: kernel page tables at %#llx: direct map with %s pages, image [0, "
		       "%#llx)\n",
		       (unsigned long long)kernel_pgd_phys, gbpages ? "1G" : "2M",
		       (unsigned long long)image_end);
}
