/*
 * mmu.h (host) - the MMU operations of the simulation: TLB flushes only
 * count (there is no TLB), switching an mm records it for the software
 * walker in arch/host/uaccess.c.
 */
#ifndef ASM_MMU_H
#define ASM_MMU_H

#include <stdint.h>

#include "arch_mmu.h" /* the required hooks, declared once */

#endif
