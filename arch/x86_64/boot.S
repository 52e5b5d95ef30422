/*
 * boot.S (x86_64) - the PVH entry: 32-bit protected mode, paging off,
 * EBX = physical address of struct hvm_start_info (QEMU and ptelab alike).
 *
 * Zeroes .bss, builds boot page tables that map physical [0, 4 GiB) three
 * times with 2 MiB pages (identity, for the switch; the direct map at
 * PAGE_OFFSET; the first GiB again at KOFF for the -2 GiB kernel image),
 * enables SSE (newlib's printf and memcpy use it), enters long mode and
 * calls x86_start(start_info_phys) at its link address. mm/ later replaces
 * these tables by its own (arch/x86_64/mmu.c).
 */
#include <asm/layout.h>

#define KOFF 0xffffffff80000000
#define PHYS(x) ((x) - KOFF)

#define PTE_P 0x1
#define PTE_RW 0x2
#define PTE_PS 0x80
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
#define PML4_DIRECT ((PAGE_OFFSET >> 39) & 511)
#define BOOT_STACK_SIZE 0x4000

/* The PVH entry note: name "Xen", type 18, the 32-bit physical entry. */
	.section .note.pvh, "a"
	.p2align 2
	.long 4, 4, 18
	.asciz "Xen"
	.long PHYS(pvh_start32)

	.section .text.boot, "ax"
	.code32
	.globl pvh_start32
pvh_start32:
	cli
	cld
	mov %ebx, %esi
	rdtsc
	mov %eax, PHYS(boot_tsc)
	mov %edx, PHYS(boot_tsc) + 4

	/* .bss first: the tables and the stack live there. */
	mov $PHYS(__bss_start), %edi
	mov $PHYS(__bss_end), %ecx
	sub %edi, %ecx
	xor %eax, %eax
	rep stosb
	mov $PHYS(boot_stack) + BOOT_STACK_SIZE, %esp

	/* 2048 PD entries: 2 MiB pages over [0, 4 GiB). */
	mov $PHYS(boot_pd), %edi
	mov $(PTE_P | PTE_RW | PTE_PS), %eax
	xor %edx, %edx
	mov $2048, %ecx
1:	mov %eax, (%edi)
	mov %edx, 4(%edi)
	add $0x200000, %eax
	adc $0, %edx
	add $8, %edi
	loop 1b

	/* PDPT entries 0..3 -> the four PDs. */
	mov $PHYS(boot_pdpt), %edi
	mov $PHYS(boot_pd) + (PTE_P | PTE_RW), %eax
	mov $4, %ecx
2:	mov %eax, (%edi)
	add $4096, %eax
	add $8, %edi
	loop 2b
	movl $PHYS(boot_pd) + (PTE_P | PTE_RW), PHYS(boot_pdpt_k) + 510 * 8

	movl $PHYS(boot_pdpt) + (PTE_P | PTE_RW), PHYS(boot_pml4)
	movl $PHYS(boot_pdpt) + (PTE_P | PTE_RW), PHYS(boot_pml4) + PML4_DIRECT * 8
	movl $PHYS(boot_pdpt_k) + (PTE_P | PTE_RW), PHYS(boot_pml4) + 511 * 8

	mov %cr4, %eax
	or $(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
	mov %eax, %cr4
	mov $PHYS(boot_pml4), %eax
	mov %eax, %cr3
	mov $MSR_EFER, %ecx
	rdmsr
	or $EFER_LME, %eax
	wrmsr
	mov %cr0, %eax
	and $~CR0_EM, %eax
	or $(CR0_PG | CR0_PE | CR0_MP | CR0_NE), %eax
	mov %eax, %cr0
	lgdt PHYS(boot_gdt_desc32)
	ljmp $0x08, $PHYS(start64_low)

	.code64
start64_low:
	movabs $start64, %rax
	jmp *%rax

	.text
start64:
	lgdt boot_gdt_desc64(%rip)
	mov $0x10, %eax
	mov %eax, %ds
	mov %eax, %es
	mov %eax, %ss
	xor %eax, %eax
	mov %eax, %fs
	mov %eax, %gs
	movabs $boot_stack + BOOT_STACK_SIZE, %rsp
	fninit
	mov %esi, %edi
	xor %ebp, %ebp
	call x86_start
3:	hlt
	jmp 3b

	.data
	.p2align 3
	.globl boot_tsc
boot_tsc:
	.quad 0
	.p2align 4
	.globl boot_gdt
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff /* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff /* 0x10: data */
	.quad 0, 0 /* 0x18: the TSS, filled in by traps.c */
boot_gdt_end:
boot_gdt_desc32:
	.word boot_gdt_end - boot_gdt - 1
	.long PHYS(boot_gdt)
	.p2align 3
	.globl boot_gdt_desc64
boot_gdt_desc64:
	.word boot_gdt_end - boot_gdt - 1
	.quad boot_gdt

	.section .bss.boot, "aw", @nobits
	.p2align 12
	.globl boot_pml4
boot_pml4:
	.skip 4096
boot_pdpt:
	.skip 4096
boot_pdpt_k:
	.skip 4096
boot_pd:
	.skip 4 * 4096
	.globl boot_stack
boot_stack:
	.skip BOOT_STACK_SIZE
	.section .note.GNU-stack, "", @progbits
