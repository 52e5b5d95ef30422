/*
 * user.h (x86_64) - the saved state of a ring-3 program (kernel/user_arch.h).
 *
 * arch/x86_64/user_entry.S fills it on SYSCALL and restores it on SYSRET
 * (or IRETQ on the first entry); the offsets below are the assembly's.
 */
#ifndef ASM_USER_H
#define ASM_USER_H

#include <stdint.h>

/* Lowest address first. The kernel's own code uses SSE (newlib's memcpy),
 * so user x87/SSE state is saved in fxsave on every system call. */
struct user_regs {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;	  /* 0x00 */
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;	  /* 0x40 */
	uint64_t rip, rsp, rflags;			  /* 0x78 */
	uint64_t fs_base;				  /* 0x90 */
	uint64_t pad;					  /* 0x98 */
	uint8_t fxsave[512] __attribute__((aligned(16))); /* 0xa0 */
	/* An exception's vector, error code and CR2, for the signal frame's
	 * sigcontext (trapno, err, cr2); not set by a system call. */
	uint64_t trapno, err, cr2; /* 0x2a0 */
};

/* A process's saved kernel context (kernel/user_arch.h, arch_switch_to()):
 * the callee-saved registers are pushed on its own stack, so only the
 * stack pointer is kept here, with the FS base, which the CPU holds live
 * in its MSR while the process runs (a system call does not save it). */
struct arch_context {
	uint64_t sp;
	uint64_t fs_base;
};

/* Linux's uapi MINSIGSTKSZ on x86: sigaltstack()'s smallest stack. */
#define ARCH_MINSIGSTKSZ 2048

/* @fx (512 bytes, an fxsave image) as the FPU starts a program and a
 * signal handler: FCW 0x37f, MXCSR 0x1f80, every register 0. */
void x86_fxsave_init(uint8_t *fx);

#endif
