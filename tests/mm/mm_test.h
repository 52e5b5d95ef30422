/*
 * mm_test.h - helpers shared by the mm test cases, which run both in the
 * host runner (build/host-mm-*) and in the guest (run=selftest).
 *
 * Only mm/ and tests/test.h are used, plus this small interface, which
 * each side implements: the host runner (tests/mm/host/setup.c) can catch a
 * panic; in the guest a panic ends the run, so tests/mm/mm_test.c gives
 * weak defaults that say so and the cases that expect a panic skip that
 * part (after checking everything that leads up to it).
 */
#ifndef TESTS_MM_TEST_H
#define TESTS_MM_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "page.h"
#include "test.h"

/* Can test_catch_panic() catch a panic here? */
bool test_can_catch_panic(void);

/* Run @fn(@arg); return 1 with the panic message in @msg if it panicked,
 * 0 if it returned, -1 when panics cannot be caught (nothing was run). */
int test_catch_panic(void (*fn)(void *), void *arg, char *msg, size_t size);

/*
 * CHECK_PANICS(fn, arg, needle): @fn(@arg) must panic with a message that
 * contains @needle. Where panics cannot be caught, prints a skip note and
 * makes no check (the case's other checks still count).
 */
#define CHECK_PANICS(fn, arg, needle)                                                              \
	do {                                                                                       \
		char msg_[512] = "";                                                               \
		int r_ = test_catch_panic((fn), (arg), msg_, sizeof(msg_));                        \
		if (r_ < 0) {                                                                      \
			printf("    skip: %s would panic (cannot catch panics here)\n", #fn);      \
			break;                                                                     \
		}                                                                                  \
		CHECK(r_ == 1);                                                                    \
		CHECK_HAS(msg_, (needle));                                                         \
	} while (0)

/* The free memory of every node: counts, and which blocks are on each list
 * (the sum of their pfns, which with complete merging pins them down). */
struct mm_snapshot {
	uint64_t total_free;
	uint64_t node_free[MAX_NUMNODES];
	uint64_t nr_free[MAX_NUMNODES][MAX_ORDER + 1];
	uint64_t pfn_sum[MAX_NUMNODES][MAX_ORDER + 1];
};

void mm_snapshot_take(struct mm_snapshot *s);

/* Differences between @s and now, each printed; 0 when free memory is
 * exactly as it was. */
int mm_snapshot_diff(const struct mm_snapshot *s);

/* Nothing leaked or left inconsistent since @snap was taken. */
#define CHECK_NO_LEAK(snap)                                                                        \
	do {                                                                                       \
		CHECK_EQ(total_free_pages(), (snap)->total_free);                                  \
		CHECK_EQ(mm_snapshot_diff(snap), 0);                                               \
		CHECK_EQ(page_alloc_check(), 0);                                                   \
	} while (0)

/* Put every folio on @list (linked through folio->page.lru). Return: how
 * many there were. */
int mm_test_put_list(struct list_head *list);

/* Allocate free memory onto @list (largest blocks first, any node) until
 * only @keep pages are free in total. Return: the pages taken. Give them
 * back with mm_test_put_list(). */
uint64_t mm_test_hold_memory(struct list_head *list, uint64_t keep);

/* A small deterministic generator for shuffles (xorshift). */
uint32_t mm_test_rand(uint32_t *state);

#endif
