/*
 * test_user.c (arm64) - hand-written programs at EL0, run as a process
 * through kernel/'s real system calls: results in x0, the program's
 * registers (x, SIMD, FPCR, TPIDR_EL0, SP) across calls whose kernel side
 * uses SIMD, a demand fault on the user stack, the faults that end the
 * process (unmapped load, fetch from a non-executable mapping, store to
 * read-only text, undefined instruction) and an IRQ taken at EL0.
 */
#include <string.h>

#include "kernel.h"
#include "mm.h"
#include "process.h"
#include "test.h"
#include "user_arch.h"

#include <asm/user.h>

#include "percpu.h"

/* arch/arm64: gic.c, user.c */
void arm64_gic_send_wake(uint64_t mpidr);
extern unsigned long arm64_user_irqs;

#define CODE_VA 0x400000ul
#define STACK_VA 0x800000ul
#define DATA_VA 0x600000ul
#define PAGE 4096ul

/* Assembled with aarch64-linux-gnu-as; the comments are the source. */
static const uint32_t prog_roundtrip[] = {
	0x4f02e747, /* movi v7.16b, #0x5a */
	0xd53bd053, /* mrs x19, tpidr_el0 */
	0xf81f0ff3, /* str x19, [sp, #-16]!: the stack page's first touch */
	0xd2a00809, /* movz x9, #0x40, lsl #16: FPCR.RMode = round up */
	0xd51b4409, /* msr fpcr, x9 */
	0xd2800808, /* movz x8, #64: write */
	0xd2800020, /* movz x0, #1 */
	0x10000221, /* adr x1, msg */
	0xd28000e2, /* movz x2, #7 */
	0xd4000001, /* svc #0 */
	0xd53b4417, /* mrs x23, fpcr */
	0xaa0003f4, /* mov x20, x0 */
	0xf84107f5, /* ldr x21, [sp], #16 */
	0x4e083cf6, /* umov x22, v7.d[0] */
	0xd2801588, /* movz x8, #172: getpid */
	0xd4000001, /* svc #0 */
	0xaa0003f8, /* mov x24, x0 */
	0xd2a00c09, /* movz x9, #0x60, lsl #16: DATA_VA */
	0xa9005534, /* stp x20, x21, [x9] */
	0xa9015d36, /* stp x22, x23, [x9, #16] */
	0xf9001138, /* str x24, [x9, #32] */
	0xd2800ba8, /* movz x8, #93: exit */
	0xd2800540, /* movz x0, #42 */
	0xd4000001, /* svc #0 */
	0x20306c65, /* msg: "el0 ok\n" */
	0x000a6b6f,
};
static const uint32_t prog_copyout_fault[] = {
	0xd2800e28, /* movz x8, #113: clock_gettime */
	0xd2800020, /* movz x0, #1: CLOCK_MONOTONIC */
	0xd2a00c01, /* movz x1, #0x60, lsl #16: DATA_VA, never touched */
	0xd4000001, /* svc #0 */
	0xd2800ba8, /* movz x8, #93: exit with the call's result */
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
	0xaa130000, /* orr x0, x0, x19: 0x77 unless the loop or x19 broke */
	0xd2800ba8, /* movz x8, #93 */
	0xd4000001, /* svc #0 */
};
static const uint32_t prog_sigill[] = {
	0x00000000, /* udf #0 */
};

/*
 * Run @prog (@n words) at CODE_VA as a process with a stack page at
 * STACK_VA, a data page at DATA_VA and TPIDR_EL0 = @tls, through the
 * real system calls (kernel/) and the scheduler: it ends by exit or a
 * fatal fault. @data (8 words) gets the data page, read from the mm the
 * test keeps a reference to (the process releases its own at exit).
 * Return: the exit status, or -1 when the mm could not be set up.
 */
static int run_user(const uint32_t *prog, unsigned long n, unsigned long tls, uint64_t *data)
{
	struct process *proc = process_create();
	struct mm *mm;
	int status;

	if (!proc)
		return -1;
	mm = proc->mm;
	mm_get(mm);
	if (mm_mmap(mm, CODE_VA, PAGE, VM_READ | VM_WRITE, MAP_FIXED_ADDR, 1) < 0 ||
	    mm_mmap(mm, STACK_VA, PAGE, VM_READ | VM_WRITE, MAP_FIXED_ADDR, 1) < 0 ||
	    mm_mmap(mm, DATA_VA, PAGE, VM_READ | VM_WRITE, MAP_FIXED_ADDR, 1) < 0 ||
	    mm_access(mm, CODE_VA, (void *)prog, n * 4, true) ||
	    mm_mprotect(mm, CODE_VA, PAGE, VM_READ | VM_EXEC)) {
		process_destroy(proc);
		mm_put(mm);
		return -1;
	}
	arch_user_regs_init(&proc->regs, CODE_VA, STACK_VA + PAGE);
	arch_set_tls(&proc->regs, tls);
	status = process_run(proc);
	if (data && mm_access(mm, DATA_VA, data, 8 * 8, false))
		status = -1;
	mm_put(mm);
	return status;
}

/* Through write and getpid the program keeps its v7 (the kernel's
 * printf and memcpy use the SIMD registers), its FPCR, its TPIDR_EL0 and
 * its stack store (a demand fault from EL0); the calls' results arrive in
 * x0; exit's status is the process's. The kernel code that runs after the
 * process has FPCR 0 again, not the program's rounding mode. */
TEST(svc_round_trip_keeps_program_state)
{
	uint64_t d[8] = { 0 }, fpcr;

	CHECK_EQ(run_user(prog_roundtrip, sizeof(prog_roundtrip) / 4, 0x7e57f00d, d), 42);
	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	CHECK_EQ(fpcr, 0);
	CHECK_EQ(d[0], 7); /* write's result */
	CHECK_EQ(d[1], 0x7e57f00d);
	CHECK_EQ(d[2], 0x5a5a5a5a5a5a5a5aull);
	CHECK_EQ(d[3], 0x400000);
	CHECK_EQ(d[4], 1); /* getpid */
}

/* The kernel's store of the result into a page the program never touched
 * faults on the kstack (not the CPU's own stack) and is resolved there:
 * the call returns 0 and the time is in the page. */
TEST(kernel_fault_on_user_page_during_a_call)
{
	uint64_t d[8] = { 0 };

	CHECK_EQ(run_user(prog_copyout_fault, sizeof(prog_copyout_fault) / 4, 0, d), 0);
	CHECK(d[0] || d[1]); /* tv_sec, tv_nsec: not both 0 after boot */
}

/* A load from an unmapped address ends the process with SIGSEGV (128 +
 * 11), not the kernel. */
TEST(unmapped_load_is_sigsegv)
{
	CHECK_EQ(run_user(prog_segv, sizeof(prog_segv) / 4, 0, NULL), 139);
}

/* An instruction fetch from a mapping without VM_EXEC (instruction abort,
 * FAULT_EXEC) and a store to one without VM_WRITE (data abort, WnR) are
 * refused by mm/ and end the process with SIGSEGV. */
TEST(exec_and_write_protection_are_sigsegv)
{
	CHECK_EQ(run_user(prog_exec_stack, sizeof(prog_exec_stack) / 4, 0, NULL), 139);
	CHECK_EQ(run_user(prog_write_text, sizeof(prog_write_text) / 4, 0, NULL), 139);
}

TEST(undefined_instruction_is_sigill)
{
	CHECK_EQ(run_user(prog_sigill, 1, 0, NULL), 128 + 4);
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
	CHECK_EQ(run_user(prog_loop, sizeof(prog_loop) / 4, 0, NULL), 0x77);
	CHECK(arm64_user_irqs > before);
}

TEST_SUITE(arm64_user, svc_round_trip_keeps_program_state, kernel_fault_on_user_page_during_a_call,
	   unmapped_load_is_sigsegv, exec_and_write_protection_are_sigsegv,
	   undefined_instruction_is_sigill, irq_from_el0_resumes_the_program)
