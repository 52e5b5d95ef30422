/*
 * traps.c (arm64) - the C side of exception entry: data aborts on user
 * addresses go to mm/ through arch_handle_user_fault() (and, when mm/
 * cannot resolve one inside arch_copy_user(), to its fixup, which returns
 * the error); anything else is reported - exception class by name and
 * number, ESR, ELR, FAR, registers - and stops the guest with
 * PTELAB_EXIT_CRASH. Also the kernel-stack guard and run=fault's fault.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kernel.h"
#include "ptelab/abi.h"
#include "percpu.h"

#include <asm/traps.h>
#include <asm/user.h>

#define USER_VA_END (1ul << 48) /* TTBR0 half with T0SZ = 16 */
/* The lowest 4 KiB of the kernel stack hold a pattern: any frame that
 * reaches them writes at least its frame record (x29, x30) there. */
#define STACK_CANARY 0x6b63617473707470ul /* "ptpstack" */
#define STACK_CANARY_WORDS (4096 / 8)
/* Unmapped: level-0 entry 255 of TTBR1 lies far above any direct map. */
#define DELIBERATE_FAULT_VA 0xffff7fff00000000ul

_Static_assert(offsetof(struct pt_regs, sp) == PT_SP, "PT_SP");
_Static_assert(offsetof(struct pt_regs, elr) == PT_ELR, "PT_ELR");
_Static_assert(offsetof(struct pt_regs, esr) == PT_ESR, "PT_ESR");
_Static_assert(offsetof(struct pt_regs, fpsr) == PT_FPSR, "PT_FPSR");
_Static_assert(offsetof(struct pt_regs, kind) == PT_KIND, "PT_KIND");
_Static_assert(offsetof(struct pt_regs, q) == PT_Q0, "PT_Q0");
_Static_assert(sizeof(struct pt_regs) == PT_FRAME_SIZE, "PT_FRAME_SIZE");

/* From uaccess.S. */
extern char arm64_uaccess_start[], arm64_uaccess_end[], arm64_uaccess_fixup[];

static const char *const ec_names[64] = {
	[0x00] = "unknown reason (undefined instruction?)",
	[0x01] = "WFI/WFE trapped",
	[0x07] = "FP/SIMD access trapped",
	[0x0d] = "branch target (BTI)",
	[0x0e] = "illegal execution state",
	[0x11] = "SVC from AArch32",
	[0x15] = "SVC",
	[0x16] = "HVC",
	[0x17] = "SMC",
	[0x18] = "MSR/MRS/system instruction trapped",
	[0x19] = "SVE access trapped",
	[0x1c] = "pointer authentication failure",
	[0x1d] = "SME access trapped",
	[0x20] = "instruction abort from EL0",
	[0x21] = "instruction abort",
	[0x22] = "PC alignment fault",
	[0x24] = "data abort from EL0",
	[0x25] = "data abort",
	[0x26] = "SP alignment fault",
	[0x28] = "FP exception from AArch32",
	[0x2c] = "FP exception",
	[0x2f] = "SError",
	[0x30] = "breakpoint from EL0",
	[0x31] = "breakpoint",
	[0x32] = "software step from EL0",
	[0x33] = "software step",
	[0x34] = "watchpoint from EL0",
	[0x35] = "watchpoint",
	[0x38] = "BKPT (AArch32)",
	[0x3c] = "BRK",
};

static const char *const vec_types[4] = { "synchronous exception", "IRQ", "FIQ", "SError" };
static const char *const vec_groups[4] = { "EL1 (kernel, SP_EL0)",
					   "EL1 inside an exception handler (SP_EL1)",
					   "EL0 (AArch64)", "EL0 (AArch32)" };

__attribute__((weak)) int arch_handle_user_fault(unsigned long far, unsigned long esr,
						 unsigned long elr)
{
	(void)far;
	(void)esr;
	(void)elr;
	return 0;
}

void arm64_stack_init(struct percpu *pc)
{
	uint64_t *guard = pc->stack;

	for (int i = 0; i < STACK_CANARY_WORDS; i++)
		guard[i] = STACK_CANARY;
}

/* This CPU's kernel stack is [stack_lo(), stack_hi()). */
static uint64_t stack_lo(void)
{
	return (uint64_t)(uintptr_t)this_cpu()->stack;
}

static uint64_t stack_hi(void)
{
	return stack_lo() + this_cpu()->stack_size;
}

/* Outside this CPU's kernel stack and outside the top UR_KSTACK_MIN bytes
 * of the kstack that entries from EL0 run on (<asm/user.h>)? */
static bool sp_outside_stack(uint64_t sp)
{
	uint64_t k = this_cpu()->arch.user_kstack;

	if (k && sp <= k && sp >= k - UR_KSTACK_MIN)
		return false;
	return sp < stack_lo() || sp > stack_hi();
}

const char *arm64_stack_problem(uint64_t sp)
{
	const uint64_t *guard = this_cpu()->stack;

	if (sp && sp_outside_stack(sp))
		return "kernel stack overflow (SP is outside the kernel stack)";
	for (int i = 0; i < STACK_CANARY_WORDS; i++)
		if (guard[i] != STACK_CANARY)
			return "kernel stack overflow (the guard pattern in its lowest 4 KiB is "
			       "overwritten)";
	return NULL;
}

/*
 * stack_looks_broken - the check every resumable fault makes: SP inside
 * the stack, and the guard's highest word (the first an overflow reaches,
 * the stack growing down) intact. O(1), where arm64_stack_problem() scans
 * all 512 guard words: that scan, on every page fault, was 3100 of the
 * 4300 instructions a 4K fault cost (icount). The full scan still runs on
 * a crash and at exit.
 */
static bool stack_looks_broken(uint64_t sp)
{
	const uint64_t *guard = this_cpu()->stack;

	return sp_outside_stack(sp) || guard[STACK_CANARY_WORDS - 1] != STACK_CANARY;
}

/* The fault-status code of a data or instruction abort, in words. */
static const char *abort_kind(uint64_t fsc)
{
	switch (fsc & 0x3c) {
	case 0x00:
		return "address size fault";
	case 0x04:
		return "translation fault";
	case 0x08:
		return "access flag fault";
	case 0x0c:
		return "permission fault";
	}
	if (fsc == 0x10)
		return "synchronous external abort";
	if (fsc == 0x21)
		return "alignment fault";
	if (fsc == 0x30)
		return "TLB conflict abort";
	return "other fault";
}

static void report_abort(const struct pt_regs *r, unsigned ec)
{
	uint64_t fsc = r->esr & ESR_DABT_FSC_MASK;
	int is_data = ec == ESR_EC_DABT_CUR || ec == ESR_EC_DABT_LOW;

	console_printf("guest:   %s, level %d, %s%s\n", abort_kind(fsc), (int)(fsc & 3),
		       is_data ? (esr_dabt_is_write(r->esr) ? "write" : "read")
			       : "instruction fetch",
		       (r->esr & ESR_DABT_FNV) ? " (FAR not valid)" : "");
}

static void report_regs(const struct pt_regs *r)
{
	for (int i = 0; i < 31; i += 3) {
		console_printf("guest:  ");
		for (int j = i; j < i + 3 && j < 31; j++)
			console_printf(" x%-2d %016llx", j, (unsigned long long)r->x[j]);
		console_printf("\n");
	}
}

/* Report @r in full and stop with the crash status. */
static void report_and_exit(const struct pt_regs *r)
{
	unsigned ec = esr_ec(r->esr), type = r->kind & 3, group = (r->kind >> 2) & 3;

	console_printf("\nguest: unhandled %s from %s on cpu%u\n", vec_types[type],
		       vec_groups[group], smp_processor_id());
	if (type == VEC_TYPE_SYNC || type == VEC_TYPE_SERROR)
		console_printf("guest:   exception class %s (EC 0x%02x)\n",
			       ec_names[ec] ? ec_names[ec] : "reserved", ec);
	if (type == VEC_TYPE_SYNC && (ec == ESR_EC_IABT_LOW || ec == ESR_EC_IABT_CUR ||
				      ec == ESR_EC_DABT_LOW || ec == ESR_EC_DABT_CUR))
		report_abort(r, ec);
	console_printf("guest:   ESR 0x%08llx  ELR (PC) 0x%016llx  FAR 0x%016llx\n",
		       (unsigned long long)r->esr, (unsigned long long)r->elr,
		       (unsigned long long)r->far);
	console_printf("guest:   SPSR 0x%08llx  SP 0x%016llx  FPSR 0x%llx  FPCR 0x%llx\n",
		       (unsigned long long)r->spsr, (unsigned long long)r->sp,
		       (unsigned long long)r->fpsr, (unsigned long long)r->fpcr);
	report_regs(r);
	if (group == VEC_GROUP_EL1_SP0 && sp_outside_stack(r->sp))
		console_printf("guest:   SP is outside the kernel stack [%p, %p): overflow?\n",
			       (void *)stack_lo(), (void *)stack_hi());
	arch_exit(PTELAB_EXIT_CRASH); /* reports an overwritten stack guard */
}

/*
 * user_fault - a data abort the kernel took on a user address: let mm/
 * resolve it, else send arch_copy_user() to its fixup with the error.
 * Return: 1 to resume (ELR possibly moved to the fixup), 0 if fatal.
 */
static int user_fault(struct pt_regs *r)
{
	uint64_t elr = r->elr;
	int ret;

	if (esr_ec(r->esr) != ESR_EC_DABT_CUR || (r->esr & ESR_DABT_FNV) || r->far >= USER_VA_END)
		return 0;
	if (stack_looks_broken(r->sp))
		return 0; /* do not resume on a broken stack */
	ret = arch_handle_user_fault(r->far, r->esr, r->elr);
	if (ret == 1)
		return 1;
	if (elr < (uint64_t)(uintptr_t)arm64_uaccess_start ||
	    elr >= (uint64_t)(uintptr_t)arm64_uaccess_end)
		return 0;
	r->x[0] = (uint64_t)(int64_t)(ret < 0 ? ret : -EFAULT);
	r->elr = (uint64_t)(uintptr_t)arm64_uaccess_fixup;
	return 1;
}

void arm64_trap(struct pt_regs *r)
{
	if (r->depth > 1) {
		console_printf(
			"\nguest: nested exception (depth %llu) while handling one: ESR 0x%08llx "
			"ELR 0x%016llx FAR 0x%016llx\n",
			(unsigned long long)r->depth, (unsigned long long)r->esr,
			(unsigned long long)r->elr, (unsigned long long)r->far);
		arch_exit(PTELAB_EXIT_CRASH);
	}
	if (r->kind == VEC_GROUP_EL1_SP0 * 4 + VEC_TYPE_SYNC && user_fault(r))
		return;
	report_and_exit(r);
}

void arch_deliberate_fault(void)
{
	volatile uint64_t *p = (volatile uint64_t *)DELIBERATE_FAULT_VA;

	(void)*p;
	panic("arch_deliberate_fault: the load from %p did not fault", (void *)p);
}
