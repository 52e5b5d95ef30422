/*
 * trampoline.S (x86_64) - where a secondary CPU starts: the STARTUP IPI
 * puts it in real mode at CS = page << 8, IP = 0. smp.c copies this blob
 * to PTELAB_X86_TRAMPOLINE (below 1 MiB, kept free by the VMM and by
 * mm_init()'s reservation of [0, 1 MiB)) and fills its four data words
 * before each start; CPUs are started one at a time, so one copy serves.
 *
 * Real mode -> 32-bit protected mode (the blob's own GDT, flat) -> long
 * mode on the boot page tables of boot.S (they map the blob 1:1 and the
 * kernel at its link address) -> x86_secondary_entry at its link address,
 * which loads the kernel's own tables (smp.c). Selectors match boot.S's
 * GDT: 0x08 64-bit code, 0x10 data; 0x18 is 32-bit code here only.
 */
#include "ptelab/abi.h"

#define T(x) (PTELAB_X86_TRAMPOLINE + (x) - x86_trampoline_start)
#define CR0_PE 0x1
#define CR0_MP 0x2
#define CR0_EM 0x4
#define CR0_NE 0x20
#define CR0_PG 0x80000000
#define CR4_PAE 0x20
#define CR4_OSFXSR 0x200
#define CR4_OSXMMEXCPT 0x400
#define MSR_EFER 0xc0000080
#define EFER_LME 0x100

	.section .rodata
	.p2align 12
	.globl x86_trampoline_start, x86_trampoline_end
	.globl x86_tramp_cr3, x86_tramp_stack, x86_tramp_percpu, x86_tramp_entry
	.code16
x86_trampoline_start:
	cli
	cld
	mov	%cs, %ax
	mov	%ax, %ds
	lgdtl	tr_gdt_desc - x86_trampoline_start
	mov	%cr0, %eax
	or	$CR0_PE, %eax
	mov	%eax, %cr0
	ljmpl	$0x18, $T(tr_prot)

	.code32
tr_prot:
	mov	$0x10, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	mov	%cr4, %eax
	or	$(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
	mov	%eax, %cr4
	mov	T(x86_tramp_cr3), %eax
	mov	%eax, %cr3
	mov	$MSR_EFER, %ecx
	rdmsr
	or	$EFER_LME, %eax
	wrmsr
	mov	%cr0, %eax
	and	$~CR0_EM, %eax
	or	$(CR0_PG | CR0_MP | CR0_NE), %eax
	mov	%eax, %cr0
	ljmp	$0x08, $T(tr_long)

	.code64
tr_long:
	mov	T(x86_tramp_stack), %rsp
	mov	T(x86_tramp_percpu), %rdi
	mov	T(x86_tramp_entry), %rax
	jmp	*%rax

	.p2align 3
tr_gdt:
	.quad	0
	.quad	0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad	0x00cf92000000ffff	/* 0x10: data */
	.quad	0x00cf9a000000ffff	/* 0x18: 32-bit code */
tr_gdt_end:
tr_gdt_desc:
	.word	tr_gdt_end - tr_gdt - 1
	.long	T(tr_gdt)
	.p2align 3
x86_tramp_cr3:
	.quad	0
x86_tramp_stack:
	.quad	0
x86_tramp_percpu:
	.quad	0
x86_tramp_entry:
	.quad	0
x86_trampoline_end:

/*
 * x86_secondary_entry - at the link address, on the CPU's stack, %rdi =
 * its struct percpu: boot.S's GDT and data segments, then C.
 */
	.text
	.globl x86_secondary_entry
x86_secondary_entry:
	lgdt	boot_gdt_desc64(%rip)
	mov	$0x10, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	xor	%eax, %eax
	mov	%eax, %fs
	mov	%eax, %gs
	fninit
	xor	%ebp, %ebp
	call	x86_secondary_start
1:	hlt
	jmp	1b
	.section .note.GNU-stack, "", @progbits
