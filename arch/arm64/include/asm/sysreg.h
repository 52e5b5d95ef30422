/*
 * sysreg.h (arm64) - the system-register values the boot code programs.
 * Plain constants, usable from C and from assembly (boot.S, entry.S).
 */
#ifndef ASM_SYSREG_H
#define ASM_SYSREG_H

#include <asm/layout.h> /* _UL() */

/* CurrentEL holds the exception level in bits 3:2. */
#define CURRENTEL_SHIFT 2

/* SCTLR_EL1: the bits that are RES1 in ARMv8.0 (EOS, TSCXT, EIS, SPAN,
 * nTLSMD, LSMAOE). Little-endian, no alignment checks, WXN off. */
#define SCTLR_EL1_RES1 _UL(0x30d00800)
#define SCTLR_EL1_M (_UL(1) << 0)  /* stage 1 translation */
#define SCTLR_EL1_C (_UL(1) << 2)  /* data cacheable */
#define SCTLR_EL1_SA (_UL(1) << 3) /* SP alignment check at EL1 */
#define SCTLR_EL1_I (_UL(1) << 12) /* instructions cacheable */
#define SCTLR_EL1_MMU_OFF SCTLR_EL1_RES1
#define SCTLR_EL1_MMU_ON (SCTLR_EL1_RES1 | SCTLR_EL1_M | SCTLR_EL1_C | SCTLR_EL1_SA | SCTLR_EL1_I)

/* CPACR_EL1.FPEN = 0b11: FP/SIMD does not trap at EL1 or EL0. */
#define CPACR_EL1_FPEN (_UL(3) << 20)

/*
 * TCR_EL1 for the boot tables: 48-bit VAs in both halves (T0SZ = T1SZ =
 * 16), 4 KiB granules (TG0 = 0, TG1 = 2), walks inner shareable and
 * write-back cacheable, 8-bit ASIDs taken from TTBR0 (A1 = 0), no top-byte
 * ignore, no hardware A/D. IPS is filled in from ID_AA64MMFR0_EL1.
 */
#define TCR_T0SZ_48 _UL(16)
#define TCR_EPD0 (_UL(1) << 7) /* no TTBR0 walks: the user half faults */
#define TCR_IRGN0_WBWA (_UL(1) << 8)
#define TCR_ORGN0_WBWA (_UL(1) << 10)
#define TCR_SH0_INNER (_UL(3) << 12)
#define TCR_T1SZ_48 (_UL(16) << 16)
#define TCR_IRGN1_WBWA (_UL(1) << 24)
#define TCR_ORGN1_WBWA (_UL(1) << 26)
#define TCR_SH1_INNER (_UL(3) << 28)
#define TCR_TG1_4K (_UL(2) << 30)
#define TCR_IPS_SHIFT 32
#define TCR_IPS_MAX 5 /* 48-bit PAs: what a 4 KiB granule reaches without LPA2 */
#define TCR_EL1_BOOT                                                                               \
	(TCR_T0SZ_48 | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA | TCR_SH0_INNER | TCR_T1SZ_48 |             \
	 TCR_IRGN1_WBWA | TCR_ORGN1_WBWA | TCR_SH1_INNER | TCR_TG1_4K)

/* HCR_EL2 when leaving EL2 for good: EL1 is AArch64, nothing else traps
 * (no stage 2, TGE and E2H clear). */
#define HCR_EL2_RW (_UL(1) << 31)
/* CPTR_EL2 without E2H: RES1 bits set, TFP clear (FP/SIMD not trapped);
 * TZ and TSM stay set (SVE and SME trap: the guest uses neither). */
#define CPTR_EL2_NO_FP_TRAP _UL(0x33ff)
/* CNTHCTL_EL2.EL1PCTEN | EL1PCEN: EL1 may use the physical counter/timer. */
#define CNTHCTL_EL2_EL1PC _UL(3)

/* GICv3 CPU interface registers by encoding (any assembler knows these). */
#define ICC_SRE_EL2 S3_4_C12_C9_5
#define ICC_SRE_EL1 S3_0_C12_C12_5
#define ICC_PMR_EL1 S3_0_C4_C6_0
#define ICC_IGRPEN1_EL1 S3_0_C12_C12_7
#define ICC_IAR1_EL1 S3_0_C12_C12_0
#define ICC_EOIR1_EL1 S3_0_C12_C12_1
#define ICC_SGI1R_EL1 S3_0_C12_C11_5
#define ICC_SRE_SRE 1	 /* system-register interface */
#define ICC_SRE_ENABLE 8 /* EL2: EL1 may use ICC_SRE_EL1 */

/* SPSR for an exception return to EL1 on SP_EL1 with D, A, I, F masked. */
#define SPSR_EL1H_MASKED _UL(0x3c5)

#endif
