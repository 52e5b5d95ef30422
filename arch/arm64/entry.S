/*
 * entry.S (arm64) - the exception vector table and the common entry.
 *
 * The kernel runs on SP_EL0 (EL1t), so an exception switches to SP_EL1,
 * the exception stack, which is always good: a blown kernel stack is
 * reported instead of faulting again on the way in. Every vector saves the
 * interrupted code's x0-x30, SP, ELR/SPSR/ESR/FAR, FPSR/FPCR and q0-q31
 * (newlib's memcpy and printf live in the SIMD registers) in a struct
 * pt_regs (<asm/traps.h>) and calls arm64_trap(regs). When that returns,
 * the state is restored from the frame (the handler may have moved ELR to
 * a fixup) and the code resumes.
 *
 * Nesting: each CPU counts the exceptions it is handling in its struct
 * percpu (TPIDR_EL1 + PERCPU_EXC_DEPTH, <asm/percpu.h>). An
 * exception inside a handler arrives on the SP_EL1 vectors and is reported
 * by C as nested; one more level than EXCEPTION_DEPTH_MAX means the report
 * itself faults, so the guest prints a fixed line and exits without C
 * (too_deep below).
 *
 * Entries from EL0 (vectors 8-15) take another path, el0_entry: they
 * save the program's state in a struct user_regs (<asm/user.h>) at the
 * top of the CPU's kstack (arch_user_set_kstack()), leave SP_EL1 empty,
 * and run the C side (arm64_el0_trap(), arch/arm64/user.c) on SP_EL0 =
 * the kstack, in the kernel's normal state: at nesting depth 0, so a
 * fault on a user address inside a system call is an ordinary first
 * exception. arm64_ret_to_user() leaves for EL0 from a struct user_regs.
 */
#include <asm/layout.h>
#include <asm/percpu.h>
#include <asm/psci.h>
#include <asm/traps.h>
#include <asm/user.h>

	.macro	VENTRY kind
	.balign	0x80
	sub	sp, sp, #PT_FRAME_SIZE
	stp	x0, x1, [sp, #PT_X0]
	mov	x0, #\kind
	b	exception_entry
	.endm

/* From EL0: stash x0/x1 on SP_EL1 for el0_entry, kind in x1. */
	.macro	VENTRY_EL0 kind
	.balign	0x80
	stp	x0, x1, [sp, #-16]!
	mov	x1, #\kind
	b	el0_entry
	.endm

/* x2..x29 to/from the frame at \base. */
	.macro	SAVE_X2_X29 base
	stp	x2, x3, [\base, #(PT_X0 + 2 * 8)]
	stp	x4, x5, [\base, #(PT_X0 + 4 * 8)]
	stp	x6, x7, [\base, #(PT_X0 + 6 * 8)]
	stp	x8, x9, [\base, #(PT_X0 + 8 * 8)]
	stp	x10, x11, [\base, #(PT_X0 + 10 * 8)]
	stp	x12, x13, [\base, #(PT_X0 + 12 * 8)]
	stp	x14, x15, [\base, #(PT_X0 + 14 * 8)]
	stp	x16, x17, [\base, #(PT_X0 + 16 * 8)]
	stp	x18, x19, [\base, #(PT_X0 + 18 * 8)]
	stp	x20, x21, [\base, #(PT_X0 + 20 * 8)]
	stp	x22, x23, [\base, #(PT_X0 + 22 * 8)]
	stp	x24, x25, [\base, #(PT_X0 + 24 * 8)]
	stp	x26, x27, [\base, #(PT_X0 + 26 * 8)]
	stp	x28, x29, [\base, #(PT_X0 + 28 * 8)]
	.endm

	.macro	RESTORE_X2_X29 base
	ldp	x2, x3, [\base, #(PT_X0 + 2 * 8)]
	ldp	x4, x5, [\base, #(PT_X0 + 4 * 8)]
	ldp	x6, x7, [\base, #(PT_X0 + 6 * 8)]
	ldp	x8, x9, [\base, #(PT_X0 + 8 * 8)]
	ldp	x10, x11, [\base, #(PT_X0 + 10 * 8)]
	ldp	x12, x13, [\base, #(PT_X0 + 12 * 8)]
	ldp	x14, x15, [\base, #(PT_X0 + 14 * 8)]
	ldp	x16, x17, [\base, #(PT_X0 + 16 * 8)]
	ldp	x18, x19, [\base, #(PT_X0 + 18 * 8)]
	ldp	x20, x21, [\base, #(PT_X0 + 20 * 8)]
	ldp	x22, x23, [\base, #(PT_X0 + 22 * 8)]
	ldp	x24, x25, [\base, #(PT_X0 + 24 * 8)]
	ldp	x26, x27, [\base, #(PT_X0 + 26 * 8)]
	ldp	x28, x29, [\base, #(PT_X0 + 28 * 8)]
	.endm

/* q0..q31, FPSR and FPCR to/from the frame at \base; clobbers \t1-\t3. */
	.macro	SAVE_FPSIMD base, t1, t2, t3
	mrs	\t2, fpsr
	mrs	\t3, fpcr
	stp	\t2, \t3, [\base, #PT_FPSR]
	add	\t1, \base, #PT_Q0
	stp	q0, q1, [\t1, #(0 * 32)]
	stp	q2, q3, [\t1, #(1 * 32)]
	stp	q4, q5, [\t1, #(2 * 32)]
	stp	q6, q7, [\t1, #(3 * 32)]
	stp	q8, q9, [\t1, #(4 * 32)]
	stp	q10, q11, [\t1, #(5 * 32)]
	stp	q12, q13, [\t1, #(6 * 32)]
	stp	q14, q15, [\t1, #(7 * 32)]
	stp	q16, q17, [\t1, #(8 * 32)]
	stp	q18, q19, [\t1, #(9 * 32)]
	stp	q20, q21, [\t1, #(10 * 32)]
	stp	q22, q23, [\t1, #(11 * 32)]
	stp	q24, q25, [\t1, #(12 * 32)]
	stp	q26, q27, [\t1, #(13 * 32)]
	stp	q28, q29, [\t1, #(14 * 32)]
	stp	q30, q31, [\t1, #(15 * 32)]
	.endm

	.macro	RESTORE_FPSIMD base, t1, t2, t3
	add	\t1, \base, #PT_Q0
	ldp	q0, q1, [\t1, #(0 * 32)]
	ldp	q2, q3, [\t1, #(1 * 32)]
	ldp	q4, q5, [\t1, #(2 * 32)]
	ldp	q6, q7, [\t1, #(3 * 32)]
	ldp	q8, q9, [\t1, #(4 * 32)]
	ldp	q10, q11, [\t1, #(5 * 32)]
	ldp	q12, q13, [\t1, #(6 * 32)]
	ldp	q14, q15, [\t1, #(7 * 32)]
	ldp	q16, q17, [\t1, #(8 * 32)]
	ldp	q18, q19, [\t1, #(9 * 32)]
	ldp	q20, q21, [\t1, #(10 * 32)]
	ldp	q22, q23, [\t1, #(11 * 32)]
	ldp	q24, q25, [\t1, #(12 * 32)]
	ldp	q26, q27, [\t1, #(13 * 32)]
	ldp	q28, q29, [\t1, #(14 * 32)]
	ldp	q30, q31, [\t1, #(15 * 32)]
	ldp	\t2, \t3, [\base, #PT_FPSR]
	msr	fpsr, \t2
	msr	fpcr, \t3
	.endm

	.text
	.balign	2048
	.globl	arm64_vectors
arm64_vectors:
	VENTRY	0	/* EL1 on SP_EL0: sync, irq, fiq, serror */
	VENTRY	1
	VENTRY	2
	VENTRY	3
	VENTRY	4	/* EL1 on SP_EL1 (inside a handler) */
	VENTRY	5
	VENTRY	6
	VENTRY	7
	VENTRY_EL0 8	/* EL0, AArch64 */
	VENTRY_EL0 9
	VENTRY_EL0 10
	VENTRY_EL0 11
	VENTRY_EL0 12	/* EL0, AArch32: never entered (SPSR.M[4] is 0) */
	VENTRY_EL0 13
	VENTRY_EL0 14
	VENTRY_EL0 15

/* x0 = vector kind; the interrupted x0/x1 are in the frame at sp. */
exception_entry:
	SAVE_X2_X29 sp

	/* The interrupted SP: SP_EL0, unless it was SP_EL1 (this stack). */
	mrs	x1, sp_el0
	add	x2, sp, #PT_FRAME_SIZE
	tst	x0, #(VEC_GROUP_EL1_SPX * 4)
	csel	x1, x2, x1, ne
	cmp	x0, #(VEC_GROUP_EL0_64 * 4)
	mrs	x2, sp_el0
	csel	x1, x2, x1, hs
	stp	x30, x1, [sp, #(PT_X0 + 30 * 8)]	/* x30, then PT_SP */

	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [sp, #PT_ELR]
	mrs	x2, esr_el1
	mrs	x3, far_el1
	stp	x2, x3, [sp, #PT_ESR]
	SAVE_FPSIMD sp, x1, x2, x3

	mrs	x2, tpidr_el1
	ldr	x3, [x2, #PERCPU_EXC_DEPTH]
	add	x3, x3, #1
	str	x3, [x2, #PERCPU_EXC_DEPTH]
	stp	x0, x3, [sp, #PT_KIND]
	cmp	x3, #EXCEPTION_DEPTH_MAX
	b.hi	too_deep

	/* A frame record linking to the interrupted code, for debuggers. */
	ldr	x2, [sp, #PT_ELR]
	stp	x29, x2, [sp, #-16]!
	mov	x29, sp
	add	x0, sp, #16
	bl	arm64_trap
	add	sp, sp, #16

	mrs	x2, tpidr_el1
	ldr	x3, [x2, #PERCPU_EXC_DEPTH]
	sub	x3, x3, #1
	str	x3, [x2, #PERCPU_EXC_DEPTH]

	RESTORE_FPSIMD sp, x1, x2, x3
	ldp	x2, x3, [sp, #PT_ELR]
	msr	elr_el1, x2
	msr	spsr_el1, x3

	ldp	x0, x1, [sp, #(PT_X0 + 0 * 8)]
	RESTORE_X2_X29 sp
	ldr	x30, [sp, #(PT_X0 + 30 * 8)]
	add	sp, sp, #PT_FRAME_SIZE
	eret

/*
 * el0_entry - an exception from EL0; x1 = vector kind, the program's
 * x0/x1 on SP_EL1. Builds the struct user_regs at the kstack top, moves to
 * SP_EL0 = that frame (the C side runs below it), calls
 * arm64_el0_trap(regs, kind) and returns to EL0 through
 * arch_return_to_user(regs), which checks the state it resumes.
 */
el0_entry:
	mrs	x0, tpidr_el1
	ldr	x0, [x0, #PERCPU_USER_KSTACK]
	sub	x0, x0, #UR_FRAME_SIZE
	SAVE_X2_X29 x0
	ldp	x2, x3, [sp], #16	/* the program's x0, x1; SP_EL1 empty again */
	stp	x2, x3, [x0, #PT_X0]
	mrs	x2, sp_el0
	stp	x30, x2, [x0, #(PT_X0 + 30 * 8)]	/* x30, then PT_SP */
	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [x0, #PT_ELR]
	mrs	x2, esr_el1
	mrs	x3, far_el1
	stp	x2, x3, [x0, #PT_ESR]
	stp	x1, xzr, [x0, #PT_KIND]	/* depth 0: not inside a handler */
	mrs	x2, tpidr_el0
	str	x2, [x0, #UR_TPIDR]
	SAVE_FPSIMD x0, x2, x3, x4
	msr	fpcr, xzr		/* the kernel's rounding and traps, not the program's */

	msr	sp_el0, x0
	msr	spsel, #0		/* the kernel's normal state, on the kstack */
	mov	x29, xzr
	mov	x30, xzr
	bl	arm64_el0_trap
	mov	x0, sp
	b	arch_return_to_user

/*
 * arm64_ret_to_user - load the struct user_regs at x0 and ERET to EL0.
 * The caller (arch_return_to_user()) has made SPSR an EL0t value.
 * Runs its last steps on SP_EL1 (empty, interrupts masked) so that SP_EL0
 * can hold the program's SP; the frame may be anywhere in kernel memory.
 */
	.globl	arm64_ret_to_user
arm64_ret_to_user:
	msr	spsel, #1
	RESTORE_FPSIMD x0, x1, x2, x3
	ldr	x2, [x0, #UR_TPIDR]
	msr	tpidr_el0, x2
	ldp	x2, x3, [x0, #PT_ELR]
	msr	elr_el1, x2
	msr	spsr_el1, x3
	ldr	x2, [x0, #PT_SP]
	msr	sp_el0, x2
	RESTORE_X2_X29 x0
	ldr	x30, [x0, #(PT_X0 + 30 * 8)]
	ldp	x0, x1, [x0, #PT_X0]
	eret

/*
 * Too deep: the report of an exception faulted. One level past the
 * limit: say so with a fixed line on the PL011 and exit without C. Two:
 * that line or the exit faulted; try the exit alone. Three: the exit
 * itself traps; only waiting is left, and ptelab's --timeout ends the run.
 */
too_deep:
	cmp	x3, #(EXCEPTION_DEPTH_MAX + 2)
	b.eq	arm64_fatal_exit
	b.hi	2f
	adrp	x0, msg_too_deep
	add	x0, x0, :lo12:msg_too_deep
	bl	fatal_puts
	b	arm64_fatal_exit
2:	msr	daifset, #0xf
	wfi
	b	2b

/* fatal_puts - write the NUL-terminated string at x0 on the PL011
 * (through the direct map). Clobbers x0-x3. */
fatal_puts:
	ldr	x1, =(PAGE_OFFSET + VIRT_UART_PBASE)
1:	ldrb	w2, [x0], #1
	cbz	w2, 2f
3:	ldr	w3, [x1, #0x18]		/* FR */
	tbnz	w3, #5, 3b		/* TXFF */
	str	w2, [x1]		/* DR */
	b	1b
2:	ret

/*
 * arm64_fatal_exit - exit with PTELAB_EXIT_CRASH: through ptelab's exit
 * device when the tree had one (arm64_exit_pa, reached through the direct
 * map), else the status line (ptelab/abi.h) and PSCI SYSTEM_OFF through
 * arm64_psci_conduit.
 */
	.globl	arm64_fatal_exit
arm64_fatal_exit:
	msr	daifset, #0xf
	adrp	x1, arm64_exit_pa
	ldr	x1, [x1, :lo12:arm64_exit_pa]
	cbz	x1, 1f
	ldr	x2, =PAGE_OFFSET
	add	x1, x1, x2
	mov	w0, #3			/* PTELAB_EXIT_CRASH */
	str	w0, [x1]
1:	adrp	x0, msg_exit_crash
	add	x0, x0, :lo12:msg_exit_crash
	bl	fatal_puts
	adrp	x1, arm64_psci_conduit
	ldr	x1, [x1, :lo12:arm64_psci_conduit]
	ldr	x0, =PSCI_SYSTEM_OFF
	cmp	x1, #ARM64_PSCI_SMC
	b.eq	3f
	hvc	#0
	b	4f
3:	smc	#0
4:	wfi				/* SYSTEM_OFF returned: wait for --timeout */
	b	4b
	.ltorg

	.section .rodata
msg_too_deep:
	.asciz	"\nguest: exception while reporting an exception; stopping (exit 3)\n"
msg_exit_crash:
	.asciz	"\nptelab-exit-status 3\n"	/* PTELAB_EXIT_LINE, PTELAB_EXIT_CRASH */

	.section .note.GNU-stack, "", %progbits
