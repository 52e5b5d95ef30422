/*
 * mmu.h (x86_64) - the MMU hooks mm/ calls, and the privileged
 * instructions behind them. The host runner shadows this file with
 * arch/host/include/asm/mmu.h, so only guest code sees the inline asm.
 */
#ifndef ASM_MMU_H
#define ASM_MMU_H

#include <stdint.h>

#define arch_pgd_init arch_pgd_init
#define arch_copy_pages arch_copy_pages
#include "arch_mmu.h" /* the required hooks, declared once */

/* Switch this CPU to the kernel's page tables (with NX, global pages and
 * write protection in ring 0) once arch_mm_init() has built them; before
 * that, nothing (the CPU stays on boot.S's tables). */
void x86_mmu_cpu_init(void);

/* Drop this CPU's translations of [@start, @end): INVLPG per page, or a
 * CR3 reload above X86_TLB_FLUSH_CEILING pages. */
void x86_flush_tlb_local(unsigned long start, unsigned long end);

/* Send [@start, @end) of @mm to every other CPU that has it loaded, one
 * IPI each, and wait until all have flushed (arch/x86_64/tlb.c). */
void x86_flush_tlb_others(struct mm *mm, unsigned long start, unsigned long end);

/* Above this many pages a flush reloads CR3 (Linux's
 * tlb_single_page_flush_ceiling). */
#define X86_TLB_FLUSH_CEILING 33

static inline void invlpg(unsigned long va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline uint64_t read_cr0(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline void write_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

/* Loading CR3 also drops every non-global TLB entry. */
static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t read_cr4(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void write_cr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 :
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

#endif
