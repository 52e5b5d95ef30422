/* Host simulation layout: simulated RAM sits at 4 GiB physical so that a
 * pfn of 0 is never valid and low-memory assumptions show up. */
#ifndef ASM_LAYOUT_H
#define ASM_LAYOUT_H

#define HOST_RAM_BASE 0x100000000ull
#define PAGE_SHIFT 12
#define PAGE_SIZE (1ul << PAGE_SHIFT)

#endif
