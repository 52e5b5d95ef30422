/*
 * test_user.c (arm64) - EL0 round trips with hand-written programs: a
 * system call's number, arguments and return value, the program's
 * registers (x, SIMD, TPIDR_EL0, SP) across a call whose kernel side uses
 * SIMD, a demand fault on the user stack, and the fatal exits (unmapped
 * load, undefined instruction).
 *
 * TEMPORARY: until kernel/ (branch uproc) supplies syscall_entry() and
 * user_fault_fatal(), this file defines both, weak, to catch what the
 * arch hands them and longjmp back to the case.
 */
#include <errno.h>
#include <setjmp.h>
#include <string.h>

#include "kernel.h"
#include "mm.h"
#include "test.h"
#include "user_arch.h"

#include <asm/user.h>

#include "percpu.h"

/* arch/arm64: gic.c, user.c */
void arm64_gic_send_wake(uint64_t mpidr);
extern unsigned long arm64_user_irqs;

#define CODE_VA 0x400000ul
#define STACK_VA 0x800000ul
#define PAGE 4096ul

/* Assembled with aarch64-linux-gnu-as; the comments are the source. */
static const uint32_t prog_roundtrip[] = {
	0xd2800808, /* movz x8, #64 */
	0xd2800020, /* movz x0, #1 */
	0xd2824681, /* movz x1, #0x1234 */
	0xd28000a2, /* movz x2, #5 */
	0x4f02e747, /* movi v7.16b, #0x5a */
	0xd53bd053, /* mrs x19, tpidr_el0 */
	0xf81f0ff3, /* str x19, [sp, #-16]!: the stack page's first touch */
	0xd2a00809, /* movz x9, #0x40, lsl #16: FPCR.RMode = round up */
	0xd51b4409, /* msr fpcr, x9 */
	0xd4000001, /* svc #0 */
	0xd53b4417, /* mrs x23, fpcr */
	0x91000414, /* add x20, x0, #1 */
	0xf84107f5, /* ldr x21, [sp], #16 */
	0x4e083cf6, /* umov x22, v7.d[0] */
	0xd2800ba8, /* movz x8, #93 */
	0xd4000001, /* svc #0 */
};
static const uint32_t prog_segv[] = {
	0xd28a0000, /* movz x0, #0x5000 */
	0xf9400001, /* ldr x1, [x0]: nothing maps 0x5000 */
	0xd4000001, /* svc #0: not reached */
};
static const uint32_t prog_exec_stack[] = {
	0xd2a01000, /* movz x0, #0x80, lsl #16: STACK_VA, not executable */
	0xd61f0000, /* br x0 */
};
static const uint32_t prog_write_text[] = {
	0xd2a00800, /* movz x0, #0x40, lsl #16: CODE_VA, read-only */
	0xf9000000, /* str x0, [x0] */
};
static const uint32_t prog_loop[] = {
	0xd280fa00, /* movz x0, #2000 */
	0xd2800ef3, /* movz x19, #0x77 */
	0xf1000400, /* loop: subs x0, x0, #1 */
	0x54ffffe1, /* b.ne loop */
	0xd2800ba8, /* movz x8, #93 */
	0xd4000001, /* svc #0 */
};
static const uint32_t prog_sigill[] = {
	0x00000000, /* udf #0 */
};

static jmp_buf back;
static struct user_regs at_write, at_exit;
static uint64_t kernel_fpcr; /* FPCR while the kernel ran the call */
static int fatal_sig;
static unsigned long fatal_addr, fatal_pc;
static uint8_t kstack[0x8000] __attribute__((aligned(16)));

__attribute__((weak)) void syscall_entry(struct user_regs *r)
{
	uint8_t scratch[256];

	if (arch_syscall_nr(r) == 93) {
		at_exit = *r;
		longjmp(back, 1);
	}
	at_write = *r;
	__asm__ volatile("mrs %0, fpcr" : "=r"(kernel_fpcr));
	memset(scratch, 0xee, sizeof(scratch)); /* newlib's memset uses SIMD registers */
	__asm__ volatile("movi v7.16b, #0x11" : : : "v7");
	CHECK(scratch[100] == 0xee);
	arch_syscall_set_return(r, 100);
}

__attribute__((weak)) void user_fault_fatal(int sig, unsigned long addr, unsigned long pc)
{
	fatal_sig = sig;
	fatal_addr = addr;
	fatal_pc = pc;
	longjmp(back, 2);
}

/* Run @prog (@n words) at CODE_VA with a stack page at STACK_VA in a new
 * mm, TPIDR_EL0 = @tls. Return: 1 after exit, 2 after a fatal fault, or
 * a negative errno when the mm could not be set up. */
static int run_user(const uint32_t *prog, unsigned long n, unsigned long tls)
{
	struct mm *mm = mm_create(), *prev = current_mm;
	static struct user_regs regs;
	int ret = -ENOMEM;

	if (!mm)
		return ret;
	if (mm_mmap(mm, CODE_VA, PAGE, VM_READ | VM_WRITE, MAP_FIXED_ADDR, 1) < 0 ||
	    mm_mmap(mm, STACK_VA, PAGE, VM_READ | VM_WRITE, MAP_FIXED_ADDR, 1) < 0 ||
	    mm_access(mm, CODE_VA, (void *)prog, n * 4, true) ||
	    mm_mprotect(mm, CODE_VA, PAGE, VM_READ | VM_EXEC))
		goto out;
	fatal_sig = 0;
	memset(&at_write, 0, sizeof(at_write));
	memset(&at_exit, 0, sizeof(at_exit));
	switch_mm(mm);
	arch_user_init_cpu();
	arch_user_regs_init(&regs, CODE_VA, STACK_VA + PAGE);
	arch_set_tls(&regs, tls);
	arch_user_set_kstack(kstack + sizeof(kstack));
	ret = setjmp(back);
	if (!ret)
		arch_return_to_user(&regs);
	switch_mm(prev);
out:
	mm_put(mm);
	return ret;
}

/* The call sees x8 and x0-x2 as set; the program sees the return value,
 * its own v7 (the kernel's memset and movi changed the register), its
 * FPCR (the kernel ran with 0), its TPIDR_EL0, and its stack store (a
 * demand fault from EL0). */
TEST(svc_round_trip_keeps_program_state)
{
	CHECK_EQ(run_user(prog_roundtrip, sizeof(prog_roundtrip) / 4, 0x7e57f00d), 1);
	CHECK_EQ(arch_syscall_nr(&at_write), 64);
	CHECK_EQ(arch_syscall_arg(&at_write, 0), 1);
	CHECK_EQ(arch_syscall_arg(&at_write, 1), 0x1234);
	CHECK_EQ(arch_syscall_arg(&at_write, 2), 5);
	CHECK_EQ(at_write.regs.elr, CODE_VA + 10 * 4); /* after the svc */
	CHECK_EQ(at_write.regs.fpcr, 0x400000);
	CHECK_EQ(kernel_fpcr, 0); /* the kernel computes with its own FPCR */
	CHECK_EQ(at_exit.regs.x[23], 0x400000);
	CHECK_EQ(at_write.regs.sp, STACK_VA + PAGE - 16);
	CHECK_EQ(at_write.tpidr, 0x7e57f00d);
	CHECK_EQ(at_exit.regs.x[20], 101);
	CHECK_EQ(at_exit.regs.x[21], 0x7e57f00d);
	CHECK_EQ(at_exit.regs.x[22], 0x5a5a5a5a5a5a5a5aull);
	CHECK_EQ(at_exit.regs.sp, STACK_VA + PAGE);
	CHECK_EQ(at_exit.regs.spsr & 0xf, 0); /* taken from EL0t */
}

/* A load from an unmapped address ends the program with SIGSEGV at that
 * address and instruction, not the kernel. */
TEST(unmapped_load_is_sigsegv)
{
	CHECK_EQ(run_user(prog_segv, sizeof(prog_segv) / 4, 0), 2);
	CHECK_EQ(fatal_sig, 11);
	CHECK_EQ(fatal_addr, 0x5000);
	CHECK_EQ(fatal_pc, CODE_VA + 4);
}

/* An instruction fetch from a mapping without VM_EXEC (instruction abort,
 * FAULT_EXEC) and a store to one without VM_WRITE (data abort, WnR) are
 * refused by mm/ and end the program with SIGSEGV. */
TEST(exec_and_write_protection_are_sigsegv)
{
	CHECK_EQ(run_user(prog_exec_stack, sizeof(prog_exec_stack) / 4, 0), 2);
	CHECK_EQ(fatal_sig, 11);
	CHECK_EQ(fatal_addr, STACK_VA);
	CHECK_EQ(fatal_pc, STACK_VA);
	CHECK_EQ(run_user(prog_write_text, sizeof(prog_write_text) / 4, 0), 2);
	CHECK_EQ(fatal_sig, 11);
	CHECK_EQ(fatal_addr, CODE_VA);
	CHECK_EQ(fatal_pc, CODE_VA + 4);
}

TEST(undefined_instruction_is_sigill)
{
	CHECK_EQ(run_user(prog_sigill, 1, 0), 2);
	CHECK_EQ(fatal_sig, 4);
	CHECK_EQ(fatal_pc, CODE_VA);
}

/* An IRQ pending when the program starts (a wake-up SGI this CPU sends
 * itself) is taken from EL0, acknowledged, and the program goes on with
 * its registers: the loop counts down to 0 and x19 keeps its value. */
TEST(irq_from_el0_resumes_the_program)
{
	unsigned long before = arm64_user_irqs;

	if (!this_cpu()->arch.gicr_rd)
		SKIP_CASE("no GIC set up: one CPU (run with --cpus 2)");
	arm64_gic_send_wake(this_cpu()->hwid);
	CHECK_EQ(run_user(prog_loop, sizeof(prog_loop) / 4, 0), 1);
	CHECK(arm64_user_irqs > before);
	CHECK_EQ(at_exit.regs.x[0], 0);
	CHECK_EQ(at_exit.regs.x[19], 0x77);
}

TEST_SUITE(arm64_user, svc_round_trip_keeps_program_state, unmapped_load_is_sigsegv,
	   exec_and_write_protection_are_sigsegv, undefined_instruction_is_sigill,
	   irq_from_el0_resumes_the_program)
