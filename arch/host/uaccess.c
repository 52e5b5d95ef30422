/*
 * uaccess.c (host) - a software MMU for the kernel's accesses to user
 * memory: it walks the live root (arch_switch_mm) with the PTE format's
 * own accessors, checks what the hardware checks (a present table at each
 * level, pte_user() on the leaf, pte_user_writable() for a write), and
 * takes a "fault" into handle_mm_fault() when the walk fails, then
 * retries once.
 *
 * Young and dirty: where the MMU updates them (arch_has_hw_ad(), x86) the
 * walk sets them as the hardware would. Where it does not (arm64 here, as
 * on QEMU without FEAT_HAFDBS), an access through an old entry faults
 * (the access flag) and a clean writable entry is read-only to the MMU,
 * so its first write faults; the fault path must set the bits, and the
 * host tests exercise that on the arm64 format.
 */
#include <errno.h>
#include <string.h>

#include "kernel.h"
#include "mm.h"

#include <asm/mmu.h>

extern uint64_t host_mmu_root; /* mmu.c */

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

/* The leaf through a PMD block: 2 MiB frame plus the offset. */
static int mmu_pmd_leaf(pmd_t *pmdp, unsigned long va, bool write, uint64_t *pa)
{
	pte_t upd;

	if (!mmu_leaf(pmd_pte(*pmdp), write, &upd))
		return -1;
	if (upd.val != pmdp->val)
		*(volatile pmd_t *)pmdp = pte_pmd(upd);
	*pa = (pmd_pfn(*pmdp) << PAGE_SHIFT) + (va & ~PMD_MASK);
	return 0;
}

/* Translate @va like the MMU; 0 with the physical address, or -1. */
static int mmu_translate(unsigned long va, bool write, uint64_t *pa)
{
	pgd_t *pgdp;
	pud_t *pudp;
	pmd_t *pmdp;
	pte_t *ptep, upd;

	if (!host_mmu_root || va >= MM_USER_END)
		return -1;
	pgdp = pgd_offset_pgd(phys_to_virt(host_mmu_root), va);
	if (!pgd_present(*pgdp))
		return -1;
	pudp = pud_offset(pgdp, va);
	if (!pud_present(*pudp) || pud_leaf(*pudp))
		return -1;
	pmdp = pmd_offset(pudp, va);
	if (!pmd_present(*pmdp))
		return -1;
	if (pmd_leaf(*pmdp))
		return mmu_pmd_leaf(pmdp, va, write, pa);
	ptep = pte_offset_kernel(pmdp, va);
	if (!mmu_leaf(__ptep_get(ptep), write, &upd))
		return -1;
	if (upd.val != ptep->val)
		set_pte(ptep, upd);
	*pa = (pte_pfn(upd) << PAGE_SHIFT) | (va & (PAGE_SIZE - 1));
	return 0;
}

/*
 * mmu_access - translate, and on a miss fault once into the current mm
 * and retry, as the hardware would re-execute the access.
 * Return: 0, the fault's error (-EFAULT, -ENOMEM), or -EFAULT when the
 * retry still misses (a fault handler that resolved nothing).
 */
static int mmu_access(unsigned long va, bool write, uint64_t *pa)
{
	int err;

	if (mmu_translate(va, write, pa) == 0)
		return 0;
	if (!current_mm)
		return -EFAULT;
	err = handle_mm_fault(current_mm, va, write ? FAULT_WRITE : 0);
	if (err)
		return err;
	return mmu_translate(va, write, pa) ? -EFAULT : 0;
}

int arch_copy_user(unsigned long uaddr, void *kbuf, unsigned long len, int write)
{
	char *k = kbuf;

	while (len) {
		unsigned long chunk = PAGE_SIZE - (uaddr & (PAGE_SIZE - 1));
		uint64_t pa;
		int err;

		if (chunk > len)
			chunk = len;
		err = mmu_access(uaddr, write, &pa);
		if (err)
			return err;
		if (write)
			memcpy(phys_to_virt(pa), k, chunk);
		else
			memcpy(k, phys_to_virt(pa), chunk);
		uaddr += chunk, k += chunk, len -= chunk;
	}
	return 0;
}
