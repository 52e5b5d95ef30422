/*
 * proc_kpageflags.c - /proc/kpageflags: one 64-bit word of flags per
 * physical frame, indexed by PFN, in Linux's bit layout
 * (Documentation/admin-guide/mm/pagemap.rst), as root reads it. A
 * program finds its folios' sizes by reading its PFNs in
 * /proc/self/pagemap and then their COMPOUND_HEAD / COMPOUND_TAIL bits
 * here (lbench's census does).
 *
 * What ptelab's struct page can say, and Linux's bit for it:
 *
 *   no memmap entry (a hole)          NOPAGE
 *   PG_buddy (head of a free block)   BUDDY
 *   PG_pgtable                        PGTABLE
 *   PG_reserved                       RESERVED
 *   head / tail of a large folio      COMPOUND_HEAD / COMPOUND_TAIL, and
 *                                     THP for an anon one (6.12 marks
 *                                     every large anon folio THP, not
 *                                     only PMD-sized ones)
 *   the folio's PG_anon               ANON, and SWAPBACKED unless lazyfree
 *   the folio's PG_shmem              SWAPBACKED
 *   PG_dirty, PG_referenced, PG_locked  DIRTY, REFERENCED, LOCKED
 *   the page mapped by a PTE or its folio by a PMD   MMAP
 *
 * ptelab has no LRU, page cache, swap cache, writeback or KSM: those bits
 * are never set. Reads race with allocation and freeing as Linux's do:
 * each word is one moment of its frame, not a snapshot of all of them.
 */
#include <errno.h>

#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "procfs.h"

#define KPF_LOCKED 0
#define KPF_REFERENCED 2
#define KPF_DIRTY 4
#define KPF_BUDDY 10
#define KPF_MMAP 11
#define KPF_ANON 12
#define KPF_SWAPBACKED 14
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_NOPAGE 20
#define KPF_THP 22
#define KPF_PGTABLE 26
#define KPF_RESERVED 32

#define KPF_ENTRY_BYTES 8
#define KPF_CHUNK 64 /* words built per copy_to_user */

#define KPF(bit) (1ull << (bit))

/* One past the highest PFN any node's memmap spans. */
static uint64_t kpf_max_pfn(void)
{
	uint64_t max = 0;

	for (int i = 0; i < nr_pglists; i++)
		if (pglists[i].end_pfn > max)
			max = pglists[i].end_pfn;
	return max;
}

/* The bits an allocated page of a folio gets from the folio's head. */
static uint64_t kpf_folio_bits(const struct page *page)
{
	const struct folio *folio = page_folio((struct page *)page);
	uint32_t hf = page_flags(&folio->page), pf = page_flags(page);
	uint64_t u = 0;

	if (pf & PG_tail)
		u |= KPF(KPF_COMPOUND_TAIL);
	else if (hf & PG_large)
		u |= KPF(KPF_COMPOUND_HEAD);
	if ((hf & (PG_large | PG_anon)) == (PG_large | PG_anon))
		u |= KPF(KPF_THP);
	if (hf & PG_anon)
		u |= KPF(KPF_ANON) | (hf & PG_lazyfree ? 0 : KPF(KPF_SWAPBACKED));
	if (hf & PG_shmem) /* Linux's shmem page: swap-backed, not anon */
		u |= KPF(KPF_SWAPBACKED);
	if (hf & PG_dirty)
		u |= KPF(KPF_DIRTY);
	if (hf & PG_referenced)
		u |= KPF(KPF_REFERENCED);
	if (hf & PG_locked)
		u |= KPF(KPF_LOCKED);
	if (page_mapcount(page) > 0 || folio_entire_mapcount(folio) > 0)
		u |= KPF(KPF_MMAP);
	return u;
}

/* The word for @pfn. */
static uint64_t kpf_entry(uint64_t pfn)
{
	const struct page *page = pfn_to_page(pfn);
	uint32_t pf;

	if (!page)
		return KPF(KPF_NOPAGE);
	pf = page_flags(page);
	if (pf & PG_buddy)
		return KPF(KPF_BUDDY);
	if (pf & PG_pgtable)
		return KPF(KPF_PGTABLE);
	if (pf & PG_reserved)
		return KPF(KPF_RESERVED);
	if (!(pf & PG_tail) && folio_ref_count(page_folio((struct page *)page)) <= 0)
		return 0; /* free, not a block's head */
	return kpf_folio_bits(page);
}

/*
 * proc_kpageflags_read - the words of frames @pos / 8 onwards, @len / 8
 * of them, into user @buf; as Linux: @pos and @len multiples of 8
 * (-EINVAL), a read past the last frame is short (0 at the end).
 * Context: process context; no lock held (copy_to_user may fault).
 */
static long proc_kpageflags_read(struct process *p, unsigned long buf, size_t len, uint64_t pos)
{
	uint64_t pfn = pos / KPF_ENTRY_BYTES, end = kpf_max_pfn(), chunk[KPF_CHUNK];
	size_t done = 0;

	(void)p;
	if (pos % KPF_ENTRY_BYTES || len % KPF_ENTRY_BYTES)
		return -EINVAL;
	while (done < len && pfn < end) {
		size_t n = 0;

		while (n < KPF_CHUNK && done + n * KPF_ENTRY_BYTES < len && pfn + n < end) {
			chunk[n] = kpf_entry(pfn + n);
			n++;
		}
		if (copy_to_user(buf + done, chunk, n * KPF_ENTRY_BYTES))
			return done ? (long)done : -EFAULT;
		done += n * KPF_ENTRY_BYTES;
		pfn += n;
	}
	return (long)done;
}

static const struct proc_entry kpageflags_files[] = {
	{ "proc/kpageflags", .read = proc_kpageflags_read },
};

const struct sys_table proc_kpageflags_table = { kpageflags_files, 1 };
