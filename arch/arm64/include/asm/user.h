/*
 * user.h (arm64) - the saved state of an EL0 program (kernel/user_arch.h).
 * A placeholder until arm64 user mode lands (branch uproc-arm64): the
 * functions in arch/arm64/user.c refuse to run a program.
 */
#ifndef ASM_USER_H
#define ASM_USER_H

#include <stdint.h>

struct user_regs {
	uint64_t x[31];
	uint64_t sp, pc, pstate;
	uint64_t tpidr;
};

#endif
