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
 */
#include <asm/layout.h>
#include <asm/percpu.h>
#include <asm/psci.h>
#include <asm/traps.h>

	.macro	VENTRY kind
	.balign	0x80
	sub	sp, sp, #PT_FRAME_SIZE
	stp	x0, x1, [sp, #PT_X0]
	mov	x0, #\kind
	b	exception_entry
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
	VENTRY	8	/* EL0, AArch64 */
	VENTRY	9
	VENTRY	10
	VENTRY	11
	VENTRY	12	/* EL0, AArch32 */
	VENTRY	13
	VENTRY	14
	VENTRY	15

/* x0 = vector kind; the interrupted x0/x1 are in the frame at sp. */
exception_entry:
	stp	x2, x3, [sp, #(PT_X0 + 2 * 8)]
	stp	x4, x5, [sp, #(PT_X0 + 4 * 8)]
	stp	x6, x7, [sp, #(PT_X0 + 6 * 8)]
	stp	x8, x9, [sp, #(PT_X0 + 8 * 8)]
	stp	x10, x11, [sp, #(PT_X0 + 10 * 8)]
	stp	x12, x13, [sp, #(PT_X0 + 12 * 8)]
	stp	x14, x15, [sp, #(PT_X0 + 14 * 8)]
	stp	x16, x17, [sp, #(PT_X0 + 16 * 8)]
	stp	x18, x19, [sp, #(PT_X0 + 18 * 8)]
	stp	x20, x21, [sp, #(PT_X0 + 20 * 8)]
	stp	x22, x23, [sp, #(PT_X0 + 22 * 8)]
	stp	x24, x25, [sp, #(PT_X0 + 24 * 8)]
	stp	x26, x27, [sp, #(PT_X0 + 26 * 8)]
	stp	x28, x29, [sp, #(PT_X0 + 28 * 8)]

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
	mrs	x2, fpsr
	mrs	x3, fpcr
	stp	x2, x3, [sp, #PT_FPSR]

	add	x1, sp, #PT_Q0
	stp	q0, q1, [x1, #(0 * 32)]
	stp	q2, q3, [x1, #(1 * 32)]
	stp	q4, q5, [x1, #(2 * 32)]
	stp	q6, q7, [x1, #(3 * 32)]
	stp	q8, q9, [x1, #(4 * 32)]
	stp	q10, q11, [x1, #(5 * 32)]
	stp	q12, q13, [x1, #(6 * 32)]
	stp	q14, q15, [x1, #(7 * 32)]
	stp	q16, q17, [x1, #(8 * 32)]
	stp	q18, q19, [x1, #(9 * 32)]
	stp	q20, q21, [x1, #(10 * 32)]
	stp	q22, q23, [x1, #(11 * 32)]
	stp	q24, q25, [x1, #(12 * 32)]
	stp	q26, q27, [x1, #(13 * 32)]
	stp	q28, q29, [x1, #(14 * 32)]
	stp	q30, q31, [x1, #(15 * 32)]

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

	add	x1, sp, #PT_Q0
	ldp	q0, q1, [x1, #(0 * 32)]
	ldp	q2, q3, [x1, #(1 * 32)]
	ldp	q4, q5, [x1, #(2 * 32)]
	ldp	q6, q7, [x1, #(3 * 32)]
	ldp	q8, q9, [x1, #(4 * 32)]
	ldp	q10, q11, [x1, #(5 * 32)]
	ldp	q12, q13, [x1, #(6 * 32)]
	ldp	q14, q15, [x1, #(7 * 32)]
	ldp	q16, q17, [x1, #(8 * 32)]
	ldp	q18, q19, [x1, #(9 * 32)]
	ldp	q20, q21, [x1, #(10 * 32)]
	ldp	q22, q23, [x1, #(11 * 32)]
	ldp	q24, q25, [x1, #(12 * 32)]
	ldp	q26, q27, [x1, #(13 * 32)]
	ldp	q28, q29, [x1, #(14 * 32)]
	ldp	q30, q31, [x1, #(15 * 32)]
	ldp	x2, x3, [sp, #PT_FPSR]
	msr	fpsr, x2
	msr	fpcr, x3
	ldp	x2, x3, [sp, #PT_ELR]
	msr	elr_el1, x2
	msr	spsr_el1, x3

	ldp	x0, x1, [sp, #(PT_X0 + 0 * 8)]
	ldp	x2, x3, [sp, #(PT_X0 + 2 * 8)]
	ldp	x4, x5, [sp, #(PT_X0 + 4 * 8)]
	ldp	x6, x7, [sp, #(PT_X0 + 6 * 8)]
	ldp	x8, x9, [sp, #(PT_X0 + 8 * 8)]
	ldp	x10, x11, [sp, #(PT_X0 + 10 * 8)]
	ldp	x12, x13, [sp, #(PT_X0 + 12 * 8)]
	ldp	x14, x15, [sp, #(PT_X0 + 14 * 8)]
	ldp	x16, x17, [sp, #(PT_X0 + 16 * 8)]
	ldp	x18, x19, [sp, #(PT_X0 + 18 * 8)]
	ldp	x20, x21, [sp, #(PT_X0 + 20 * 8)]
	ldp	x22, x23, [sp, #(PT_X0 + 22 * 8)]
	ldp	x24, x25, [sp, #(PT_X0 + 24 * 8)]
	ldp	x26, x27, [sp, #(PT_X0 + 26 * 8)]
	ldp	x28, x29, [sp, #(PT_X0 + 28 * 8)]
	ldr	x30, [sp, #(PT_X0 + 30 * 8)]
	add	sp, sp, #PT_FRAME_SIZE
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
