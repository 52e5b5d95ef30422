/*
 * test_traps.c (arm64) - in-guest checks of the exception path that
 * resumes: a data abort on a user address inside arch_copy_user() comes
 * back at its fixup as -EFAULT, with the interrupted code's SIMD and
 * FP control state and its other registers as they were.
 */
#include <errno.h>
#include <string.h>

#include "kernel.h"
#include "test.h"

#include <asm/mmu.h>

#define UNMAPPED_USER 0x1000ul /* nothing maps the first user page */

/* Reads and writes of an unmapped user page fail cleanly, both ways. */
TEST(copy_user_unmapped_is_efault)
{
	char buf[24] = "unchanged";

	CHECK_EQ(arch_copy_user(UNMAPPED_USER, buf, sizeof(buf), 0), -EFAULT);
	CHECK_STR(buf, "unchanged");
	CHECK_EQ(arch_copy_user(UNMAPPED_USER, buf, sizeof(buf), 1), -EFAULT);
	CHECK_EQ(arch_copy_user(0x0000fffffffff000ul, buf, 3, 0), -EFAULT);
	CHECK_EQ(arch_copy_user(UNMAPPED_USER, buf, 0, 0), 0);
}

/*
 * Fill v0-v31 (v<n> = n + 1 in every byte), FPCR and x9-x15 with
 * patterns, take the fault through arch_copy_user() (which uses none of
 * them), read everything back.
 */
static void fault_with_patterns(uint8_t v[32][16], uint64_t x[7], uint64_t *fpcr, int *ret)
{
	uint64_t scratch;

	__asm__ volatile("mrs x16, fpcr\n"
			 "str x16, [sp, #-16]!\n"
			 "mov x16, #(3 << 22)\n" /* round toward zero */
			 "msr fpcr, x16\n"
			 "mov x9, #0x909\n"
			 "mov x10, #0xa0a\n"
			 "mov x11, #0xb0b\n"
			 "mov x12, #0xc0c\n"
			 "mov x13, #0xd0d\n"
			 "mov x14, #0xe0e\n"
			 "mov x15, #0xf0f\n"
			 "mov x0, %[uaddr]\n"
			 "mov x1, %[kbuf]\n"
			 "mov x2, #8\n"
			 "mov w3, #0\n"
			 "movi v0.16b, #1\n"
			 "movi v1.16b, #2\n"
			 "movi v2.16b, #3\n"
			 "movi v3.16b, #4\n"
			 "movi v4.16b, #5\n"
			 "movi v5.16b, #6\n"
			 "movi v6.16b, #7\n"
			 "movi v7.16b, #8\n"
			 "movi v8.16b, #9\n"
			 "movi v9.16b, #10\n"
			 "movi v10.16b, #11\n"
			 "movi v11.16b, #12\n"
			 "movi v12.16b, #13\n"
			 "movi v13.16b, #14\n"
			 "movi v14.16b, #15\n"
			 "movi v15.16b, #16\n"
			 "movi v16.16b, #17\n"
			 "movi v17.16b, #18\n"
			 "movi v18.16b, #19\n"
			 "movi v19.16b, #20\n"
			 "movi v20.16b, #21\n"
			 "movi v21.16b, #22\n"
			 "movi v22.16b, #23\n"
			 "movi v23.16b, #24\n"
			 "movi v24.16b, #25\n"
			 "movi v25.16b, #26\n"
			 "movi v26.16b, #27\n"
			 "movi v27.16b, #28\n"
			 "movi v28.16b, #29\n"
			 "movi v29.16b, #30\n"
			 "movi v30.16b, #31\n"
			 "movi v31.16b, #32\n"
			 "bl arch_copy_user\n"
			 "str w0, [%[ret]]\n"
			 "mrs x16, fpcr\n"
			 "str x16, [%[fpcr]]\n"
			 "ldr x16, [sp], #16\n"
			 "msr fpcr, x16\n"
			 "stp x9, x10, [%[x]]\n"
			 "stp x11, x12, [%[x], #16]\n"
			 "stp x13, x14, [%[x], #32]\n"
			 "str x15, [%[x], #48]\n"
			 "stp q0, q1, [%[v], #0]\n"
			 "stp q2, q3, [%[v], #32]\n"
			 "stp q4, q5, [%[v], #64]\n"
			 "stp q6, q7, [%[v], #96]\n"
			 "stp q8, q9, [%[v], #128]\n"
			 "stp q10, q11, [%[v], #160]\n"
			 "stp q12, q13, [%[v], #192]\n"
			 "stp q14, q15, [%[v], #224]\n"
			 "stp q16, q17, [%[v], #256]\n"
			 "stp q18, q19, [%[v], #288]\n"
			 "stp q20, q21, [%[v], #320]\n"
			 "stp q22, q23, [%[v], #352]\n"
			 "stp q24, q25, [%[v], #384]\n"
			 "stp q26, q27, [%[v], #416]\n"
			 "stp q28, q29, [%[v], #448]\n"
			 "stp q30, q31, [%[v], #480]\n"
			 :
			 : [uaddr] "r"(UNMAPPED_USER), [kbuf] "r"(&scratch), [ret] "r"(ret),
			   [fpcr] "r"(fpcr), [x] "r"(x), [v] "r"(v)
			 : "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11",
			   "x12", "x13", "x14", "x15", "x16", "x17", "x30", "v0", "v1", "v2", "v3",
			   "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14",
			   "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24",
			   "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory");
}

/* The exception entry saves and restores what the interrupted code had. */
TEST(registers_survive_a_resumed_fault)
{
	static uint8_t v[32][16];
	uint64_t x[7], fpcr = 0;
	int ret = 0, bad = 0;

	memset(v, 0, sizeof(v));
	fault_with_patterns(v, x, &fpcr, &ret);
	CHECK_EQ(ret, -EFAULT);
	CHECK_EQ(fpcr & (3u << 22), 3u << 22);
	for (int n = 0; n < 32; n++)
		for (int b = 0; b < 16; b++)
			bad += v[n][b] != n + 1;
	CHECK_EQ(bad, 0);
	for (int i = 0; i < 7; i++)
		CHECK_EQ(x[i], 0x909ull + 0x101ull * (uint64_t)i);
}

TEST_SUITE(arm64_traps, copy_user_unmapped_is_efault, registers_survive_a_resumed_fault)
