/*
 * counters.h - exact event counters for tests, benchmarks and teaching.
 *
 * Each CPU counts into its own copy (indexed by smp_processor_id(), a
 * cache line apart), so counting is a plain load, add and store with no
 * atomic RMW and no shared line; mm_counters_read() sums the copies.
 * Benchmarks and tests take such a snapshot around one repetition and
 * print the deltas in RESULT lines under these names. Each is
 * incremented once per event as described, whatever the amount involved
 * (a refcount change of +16 is one ref_update).
 */
#ifndef MM_COUNTERS_H
#define MM_COUNTERS_H

#include <stdint.h>

#include "smp.h"

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
	X(thp_migration_split, "large folios split to migrate (no block of their order free)")     \
	X(mremap_ptes_moved, "present PTEs mremap moved")                                          \
	X(mremap_runs, "PTE runs mremap moved with one clear and one set (a lone PTE is a run)")   \
	X(mremap_pmd_moves, "2 MiB PMD leaves mremap moved by moving the PMD entry")               \
	X(mremap_table_moves, "whole PTE tables mremap moved by moving the PMD entry")             \
	X(madv_free_runs, "MADV_FREE runs cleared of young and dirty (one per call; a PMD one)")   \
	X(madv_free_ptes, "entries in those runs (a PMD leaf is one)")                             \
	X(madv_free_skipped, "MADV_FREE folios left as they were (only partly in the range, or "   \
			     "shared and dirty)")                                                  \
	X(young_runs, "runs aging tested (mm_clear_young: one per run of one folio)")              \
	X(young_cleared, "runs that had a young entry: cleared and flushed")                       \
	X(pswpout, "pages written to swap (MADV_PAGEOUT and reclaim)")                             \
	X(pswpin, "pages read back from swap by faults")                                           \
	X(pageout_folios, "folios MADV_PAGEOUT wrote to swap")                                     \
	X(pageout_clears, "PTE clears MADV_PAGEOUT's unmap made (one per run of caps.pageout)")    \
	X(pageout_skipped,                                                                         \
	  "folios MADV_PAGEOUT left (shared, pinned, partly in range, swap full)")                 \
	X(swapin_folios, "folios swap-in faults mapped (one set_ptes each)")                       \
	X(swap_frees, "swap_free_nr() calls of zap, MADV_FREE and swap-in")                        \
	X(lazyfree_discarded, "clean lazyfree folios discarded (mm_reclaim_lazyfree(), reclaim)")  \
	X(lazyfree_redirtied, "lazyfree folios written since MADV_FREE: kept, no longer lazyfree") \
	X(pgscan, "pages reclaim took off the inactive tail to look at")                           \
	X(pgsteal, "pages reclaim freed (written to swap, or lazyfree discarded)")                 \
	X(pgactivate, "pages reclaim moved to the active list (referenced, or kept)")              \
	X(pgdeactivate, "pages moved from the active to the inactive list (aging, MADV_COLD)")     \
	X(reclaim_stalls, "direct reclaims: a fault found a node below its watermark")             \
	X(reclaim_nospace, "folios reclaim kept for want of free swap slots")                      \
	X(reclaim_pmd_splits, "PMD-mapped folios reclaim split to PTEs to write or discard them")  \
	X(reclaim_shared, "folios reclaim unmapped from several mms of a fork family at once")     \
	X(reclaim_shared_busy,                                                                     \
	  "shared folios reclaim kept: mapped elsewhere or in part, pinned, held")                 \
	X(reclaim_family_busy,                                                                     \
	  "folios the family walk found the family lock taken for: activated")                     \
	X(swpout_fallback, "large folios written to scattered slots: no run of free slots (Linux " \
			   "splits them)")                                                         \
	X(ptl_contended, "PTE-table lock acquisitions that had to wait")                           \
	X(mm_lock_contended, "mmap_lock, anon family or page_table_lock acquisitions that waited") \
	X(alloc_lock_contended, "allocator (per-node) lock acquisitions that had to wait")         \
	X(other_lock_contended, "other lock acquisitions that had to wait")                        \
	X(lock_waits, "ticket waits that left the spin for the slow path (halt or event)")         \
	X(migration_waits, "faults that waited for a migration entry to go")                       \
	X(numa_pte_updates, "entries NUMA hinting scans made PROT_NONE (a PMD leaf: 512)")         \
	X(numa_scans, "periodic NUMA scan steps (numa_scan=: one every N faults of an mm)")        \
	X(numa_hint_faults, "NUMA hinting faults (each gave one folio's entries back)")            \
	X(numa_pages_migrated, "pages NUMA hinting faults moved to the faulting CPU's node")       \
	X(lockless_waits, "page-table frees that waited for another CPU's lockless walk "          \
			  "(gup-fast)")

struct mm_counters {
#define MM_COUNTER_FIELD(name, what) uint64_t name;
	MM_COUNTER_LIST(MM_COUNTER_FIELD)
#undef MM_COUNTER_FIELD
};

/* One CPU's copy, alone on its cache line(s). */
struct mm_counters_cpu {
	struct mm_counters c;
} __attribute__((aligned(64)));

extern struct mm_counters_cpu mm_counters_cpu[NR_CPUS];

/*
 * count_add - add @n to this CPU's counter at @p. Only its own CPU
 * writes a copy; the relaxed atomic load and store (plain moves on
 * x86_64 and arm64) let mm_counters_read() on another CPU read it
 * without a data race. Interrupt handlers do not count events.
 */
static inline void count_add(uint64_t *p, uint64_t n)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

#define count_event(name, n) count_add(&mm_counters_cpu[smp_processor_id()].c.name, (uint64_t)(n))

/* The counters summed over every CPU. A snapshot taken while other CPUs
 * count is each copy at some moment during the call. */
struct mm_counters mm_counters_read(void);

/* @d = @after - @before, field by field. */
void mm_counters_delta(struct mm_counters *d, const struct mm_counters *before,
		       const struct mm_counters *after);

/* @d = now (mm_counters_read()) - @before, field by field. */
void mm_counters_since(struct mm_counters *d, const struct mm_counters *before);

/* Write the non-zero fields of @c as a JSON object body ("a":1,"b":2) into
 * @buf; return the length written (truncated at @size). */
int mm_counters_json(const struct mm_counters *c, char *buf, int size);

#endif
