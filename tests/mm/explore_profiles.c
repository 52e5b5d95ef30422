/*
 * explore_profiles.c - the mixes: each a weighted table of op kinds
 * (explore_ops.c, explore_pin.c) and how often each area is chosen.
 * "mix" has everything the issue lists; the others lean on one race.
 */
#include "explore_mix.h"

/* ---- the profiles ---------------------------------------------------------- */

#define ROWS(r) r, sizeof(r) / sizeof(r[0])

/* Everything the issue lists, on every area. */
static const struct mix_row rows_mix[] = {
	{ &mix_k_write, 20 },	{ &mix_k_read, 8 },	  { &mix_k_unshare, 4 },
	{ &mix_k_fork, 5 },	{ &mix_k_exit, 3 },	  { &mix_k_munmap, 2 },
	{ &mix_k_remap, 2 },	{ &mix_k_mprotect, 3 },	  { &mix_k_mbind, 3 },
	{ &mix_k_migrate, 4 },	{ &mix_k_move_pages, 4 }, { &mix_k_pin, 6 },
	{ &mix_k_pin_fast, 6 }, { &mix_k_get, 3 },	  { &mix_k_get_fast, 3 },
	{ &mix_k_unpin, 8 },
};

/* gup-fast pins against migrations (the pin and the early ref check). */
static const struct mix_row rows_pin_migrate[] = {
	{ &mix_k_write, 10 },	{ &mix_k_pin_fast, 20 },   { &mix_k_unpin, 10 },
	{ &mix_k_migrate, 10 }, { &mix_k_move_pages, 10 }, { &mix_k_mbind, 4 },
	{ &mix_k_fork, 2 },	{ &mix_k_exit, 1 },
};

/* COW write faults against migrations. */
static const struct mix_row rows_cow_migrate[] = {
	{ &mix_k_write, 30 },	  { &mix_k_fork, 8 },	 { &mix_k_exit, 4 }, { &mix_k_migrate, 10 },
	{ &mix_k_move_pages, 8 }, { &mix_k_unshare, 4 }, { &mix_k_read, 4 },
};

/* Slow-path pins of PMD-mapped THPs against migrations. */
static const struct mix_row rows_pmd_pin_migrate[] = {
	{ &mix_k_pin, 20 },  { &mix_k_get, 5 },	       { &mix_k_unpin, 10 }, { &mix_k_migrate, 12 },
	{ &mix_k_mbind, 6 }, { &mix_k_move_pages, 6 }, { &mix_k_write, 10 }, { &mix_k_fork, 2 },
};

/* Pins of several pages against fork. */
static const struct mix_row rows_pin_fork[] = {
	{ &mix_k_pin, 10 },  { &mix_k_pin_fast, 10 }, { &mix_k_unpin, 8 },
	{ &mix_k_fork, 12 }, { &mix_k_exit, 6 },      { &mix_k_write, 20 },
};

/* MADV_PAGEOUT and the swap-in faults against fork, munmap, mremap,
 * pins and migrations (mm/swap.h). */
static const struct mix_row rows_swap[] = {
	{ &mix_k_write, 20 },  { &mix_k_read, 8 },   { &mix_k_pageout, 12 }, { &mix_k_fork, 5 },
	{ &mix_k_exit, 3 },    { &mix_k_munmap, 2 }, { &mix_k_remap, 2 },    { &mix_k_mprotect, 2 },
	{ &mix_k_migrate, 3 }, { &mix_k_pin, 4 },    { &mix_k_pin_fast, 4 }, { &mix_k_unpin, 6 },
	{ &mix_k_unshare, 3 },
};

/* mremap moves (runs, whole areas, DONTUNMAP) against accesses, pins,
 * fork and migrations of the folios it moves (the family lock). */
static const struct mix_row rows_mremap[] = {
	{ &mix_k_write, 20 },	  { &mix_k_read, 8 },	 { &mix_k_mremap, 10 },
	{ &mix_k_fork, 4 },	  { &mix_k_exit, 2 },	 { &mix_k_pin, 5 },
	{ &mix_k_pin_fast, 6 },	  { &mix_k_unpin, 8 },	 { &mix_k_migrate, 4 },
	{ &mix_k_move_pages, 4 }, { &mix_k_pageout, 3 }, { &mix_k_unshare, 3 },
};

/* madvise: DONTNEED, FREE and the lazyfree reclaim, PAGEOUT, COLD,
 * POPULATE against writes (a written folio is no longer discardable),
 * pins (a pinned one neither) and fork. */
static const struct mix_row rows_madvise[] = {
	{ &mix_k_write, 20 }, { &mix_k_read, 8 },     { &mix_k_dontneed, 4 },
	{ &mix_k_free, 8 },   { &mix_k_reclaim, 8 },  { &mix_k_pageout, 6 },
	{ &mix_k_cold, 2 },   { &mix_k_populate, 5 }, { &mix_k_fork, 4 },
	{ &mix_k_exit, 2 },   { &mix_k_pin, 4 },      { &mix_k_pin_fast, 8 },
	{ &mix_k_unpin, 8 },  { &mix_k_migrate, 3 },
};

/* NUMA hinting: the scan against the hinting faults of accesses and
 * pins on CPUs of both nodes (the faults migrate), COW and migrations. */
static const struct mix_row rows_numa_hint[] = {
	{ &mix_k_write, 20 },	  { &mix_k_read, 10 },	  { &mix_k_numa_scan, 14 },
	{ &mix_k_pin, 4 },	  { &mix_k_pin_fast, 6 }, { &mix_k_unpin, 8 },
	{ &mix_k_fork, 4 },	  { &mix_k_exit, 2 },	  { &mix_k_migrate, 3 },
	{ &mix_k_move_pages, 3 }, { &mix_k_mprotect, 2 }, { &mix_k_unshare, 3 },
	{ &mix_k_populate, 3 },
};

/* Direct reclaim from the LRU (isolation, the young test, the unmap to
 * swap or the lazyfree discard) against accesses, COW, fork, exit,
 * munmap and mremap (stale records), pins (gup-fast's grab against the
 * unmap), migrations (a folio both isolate) and MADV_COLD/FREE. */
static const struct mix_row rows_lru_reclaim[] = {
	{ &mix_k_write, 20 },	  { &mix_k_read, 8 },	  { &mix_k_lru_reclaim, 12 },
	{ &mix_k_cold, 4 },	  { &mix_k_free, 3 },	  { &mix_k_fork, 5 },
	{ &mix_k_exit, 3 },	  { &mix_k_munmap, 2 },	  { &mix_k_remap, 2 },
	{ &mix_k_mremap, 2 },	  { &mix_k_mprotect, 2 }, { &mix_k_migrate, 3 },
	{ &mix_k_move_pages, 2 }, { &mix_k_pin, 4 },	  { &mix_k_pin_fast, 6 },
	{ &mix_k_unpin, 6 },	  { &mix_k_unshare, 3 },
};

/* Direct reclaim of PMD-mapped folios (the young test, the split under
 * the page_table_lock, the write of 512 entries) against accesses that
 * fault on the 2 MiB meanwhile, pins, COW after fork and migrations. */
static const struct mix_row rows_pmd_reclaim[] = {
	{ &mix_k_write, 16 },  { &mix_k_read, 12 },    { &mix_k_lru_reclaim, 14 },
	{ &mix_k_cold, 4 },    { &mix_k_free, 2 },     { &mix_k_fork, 3 },
	{ &mix_k_exit, 2 },    { &mix_k_pin_fast, 5 }, { &mix_k_unpin, 5 },
	{ &mix_k_migrate, 2 }, { &mix_k_unshare, 2 },
};

/* The LRU's aging (lru_balance() inside reclaim, which holds no
 * reference) against the last puts of munmap, MADV_DONTNEED and exit. */
static const struct mix_row rows_lru_free[] = {
	{ &mix_k_write, 20 }, { &mix_k_read, 6 },     { &mix_k_lru_reclaim, 16 },
	{ &mix_k_munmap, 8 }, { &mix_k_dontneed, 8 }, { &mix_k_exit, 4 },
	{ &mix_k_fork, 4 },   { &mix_k_cold, 3 },
};

/* Reclaim of folios a fork shares (every member's run unmapped into
 * migration entries, the count looked at once, one write for all) from
 * any member, against COW and reads in the others (faults on the
 * entries wait), gup-fast gets (shared pages take no pin: a pin unshares
 * first), exits and munmaps (the family lock's trylock). */
static const struct mix_row rows_shared_reclaim[] = {
	{ &mix_k_write, 14 },	{ &mix_k_read, 12 },   { &mix_k_lru_reclaim, 16 },
	{ &mix_k_fork, 8 },	{ &mix_k_exit, 3 },    { &mix_k_munmap, 2 },
	{ &mix_k_free, 3 },	{ &mix_k_cold, 3 },    { &mix_k_pin_fast, 3 },
	{ &mix_k_get_fast, 6 }, { &mix_k_get, 2 },     { &mix_k_unpin, 8 },
	{ &mix_k_migrate, 2 },	{ &mix_k_unshare, 2 },
};

const struct mix_profile mix_profiles[] = {
	{ "mix", ROWS(rows_mix), { 2, 3, 3 }, 6, false, false, false, false },
	{ "pin_migrate", ROWS(rows_pin_migrate), { 1, 4, 2 }, 6, false, false, false, false },
	{ "cow_migrate", ROWS(rows_cow_migrate), { 2, 3, 3 }, 6, false, false, false, false },
	{ "pmd_pin_migrate",
	  ROWS(rows_pmd_pin_migrate),
	  { 0, 0, 1 },
	  6,
	  false,
	  false,
	  false,
	  false },
	{ "pin_fork", ROWS(rows_pin_fork), { 1, 3, 2 }, 6, false, false, false, false },
	/* Everything again, with the locks of a KVM guest (lock_virt). */
	{ "mix_virt", ROWS(rows_mix), { 2, 3, 3 }, 6, true, false, false, false },
	{ "swap", ROWS(rows_swap), { 2, 3, 3 }, 6, false, false, false, false },
	/* New mixes go last: tests/guest/stress.c picks a profile by seed. */
	{ "mremap", ROWS(rows_mremap), { 2, 3, 3 }, 6, false, true, false, false },
	{ "madvise", ROWS(rows_madvise), { 2, 3, 3 }, 6, false, true, false, false },
	{ "numa_hint", ROWS(rows_numa_hint), { 2, 3, 3 }, 6, false, true, true, false },
	{ "lru_reclaim", ROWS(rows_lru_reclaim), { 2, 3, 3 }, 6, false, true, false, true },
	{ "pmd_reclaim", ROWS(rows_pmd_reclaim), { 0, 0, 1 }, 6, false, true, false, true },
	{ "lru_free", ROWS(rows_lru_free), { 3, 3, 1 }, 6, false, true, false, true },
	{ "shared_reclaim", ROWS(rows_shared_reclaim), { 3, 3, 1 }, 6, false, true, false, true },
};

const unsigned mix_nr_profiles = sizeof(mix_profiles) / sizeof(mix_profiles[0]);
