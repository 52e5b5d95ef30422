/*
 * counters.h - exact event counters for tests, benchmarks and teaching.
 *
 * One global set (the guest is uniprocessor). Benchmarks snapshot them
 * around one repetition and print the deltas in RESULT lines under these
 * names. Each is incremented once per event as described, whatever the
 * amount involved (a refcount change of +16 is one ref_update).
 */
#ifndef MM_COUNTERS_H
#define MM_COUNTERS_H

#include <stdint.h>

/* X(name, meaning) */
#define MM_COUNTER_LIST(X)                                                                         \
	X(pt_descents, "page-table walks from the top level")                                      \
	X(ptl_takes, "PTE-table lock acquisitions")                                                \
	X(ptep_gets, "PTE reads through ptep_get()")                                               \
	X(ref_updates, "folio refcount changes (one per call)")                                    \
	X(mapcount_updates, "folio mapcount changes (one per call)")                               \
	X(tlb_flushes, "TLB flush calls")                                                          \
	X(tlb_pages, "pages covered by TLB flush calls")                                           \
	X(tlb_shootdowns, "TLB flush calls that interrupted other CPUs (x86 IPIs)")                \
	X(tlb_ipis, "TLB flush IPIs sent (one per other CPU that held the mm)")                    \
	X(cont_folds, "contpte blocks folded")                                                     \
	X(cont_unfolds, "contpte blocks unfolded")                                                 \
	X(mark_accessed, "folio_mark_accessed() calls")                                            \
	X(folio_allocs, "folios allocated")                                                        \
	X(folio_frees, "folios freed")                                                             \
	X(folio_copies, "pages copied (COW, unshare, migration)")                                  \
	X(cow_reuses, "write/unshare faults that reused the page in place (4K or a PMD THP)")      \
	X(cow_copies, "write/unshare faults that gave the faulting side its own copy")             \
	X(faults, "page faults handled")                                                           \
	X(pt_allocs, "page-table pages allocated")                                                 \
	X(pt_frees, "page-table pages freed")                                                      \
	X(migrate_queued, "folios queued for migration")                                           \
	X(pgmigrate_success, "pages migrated")                                                     \
	X(pgmigrate_fail, "pages that could not be migrated")                                      \
	X(thp_migration_success, "2 MiB folios migrated whole")                                    \
	X(thp_migration_split, "large folios split to migrate (no block of their order free)")

struct mm_counters {
#define MM_COUNTER_FIELD(name, what) uint64_t name;
	MM_COUNTER_LIST(MM_COUNTER_FIELD)
#undef MM_COUNTER_FIELD
};

extern struct mm_counters mm_counters;

#define count_event(name, n) (mm_counters.name += (uint64_t)(n))

/* @d = @after - @before, field by field. */
void mm_counters_delta(struct mm_counters *d, const struct mm_counters *before,
		       const struct mm_counters *after);

/* Write the non-zero fields of @c as a JSON object body ("a":1,"b":2) into
 * @buf; return the length written (truncated at @size). */
int mm_counters_json(const struct mm_counters *c, char *buf, int size);

#endif
