/*
 * mmu.c (arm64) - the kernel's own page tables and the MMU hooks.
 *
 * Two roots. TTBR1_EL1 holds the kernel's table: the first GiB of the
 * physical space as Device-nGnRE (QEMU virt's devices: UART, GIC, ...)
 * and every RAM range of `machine` as Normal memory at PAGE_OFFSET + phys,
 * which includes the kernel image (KERNEL_VBASE = PAGE_OFFSET +
 * KERNEL_PBASE), so the RAM map is executable at EL1 and never at EL0.
 * TTBR0_EL1 holds the current mm's pgd, or an empty table when there is
 * none. Every mm uses ASID 0, so switching mm invalidates this CPU's
 * whole TLB (TLBI VMALLE1): simple and correct, at the price of the
 * kernel's entries too; per-mm ASIDs would avoid that.
 *
 * TLB maintenance follows the architecture's rule: DSB ISHST so the table
 * writes are visible to the walker, TLBI, then DSB ISH to wait for it and
 * ISB so later instructions translate with the new state.
 *
 * Hardware access flag on, hardware dirtiness off: TCR_EL1.HA is set where
 * the CPU has FEAT_HAFDBS (QEMU's -cpu max has it), as Linux does, so an
 * old entry costs no fault; TCR_EL1.HD stays clear, matching
 * arch_has_hw_ad() == false in <asm/pgtable.h>: a write to a clean entry
 * faults and the fault path sets dirtiness. <asm/pgtable.h> says why a
 * read-then-write of an entry may lose only an access flag.
 */
#include <string.h>

#include "kernel.h"
#include "mm_internal.h"
#include "mm.h"
#include "percpu.h"
#include "pgtable.h"
#include "trace.h"

#include <asm/mmu.h>

#define TLBI_PAGES_MAX 32	 /* pages; a larger range drops all of ASID 0 */
#define DEVICE_SPAN (1ull << 30) /* QEMU virt: devices below 1 GiB */

/* TCR_EL1 fields this code relies on or sets. */
#define TCR_T0SZ(t) ((t)&0x3f)
#define TCR_T1SZ(t) (((t) >> 16) & 0x3f)
#define TCR_TG0(t) (((t) >> 14) & 3) /* 0 = 4 KiB */
#define TCR_TG1(t) (((t) >> 30) & 3) /* 2 = 4 KiB */
#define TCR_EPD0 (1ull << 7)
#define TCR_A1 (1ull << 22)
#define TCR_HA (1ull << 39)
#define TCR_HD (1ull << 40)

/* Kernel leaves: EL1 read-write (AP = 00), global, access flag set. */
#define KERNEL_NORMAL (PTE_AF | PTE_SHARED | PTE_ATTRINDX(MT_NORMAL) | PTE_UXN)
#define KERNEL_DEVICE (PTE_AF | PTE_ATTRINDX(MT_DEVICE_nGnRE) | PTE_PXN | PTE_UXN)

static pgd_t *kernel_pgd; /* TTBR1 */
static uint64_t kernel_pgd_phys;
static uint64_t empty_pgd_phys; /* TTBR0 when no mm is current */

/* Make table writes visible, run @tlbi, wait for it, resynchronise. */
#define TLB_SYNC(tlbi)                                                                             \
	do {                                                                                       \
		dsb(ishst);                                                                        \
		tlbi;                                                                              \
		dsb(ish);                                                                          \
		isb();                                                                             \
	} while (0)

static void flush_user_pages(unsigned long start, unsigned long end)
{
	dsb(ishst);
	for (unsigned long a = start & ~(PAGE_SIZE - 1); a < end; a += PAGE_SIZE)
		tlbi_vae1is(tlbi_va_arg(a));
	dsb(ish);
	isb();
}

/*
 * TLBI ...IS reaches every CPU's TLB, so no CPU is interrupted. Nothing
 * to do when no CPU has @mm loaded (switching to it flushes everything).
 * The DSB ISH before that check completes the caller's table writes: the
 * ARM ARM makes a write to a table visible to other CPUs' walks only
 * once a DSB has completed it (a DMB orders it against loads and stores,
 * not walks). Pairs with arch_switch_mm(): it sets its bit, then DSB,
 * then loads TTBR0; a flush that misses the bit finished its writes
 * before that CPU can walk them.
 */
void arch_flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
	dsb(ish);
	if (mm && !__atomic_load_n(&mm->context.cpumask, __ATOMIC_RELAXED)) {
		TRACE(trace_flush_how("none: no CPU has the mm loaded"));
		return;
	}
	if (end - start > TLBI_PAGES_MAX * PAGE_SIZE) {
		TRACE(trace_flush_how("TLBI ASIDE1IS: the whole address space, broadcast"));
		TLB_SYNC(tlbi_aside1is_0());
	} else {
		TRACE(trace_flush_how("TLBI VAE1IS a page, broadcast"));
		flush_user_pages(start, end);
	}
}

/* IRQs are always masked in this kernel, so nothing runs between the
 * mask updates and the TTBR0 write on this CPU. */
void arch_switch_mm(struct mm *mm, uint64_t pgd_phys)
{
	struct percpu *pc = this_cpu();
	struct mm *prev = pc->arch.loaded_mm;
	unsigned long bit = 1ul << pc->cpu;

	if (!empty_pgd_phys)
		panic("arch_switch_mm: called before arch_mm_init");
	if (mm)
		__atomic_fetch_or(&mm->context.cpumask, bit, __ATOMIC_SEQ_CST);
	pc->arch.loaded_mm = mm;
	dsb(ishst);
	write_sysreg(pgd_phys ? pgd_phys : empty_pgd_phys, ttbr0_el1); /* ASID 0 */
	isb();
	/* Only this CPU's TLB holds what it walked of the old root; others
	 * flush their own when they switch (Linux's local flush after an
	 * ASID rollover relies on the same). A broadcast here would stop
	 * every vCPU of QEMU's MTTCG for each switch. */
	dsb(nshst);
	__asm__ volatile("tlbi vmalle1" : : : "memory");
	dsb(nsh);
	isb();
	if (prev && prev != mm)
		__atomic_fetch_and(&prev->context.cpumask, ~bit, __ATOMIC_SEQ_CST);
}

unsigned long arch_mm_cpus_elsewhere(struct mm *mm)
{
	return __atomic_load_n(&mm->context.cpumask, __ATOMIC_ACQUIRE) & ~(1ul << this_cpu()->cpu);
}

/* ---- building the kernel's tables ------------------------------------------ */

pud_t kernel_pud_leaf(uint64_t pa, uint64_t prot)
{
	return (pud_t){ (pa & PUD_ADDR_MASK) | prot | PTE_TYPE_BLOCK };
}

pmd_t kernel_pmd_leaf(uint64_t pa, uint64_t prot)
{
	return (pmd_t){ (pa & PMD_ADDR_MASK) | prot | PTE_TYPE_BLOCK };
}

pte_t kernel_pte_leaf(uint64_t pa, uint64_t prot)
{
	return (pte_t){ (pa & PTE_ADDR_MASK) | prot | PTE_TYPE_PAGE };
}

/* The boot code's MMU setup must be what this file's entries assume. */
static uint64_t check_boot_mmu(void)
{
	uint64_t mair = read_sysreg(mair_el1), tcr = read_sysreg(tcr_el1);

	if ((mair & 0xffff) != MAIR_EL1_VALUE)
		panic("arch_mm_init: MAIR_EL1 %#llx: need Attr%d = %#x (normal WB), Attr%d = %#x "
		      "(device nGnRE), i.e. MAIR_EL1_VALUE from <asm/pgtable.h>",
		      (unsigned long long)mair, MT_NORMAL, MAIR_ATTR_NORMAL, MT_DEVICE_nGnRE,
		      MAIR_ATTR_DEVICE_nGnRE);
	if (TCR_T0SZ(tcr) != 16 || TCR_T1SZ(tcr) != 16 || TCR_TG0(tcr) != 0 || TCR_TG1(tcr) != 2 ||
	    (tcr & TCR_A1))
		panic("arch_mm_init: TCR_EL1 %#llx: need 48-bit VAs and 4 KiB granules in both "
		      "halves, ASID from TTBR0",
		      (unsigned long long)tcr);
	return tcr;
}

/* Devices below 1 GiB, then the RAM ranges (which must not overlap them). */
static void map_kernel_half(void)
{
	struct kmap k = { kernel_pgd, true };

	kmap_range(&k, PAGE_OFFSET, 0, DEVICE_SPAN, KERNEL_DEVICE);
	kmap_ram(&k, KERNEL_NORMAL);
}

/* TCR_EL1.HA where this CPU has FEAT_HAFDBS (ID_AA64MMFR1_EL1.HAFDBS, bits
 * 3:0, at least 1): the MMU sets the access flag of an entry it uses, as
 * on Linux, instead of an access-flag fault per old entry. */
static uint64_t tcr_hw_af(void)
{
	return (read_sysreg(id_aa64mmfr1_el1) & 0xf) ? TCR_HA : 0;
}

void arm64_mmu_cpu_init(void)
{
	if (!kernel_pgd_phys)
		return; /* arch_mm_init() runs it on every CPU once it has the tables */
	dsb(ishst);
	write_sysreg(empty_pgd_phys, ttbr0_el1);
	write_sysreg(kernel_pgd_phys, ttbr1_el1);
	isb();
	TLB_SYNC(tlbi_vmalle1is());
	write_sysreg((read_sysreg(tcr_el1) & ~(TCR_EPD0 | TCR_HA | TCR_HD)) | tcr_hw_af(), tcr_el1);
	isb();
}

static void mmu_cpu_init_on(unsigned cpu, void *arg)
{
	(void)arg;
	if (cpu)
		arm64_mmu_cpu_init();
}

void arch_mm_init(void)
{
	check_boot_mmu();

	kernel_pgd = kmap_table(&kernel_pgd_phys);
	kmap_table(&empty_pgd_phys);
	map_kernel_half();
	/*
	 * The new TTBR1 table maps what the boot table maps at the same
	 * addresses with the same attributes, so no break-before-make step:
	 * at worst the TLB briefly holds entries of both (block sizes may
	 * differ, which the architecture allows to raise a TLB conflict
	 * abort; QEMU TCG never does), and the TLBI right after drops them.
	 */
	arm64_mmu_cpu_init();
	smp_run(smp_nr_cpus(), mmu_cpu_init_on, NULL); /* the secondaries too */
	if (mm_boot_verbose)
		printf("mm: kernel page tables at %#llx (TTBR1), user half empty (TTBR0 %#llx)\n",
		       (unsigned long long)kernel_pgd_phys, (unsigned long long)empty_pgd_phys);
}
