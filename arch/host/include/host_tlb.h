/*
 * host_tlb.h (host) - the strict TLB model of the simulated MMU
 * (arch/host/tlb.c; docs/mm-core.md, "The strict TLB model").
 *
 * The software MMU (uaccess.c) serves every user access from a cached
 * translation when it has one and walks the tables only on a miss, so a
 * flush that mm/ forgot shows up as a stale translation. What the model
 * finds goes to the reporter the tests install (host_tlb_reporter: a
 * failed check of the running case), or, while host_tlb_capture() is on,
 * into a buffer for the model's own tests.
 * Host runner only: the guest runs on a real (or QEMU's) TLB.
 */
#ifndef HOST_TLB_H
#define HOST_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtable.h"

/* The model is on (the default, and always in the tests). Off, there is
 * no TLB at all: every access walks the tables and flushes do nothing,
 * which is the cheapest MMU; the host backend (arch/host/boot/main.c)
 * turns it off so its benchmarks time the mm code, not the model. */
extern bool host_tlb_model;

/* What a cached translation covers. */
enum host_tlb_kind {
	TLB_PAGE, /* one 4 KiB page */
	TLB_CONT, /* an arm64 contiguous block (PTE_CONT), cached per page */
	TLB_PMD,  /* a 2 MiB PMD leaf, one entry */
};

/* host_mmu_walk()'s answer for one address of the live root. */
struct host_walk {
	pte_t leaf;	/* the leaf entry (a PMD leaf as pmd_pte()), or none */
	uint64_t *slot; /* where the leaf is (for young/dirty updates), or NULL */
	enum host_tlb_kind kind;
	bool pmd_table; /* the pmd level holds a table */
	uint64_t pa;	/* physical address of the 4 KiB page of the address */
};

/* Walk the live root for @va as the MMU would (no side effects). */
void host_mmu_walk(unsigned long va, struct host_walk *w);

/*
 * host_tlb_translate - serve a @write (or read) of @va from the TLB.
 * Return: 1 with *@pa set (a hit that allows the access), 0 for a miss
 * (walk the tables), -1 for a permission fault raised by a cached entry.
 * Reports a cached entry that allows the access but no longer matches
 * the table in a way the hardware would not repair (a missing flush).
 */
int host_tlb_translate(unsigned long va, bool write, uint64_t *pa);

/* Cache the walk @w made for @va; @ok: the access went through. */
void host_tlb_fill(unsigned long va, const struct host_walk *w, bool ok);

/*
 * host_tlb_stuck - a fault was handled and the retry of @write at @va
 * still faults. If a cached entry denies what the table now allows, the
 * access would fault forever (the flush that should have followed the
 * change is missing): report it and drop the entry. Return: true if one
 * was dropped (retrying once more can succeed).
 */
bool host_tlb_stuck(unsigned long va, bool write);

/*
 * SMP (tlb.c has the model): every CPU has its own TLB and lock.
 * host_tlb_switch - this CPU's MMU now walks @root for @mm (flushing its
 *	whole TLB, after checking it against the old tables).
 * host_tlb_flush_local - drop [start, end) from this CPU's TLB.
 * host_tlb_flush_others - the shootdown: drop [start, end) of @mm from
 *	the TLB of every other CPU in @mm->context.cpumask that still has
 *	@mm live, each under its lock; CPUs outside the mask are not
 *	touched (counted: host_tlb_ipis, one per CPU reached).
 *	Context: the page-table change is complete.
 * host_tlb_lock/unlock - hold this CPU's TLB from the translation to the
 *	end of the access, so a flush waits for an access in flight.
 * host_tlb_live_mm - the mm this CPU's MMU walks, or NULL.
 * The walk, translate, fill and stuck calls above serve this CPU.
 */
void host_tlb_switch(struct mm *mm, uint64_t root);
void host_tlb_flush_local(unsigned long start, unsigned long end);
void host_tlb_flush_others(struct mm *mm, unsigned long start, unsigned long end);
void host_tlb_lock(void);
void host_tlb_unlock(void);
struct mm *host_tlb_live_mm(void);

/* host_tlb_cpus_with - the other CPUs (bit c: CPU c) whose MMU walks
 * @mm's root: arch_mm_cpus_elsewhere(). */
unsigned long host_tlb_cpus_with(struct mm *mm);

/* For the model's tests: reports so far; capture the next ones instead
 * of failing the case: the first goes into @buf while @buf[0] is 0;
 * NULL stops capturing. */
extern unsigned long host_tlb_reports, host_tlb_hits, host_tlb_fills;
/* Stale entries served while several CPUs ran (see tlb.c). */
extern unsigned long host_tlb_stale_served;
extern unsigned long host_tlb_ipis;
void host_tlb_capture(char *buf, size_t size);

/*
 * host_tlb_reporter - where a report goes (one line, no newline), set by
 * the test runner's setup (tests/mm/host/setup.c); so arch/host does not link
 * the runner, and the host backend, which turns the model off, has none.
 * A report with no reporter set is a bug the model cannot pass on: panic.
 */
extern void (*host_tlb_reporter)(const char *msg);

#endif
