/*
 * lockless_walk.h - walkers of an mm's page tables that take no lock
 * (gup-fast), and the wait that keeps a page-table page from being freed
 * under them.
 *
 * One mechanism on every arch: each CPU has a sequence that is odd while
 * it walks locklessly; a path that frees page-table pages it has unhooked
 * (the mmu_gather, after its TLB flush) waits, with more than one CPU
 * online, until every CPU that was walking at that moment has left its
 * walk. It plays the part of Linux's interrupts-off walk plus the
 * shootdown IPI (x86) or the RCU table free with its IPI sync (arm64,
 * tlb_remove_table_sync_one): the walker needs no interrupts, no mm
 * loaded on its CPU (gup-fast takes an mm argument), and the arm64 guest
 * and the host CPUs, which take no interrupts, get the same guarantee.
 *
 * Ordering, the two sides of one Dekker pair:
 *   walker:  seq = odd;  full barrier;  read pgd .. pte entries
 *   freer:   clear the entry pointing at the table;  full barrier;
 *            read every other CPU's seq
 * Either the walker's entry reads see the cleared entry (it does not
 * reach the table), or the freer sees the odd seq and waits. The walker's
 * release store of the next even value comes after its last read of any
 * table; the freer's acquire load of it pairs with that, so when the wait
 * ends the walker's reads are done and the table may be freed.
 */
#ifndef MM_LOCKLESS_WALK_H
#define MM_LOCKLESS_WALK_H

#include "sched_point.h"
#include "smp.h"

/*
 * mm_full_barrier - a full memory barrier (Linux's smp_mb()). The
 * ThreadSanitizer build has no fences, so there it is a sequentially
 * consistent read-modify-write of one word, which TSan understands (and
 * which also orders, on the hardware it runs on).
 */
#ifdef __SANITIZE_THREAD__
extern unsigned long mm_barrier_word;
static inline void mm_full_barrier(void)
{
	__atomic_fetch_add(&mm_barrier_word, 0, __ATOMIC_SEQ_CST);
}
#else
static inline void mm_full_barrier(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

struct lockless_walk_seq {
	unsigned long seq; /* odd while this CPU walks locklessly */
} __attribute__((aligned(64)));

extern struct lockless_walk_seq lockless_walk_seq[NR_CPUS];

/* Enter a lockless walk on this CPU. Context: not nested, the walk takes
 * no lock and waits for nothing (the freer waits for it). */
static inline void lockless_walk_begin(void)
{
	struct lockless_walk_seq *s = &lockless_walk_seq[smp_processor_id()];

	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELAXED);
	mm_full_barrier(); /* the odd seq before the entry reads */
	arch_sched_point(SCHED_WALK);
}

/* Leave it: after this, nothing the walk read may be dereferenced. */
static inline void lockless_walk_end(void)
{
	struct lockless_walk_seq *s = &lockless_walk_seq[smp_processor_id()];

	arch_sched_point(SCHED_WALK);
	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELEASE); /* the reads before the even seq */
}

/*
 * lockless_walk_sync - wait until every other CPU that was in a lockless
 * walk when this was called has left it. Call after the entries that
 * pointed at the tables to free were cleared (and flushed), before the
 * tables are freed. With one CPU online it returns at once.
 */
void lockless_walk_sync(void);

#endif
