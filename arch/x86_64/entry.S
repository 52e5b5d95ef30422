/*
 * entry.S (x86_64) - exception entry stubs.
 *
 * Every vector pushes a uniform frame (error code 0 where the CPU gives
 * none, then the vector number), saves the general registers and the
 * interrupted code's x87/SSE state (newlib's memcpy lives in XMM
 * registers) and calls x86_trap(struct trap_frame *, fxsave area). The
 * frame layout is struct trap_frame in asm/traps.h; the C handler may
 * change rip to resume at a fixup, and (for ring 3: a signal handler's
 * entry) every register and the fxsave area.
 */
	.macro VEC n, err
	.p2align 4
vec_\n:
	.if \err == 0
	pushq $0
	.endif
	pushq $\n
	jmp trap_common
	.endm

	.text
	VEC 0, 0
	VEC 1, 0
	VEC 2, 0
	VEC 3, 0
	VEC 4, 0
	VEC 5, 0
	VEC 6, 0
	VEC 7, 0
	VEC 8, 1
	VEC 9, 0
	VEC 10, 1
	VEC 11, 1
	VEC 12, 1
	VEC 13, 1
	VEC 14, 1
	VEC 15, 0
	VEC 16, 0
	VEC 17, 1
	VEC 18, 0
	VEC 19, 0
	VEC 20, 0
	VEC 21, 1
	VEC 22, 0
	VEC 23, 0
	VEC 24, 0
	VEC 25, 0
	VEC 26, 0
	VEC 27, 0
	VEC 28, 0
	VEC 29, 1
	VEC 30, 1
	VEC 31, 0
	VEC 239, 0	/* X86_TIMER_VECTOR */
	VEC 240, 0	/* X86_IPI_VECTOR */
	VEC 255, 0	/* X86_SPURIOUS_VECTOR */
	.globl vec_timer, vec_ipi, vec_spurious
	.set vec_timer, vec_239
	.set vec_ipi, vec_240
	.set vec_spurious, vec_255

trap_common:
	push %rax
	push %rbx
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %rbp
	push %r8
	push %r9
	push %r10
	push %r11
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, %rbx
	sub $512, %rsp
	and $~15, %rsp
	fxsave (%rsp)
	mov %rbx, %rdi
	mov %rsp, %rsi
	cld
	call x86_trap
	fxrstor (%rsp)
	mov %rbx, %rsp
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rbp
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rbx
	pop %rax
	add $16, %rsp
	iretq

	.section .rodata
	.p2align 3
	.globl trap_stubs
trap_stubs:
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.quad vec_\n
	.endr
	.section .note.GNU-stack, "", @progbits
