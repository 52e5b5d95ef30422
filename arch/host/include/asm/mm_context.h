/*
 * mm_context.h (host) - the arch's private part of struct mm: the host
 * simulation has one software MMU and keeps nothing per mm.
 */
#ifndef ASM_MM_CONTEXT_H
#define ASM_MM_CONTEXT_H

struct arch_mm_context {
	unsigned long unused;
};

#endif
