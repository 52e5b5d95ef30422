/* x86_64 guest virtual layout. Included by C and assembly. */
#ifndef ASM_LAYOUT_H
#define ASM_LAYOUT_H

#ifdef __ASSEMBLER__
#define _UL(x) x
#else
#define _UL(x) x##UL
#endif

/* The kernel image: loaded at 1 MiB physical, linked at -2 GiB + 1 MiB so
 * -mcmodel=kernel code reaches it with 32-bit sign-extended addresses. */
#define KERNEL_PBASE _UL(0x100000)
#define KERNEL_VBASE _UL(0xffffffff80100000)

/* Direct map of all guest RAM, as Linux places it. */
#define PAGE_OFFSET _UL(0xffff888000000000)

/* What the boot page tables map (direct map and identity) before mm/
 * builds the real ones. */
#define BOOT_MAP_SIZE _UL(0x100000000) /* 4 GiB */

#define PAGE_SHIFT 12
#define PAGE_SIZE (_UL(1) << PAGE_SHIFT)

#endif
