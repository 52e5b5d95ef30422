/*
 * test.h - a small table-driven test harness for every runner: the host
 * runners (build/host-tests, build/mm-tests-*, build/mm-tsan-*) and the
 * in-guest selftest (run=selftest).
 *
 * A test file defines its cases with TEST(name) { ... CHECK(...); } and
 * lists them once with TEST_SUITE(suite, case1, case2, ...). The runner
 * (tests/runner.c, under tests/host/main.c on the host and
 * tests/guest/selftest.c in the guest) runs every suite, prints one line per case and ends
 * with "N passed, N failed". A case passes when it made at least one check
 * and none failed: a case that checks nothing is counted as failed. A
 * case that says SKIP_CASE(reason) is counted as skipped.
 */
#ifndef TEST_H
#define TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

struct test_suite {
	const char *name;
	const struct test_case *cases;
	int nr_cases;
	struct test_suite *next;
};

void test_register(struct test_suite *s);

/* Does the "suite/case" name @full match @filter: NULL, or one of its
 * parts as a substring and none of its parts that start with '-' (those
 * leave out what they name; a filter of such parts alone keeps everything
 * else)? Parts are separated by ',' or '+' (the guest's command line
 * splits run= at commas, so a guest filter list uses '+'). */
int test_filter_match(const char *full, const char *filter);
/* Run every registered case whose "suite/case" name @filter matches
 * (test_filter_match(); all when NULL), timing each with
 * @clock_ns; print a line per case and the summary ("N passed, N failed",
 * then ", N skipped" when a case skipped). Return: the cases passed, with
 * the failed ones in *@failed and the skipped ones in *@skipped. */
int test_run_all(const char *filter, uint64_t (*clock_ns)(void), int *failed, int *skipped);
/* Print the "suite/case" name of every case matching @filter (NULL: all),
 * one a line, running none. Return: how many. */
int test_list_all(const char *filter);
void test_check_failed(const char *file, int line, const char *expr, const char *detail);
extern int test_checks; /* checks made by the running case */

/* The running case cannot run here (@reason: what it needs): it prints
 * "SKIP suite/case: reason" and counts as skipped, whatever it checked. */
void test_skip(const char *reason);
#define SKIP_CASE(reason)                                                                          \
	do {                                                                                       \
		test_skip(reason);                                                                 \
		return;                                                                            \
	} while (0)

#define TEST(name) static void name(void)

#define TEST_SUITE(suite, ...)                                                                     \
	static const struct test_case suite##_cases[] = { TEST_CASES_(__VA_ARGS__) };              \
	static struct test_suite suite##_suite = {                                                 \
		#suite, suite##_cases, sizeof(suite##_cases) / sizeof(suite##_cases[0]), 0         \
	};                                                                                         \
	__attribute__((constructor)) static void suite##_register(void)                            \
	{                                                                                          \
		test_register(&suite##_suite);                                                     \
	}

/* Up to 40 cases per suite, each name turned into { "name", name }. */
#define TC_(f) { #f, f },
#define TEST_CASES_(...) TC_N_(__VA_ARGS__, TC_SEQ_)(__VA_ARGS__)
#define TC_N_(...) TC_PICK_(__VA_ARGS__)
#define TC_PICK_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18,  \
		 _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34,   \
		 _35, _36, _37, _38, _39, _40, N, ...)                                             \
	TC_##N
#define TC_SEQ_                                                                                    \
	40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19,    \
		18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1
#define TC_1(a) TC_(a)
#define TC_2(a, ...) TC_(a) TC_1(__VA_ARGS__)
#define TC_3(a, ...) TC_(a) TC_2(__VA_ARGS__)
#define TC_4(a, ...) TC_(a) TC_3(__VA_ARGS__)
#define TC_5(a, ...) TC_(a) TC_4(__VA_ARGS__)
#define TC_6(a, ...) TC_(a) TC_5(__VA_ARGS__)
#define TC_7(a, ...) TC_(a) TC_6(__VA_ARGS__)
#define TC_8(a, ...) TC_(a) TC_7(__VA_ARGS__)
#define TC_9(a, ...) TC_(a) TC_8(__VA_ARGS__)
#define TC_10(a, ...) TC_(a) TC_9(__VA_ARGS__)
#define TC_11(a, ...) TC_(a) TC_10(__VA_ARGS__)
#define TC_12(a, ...) TC_(a) TC_11(__VA_ARGS__)
#define TC_13(a, ...) TC_(a) TC_12(__VA_ARGS__)
#define TC_14(a, ...) TC_(a) TC_13(__VA_ARGS__)
#define TC_15(a, ...) TC_(a) TC_14(__VA_ARGS__)
#define TC_16(a, ...) TC_(a) TC_15(__VA_ARGS__)
#define TC_17(a, ...) TC_(a) TC_16(__VA_ARGS__)
#define TC_18(a, ...) TC_(a) TC_17(__VA_ARGS__)
#define TC_19(a, ...) TC_(a) TC_18(__VA_ARGS__)
#define TC_20(a, ...) TC_(a) TC_19(__VA_ARGS__)
#define TC_21(a, ...) TC_(a) TC_20(__VA_ARGS__)
#define TC_22(a, ...) TC_(a) TC_21(__VA_ARGS__)
#define TC_23(a, ...) TC_(a) TC_22(__VA_ARGS__)
#define TC_24(a, ...) TC_(a) TC_23(__VA_ARGS__)
#define TC_25(a, ...) TC_(a) TC_24(__VA_ARGS__)
#define TC_26(a, ...) TC_(a) TC_25(__VA_ARGS__)
#define TC_27(a, ...) TC_(a) TC_26(__VA_ARGS__)
#define TC_28(a, ...) TC_(a) TC_27(__VA_ARGS__)
#define TC_29(a, ...) TC_(a) TC_28(__VA_ARGS__)
#define TC_30(a, ...) TC_(a) TC_29(__VA_ARGS__)
#define TC_31(a, ...) TC_(a) TC_30(__VA_ARGS__)
#define TC_32(a, ...) TC_(a) TC_31(__VA_ARGS__)
#define TC_33(a, ...) TC_(a) TC_32(__VA_ARGS__)
#define TC_34(a, ...) TC_(a) TC_33(__VA_ARGS__)
#define TC_35(a, ...) TC_(a) TC_34(__VA_ARGS__)
#define TC_36(a, ...) TC_(a) TC_35(__VA_ARGS__)
#define TC_37(a, ...) TC_(a) TC_36(__VA_ARGS__)
#define TC_38(a, ...) TC_(a) TC_37(__VA_ARGS__)
#define TC_39(a, ...) TC_(a) TC_38(__VA_ARGS__)
#define TC_40(a, ...) TC_(a) TC_39(__VA_ARGS__)

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		test_checks++;                                                                     \
		if (!(cond))                                                                       \
			test_check_failed(__FILE__, __LINE__, #cond, NULL);                        \
	} while (0)

#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);     \
		char d_[96];                                                                       \
		test_checks++;                                                                     \
		if (a_ != b_) {                                                                    \
			snprintf(d_, sizeof(d_), "0x%llx != 0x%llx", a_, b_);                      \
			test_check_failed(__FILE__, __LINE__, #a " == " #b, d_);                   \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		test_checks++;                                                                     \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                                             \
			test_check_failed(__FILE__, __LINE__, #a " == " #b, a_ ? a_ : "(null)");   \
	} while (0)

/* The substring needle occurs in haystack. */
#define CHECK_HAS(haystack, needle)                                                                \
	do {                                                                                       \
		const char *h_ = (haystack);                                                       \
		test_checks++;                                                                     \
		if (!h_ || !strstr(h_, (needle)))                                                  \
			test_check_failed(__FILE__, __LINE__, #haystack " contains " #needle,      \
					  h_ ? h_ : "(null)");                                     \
	} while (0)

#endif
