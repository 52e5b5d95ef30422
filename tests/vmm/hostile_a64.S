/*
 * hostile_a64.S - the looping arm64 hostile guests of tests/vmm/mkelf.c
 * (EL1, MMU off; q: QEMU's exit, status line and PSCI SYSTEM_OFF; k:
 * ptelab's KVM exit device). Not built: their words are in mkelf.c, from
 *   aarch64-linux-gnu-as -o a.o hostile_a64.S &&
 *   aarch64-linux-gnu-objcopy -O binary -j .text.NAME a.o NAME.bin
 */
	.macro tail_qemu
	adr x0, 7f
	mov x1, #0x09000000
9:	ldrb w2, [x0], #1
	cbz w2, 8f
	str w2, [x1]
	b 9b
8:	mov w0, #0x8
	movk w0, #0x8400, lsl #16
	hvc #0
	b .
7:	.asciz "\nptelab-exit-status 0\n"
	.balign 4
	.endm
	.macro tail_kvm
	mov x6, #0x090f0000
	str wzr, [x6]
	b .
	.endm

	.macro deep tail
	mov x1, #0x09000000
	adr x3, tag\@
	mov x4, #7
	bl putn\@
	mov x5, #13000
1:	adr x3, open\@
	mov x4, #4
	bl putn\@
	subs x5, x5, #1
	b.ne 1b
	mov w2, #'1'
	str w2, [x1]
	mov x5, #13000
	mov w2, #'}'
2:	str w2, [x1]
	subs x5, x5, #1
	b.ne 2b
	mov w2, #'\n'
	str w2, [x1]
	\tail
putn\@:	ldrb w2, [x3], #1
	str w2, [x1]
	subs x4, x4, #1
	b.ne putn\@
	ret
tag\@:	.ascii "RESULT "
open\@:	.ascii "{\"\":"
	.endm

	.macro garbage kvm
	mov x1, #0x09000000
	mov w2, #0xffffffff
	mov x3, #0
1:	str w2, [x1, x3]
	ldr w4, [x1, x3]
	add x3, x3, #4
	cmp x3, #0x1000
	b.ne 1b
	.if \kvm
	mov x1, #0x090f0000
	mov x3, #4
2:	str w2, [x1, x3]
	ldr w4, [x1, x3]
	add x3, x3, #4
	cmp x3, #0x1000
	b.ne 2b
	tail_kvm
	.else
	mov x1, #0x09000000
	mov w2, #0x301
	str w2, [x1, #0x30]
	mov w2, #0x70
	str w2, [x1, #0x2c]
	str wzr, [x1, #0x38]
	tail_qemu
	.endif
	.endm

	.section .text.deepq, "ax"
	deep tail_qemu
	.section .text.deepk, "ax"
	deep tail_kvm
	.section .text.garbq, "ax"
	garbage 0
	.section .text.garbk, "ax"
	garbage 1
