/*
 * fault.c - resolving page faults in anonymous private memory.
 *
 * The hardware MMU raises the fault (on the host runner, the software MMU
 * in arch/host does); handle_mm_fault() finds the VMA, checks the access
 * against its protection and then:
 *  - an empty pmd with the PMD order allowed and the aligned 2 MiB inside
 *    the VMA: a PMD-mapped 2 MiB folio (huge.c), PTEs if none is free;
 *  - an empty PTE: the largest allowed order whose aligned range is inside
 *    the VMA (and so the PMD) and has only empty PTEs, smaller orders when
 *    the allocator has no block of that order (like Linux's mTHP
 *    alloc_anon_folio);
 *  - a write to a read-only entry of a writable VMA, or an unshare of a
 *    page that is not AnonExclusive: cow.c (reuse the page, else copy);
 *  - a present entry user mode may not use, in a VMA that allows the
 *    access: a NUMA hinting fault (numa_hint.c) gives the folio's entries
 *    back, and handle_mm_fault() then moves a misplaced folio;
 *  - anything else on a present entry: set young (and dirty for a write),
 *    which is how formats without hardware access/dirty bits (arm64 here)
 *    get them, or a spurious fault that needs nothing.
 * Anonymous read faults allocate too (there is no shared zero page).
 * A shared VMA (VM_SHARED) maps its object's page instead (shmem.c):
 * no copy on write, a write to a read-only entry makes it writable.
 *
 * Context: the mmap_lock for read (VMAs stay put; other CPUs may fault in
 * the same mm), the page_table_lock for the pmd entry, the PTE table's
 * lock for its entries. A PTE table is freed only under the mmap_lock for
 * write, so the one under the pmd stays after the page_table_lock is
 * dropped.
 */
#include <errno.h>

#include "kernel.h"
#include "lru.h"
#include "vmscan.h"
#include "mm_internal.h"
#include "shmem.h"
#include "swapops.h"
#include "thp_policy.h"

void (*wp_fault_window_hook)(struct mm *mm, unsigned long addr);

pte_t vma_mk_pte(struct vma *vma, uint64_t pfn)
{
	return pte_mkyoung(pfn_pte(pfn, vm_get_page_prot(vma->flags)));
}

/* Are the @nr entries from @ptep all empty? */
static bool ptes_none(pte_t *ptep, unsigned long nr)
{
	for (unsigned long i = 0; i < nr; i++)
		if (!pte_none(ptep_get(ptep + i)))
			return false;
	return true;
}

/* Orders from @vma's allowed set whose naturally aligned range around
 * @addr lies inside the VMA (at most PMD_ORDER: inside the PMD too). */
static unsigned long suitable_orders(struct vma *vma, unsigned long addr)
{
	unsigned long ok = 1, orders = vma_fault_orders(vma);

	for (int o = 1; o <= PMD_ORDER; o++) {
		unsigned long size = PAGE_SIZE << o, base = addr & ~(size - 1);

		if ((orders & (1ul << o)) && base >= vma->start && base + size <= vma->end)
			ok |= 1ul << o;
	}
	return ok;
}

/*
 * alloc_anon_folio - a zeroed folio for the fault at @addr (@ptep is its
 * entry): the largest suitable order whose entries are all none and for
 * which some node has a free block. Return: the folio or NULL.
 * Context: the PTE table lock is held (folio_alloc never sleeps).
 */
static struct folio *alloc_anon_folio(struct vma *vma, pte_t *ptep, unsigned long addr)
{
	unsigned long orders = suitable_orders(vma, addr);

	for (int o = PMD_ORDER; o >= 0; o--) {
		unsigned long base = addr & ~((PAGE_SIZE << o) - 1);
		struct folio *f;

		if (!(orders & (1ul << o)) ||
		    !ptes_none(ptep - ((addr - base) >> PAGE_SHIFT), 1ul << o))
			continue;
		f = vma_alloc_folio(vma, base, (unsigned)o, ALLOC_ZERO);
		if (f)
			return f;
	}
	return NULL;
}

/*
 * do_anonymous_page - map a new folio over the empty PTE @ptep for @addr:
 * one reference and one mapping per page, AnonExclusive, young, dirty
 * for a write. Return: 0 or -ENOMEM (nothing changed).
 * Context: the PTE table lock is held.
 */
static int do_anonymous_page(struct vma *vma, pte_t *ptep, unsigned long addr, bool write)
{
	struct folio *folio = alloc_anon_folio(vma, ptep, addr);
	unsigned long nr, base;
	pte_t pte;

	if (!folio)
		return -ENOMEM;
	nr = folio_nr_pages(folio);
	base = addr & ~(nr * PAGE_SIZE - 1);
	folio_prepare_anon(folio);
	if (nr > 1)
		folio_ref_add(folio, (int)nr - 1);
	folio_add_rmap_ptes(folio, &folio->page, (int)nr);
	pte = vma_mk_pte(vma, folio_pfn(folio));
	if (write)
		pte = pte_mkdirty(pte);
	set_ptes(vma->mm, base, ptep - ((addr - base) >> PAGE_SHIFT), pte, (unsigned)nr);
	folio_add_lru(folio, vma->mm, base);
	return 0;
}

/* Check @flags against @vma's protection. A read needs any access: the
 * entries of a write- or exec-only VMA are readable (VM_ACCESS_FLAGS), as
 * on Linux's x86 fault path. A forced write needs any access too. */
static bool access_ok(struct vma *vma, unsigned flags)
{
	if ((flags & (FAULT_WRITE | FAULT_FORCE)) == FAULT_WRITE && !(vma->flags & VM_WRITE))
		return false;
	/* A forced write breaks COW; a shared mapping has none to break. */
	if ((flags & FAULT_WRITE) && (vma->flags & (VM_SHARED | VM_WRITE)) == VM_SHARED)
		return false;
	if ((flags & FAULT_EXEC) && !(vma->flags & VM_EXEC))
		return false;
	return vma->flags & VM_ACCESS_FLAGS;
}

/* Does a fault with @flags on a present entry mapping @page (writable
 * if @write_ok) need cow.c: a write to a read-only entry, or an unshare
 * of a page that is not exclusive? */
static bool needs_wp(unsigned flags, bool write_ok, struct page *page)
{
	if ((flags & FAULT_WRITE) && !write_ok)
		return true;
	return (flags & FAULT_UNSHARE) && !PageAnonExclusive(page);
}

/*
 * do_access_flags - the entry at @ptep allows the access: make it young,
 * and dirty for a write (the MMU faults until it is, where it does not
 * set the bits itself). ptep_set_access_flags() flushes what it changed
 * (a whole contpte block on arm64); when nothing changed the fault was
 * spurious and there is nothing to flush. Context: the PTE table lock
 * is held.
 */
static void do_access_flags(struct vma *vma, pte_t *ptep, unsigned long addr, pte_t pte, bool write)
{
	pte_t entry = pte_mkyoung(pte);

	if (write)
		entry = pte_mkdirty(entry);
	ptep_set_access_flags(vma, addr, ptep, entry);
}

/*
 * A migration is moving what the entry at @p maps: wait, with the entry's
 * lock dropped, until it is no longer @val, the migration entry the fault
 * read, so that the retried access (or GUP's retried walk) finds the new
 * mapping instead of the same entry again (Linux's migration_entry_wait(),
 * spinning instead of sleeping on the folio). @p stays a table entry: a
 * table is freed only under the mmap_lock for write, and the fault holds
 * it for read; the migration needs no lock the fault still holds.
 */
static void migration_entry_wait(const uint64_t *p, uint64_t val)
{
	count_event(migration_waits, 1);
	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) == val)
		arch_cpu_relax();
}

/* A fault in a PTE table (hooked under @pmdp). The entry is read once,
 * under the table's lock, and everything done with it (cow.c too) is
 * done before that lock is dropped: a migration, a zap or a fork on
 * another CPU changes it only under that lock. */
static int handle_pte_fault(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags,
			    struct numa_fault *nf)
{
	struct spinlock *ptl;
	pte_t *ptep = pte_offset_map_lock(vma->mm, pmdp, addr, &ptl);
	pte_t pte = ptep_get(ptep);
	int err = 0;

	if (is_migration_entry(pte)) {
		pte_unmap_unlock(ptep, ptl);
		migration_entry_wait(&ptep->val, pte.val);
		return 0;
	} else if (pte_none(pte) && vma->shm) {
		err = shmem_fault_none(vma, ptep, addr, flags & FAULT_WRITE);
	} else if (pte_none(pte)) {
		err = do_anonymous_page(vma, ptep, addr, flags & FAULT_WRITE);
	} else if (is_swap_entry(pte)) {
		err = do_swap_page(vma, ptep, addr, pte, flags & FAULT_WRITE);
	} else if (!pte_user(pte)) { /* the VMA allows the access: a hinting entry */
		err = do_numa_page(vma, pmdp, addr, pte, nf);
	} else if (vma->shm) { /* no copy on write, nothing to unshare */
		shmem_fault_present(vma, ptep, addr, pte, flags & FAULT_WRITE);
	} else if (needs_wp(flags, pte_write(pte), pfn_to_page(pte_pfn(pte)))) {
		if (wp_fault_window_hook)
			wp_fault_window_hook(vma->mm, addr); /* tests: another CPU's step here */
		err = do_wp_page(vma, addr, ptep, pte, flags);
	} else {
		do_access_flags(vma, ptep, addr, pte, flags & FAULT_WRITE);
	}
	pte_unmap_unlock(ptep, ptl);
	if (err == SHMEM_FAULT_WAIT) /* a migration holds the shared page */
		return shmem_fault_wait(vma, addr);
	return err;
}

/* A fault in a PMD-mapped folio. Return: as do_huge_pmd_wp_page() (1:
 * split, go on in the PTE table), else 0. Context: page_table_lock held. */
static int handle_huge_pmd_fault(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags,
				 struct numa_fault *nf)
{
	pmd_t pmd = pmdp_get(pmdp), entry = pmd_mkyoung(pmd);
	unsigned long base = addr & PMD_MASK;

	if (!pmd_user(pmd)) /* the VMA allows the access: a hinting leaf */
		return do_huge_pmd_numa_page(vma, pmdp, addr, nf);

	if (needs_wp(flags, pmd_write(pmd), pfn_to_page(pmd_pfn(pmd))))
		return do_huge_pmd_wp_page(vma, pmdp, addr, flags);
	if (flags & FAULT_WRITE)
		entry = pmd_mkdirty(entry);
	if (entry.val != pmd.val) {
		set_pmd(pmdp, entry);
		flush_tlb_range(vma->mm, base, base + PMD_SIZE);
	}
	return 0;
}

/* May a fresh PMD-mapped 2 MiB folio serve @addr in @vma? */
static bool thp_pmd_suitable(struct vma *vma, unsigned long addr)
{
	unsigned long base = addr & PMD_MASK;

	return !vma->shm && (vma_fault_orders(vma) & (1ul << PMD_ORDER)) &&
	       !(vma->flags & VM_NOHUGEPMD) && base >= vma->start && base + PMD_SIZE <= vma->end;
}

/* Hook a new PTE table under the empty @pmdp. Return: 0 or -ENOMEM.
 * Context: page_table_lock held. */
int pte_alloc(struct mm *mm, pmd_t *pmdp)
{
	struct page *pt = pt_alloc(mm);

	if (!pt)
		return -ENOMEM;
	set_pmd(pmdp, pmd_mktable(page_to_pfn(pt)));
	return 0;
}

/*
 * handle_pmd_fault - what the pmd entry for @addr decides, under the
 * page_table_lock (other CPUs fault on the same pmd under the mmap_lock
 * for read): a migration entry (wait for it to go), a new PMD leaf, a fault on a
 * leaf, or a PTE table hooked where there was none. Return: 1 when the
 * fault goes on in the PTE table, else 0 or -errno (done).
 */
static int handle_pmd_fault(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags,
			    struct numa_fault *nf)
{
	struct mm *mm = vma->mm;
	int ret = 1;

	spin_lock(&mm->page_table_lock);
	if (is_pmd_migration_entry(pmdp_get(pmdp))) {
		pmd_t pmd = pmdp_get(pmdp);

		spin_unlock(&mm->page_table_lock);
		migration_entry_wait(&pmdp->val, pmd.val);
		return 0;
	} else if (pmd_none(pmdp_get(pmdp)) && thp_pmd_suitable(vma, addr) &&
		   do_huge_pmd_anonymous_page(vma, pmdp, addr, flags & FAULT_WRITE) == 0)
		ret = 0;
	else if (pmd_leaf(pmdp_get(pmdp)))
		ret = handle_huge_pmd_fault(vma, pmdp, addr, flags, nf);
	else if (pmd_none(pmdp_get(pmdp)) && pte_alloc(mm, pmdp))
		ret = -ENOMEM;
	spin_unlock(&mm->page_table_lock);
	return ret;
}

/* The fault; a hinting fault notes in *@nf (if not NULL) the folio that
 * should move. Context: the mmap_lock held for read. */
static int do_fault(struct mm *mm, unsigned long addr, unsigned flags, struct numa_fault *nf)
{
	struct vma *vma = find_vma(mm, addr);
	pmd_t *pmdp;
	int ret;

	if (!vma || !access_ok(vma, flags))
		return -EFAULT;
	reclaim_before_fault(vma); /* the allocator's direct reclaim: no PTE lock yet */
	count_event(faults, 1);
	pmdp = mm_find_pmd(mm, addr, true);
	if (!pmdp)
		return -ENOMEM;
	ret = handle_pmd_fault(vma, pmdp, addr, flags, nf);
	if (ret <= 0)
		return ret;
	return handle_pte_fault(vma, pmdp, addr, flags, nf);
}

/* GUP's fault: a hinting fault only gives the access back (the folio
 * cannot move while the caller holds the mmap_lock). */
int __handle_mm_fault(struct mm *mm, unsigned long addr, unsigned flags)
{
	return do_fault(mm, addr, flags, NULL);
}

int handle_mm_fault(struct mm *mm, unsigned long addr, unsigned flags)
{
	struct numa_fault nf = { 0 };
	int ret;

	read_lock(&mm->mmap_lock);
	ret = do_fault(mm, addr, flags, &nf);
	read_unlock(&mm->mmap_lock);
	if (!ret)
		numa_migrate_misplaced(mm, &nf);
	numa_scan_tick(mm);
	return ret;
}
