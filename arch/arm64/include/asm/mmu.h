/*
 * mmu.h (arm64) - the MMU hooks mm/ calls, and the system-register and
 * TLB maintenance instructions behind them. The host runner shadows this
 * file with arch/host/include/asm/mmu.h, so only guest code sees the asm.
 */
#ifndef ASM_MMU_H
#define ASM_MMU_H

#include <stdint.h>

#include "arch_mmu.h" /* the required hooks, declared once */

#define dsb(opt) __asm__ volatile("dsb " #opt : : : "memory")
#define isb() __asm__ volatile("isb" : : : "memory")

#define read_sysreg(reg)                                                                           \
	({                                                                                         \
		uint64_t v_;                                                                       \
		__asm__ volatile("mrs %0, " #reg : "=r"(v_));                                      \
		v_;                                                                                \
	})
#define write_sysreg(v, reg) __asm__ volatile("msr " #reg ", %0" : : "r"((uint64_t)(v)) : "memory")
/* The same for a register named by a macro (<asm/sysreg.h>'s encodings). */
#define read_sysreg_s(reg) read_sysreg(reg)
#define write_sysreg_s(v, reg) write_sysreg(v, reg)

/* Make this CPU use the kernel's tables (TTBR1) and the empty user root
 * once arch_mm_init() has built them; before that, nothing. */
void arm64_mmu_cpu_init(void);

/* TLBI operands: VA[55:12] in bits 43:0, ASID in bits 63:48 (always 0). */
static inline uint64_t tlbi_va_arg(unsigned long va)
{
	return (va >> 12) & ((1ull << 44) - 1);
}

/* One page, every level of the walk, ASID 0 (and global entries). */
static inline void tlbi_vae1is(uint64_t arg)
{
	__asm__ volatile("tlbi vae1is, %0" : : "r"(arg) : "memory");
}

/* Every non-global entry of ASID 0: all of user space. */
static inline void tlbi_aside1is_0(void)
{
	__asm__ volatile("tlbi aside1is, %0" : : "r"(0ull) : "memory");
}

/* Everything at EL1&0, kernel entries included. */
static inline void tlbi_vmalle1is(void)
{
	__asm__ volatile("tlbi vmalle1is" : : : "memory");
}

#endif
