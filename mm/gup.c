/*
 * gup.c - get_user_pages / pin_user_pages with the two seed batchings.
 *
 * 1. The walk (seed "walk multiple PTEs per follow_page_pte() call"): one
 *    descent to the PTE table and one PTE-lock hold serve every PTE up to
 *    the table, VMA or request end. caps.gup_walk = false is one PTE per
 *    call, one descent and one lock per page, as before the seed.
 * 2. The grab (seed "batch contiguous same-folio PTEs into one refcount
 *    grab"): a run of PTEs mapping consecutive pages of one folio is
 *    committed with one reference (or pin) update, one dirty mark and one
 *    folio_mark_accessed. caps.gup_grab bounds the run; 1 is per page.
 *
 * The review objection to the grab: under FOLL_WRITE or FOLL_PIN each page
 * needs its own checks (writable PTE; AnonExclusive, else unshare), so one
 * grab for a run is only right when every page of the run passes. Here
 * the run comes from folio_pte_batch() without ignoring the write bit, so
 * all its PTEs agree on writability, and gup_must_unshare() is evaluated
 * per page over the run with no per-page grab: the run is cut before the
 * first page whose answer differs, and that page takes the slow path
 * (return to the caller, fault, retry). So the batched path takes exactly
 * the references the per-page path would, page for page.
 */
#include <errno.h>

#include "gup.h"
#include "kernel.h"
#include "mm_internal.h"

/* Must a FOLL_PIN of @page unshare it first? (Linux gup_must_unshare for
 * anon pages: pins of shared anon pages would go stale on the next COW.) */
static bool gup_must_unshare(unsigned flags, struct page *page)
{
	if (!(flags & FOLL_PIN) || (flags & FOLL_WRITE))
		return false;
	return (page_folio(page)->page.flags & PG_anon) && !(page->flags & PG_anon_exclusive);
}

/* Take @nr references or pins on @folio at once. */
static void gup_grab(struct folio *folio, int nr, unsigned flags)
{
	if (flags & FOLL_PIN)
		folio_pin_refs(folio, nr);
	else
		folio_ref_add(folio, nr);
}

static void folio_mark_accessed(struct folio *folio)
{
	count_event(mark_accessed, 1);
	folio->page.flags |= PG_referenced;
}

/* Commit @nr pages of @folio from @page into @pages. */
static void gup_commit(struct folio *folio, struct page *page, int nr, unsigned flags,
		       struct page **pages)
{
	gup_grab(folio, nr, flags);
	if (flags & FOLL_TOUCH) {
		if (flags & FOLL_WRITE)
			folio->page.flags |= PG_dirty;
		folio_mark_accessed(folio);
	}
	for (int i = 0; i < nr; i++)
		pages[i] = page + i;
}

/* The checks one PTE must pass to be taken without a fault. */
static bool pte_gup_ok(pte_t pte, unsigned flags)
{
	return pte_present(pte) && (!(flags & FOLL_WRITE) || pte_write(pte));
}

/*
 * gup_pte_run - take the run of pages starting at @ptep (whose value @pte
 * passed pte_gup_ok). Return: pages taken (0 when the first page needs an
 * unshare fault). Context: PTE lock held.
 */
static unsigned gup_pte_run(unsigned long addr, pte_t *ptep, pte_t pte, unsigned long left,
			    unsigned flags, struct page **pages)
{
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio = page_folio(page);
	unsigned nr = 1;

	if (folio_test_large(folio) && caps.gup_grab > 1)
		nr = folio_pte_batch(folio, addr, ptep, pte, cap_nr(caps.gup_grab, left),
				     FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, NULL);
	for (unsigned i = 0; i < nr; i++)
		if (gup_must_unshare(flags, page + i)) {
			nr = i; /* page i takes the slow path */
			break;
		}
	if (nr)
		gup_commit(folio, page, (int)nr, flags, pages);
	return nr;
}

/*
 * follow_page_pte - take pages from the PTE table behind @pmdp, from @addr
 * up to @end (the table, VMA and request bound; one page without
 * caps.gup_walk). Return: pages taken; 0 means the first page needs a
 * fault, with *@fault_flags saying which.
 */
static unsigned long follow_page_pte(struct mm *mm, pmd_t *pmdp, unsigned long addr,
				     unsigned long end, unsigned flags, struct page **pages,
				     unsigned *fault_flags)
{
	struct spinlock *ptl;
	pte_t *ptep = pte_offset_map_lock(mm, pmdp, addr, &ptl);
	unsigned long done = 0;

	while (addr < end) {
		pte_t pte = ptep_get(ptep);
		unsigned nr;

		if (!pte_gup_ok(pte, flags)) {
			*fault_flags = flags & FOLL_WRITE ? FAULT_WRITE : 0;
			break;
		}
		nr = gup_pte_run(addr, ptep, pte, (end - addr) >> PAGE_SHIFT, flags, pages + done);
		if (!nr) {
			*fault_flags = FAULT_UNSHARE;
			break;
		}
		done += nr;
		ptep += nr;
		addr += (unsigned long)nr * PAGE_SIZE;
	}
	pte_unmap_unlock(ptep, ptl);
	return done;
}

/* A PMD-mapped folio: every page up to @end in one step, one grab. */
static unsigned long follow_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long end,
				     unsigned flags, struct page **pages, unsigned *fault_flags)
{
	struct page *head = pfn_to_page(pmd_pfn(pmd));
	struct page *page = head + ((addr & ~PMD_MASK) >> PAGE_SHIFT);

	if ((flags & FOLL_WRITE) && !pmd_write(pmd)) {
		*fault_flags = FAULT_WRITE;
		return 0;
	}
	if (gup_must_unshare(flags, head)) {
		*fault_flags = FAULT_UNSHARE;
		return 0;
	}
	gup_commit(page_folio(head), page, (int)((end - addr) >> PAGE_SHIFT), flags, pages);
	return (end - addr) >> PAGE_SHIFT;
}

/* One lookup step at @addr; 0 means "fault with *fault_flags". */
static unsigned long follow_page_mask(struct vma *vma, unsigned long addr, unsigned long end,
				      unsigned flags, struct page **pages, unsigned *fault_flags)
{
	pmd_t *pmdp = mm_find_pmd(vma->mm, addr, false);
	unsigned long stop = pmd_addr_end(addr, end);

	*fault_flags = flags & FOLL_WRITE ? FAULT_WRITE : 0;
	if (!pmdp || pmd_none(*pmdp))
		return 0;
	if (pmd_leaf(*pmdp))
		return follow_huge_pmd(*pmdp, addr, stop, flags, pages, fault_flags);
	if (!caps.gup_walk)
		stop = addr + PAGE_SIZE;
	return follow_page_pte(vma->mm, pmdp, addr, stop, flags, pages, fault_flags);
}

static int check_vma(struct vma *vma, unsigned flags)
{
	if (!vma)
		return -EFAULT;
	if ((flags & FOLL_WRITE) && !(vma->flags & VM_WRITE))
		return -EFAULT;
	return vma->flags & VM_READ ? 0 : -EFAULT;
}

static long __get_user_pages(struct mm *mm, unsigned long start, unsigned long nr_pages,
			     unsigned flags, struct page **pages)
{
	unsigned long done = 0, addr = start;

	if ((start & (PAGE_SIZE - 1)) || !nr_pages || start >= MM_USER_END ||
	    nr_pages > (MM_USER_END - start) >> PAGE_SHIFT || !pages)
		return -EINVAL;
	while (done < nr_pages) {
		struct vma *vma = find_vma(mm, addr);
		unsigned long end, got;
		unsigned fault_flags;
		int err = check_vma(vma, flags);

		if (err)
			return done ? (long)done : err;
		end = start + nr_pages * PAGE_SIZE < vma->end ? start + nr_pages * PAGE_SIZE
							      : vma->end;
		got = follow_page_mask(vma, addr, end, flags, pages + done, &fault_flags);
		if (!got) {
			err = handle_mm_fault(mm, addr, fault_flags);
			if (err)
				return done ? (long)done : err;
			continue;
		}
		done += got;
		addr += got * PAGE_SIZE;
	}
	return (long)done;
}

long get_user_pages(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		    struct page **pages)
{
	if (flags & (FOLL_PIN | FOLL_LONGTERM))
		return -EINVAL;
	return __get_user_pages(mm, start, nr_pages, flags | FOLL_GET, pages);
}

long pin_user_pages(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		    struct page **pages)
{
	if (flags & FOLL_GET)
		return -EINVAL;
	mm_set_has_pinned(mm);
	return __get_user_pages(mm, start, nr_pages, flags | FOLL_PIN, pages);
}

/* Length of the run of pages[i..] that are consecutive pages of one folio,
 * capped by caps.gup_grab. */
static unsigned long release_run(struct page **pages, unsigned long i, unsigned long n)
{
	struct folio *f = page_folio(pages[i]);
	unsigned long k = 1;

	while (i + k < n && k < caps.gup_grab && pages[i + k] == pages[i] + k &&
	       page_folio(pages[i + k]) == f)
		k++;
	return k;
}

void put_user_pages(struct page **pages, unsigned long n)
{
	for (unsigned long i = 0, k; i < n; i += k) {
		k = release_run(pages, i, n);
		folio_put_refs(page_folio(pages[i]), (int)k);
	}
}

void unpin_user_pages(struct page **pages, unsigned long n, bool make_dirty)
{
	for (unsigned long i = 0, k; i < n; i += k) {
		struct folio *f = page_folio(pages[i]);

		k = release_run(pages, i, n);
		if (make_dirty)
			f->page.flags |= PG_dirty;
		folio_unpin_refs(f, (int)k);
	}
}
