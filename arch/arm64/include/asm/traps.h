/*
 * traps.h (arm64) - the exception frame entry.S builds, the ESR fields
 * the handlers decode, and the hook through which mm/ resolves data aborts
 * on user (TTBR0) addresses. The PT_* offsets are used by entry.S; the C
 * struct below must match them (traps.c checks with _Static_assert).
 */
#ifndef ASM_TRAPS_H
#define ASM_TRAPS_H

/* Which of the 16 vectors was taken: VEC_GROUP_* * 4 + VEC_TYPE_*. */
#define VEC_GROUP_EL1_SP0 0 /* from EL1 on SP_EL0: the kernel's normal state */
#define VEC_GROUP_EL1_SPX 1 /* from EL1 on SP_EL1: inside an exception handler */
#define VEC_GROUP_EL0_64 2
#define VEC_GROUP_EL0_32 3
#define VEC_TYPE_SYNC 0
#define VEC_TYPE_IRQ 1
#define VEC_TYPE_FIQ 2
#define VEC_TYPE_SERROR 3

/* Frame layout (bytes). x0..x30, the interrupted SP, the exception
 * registers, FP/SIMD control, bookkeeping, then q0..q31 (16-aligned). */
#define PT_X0 0
#define PT_SP 248
#define PT_ELR 256
#define PT_SPSR 264
#define PT_ESR 272
#define PT_FAR 280
#define PT_FPSR 288
#define PT_FPCR 296
#define PT_KIND 304
#define PT_DEPTH 312
#define PT_Q0 320
#define PT_FRAME_SIZE 832

/* Exceptions nested this deep are not reported in C any more: entry.S
 * exits at once (the reporting code itself faults). */
#define EXCEPTION_DEPTH_MAX 2

/* ESR_ELx fields. */
#define ESR_EC_SHIFT 26
#define ESR_EC_MASK 0x3f
#define ESR_IL (1ul << 25)
#define ESR_ISS_MASK 0x1fffffful
#define ESR_EC_IABT_LOW 0x20
#define ESR_EC_IABT_CUR 0x21
#define ESR_EC_DABT_LOW 0x24
#define ESR_EC_DABT_CUR 0x25
#define ESR_DABT_WNR (1ul << 6)	 /* the access was a write */
#define ESR_DABT_FNV (1ul << 10) /* FAR is not valid */
#define ESR_DABT_FSC_MASK 0x3ful

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

struct pt_regs {
	uint64_t x[31];
	uint64_t sp; /* of the interrupted code */
	uint64_t elr, spsr, esr, far;
	uint64_t fpsr, fpcr;
	uint64_t kind;	/* VEC_GROUP_* * 4 + VEC_TYPE_* */
	uint64_t depth; /* 1 for a first exception, 2 for one inside a handler */
	__uint128_t q[32];
};

static inline unsigned esr_ec(uint64_t esr)
{
	return (esr >> ESR_EC_SHIFT) & ESR_EC_MASK;
}

/* Was this data abort caused by a write (or an atomic read-modify-write)? */
static inline bool esr_dabt_is_write(uint64_t esr)
{
	return esr & ESR_DABT_WNR;
}

/*
 * arch_handle_user_fault - resolve a data abort the kernel took at user
 * (TTBR0) address @far, ESR_EL1 @esr, faulting instruction @elr.
 * The default (weak, in traps.c) resolves nothing; mm/ overrides it to
 * call handle_mm_fault() (esr_dabt_is_write() gives the access).
 * Context: exception handler, on the exception stack, interrupts masked.
 * Return: 1 when the faulting instruction may be retried; 0 when the fault
 * is not one mm/ resolves; or the negative errno of a failed resolution
 * (-EFAULT, -ENOMEM). Unless 1, a fault inside arch_copy_user() makes it
 * return that error (-EFAULT for 0) through its fixup, and any other is
 * reported and stops the guest with PTELAB_EXIT_CRASH.
 */
int arch_handle_user_fault(unsigned long far, unsigned long esr, unsigned long elr);

/* Called by entry.S for every exception; returns only to resume. */
void arm64_trap(struct pt_regs *regs);

struct percpu;

/* Fill the guard pattern into the lowest 4 KiB of @pc's kernel stack
 * (once per CPU, before it runs on it). */
void arm64_stack_init(struct percpu *pc);

/* Is this CPU's kernel stack intact: its guard pattern unchanged and, unless @sp is 0,
 * @sp (an SP_EL0 value) inside it? Return: NULL when so, else what broke. */
const char *arm64_stack_problem(uint64_t sp);

/* Exit with PTELAB_EXIT_CRASH without C: the last resort (the exit
 * device when there is one, else the status line and PSCI SYSTEM_OFF). */
void arm64_fatal_exit(void) __attribute__((noreturn));

/* Physical address of ptelab's exit device (from the tree), 0 on QEMU,
 * where the guest exits with a status line and PSCI SYSTEM_OFF. Set once
 * at boot. */
extern uint64_t arm64_exit_pa;

/* Did the console's last byte end a line (or has nothing been written)? */
bool arm64_console_at_line_start(void);

#endif /* __ASSEMBLER__ */
#endif
