/*
 * boot.S (arm64) - from QEMU -M virt's jump to the ELF entry to C.
 *
 * QEMU loads the image at its physical address (KERNEL_PBASE) and enters
 * _start with the MMU off, at EL2 when the machine has virtualization=on
 * and at EL1 otherwise; x0 is 0 for an ELF image and QEMU's DTB sits at
 * VIRT_DTB_PBASE (a nonzero x0 is taken as the DTB's address instead).
 * Until the MMU is on, the code runs at the physical address while being
 * linked at KERNEL_VBASE, so it uses only PC-relative addressing (adr,
 * adrp) and plain constants.
 *
 * Steps: park every CPU but the boot CPU (affinity 0); leave EL2 (if
 * there) for EL1; enable FP/SIMD; build the boot page tables and turn the
 * MMU on; jump to the linked (TTBR1) address; drop the identity map;
 * install the vectors; zero .bss; set up the two stacks; call
 * arm64_start(dtb, entry EL, entry counter), which calls kmain().
 *
 * Boot tables (three pages in .boot_tables, outside .bss so zeroing .bss
 * cannot touch them while they are live): one level-1 table with 1 GiB
 * blocks for physical [0, BOOT_MAP_SIZE), the first GiB Device-nGnRE (the
 * PL011 and friends), the rest Normal write-back; a level-0 table for
 * TTBR1 pointing at it (PAGE_OFFSET is level-0 entry 0) and one for TTBR0
 * (the identity map, also entry 0). MAIR_EL1 is MAIR_EL1_VALUE and TCR_EL1
 * what arch/arm64/mmu.c checks for (48-bit VAs, 4 KiB granules).
 *
 * Stacks: the kernel runs on SP_EL0 (EL1t), exceptions on SP_EL1 (EL1h),
 * so an exception always starts on a good stack even when the kernel's has
 * overflowed. The exception stack lies right below the kernel stack: an
 * overflow runs into it (unused between exceptions) rather than into
 * other data, and clobbers the guard pattern the C side checks (traps.c)
 * at every exception and at exit.
 *
 * Registers kept across the early code: x19 = entry EL, x20 = DTB address
 * from x0, x21 = the counter at entry.
 */
#include <asm/layout.h>
#include <asm/pgtable.h>
#include <asm/psci.h>
#include <asm/sysreg.h>

#define BOOT_STACK_SIZE 0x10000	    /* the kernel's stack */
#define EXCEPTION_STACK_SIZE 0x8000 /* mm's fault path runs on it */

/* 1 GiB blocks: EL1 read-write, access flag set, never EL0-executable;
 * normal memory inner shareable, device memory never executable. */
#define BLOCK_NORMAL (1 | (MT_NORMAL << 2) | (3 << 8) | (1 << 10) | (1 << 54))
#define BLOCK_DEVICE (1 | (MT_DEVICE_nGnRE << 2) | (1 << 10) | (1 << 53) | (1 << 54))
#define TABLE_DESC 3
#define BLOCK_SHIFT 30
#define PGD_SHIFT 39
#define PGD_INDEX(va) (((va) >> PGD_SHIFT) & 0x1ff)
#define MPIDR_AFF_MASK 0xff00ffffff /* Aff3..Aff0: 0 on the boot CPU */

	.section .text.boot, "ax"
	.globl _start
_start:
	mrs	x19, CurrentEL
	lsr	x19, x19, #CURRENTEL_SHIFT
	isb
	cmp	x19, #2
	b.ne	1f
	mrs	x21, cntpct_el0		/* = EL1's CNTVCT once CNTVOFF_EL2 is 0 */
	b	2f
1:	mrs	x21, cntvct_el0
2:	mov	x20, x0
	msr	daifset, #0xf
	mrs	x1, mpidr_el1		/* one CPU only: park any other the loader */
	ldr	x2, =MPIDR_AFF_MASK	/* started here (QEMU keeps them off) */
	tst	x1, x2
	b.ne	park
	cmp	x19, #1
	b.eq	el1_entry
	cmp	x19, #2
	b.eq	el2_entry
	adr	x0, msg_bad_el
	b	early_fail

/*
 * EL2 -> EL1 for good: EL1 is AArch64 and traps nothing to EL2 (no stage
 * 2, FP/SIMD free, counters and timers EL1's, the virtual counter equal to
 * the physical one), and SCTLR_EL1 starts from a known MMU-off value.
 */
el2_entry:
	bl	el2_setup
	adr	x0, el1_entry
	msr	elr_el2, x0
	eret

/* el2_setup - everything of the EL2 -> EL1 drop but the return address
 * (the boot CPU's and a secondary's differ). Clobbers x0. */
el2_setup:
	ldr	x0, =HCR_EL2_RW
	msr	hcr_el2, x0
	mrs	x0, cnthctl_el2
	orr	x0, x0, #CNTHCTL_EL2_EL1PC
	msr	cnthctl_el2, x0
	msr	cntvoff_el2, xzr
	ldr	x0, =CPTR_EL2_NO_FP_TRAP
	msr	cptr_el2, x0
	msr	hstr_el2, xzr
	msr	vttbr_el2, xzr
	mrs	x0, midr_el1
	msr	vpidr_el2, x0
	mrs	x0, mpidr_el1
	msr	vmpidr_el2, x0
	ldr	x0, =SCTLR_EL1_MMU_OFF
	msr	sctlr_el1, x0
	mov	x0, #SPSR_EL1H_MASKED
	msr	spsr_el2, x0
	mrs	x0, id_aa64pfr0_el1	/* GICv3 system registers: let EL1 use them */
	ubfx	x0, x0, #24, #4
	cbz	x0, 1f
	mrs	x0, ICC_SRE_EL2
	orr	x0, x0, #ICC_SRE_SRE
	orr	x0, x0, #ICC_SRE_ENABLE
	msr	ICC_SRE_EL2, x0
	isb
1:	ret

el1_entry:
	ldr	x0, =SCTLR_EL1_MMU_OFF
	msr	sctlr_el1, x0
	mov	x0, #CPACR_EL1_FPEN	/* before any C: newlib uses SIMD */
	msr	cpacr_el1, x0
	isb
	bl	build_boot_tables
	bl	enable_mmu
	ldr	x0, =high_entry		/* the linked (TTBR1) address */
	br	x0

/*
 * build_boot_tables - fill the three boot table pages (physical addresses,
 * MMU off, so every store goes to memory; the lines are invalidated after
 * so the cacheable table walks cannot see stale data).
 * Clobbers x0-x7.
 */
build_boot_tables:
	adrp	x0, boot_tables_start
	adrp	x1, boot_tables_end
1:	stp	xzr, xzr, [x0], #16
	cmp	x0, x1
	b.lo	1b

	adrp	x0, boot_pud
	ldr	x2, =BLOCK_DEVICE	/* entry 0: the first GiB, devices */
	str	x2, [x0]
	ldr	x2, =BLOCK_NORMAL
	mov	x3, #1			/* entries 1..: normal memory */
	mov	x4, #(BOOT_MAP_SIZE >> BLOCK_SHIFT)
2:	orr	x5, x2, x3, lsl #BLOCK_SHIFT
	str	x5, [x0, x3, lsl #3]
	add	x3, x3, #1
	cmp	x3, x4
	b.lo	2b

	orr	x2, x0, #TABLE_DESC
	adrp	x1, boot_pgd_ttbr1
	str	x2, [x1, #(PGD_INDEX(PAGE_OFFSET) * 8)]
	adrp	x1, boot_pgd_ttbr0
	str	x2, [x1]		/* identity: physical 0 is entry 0 */
	dsb	sy

	mrs	x3, ctr_el0		/* DminLine: log2 of words per line */
	ubfx	x3, x3, #16, #4
	mov	x4, #4
	lsl	x4, x4, x3
	adrp	x0, boot_tables_start
	adrp	x1, boot_tables_end
3:	dc	ivac, x0
	add	x0, x0, x4
	cmp	x0, x1
	b.lo	3b
	dsb	sy
	ret

/*
 * enable_mmu - program MAIR, TCR (IPS from the CPU's PA range, at most
 * 48 bits), both TTBRs, then SCTLR_EL1.M/C/I. Returns through the
 * identity map. Clobbers x0-x2.
 */
enable_mmu:
	ldr	x0, =MAIR_EL1_VALUE
	msr	mair_el1, x0
	ldr	x0, =TCR_EL1_BOOT
	mrs	x1, id_aa64mmfr0_el1
	and	x1, x1, #0xf		/* PARange */
	mov	x2, #TCR_IPS_MAX
	cmp	x1, x2
	csel	x1, x1, x2, lo
	bfi	x0, x1, #TCR_IPS_SHIFT, #3
	msr	tcr_el1, x0
	adrp	x0, boot_pgd_ttbr0
	msr	ttbr0_el1, x0
	adrp	x0, boot_pgd_ttbr1
	msr	ttbr1_el1, x0
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	ldr	x0, =SCTLR_EL1_MMU_ON
	msr	sctlr_el1, x0
	isb
	ic	iallu
	dsb	nsh
	isb
	ret

park:
	wfe
	b	park

/*
 * arm64_secondary_entry - where PSCI CPU_ON starts a secondary CPU: MMU
 * off, at EL1 (or EL2), the physical address. The same steps as the boot
 * CPU's up to the boot tables (still intact: nothing reuses them), then
 * the linked address, its per-CPU register, vectors and the two stacks
 * from arm64_secondary_boot (smp.c fills it before each CPU_ON; CPUs
 * start one at a time), and arm64_secondary_start(percpu).
 */
	.globl	arm64_secondary_entry
arm64_secondary_entry:
	msr	daifset, #0xf
	mrs	x19, CurrentEL
	lsr	x19, x19, #CURRENTEL_SHIFT
	cmp	x19, #2
	b.ne	secondary_el1
	bl	el2_setup
	adr	x0, secondary_el1
	msr	elr_el2, x0
	eret
secondary_el1:
	ldr	x0, =SCTLR_EL1_MMU_OFF
	msr	sctlr_el1, x0
	mov	x0, #CPACR_EL1_FPEN
	msr	cpacr_el1, x0
	isb
	bl	enable_mmu
	ldr	x0, =secondary_high
	br	x0

/*
 * early_fail - print the string at x0 on the PL011 (physical address, MMU
 * off), then the status line for PTELAB_EXIT_CRASH (ptelab/abi.h), and
 * stop with PSCI SYSTEM_OFF. The tree is not read yet, so the conduit
 * follows the entry level in x19 (psci.c says why); entered at another
 * level there is no PSCI to call, and the CPU waits for --timeout.
 */
early_fail:
	bl	early_puts
	adr	x0, msg_early_exit
	bl	early_puts
	ldr	x0, =PSCI_SYSTEM_OFF
	cmp	x19, #1
	b.eq	1f
	cmp	x19, #2
	b.ne	4f
	smc	#0
	b	4f
1:	hvc	#0
4:	wfi
	b	4b

/* early_puts - write the NUL-terminated string at x0 on the PL011
 * (physical address). Clobbers x0-x3. */
early_puts:
	ldr	x1, =VIRT_UART_PBASE
1:	ldrb	w2, [x0], #1
	cbz	w2, 3f
2:	ldr	w3, [x1, #0x18]		/* FR */
	tbnz	w3, #5, 2b		/* TXFF */
	str	w2, [x1]		/* DR */
	b	1b
3:	ret

msg_early_exit:
	.asciz	"ptelab-exit-status 3\n"	/* PTELAB_EXIT_LINE, PTELAB_EXIT_CRASH */
msg_bad_el:
	.asciz	"guest: arm64: entered at EL0 or EL3; ptelab needs EL1 or EL2\n"
	.ltorg

/*
 * From here on the code runs at its linked address in the TTBR1 half.
 */
	.text
high_entry:
	/* No user half until mm/ installs one: TTBR0 walks fault. */
	mrs	x0, tcr_el1
	orr	x0, x0, #TCR_EPD0
	msr	tcr_el1, x0
	isb
	tlbi	vmalle1
	dsb	nsh
	isb

	adrp	x0, percpu_area	/* CPU 0's; entry.S counts nesting there */
	add	x0, x0, :lo12:percpu_area
	msr	tpidr_el1, x0
	adrp	x0, arm64_vectors
	add	x0, x0, :lo12:arm64_vectors
	msr	vbar_el1, x0
	isb

	adrp	x0, __bss_start
	add	x0, x0, :lo12:__bss_start
	adrp	x1, __bss_end
	add	x1, x1, :lo12:__bss_end
1:	cmp	x0, x1
	b.hs	2f
	stp	xzr, xzr, [x0], #16
	b	1b

2:	adrp	x0, arm64_exception_stack_top
	add	x0, x0, :lo12:arm64_exception_stack_top
	mov	sp, x0			/* SP_EL1 */
	adrp	x0, arm64_boot_stack_top
	add	x0, x0, :lo12:arm64_boot_stack_top
	msr	sp_el0, x0
	msr	spsel, #0		/* the kernel runs on SP_EL0 */
	mov	x29, xzr
	mov	x30, xzr
	mov	x0, x20
	mov	x1, x19
	mov	x2, x21
	bl	arm64_start
3:	wfi				/* arm64_start does not return */
	b	3b

secondary_high:
	mrs	x0, tcr_el1
	orr	x0, x0, #TCR_EPD0
	msr	tcr_el1, x0
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	adrp	x1, arm64_secondary_boot
	add	x1, x1, :lo12:arm64_secondary_boot
	ldr	x0, [x1]		/* struct percpu * */
	msr	tpidr_el1, x0
	adrp	x2, arm64_vectors
	add	x2, x2, :lo12:arm64_vectors
	msr	vbar_el1, x2
	isb
	ldr	x2, [x1, #8]		/* exception stack top */
	mov	sp, x2
	ldr	x2, [x1, #16]		/* kernel stack top */
	msr	sp_el0, x2
	msr	spsel, #0
	mov	x29, xzr
	mov	x30, xzr
	bl	arm64_secondary_start
4:	wfi
	b	4b

	.section .bss.stack, "aw", %nobits
	.balign 4096
	.globl arm64_exception_stack, arm64_exception_stack_top
	.globl arm64_boot_stack, arm64_boot_stack_top
arm64_exception_stack:
	.space	EXCEPTION_STACK_SIZE
arm64_exception_stack_top:
arm64_boot_stack:
	.space	BOOT_STACK_SIZE
arm64_boot_stack_top:

	.section .boot_tables, "aw", %nobits
	.balign 4096
	.globl boot_pgd_ttbr1, boot_pgd_ttbr0, boot_pud
boot_tables_start:
boot_pgd_ttbr1:
	.space	4096
boot_pgd_ttbr0:
	.space	4096
boot_pud:
	.space	4096
boot_tables_end:

	.section .note.GNU-stack, "", %progbits
