/*
 * user.h (arm64) - the saved state of an EL0 program (kernel/user_arch.h).
 *
 * The exception frame of <asm/traps.h> (x0-x30, SP_EL0, ELR_EL1 = PC,
 * SPSR_EL1 = PSTATE, ESR/FAR of the exception that entered, FPSR/FPCR,
 * q0-q31) followed by TPIDR_EL0. The kernel itself uses the SIMD
 * registers (newlib's memcpy and printf), so every entry from EL0 saves
 * all of them and every return restores them. entry.S fills a user_regs
 * at the top of the kstack (arch_user_set_kstack()) on each entry from
 * EL0 and arm64_ret_to_user() loads one; UR_* are its offsets.
 */
#ifndef ASM_USER_H
#define ASM_USER_H

#include <asm/traps.h>

/* The kstack (arch_user_set_kstack()) must hold at least this much: a
 * fault on a user address resumes a system call only while its SP lies
 * in the kstack's top UR_KSTACK_MIN bytes (traps.c; the kstack has no
 * guard pattern, so a deeper SP is taken for an overflow). */
#define UR_KSTACK_MIN 0x8000

/* struct arch_context offsets (switch.S). */
#define CTX_X19 0
#define CTX_SP (12 * 8)
#define CTX_D8 (13 * 8)

/* Linux's uapi MINSIGSTKSZ on arm64: sigaltstack()'s smallest stack. */
#define ARCH_MINSIGSTKSZ 5120

#define UR_TPIDR PT_FRAME_SIZE
#define UR_FRAME_SIZE (PT_FRAME_SIZE + 16) /* keeps the kstack 16-byte aligned */

#ifndef __ASSEMBLER__
#include <stdint.h>

struct user_regs {
	struct pt_regs regs; /* elr is the PC, spsr the PSTATE, sp SP_EL0 */
	uint64_t tpidr;	     /* TPIDR_EL0: the thread pointer */
	uint64_t pad;
};

/* A process's saved kernel context (kernel/user_arch.h, switch.S): the
 * callee-saved registers x19-x29, x30 (where arch_switch_to() returns
 * to), SP, and d8-d15. */
struct arch_context {
	uint64_t x19_x30[12];
	uint64_t sp;
	uint64_t d8_d15[8];
};
#endif

#endif
