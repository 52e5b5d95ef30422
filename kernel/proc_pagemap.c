/*
 * proc_pagemap.c - /proc/self/pagemap: one 64-bit entry per virtual
 * page, in Linux's layout (Documentation/admin-guide/mm/pagemap.rst), as
 * Linux shows it to root (PFNs not hidden):
 *
 *   bit 63     present
 *   bit 62     swapped: a swap entry (mm/swap.h), or a migration entry
 *   bit 61     file page or shared anon: a page of a shared anonymous
 *              object (PG_shmem, mm/shmem.h), Linux's shmem page
 *   bit 56     exclusively mapped: the page's precise mapcount is 1
 *   bit 55     soft-dirty: never (no soft-dirty tracking; smaps says so
 *              by the missing "sd" VmFlag, which the selftests check)
 *   bits 0-54  present: the PFN; swapped: type (bits 0-4, 0 here) and
 *              offset (the swap slot, or the PFN a migration entry names)
 *              above it
 *
 * An address with nothing mapped, inside a VMA or not, reads 0.
 */
#include <errno.h>

#include "folio_walk.h"
#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "procfs.h"
#include "spinlock.h"
#include "swapops.h"

#define PM_ENTRY_BYTES 8
#define PM_PFRAME_MASK ((1ull << 55) - 1)
#define PM_SWAP_TYPE_BITS 5 /* Linux's MAX_SWAPFILES_SHIFT */
#define PM_MMAP_EXCLUSIVE (1ull << 56)
#define PM_FILE (1ull << 61)
#define PM_SWAP (1ull << 62)
#define PM_PRESENT (1ull << 63)
#define PM_CHUNK 64 /* entries built under the lock per copy_to_user */

/* The entry for @addr. Context: @mm's mmap_lock held for read. */
static uint64_t pagemap_entry(struct mm *mm, unsigned long addr)
{
	struct folio_walk fw;
	uint64_t pfn, file;
	pte_t e;

	if (!folio_walk(mm, addr, FW_MIGRATION, &fw))
		return swap_entry_at(mm, addr, &e)
			       ? PM_SWAP | ((swap_entry_offset(e) << PM_SWAP_TYPE_BITS) &
					    PM_PFRAME_MASK)
			       : 0;
	pfn = page_to_pfn(fw.page);
	if (fw.migration)
		return PM_SWAP | ((pfn << PM_SWAP_TYPE_BITS) & PM_PFRAME_MASK);
	file = page_flags(&fw.folio->page) & PG_shmem ? PM_FILE : 0;
	/* Linux's folio_precise_page_mapcount(): the page's PTE mappings
	 * plus the folio's PMD mappings. */
	if (page_mapcount(fw.page) + folio_entire_mapcount(fw.folio) == 1)
		return PM_PRESENT | PM_MMAP_EXCLUSIVE | file | (pfn & PM_PFRAME_MASK);
	return PM_PRESENT | file | (pfn & PM_PFRAME_MASK);
}

/*
 * proc_pagemap_read - the entries of the pages @pos / 8 onwards, @len / 8
 * of them, into user @buf; as Linux: @pos and @len must be multiples of
 * 8 (-EINVAL), a read past the user address space is short.
 * Context: process context; takes the mmap_lock for read per chunk, and
 * drops it for copy_to_user (which may fault).
 */
long proc_pagemap_read(struct process *p, unsigned long buf, size_t len, uint64_t pos)
{
	uint64_t vpn = pos / PM_ENTRY_BYTES, end_vpn = MM_USER_END >> PAGE_SHIFT, chunk[PM_CHUNK];
	size_t done = 0;

	if (pos % PM_ENTRY_BYTES || len % PM_ENTRY_BYTES)
		return -EINVAL;
	while (done < len && vpn < end_vpn) {
		size_t n = 0;

		read_lock(&p->mm->mmap_lock);
		while (n < PM_CHUNK && done + n * PM_ENTRY_BYTES < len && vpn + n < end_vpn) {
			chunk[n] = pagemap_entry(p->mm, (unsigned long)((vpn + n) << PAGE_SHIFT));
			n++;
		}
		read_unlock(&p->mm->mmap_lock);
		if (copy_to_user(buf + done, chunk, n * PM_ENTRY_BYTES))
			return done ? (long)done : -EFAULT;
		done += n * PM_ENTRY_BYTES;
		vpn += n;
	}
	return (long)done;
}
