/*
 * switch.S (x86_64) - the kernel stack switch under arch_switch_to()
 * (arch/x86_64/user.c, kernel/user_arch.h).
 *
 * void x86_switch_stack(uint64_t *prev_sp, uint64_t next_sp): push the
 * callee-saved registers of the SysV ABI, save RSP in *prev_sp, load
 * next_sp and pop the same registers from it, then return on the new
 * stack. The x87/SSE registers are caller-saved (the C caller holds
 * nothing in them); MXCSR and the x87 control word are the kernel's on
 * both sides (a user's are in its user_regs).
 */
	.text
	.globl x86_switch_stack
	.p2align 4
x86_switch_stack:
	push %rbp
	push %rbx
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, (%rdi)
	mov %rsi, %rsp
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbx
	pop %rbp
	ret

	.section .note.GNU-stack, "", @progbits
