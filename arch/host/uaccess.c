/*
 * uaccess.c (host) - a software MMU for the kernel's accesses to user
 * memory: a hit in the strict TLB (tlb.c) serves the access; a miss walks
 * the live root (arch_switch_mm) with the PTE format's own accessors,
 * checks what the hardware checks (a present table at each level,
 * pte_user() on the leaf, pte_user_writable() for a write) and caches
 * the translation. A fault goes to handle_mm_fault(), then the access is
 * re-executed (see MMU_FAULT_RETRIES).
 *
 * Young and dirty: where the MMU updates them (arch_has_hw_ad(), x86) the
 * walk sets them as the hardware would. Where it does not (arm64 here, as
 * on QEMU without FEAT_HAFDBS), an access through an old entry faults
 * (the access flag) and a clean writable entry is read-only to the MMU,
 * so its first write faults; the fault path must set the bits, and the
 * host tests exercise that on the arm64 format.
 *
 * SMP: the MMU sets young and dirty with a compare-and-exchange from the
 * value it walked (as hardware does a locked update), so a bit is never
 * set in an entry another CPU changed meanwhile: the walk starts again.
 * Each access (translation and copy of one page's chunk) runs under this
 * CPU's TLB lock, which a flush on any CPU takes: the flush returns only
 * once no access through a removed entry is in flight, as a shootdown
 * waits for the other CPUs' acknowledgements.
 */
#include <errno.h>
#include <string.h>

#include "kernel.h"
#include "mm.h"

#include <asm/mmu.h>
#include <host_tlb.h>

/*
 * mmu_leaf - may @write (or a read) go through leaf value @leaf?
 * Return: false for a fault; else true with *@upd the value the MMU
 * leaves behind (young, and dirty on a write).
 */
static bool mmu_leaf(pte_t leaf, bool write, pte_t *upd)
{
	*upd = leaf;
	if (!pte_user(leaf) || (write && !pte_user_writable(leaf)))
		return false;
	if (!arch_has_hw_ad())
		return pte_young(leaf);
	*upd = pte_mkyoung(leaf);
	if (write)
		*upd = pte_mkdirty(*upd);
	return true;
}

/* Walk the tables for @va (a TLB miss), update young/dirty where the MMU
 * does, cache the result; 0 with the physical address, or -1. */
static int mmu_walk(unsigned long va, bool write, uint64_t *pa)
{
	struct host_walk w;
	pte_t upd;
	bool ok;

	do {
		host_mmu_walk(va, &w);
		if (!w.slot)
			return -1;
		ok = mmu_leaf(w.leaf, write, &upd);
	} while (ok && upd.val != w.leaf.val &&
		 !__atomic_compare_exchange_n(w.slot, &w.leaf.val, upd.val, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	if (ok)
		w.leaf = upd;
	host_tlb_fill(va, &w, ok);
	if (!ok)
		return -1;
	*pa = w.pa | (va & (PAGE_SIZE - 1));
	return 0;
}

/* Translate @va like the MMU, TLB first; 0 with the physical address, or -1. */
static int mmu_translate(unsigned long va, bool write, uint64_t *pa)
{
	int hit = host_tlb_translate(va, write, pa);

	if (hit)
		return hit > 0 ? 0 : -1;
	return mmu_walk(va, write, pa);
}

/*
 * mmu_copy - one translation and the copy of @n bytes (inside one page)
 * between @va and @k, under this CPU's TLB lock. Return: 0, or -1 for a
 * fault (nothing copied). @stuck: a retry after a fault, which asks the
 * TLB model about an entry that blocks progress.
 */
static int mmu_copy(unsigned long va, char *k, unsigned long n, bool write, bool stuck)
{
	uint64_t pa;
	int err;

	host_tlb_lock();
	err = mmu_translate(va, write, &pa);
	if (err && stuck && host_tlb_stuck(va, write))
		err = mmu_translate(va, write, &pa);
	if (!err) {
		if (write)
			memcpy(phys_to_virt(pa), k, n);
		else
			memcpy(k, phys_to_virt(pa), n);
	}
	host_tlb_unlock();
	return err;
}

/*
 * The hardware re-executes a faulting access for as long as the handler
 * returns: an entry the fault installed can be gone again before the
 * re-execution (another CPU's THP split clears the PMD before it writes
 * the table, a migration or munmap takes the page), and then the access
 * faults again. The model does the same, but a bounded number of times:
 * a handler that resolves nothing would otherwise hang the runner, and
 * the other CPUs' operations are finite, so every retry past the first
 * few means a fault that makes no progress.
 */
#define MMU_FAULT_RETRIES 32

/*
 * mmu_access - translate and copy; on a miss fault into the current mm
 * (no TLB lock held: the fault flushes) and re-execute, as the hardware
 * does.
 * Return: 0, the fault's error (-EFAULT, -ENOMEM), or -EFAULT when
 * MMU_FAULT_RETRIES faults in a row resolved nothing (the TLB model
 * reports it first if a stale entry was the reason).
 */
static int mmu_access(unsigned long va, char *k, unsigned long n, bool write)
{
	for (int tries = 0;; tries++) {
		int err;

		if (mmu_copy(va, k, n, write, tries > 0) == 0)
			return 0;
		if (!current_mm || tries == MMU_FAULT_RETRIES)
			return -EFAULT;
		err = handle_mm_fault(current_mm, va, write ? FAULT_WRITE : 0);
		if (err)
			return err;
	}
}

int arch_copy_user(unsigned long uaddr, void *kbuf, unsigned long len, int write)
{
	char *k = kbuf;

	while (len) {
		unsigned long chunk = PAGE_SIZE - (uaddr & (PAGE_SIZE - 1));
		int err;

		if (chunk > len)
			chunk = len;
		err = mmu_access(uaddr, k, chunk, write);
		if (err)
			return err;
		uaddr += chunk, k += chunk, len -= chunk;
	}
	return 0;
}
