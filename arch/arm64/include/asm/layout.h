/* arm64 guest virtual layout (4 KiB granule, 48-bit VA). Included by C
 * and assembly. */
#ifndef ASM_LAYOUT_H
#define ASM_LAYOUT_H

#ifdef __ASSEMBLER__
#define _UL(x) x
#else
#define _UL(x) x##UL
#endif

/* TTBR1 half: the direct map of all RAM starts at PAGE_OFFSET and the
 * kernel image is simply its part of the direct map. TTBR0 is user space. */
#define PAGE_OFFSET _UL(0xffff000000000000)

/* QEMU -M virt: RAM starts at 1 GiB; QEMU puts its DTB at the start of RAM
 * and we load the kernel 2 MiB above it. */
#define KERNEL_PBASE _UL(0x40200000)
#define KERNEL_VBASE (PAGE_OFFSET + KERNEL_PBASE)
#define VIRT_DTB_PBASE _UL(0x40000000)
#define VIRT_UART_PBASE _UL(0x09000000) /* PL011 */

/* The boot page tables map physical [0, BOOT_MAP_SIZE) in both halves:
 * the first GiB as device memory, the rest as normal memory. */
#define BOOT_MAP_SIZE _UL(0x100000000) /* 4 GiB */

#define PAGE_SHIFT 12
#define PAGE_SIZE (_UL(1) << PAGE_SHIFT)

#endif
