/*
 * switch.S (arm64) - arch_switch_to() (kernel/user_arch.h): save the
 * callee-saved registers of AAPCS64 (x19-x29, the link register x30, SP
 * and the low halves of v8-v15, d8-d15) in the struct arch_context at x0
 * (<asm/user.h>; CTX_* are its offsets) and load them from the one at
 * x1, then return to the loaded x30. The kernel runs on SP_EL0 (EL1t),
 * so "sp" here is the kstack or the CPU's kernel stack. Nothing else is
 * switched: TPIDR_EL0 and the program's FP/SIMD state live in its
 * user_regs frame, saved at every entry from EL0.
 */
#include <asm/user.h>

	.text
	.globl	arch_switch_to
	.p2align 4
arch_switch_to:
	stp	x19, x20, [x0, #(CTX_X19 + 0 * 8)]
	stp	x21, x22, [x0, #(CTX_X19 + 2 * 8)]
	stp	x23, x24, [x0, #(CTX_X19 + 4 * 8)]
	stp	x25, x26, [x0, #(CTX_X19 + 6 * 8)]
	stp	x27, x28, [x0, #(CTX_X19 + 8 * 8)]
	stp	x29, x30, [x0, #(CTX_X19 + 10 * 8)]
	mov	x9, sp
	str	x9, [x0, #CTX_SP]
	stp	d8, d9, [x0, #(CTX_D8 + 0 * 8)]
	stp	d10, d11, [x0, #(CTX_D8 + 2 * 8)]
	stp	d12, d13, [x0, #(CTX_D8 + 4 * 8)]
	stp	d14, d15, [x0, #(CTX_D8 + 6 * 8)]

	ldp	x19, x20, [x1, #(CTX_X19 + 0 * 8)]
	ldp	x21, x22, [x1, #(CTX_X19 + 2 * 8)]
	ldp	x23, x24, [x1, #(CTX_X19 + 4 * 8)]
	ldp	x25, x26, [x1, #(CTX_X19 + 6 * 8)]
	ldp	x27, x28, [x1, #(CTX_X19 + 8 * 8)]
	ldp	x29, x30, [x1, #(CTX_X19 + 10 * 8)]
	ldr	x9, [x1, #CTX_SP]
	mov	sp, x9
	ldp	d8, d9, [x1, #(CTX_D8 + 0 * 8)]
	ldp	d10, d11, [x1, #(CTX_D8 + 2 * 8)]
	ldp	d12, d13, [x1, #(CTX_D8 + 4 * 8)]
	ldp	d14, d15, [x1, #(CTX_D8 + 6 * 8)]
	ret

	.section .note.GNU-stack, "", %progbits
