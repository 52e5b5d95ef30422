/*
 * gup.c - get_user_pages / pin_user_pages: the walk, with the two seed
 * batchings, and the lockless gup-fast walk.
 *
 * 1. The walk (seed "walk multiple PTEs per follow_page_pte() call"):
 *    one descent to the PTE table and one PTE-lock hold serve every PTE
 *    up to the table, VMA or request end. A failure on the first PTE is
 *    returned (0 = "fault, then call again"); a failure after that ends
 *    the walk with the pages taken so far, and the next call starts at
 *    the failing PTE, where it is the first. mm_caps.gup_walk = false is one
 *    PTE per call, one descent and one lock per page, as before the seed.
 * 2. The grab (seed "batch contiguous same-folio PTEs into one refcount
 *    grab"): a run of PTEs mapping consecutive pages of one folio is
 *    committed with one refcount update (and one pincount update), the
 *    run's dirty bits gathered, one folio_mark_accessed(). mm_caps.gup_grab
 *    bounds the run; 1 is one grab per page.
 *
 * The contract of the grab: every page of a run passes the checks the
 * per-page path makes. They are made here over the run before the grab,
 * and the run is cut where an answer changes (docs/gup.md states the
 * rule):
 *  - present and, for FOLL_WRITE, writable: folio_pte_batch() without
 *    FPB_MERGE_WRITE, so every PTE of the run has the first one's write
 *    bit (for a read, write bits may differ: a read needs none);
 *  - no unshare needed: for a read-only pin of an anon page, each page of
 *    the run is AnonExclusive; the run ends before the first that is not.
 *    (A writable PTE maps an AnonExclusive page, so FOLL_WRITE runs need
 *    no scan: check.c verifies that invariant.)
 * So a run takes exactly the references the per-page path would, and the
 * page where it was cut starts the next step, as the per-page path would
 * have reached it: with a fault if it needs one.
 */
#include <errno.h>

#include "gup.h"
#include "kernel.h"
#include "lockless_walk.h"
#include "mm_internal.h"
#include "folio_walk.h"
#include "pte_batch.h"
#include "trace.h"

/* Internal: a FOLL_FORCE | FOLL_WRITE call in a VMA without VM_WRITE
 * (__get_user_pages() sets it per VMA in g->flags). */
#define FOLL_FORCE_WRITE (1u << 7)

/* One get/pin call: what it asks for and where it stopped. */
struct gup_ctx {
	struct mm *mm;
	unsigned flags; /* FOLL_* */
	unsigned fault; /* FAULT_* the page at the stop needs (when 0 pages were taken) */
};

/* Faults one address may take in a row before the walk calls it a bug:
 * a fault makes the entry usable, so the retry must make progress unless
 * another CPU changed the entry since (gup_fault() counts from there). */
#define GUP_MAX_FAULTS 3

/* Can this call take the page of @pte as it is: present, open to user
 * mode, and writable for FOLL_WRITE? Else *@fault is the fault it needs
 * first. (The walk checked the VMA, so a present entry closed to user
 * mode is a NUMA hinting entry, which the fault opens; gup-fast, which
 * has no VMA, makes the same test.) */
static bool gup_pte_ok(pte_t pte, unsigned flags, unsigned *fault)
{
	*fault = flags & FOLL_WRITE ? FAULT_WRITE : 0;
	if (!pte_user(pte)) /* pte_user() implies pte_present() */
		return false;
	return !(flags & FOLL_WRITE) || pte_write(pte);
}

/*
 * gup_must_unshare - must a read-only pin of @page unshare it first
 * (Linux's rule for anon pages)? A pin of a page that is not
 * AnonExclusive would go stale at the next COW of either sharer.
 * FOLL_GET references promise nothing, and FOLL_WRITE has already broken
 * COW (a writable entry maps an AnonExclusive page).
 */
static bool gup_must_unshare(unsigned flags, struct page *page)
{
	if ((flags & (FOLL_PIN | FOLL_WRITE)) != FOLL_PIN)
		return false;
	return (page_flags(&page_folio(page)->page) & PG_anon) && !PageAnonExclusive(page);
}

/* How many of the @nr pages from @page pass gup_must_unshare() the way
 * @page does (which passes): the run ends before the first that does not. */
static unsigned gup_unshare_prefix(unsigned flags, struct page *page, unsigned nr)
{
	unsigned i = 1;

	if ((flags & (FOLL_PIN | FOLL_WRITE)) != FOLL_PIN)
		return nr;
	while (i < nr && PageAnonExclusive(page + i))
		i++;
	return i;
}

/*
 * gup_run_len - how many PTEs from @ptep (value @pte, present and passing
 * gup_pte_ok) map consecutive pages of @folio that this call may take
 * as one run: bounded by @left, mm_caps.gup_grab, the folio and the table.
 * For FOLL_WRITE all of them are writable like @pte. Context: PTE lock
 * held (or the gup-fast walk, which re-checks afterwards).
 */
static unsigned gup_run_len_large(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
				  unsigned long left, unsigned flags)
{
	unsigned max = cap_nr(mm_caps.gup_grab, left);

	if (flags & FOLL_WRITE)
		return folio_pte_batch(folio, addr, ptep, pte, max,
				       FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, NULL);
	return folio_pte_batch(folio, addr, ptep, pte, max,
			       FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG | FPB_MERGE_WRITE, NULL);
}

static inline unsigned gup_run_len(struct folio *folio, unsigned long addr, pte_t *ptep, pte_t pte,
				   unsigned long left, unsigned flags)
{
	if (!folio_test_large(folio) || mm_caps.gup_grab <= 1 || left <= 1)
		return 1;
	return gup_run_len_large(folio, addr, ptep, pte, left, flags);
}

/*
 * gup_unshare_bound - for a read-only pin, @left cut to the pages from
 * @page (AnonExclusive) that are AnonExclusive too, within the folio: a
 * run must end before the first that is not. Computed from the pages
 * alone, before the PTE scan, so the scan reads no entry past the cut.
 */
static inline unsigned long gup_unshare_bound(struct folio *folio, struct page *page,
					      unsigned long left, unsigned flags)
{
	unsigned long in_folio = folio_pages_from(folio, page);

	if ((flags & (FOLL_PIN | FOLL_WRITE)) != FOLL_PIN || !folio_test_large(folio))
		return left;
	return gup_unshare_prefix(flags, page, cap_nr(cap_nr(mm_caps.gup_grab, left), in_folio));
}

/* Are all the @nr PTEs from @ptep (the first is @pte) dirty? The per-page
 * path marks the folio dirty for every clean PTE it takes under
 * FOLL_WRITE, so the run must mark it unless none is clean. Only read
 * past the first when the answer matters (see gup_touch). */
static bool ptes_all_dirty(pte_t *ptep, pte_t pte, unsigned nr)
{
	if (!pte_dirty(pte))
		return false;
	for (unsigned i = 1; i < nr; i++)
		if (!pte_dirty(ptep_get(ptep + i)))
			return false;
	return true;
}

static void folio_mark_accessed(struct folio *folio)
{
	count_event(mark_accessed, 1);
	if (!(page_flags(&folio->page) & PG_referenced)) /* no atomic RMW when set */
		page_set_flags(&folio->page, PG_referenced);
}

/*
 * A FOLL_TOUCH | FOLL_WRITE caller will write through its reference,
 * which sets no dirty bit in any entry: its folio must be marked dirty,
 * unless it is already or an entry of the run is (the folio is dirty
 * through that entry, as zap and writeback see). Does @folio need it?
 */
static bool gup_wants_dirty(struct folio *folio, unsigned flags)
{
	return (flags & (FOLL_TOUCH | FOLL_WRITE)) == (FOLL_TOUCH | FOLL_WRITE) &&
	       !(page_flags(&folio->page) & PG_dirty);
}

/* FOLL_TOUCH for a run of @folio: once per run, not once per page.
 * Context: the caller checked FOLL_TOUCH. */
static void gup_touch(struct folio *folio, bool mark_dirty)
{
	if (mark_dirty)
		page_set_flags(&folio->page, PG_dirty);
	folio_mark_accessed(folio);
}

/*
 * gup_store - pages[i] = page + i for the run. Two entries per store,
 * with a GCC vector of two pointers (SSE2 on x86_64, NEON on arm64):
 * filling pages[] is most of what a batched run still costs per page
 * once the grab is one update, so it is worth the one idiom.
 */
typedef uintptr_t gup_ptr_pair
	__attribute__((vector_size(2 * sizeof(uintptr_t)), aligned(sizeof(uintptr_t)), may_alias));

static void gup_store(struct page **pages, struct page *page, unsigned nr)
{
	gup_ptr_pair v = { (uintptr_t)page, (uintptr_t)(page + 1) };
	const gup_ptr_pair step = { 2 * sizeof(struct page), 2 * sizeof(struct page) };
	struct page **end = pages + (nr & ~1u);

	for (; pages < end; pages += 2, v += step)
		*(gup_ptr_pair *)pages = v;
	if (nr & 1)
		*pages = (struct page *)v[0];
}

/*
 * gup_try_grab - @refs references (FOLL_GET) or pins (FOLL_PIN) on
 * @folio with one refcount update. Return: how many were taken: @refs,
 * or fewer (0 = none) where the refcount would overflow, which is what
 * @refs one-page grabs would have taken. @fast: gup-fast's grab, which
 * holds no lock that keeps the folio alive: it takes nothing (returns 0)
 * from a folio whose count is zero, i.e. being freed (Linux's
 * try_grab_folio_fast); the caller re-reads the entry after the grab.
 * Inline: at one page per run (4 KiB folios) a call and a division cost
 * as much as the walk saves.
 */
static inline unsigned gup_try_grab(struct folio *folio, unsigned refs, unsigned flags, bool fast)
{
	int64_t per = (flags & FOLL_PIN) && !folio_test_large(folio) ? GUP_PIN_COUNTING_BIAS : 1;
	int64_t room = INT32_MAX - (int64_t)folio_ref_count(folio);

	if (refs * per > room)
		refs = (unsigned)(room / per);
	if (!refs)
		return 0;
	if (fast)
		return folio_try_grab(folio, (int)refs, flags & FOLL_PIN) ? refs : 0;
	if (flags & FOLL_PIN)
		folio_pin(folio, (int)refs);
	else
		folio_ref_add(folio, (int)refs);
	return refs;
}

/*
 * gup_pte_run - take the run of pages that starts at @ptep.
 * Return: pages taken (at least 1); 0 when the first page needs a fault
 * first (g->fault says which); -ENOMEM when its refcount is full.
 * Context: the PTE lock is held.
 */
static long gup_pte_run(struct gup_ctx *g, unsigned long addr, pte_t *ptep, unsigned long left,
			struct page **pages)
{
	pte_t pte = ptep_get(ptep);
	struct page *page;
	struct folio *folio;
	unsigned nr;

	if (!gup_pte_ok(pte, g->flags, &g->fault))
		return 0;
	page = pfn_to_page(pte_pfn(pte));
	folio = page_folio(page);
	if (gup_must_unshare(g->flags, page)) {
		g->fault = FAULT_UNSHARE;
		return 0;
	}
	left = gup_unshare_bound(folio, page, left, g->flags);
	nr = gup_run_len(folio, addr, ptep, pte, left, g->flags);
	nr = gup_try_grab(folio, nr, g->flags, false);
	if (!nr)
		return -ENOMEM;
	if (g->flags & FOLL_TOUCH)
		gup_touch(folio,
			  gup_wants_dirty(folio, g->flags) && !ptes_all_dirty(ptep, pte, nr));
	gup_store(pages, page, nr);
	return nr;
}

/*
 * follow_page_pte - take the pages of [@addr, @end) from the PTE table
 * under @pmdp (@end is inside the table and VMA; one page without
 * mm_caps.gup_walk), one run after another, under one lock hold.
 * Return: pages taken; else what the first run returned (0 = fault).
 * Context: takes and drops the table's PTE lock.
 */
static long follow_page_pte(struct gup_ctx *g, pmd_t *pmdp, unsigned long addr, unsigned long end,
			    struct page **pages)
{
	struct spinlock *ptl;
	pte_t *ptep = pte_offset_map_lock(g->mm, pmdp, addr, &ptl);
	long done = 0, ret = 0;

	if (!ptep)
		return 0; /* the table went away: fault and look again */
	while (addr < end) {
		ret = gup_pte_run(g, addr, ptep, (end - addr) >> PAGE_SHIFT, pages + done);
		if (ret <= 0)
			break;
		done += ret;
		ptep += ret;
		addr += (unsigned long)ret * PAGE_SIZE;
	}
	pte_unmap_unlock(ptep, ptl);
	return done ? done : ret;
}

void (*gup_pmd_window_hook)(struct mm *mm, unsigned long addr);

/*
 * follow_huge_pmd - every page of the PMD leaf @pmd from @addr to @end
 * in one step with one grab: the folio is one mapping, so its pages
 * share one write bit and one AnonExclusive state (huge.c). Not capped
 * by mm_caps.gup_grab: Linux took a PMD in one step before the seeds too.
 * Context: the page_table_lock is held, and @pmd was read under it.
 */
static long follow_huge_pmd(struct gup_ctx *g, pmd_t pmd, unsigned long addr, unsigned long end,
			    struct page **pages)
{
	struct page *page = pfn_to_page(pmd_pfn(pmd)) + ((addr & ~PMD_MASK) >> PAGE_SHIFT);
	struct folio *folio = page_folio(page);
	unsigned nr = (unsigned)((end - addr) >> PAGE_SHIFT);

	if (!pmd_user(pmd) || ((g->flags & FOLL_WRITE) && !pmd_write(pmd))) {
		g->fault = g->flags & FOLL_WRITE ? FAULT_WRITE : 0; /* a hinting leaf: opened */
		return 0;
	}
	if (gup_must_unshare(g->flags, &folio->page)) { /* a PMD's is the head's (huge.c) */
		g->fault = FAULT_UNSHARE;
		return 0;
	}
	nr = gup_try_grab(folio, nr, g->flags, false);
	if (!nr)
		return -ENOMEM;
	if (g->flags & FOLL_TOUCH)
		gup_touch(folio, gup_wants_dirty(folio, g->flags) && !pmd_dirty(pmd));
	gup_store(pages, page, nr);
	return nr;
}

/*
 * follow_pmd_locked - a lockless read found a PMD leaf at @pmdp: read it
 * again under the page_table_lock and take it there. Every change of a
 * leaf (a migration's unmap and remap, a split, a zap) is made under that
 * lock, so what is grabbed is the folio the leaf maps at the grab: never
 * one a migration freed after the lockless read, nor a migration entry
 * read as a leaf (Linux's follow_huge_pmd runs under the pmd lock too).
 * Return: as follow_huge_pmd(), *@st the state found under the lock;
 * 0 and nothing taken unless that is a leaf.
 */
static long follow_pmd_locked(struct gup_ctx *g, pmd_t *pmdp, unsigned long addr, unsigned long end,
			      struct page **pages, enum pmd_state *st)
{
	struct spinlock *ptl = &g->mm->page_table_lock;
	long ret = 0;
	pmd_t pmd;

	spin_lock(ptl);
	pmd = pmdp_get(pmdp);
	*st = pmd_state(pmd);
	if (*st == PMD_LEAF)
		ret = follow_huge_pmd(g, pmd, addr, end, pages);
	spin_unlock(ptl);
	return ret;
}

/*
 * follow_page_mask - one step at @addr: one descent to the pmd, then the
 * PMD leaf or the PTE table, up to @end or the PMD's end. The pmd is read
 * without a lock only to choose the path: a leaf is read again under the
 * page_table_lock (follow_pmd_locked), a table's entries under its lock.
 * Return: pages taken, 0 = fault first (g->fault), or -ENOMEM.
 */
static long follow_page_mask(struct gup_ctx *g, unsigned long addr, unsigned long end,
			     struct page **pages)
{
	pmd_t *pmdp = mm_find_pmd(g->mm, addr, false);
	enum pmd_state st;
	long ret;

	end = pmd_addr_end(addr, end);
	g->fault = g->flags & FOLL_WRITE ? FAULT_WRITE : 0;
	if (!pmdp)
		return 0;
	st = pmd_state(pmdp_get(pmdp));
	if (st == PMD_LEAF) {
		if (gup_pmd_window_hook)
			gup_pmd_window_hook(g->mm, addr); /* tests: another CPU's step here */
		ret = follow_pmd_locked(g, pmdp, addr, end, pages, &st);
		if (st == PMD_LEAF)
			return ret;
	}
	if (st != PMD_TABLE)
		return 0; /* none, or a migration entry: the fault's turn */
	if (!mm_caps.gup_walk)
		end = addr + PAGE_SIZE;
	return follow_page_pte(g, pmdp, addr, end, pages);
}

/* The page @pfn of a read-only entry (@user: open to user mode) for a
 * forced write, when @excl_pfn (the page, or a PMD leaf's head) is this
 * mm's own: the forced fault made it so (Linux's can_follow_write_pte()).
 * Return: 1 and *@pages, 0 (a fault first) or -ENOMEM. */
static long gup_forced_page(struct gup_ctx *g, bool user, uint64_t pfn, uint64_t excl_pfn,
			    bool dirty, struct page **pages)
{
	struct folio *folio;

	if (!user || !PageAnonExclusive(pfn_to_page(excl_pfn)))
		return 0;
	folio = page_folio(pfn_to_page(pfn));
	if (!gup_try_grab(folio, 1, g->flags, false))
		return -ENOMEM;
	if (g->flags & FOLL_TOUCH)
		gup_touch(folio, gup_wants_dirty(folio, g->flags) && !dirty);
	pages[0] = pfn_to_page(pfn);
	return 1;
}

/*
 * follow_forced - FOLL_FORCE_WRITE: the page at @addr that follow_page_mask()
 * would fault for (its entry is read-only) when a forced write may take it
 * as it is: one page, under the lock of its entry. Out of line, apart from
 * the batched walk, which stays what it is for every other call.
 * Return: as gup_forced_page().
 */
static __attribute__((noinline, cold)) long follow_forced(struct gup_ctx *g, unsigned long addr,
							  struct page **pages)
{
	pmd_t *pmdp = mm_find_pmd(g->mm, addr, false);
	unsigned long idx = (addr & ~PMD_MASK) >> PAGE_SHIFT;
	struct spinlock *ptl;
	long ret = 0;
	pte_t *ptep, pte;
	pmd_t pmd;

	if (!pmdp)
		return 0;
	if (pmd_state(pmdp_get(pmdp)) == PMD_LEAF) {
		spin_lock(&g->mm->page_table_lock);
		pmd = pmdp_get(pmdp);
		if (pmd_state(pmd) == PMD_LEAF)
			ret = gup_forced_page(g, pmd_user(pmd), pmd_pfn(pmd) + idx, pmd_pfn(pmd),
					      pmd_dirty(pmd), pages);
		spin_unlock(&g->mm->page_table_lock);
		return ret;
	}
	if (pmd_state(pmdp_get(pmdp)) != PMD_TABLE)
		return 0;
	ptep = pte_offset_map_lock(g->mm, pmdp, addr, &ptl);
	if (!ptep)
		return 0;
	pte = ptep_get(ptep);
	ret = gup_forced_page(g, pte_user(pte), pte_pfn(pte), pte_pfn(pte), pte_dirty(pte), pages);
	pte_unmap_unlock(ptep, ptl);
	return ret;
}

/* May this call touch @vma's pages at all (Linux's check_vma_flags)? A
 * write needs VM_WRITE, a read VM_READ: a write-only VMA may be written
 * through GUP, not read (mm.h, VM_ACCESS_FLAGS). FOLL_FORCE needs any
 * access. */
static int check_vma_flags(struct vma *vma, unsigned flags)
{
	if (!vma)
		return -EFAULT;
	if (flags & FOLL_FORCE)
		return vma->flags & VM_ACCESS_FLAGS ? 0 : -EFAULT;
	if (flags & FOLL_WRITE)
		return vma->flags & VM_WRITE ? 0 : -EFAULT;
	return vma->flags & VM_READ ? 0 : -EFAULT;
}

void (*gup_fault_window_hook)(struct mm *mm, unsigned long addr);

/* The raw entry that maps @addr: its PTE, or the upper entry that is no
 * table (a PMD leaf, a migration entry, none). Counts nothing (the
 * walk's counters are the benchmarks'). Context: mmap_lock held for read
 * (the tables stay); no PTE lock: a value to compare, not to use. */
static uint64_t gup_entry(struct mm *mm, unsigned long addr)
{
	pgd_t *pgdp = pgd_offset_pgd(mm->pgd, addr);
	pud_t *pudp;
	pmd_t pmd;

	if (pgd_none(pgdp_get(pgdp)))
		return 0;
	pudp = pud_offset(pgdp, addr);
	if (pud_none(pudp_get(pudp)) || pud_leaf(pudp_get(pudp)))
		return pudp_get(pudp).val;
	pmd = pmdp_get(pmd_offset(pudp, addr));
	if (pmd_state(pmd) != PMD_TABLE)
		return pmd.val;
	return __ptep_get(pmd_table(pmd) + pte_index(addr)).val;
}

/*
 * The fault g->fault asks for at @addr. *@tries counts the faults there
 * that found the entry as the previous one left it (*@left): a scan that
 * marked it for a hinting fault again, a migration that put a migration
 * entry there, a fork that write-protected it, each on another CPU, is
 * progress there and not the fault's failure, and starts the count again.
 */
static int gup_fault(struct gup_ctx *g, unsigned long addr, int *tries, uint64_t *left)
{
	int ret;

	if (*tries && gup_entry(g->mm, addr) != *left)
		*tries = 0;
	if (++*tries > GUP_MAX_FAULTS)
		panic("__get_user_pages: no progress at %#lx after %d faults (fault flags %#x, "
		      "foll flags %#x)",
		      addr, GUP_MAX_FAULTS, g->fault, g->flags);
	ret = __handle_mm_fault(g->mm, addr,
				g->flags & FOLL_FORCE_WRITE ? g->fault | FAULT_FORCE : g->fault);
	*left = gup_entry(g->mm, addr);
	if (gup_fault_window_hook)
		gup_fault_window_hook(g->mm, addr); /* tests: another CPU's step here */
	return ret;
}

/*
 * __get_user_pages - the slow path: step through [start, start + nr
 * pages) VMA by VMA, faulting where a step asks for it.
 * Return: as get_user_pages().
 */
static long __get_user_pages(struct gup_ctx *g, unsigned long start, unsigned long nr_pages,
			     struct page **pages)
{
	unsigned long addr = start, end = start + nr_pages * PAGE_SIZE, done = 0;
	struct vma *vma = NULL;
	uint64_t left = 0;
	int tries = 0;

	while (addr < end) {
		long ret;

		if (!vma || addr >= vma->end) {
			vma = find_vma(g->mm, addr);
			ret = check_vma_flags(vma, g->flags);
			if (ret)
				return done ? (long)done : ret;
			g->flags &= ~FOLL_FORCE_WRITE;
			if ((g->flags & (FOLL_FORCE | FOLL_WRITE)) == (FOLL_FORCE | FOLL_WRITE) &&
			    !(vma->flags & VM_WRITE))
				g->flags |= FOLL_FORCE_WRITE;
		}
		ret = follow_page_mask(g, addr, end < vma->end ? end : vma->end, pages + done);
		if (ret == 0 && (g->flags & FOLL_FORCE_WRITE))
			ret = follow_forced(g, addr, pages + done);
		if (ret > 0) {
			done += (unsigned long)ret;
			addr += (unsigned long)ret * PAGE_SIZE;
			tries = 0;
			continue;
		}
		if (ret == 0)
			ret = gup_fault(g, addr, &tries, &left);
		if (ret < 0)
			return done ? (long)done : ret;
	}
	return (long)done;
}

/* __get_user_pages() under the mmap_lock for read (the slow path looks
 * at VMAs and faults; Linux's mmap_read_lock around it). */
static long get_user_pages_locked(struct gup_ctx *g, unsigned long start, unsigned long nr_pages,
				  struct page **pages)
{
	long ret;

	read_lock(&g->mm->mmap_lock);
	ret = __get_user_pages(g, start, nr_pages, pages);
	read_unlock(&g->mm->mmap_lock);
	return ret;
}

/* Linux's is_valid_gup_args() plus the range: 0 or -EINVAL/-EFAULT. */
static int gup_check_args(unsigned long start, unsigned long nr_pages, unsigned flags,
			  struct page **pages)
{
	const unsigned known = FOLL_WRITE | FOLL_GET | FOLL_PIN | FOLL_LONGTERM | FOLL_TOUCH |
			       FOLL_FAST_ONLY | FOLL_FORCE;

	if ((flags & ~known) || !pages || (start & (PAGE_SIZE - 1)))
		return -EINVAL;
	if (!(flags & FOLL_GET) == !(flags & FOLL_PIN))
		return -EINVAL; /* exactly one kind of reference */
	if ((flags & FOLL_LONGTERM) && !(flags & FOLL_PIN))
		return -EINVAL; /* only pins can be long-term */
	if (start >= MM_USER_END || nr_pages > (MM_USER_END - start) >> PAGE_SHIFT)
		return -EFAULT;
	return 0;
}

/* The common entry: check, set MMF_HAS_PINNED for pins, walk. */
static long gup_call(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		     struct page **pages)
{
	struct gup_ctx g = { .mm = mm, .flags = flags };
	int err = gup_check_args(start, nr_pages, flags & ~FOLL_FAST_ONLY, pages);

	if (err)
		return err;
	if (!nr_pages)
		return 0;
	if (flags & FOLL_PIN)
		mm_set_has_pinned(mm);
	if (mm_tracing()) {
		long got;

		trace_op_begin("gup", mm, start, start + nr_pages * PAGE_SIZE, mm_caps.gup_grab);
		got = get_user_pages_locked(&g, start, nr_pages, pages);
		trace_op_end("gup");
		return got;
	}
	return get_user_pages_locked(&g, start, nr_pages, pages);
}

long get_user_pages(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		    struct page **pages)
{
	if (flags & (FOLL_GET | FOLL_PIN | FOLL_FAST_ONLY))
		return -EINVAL;
	return gup_call(mm, start, nr_pages, flags | FOLL_GET, pages);
}

long pin_user_pages(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
		    struct page **pages)
{
	if (flags & (FOLL_GET | FOLL_PIN | FOLL_FAST_ONLY))
		return -EINVAL;
	return gup_call(mm, start, nr_pages, flags | FOLL_PIN, pages);
}

/* ---- gup-fast: the lockless walk ------------------------------------------ */

void (*gup_fast_window_hook)(struct mm *mm, unsigned long addr, pte_t *ptep);

/*
 * Did anything gup_fast_run() grabbed on change under it? The PMD first:
 * if the table was unhooked (munmap's free_pgtables, a collapse) the
 * entries in it say nothing about the mm any more, and the table itself
 * is only still there because this CPU is inside its lockless walk
 * (lockless_walk.h). Then the entries of the run, and that the page is
 * still in the folio that was grabbed (freed and reused as part of
 * another folio in between, the grab went to that one).
 */
static bool gup_fast_changed(struct gup_ctx *g, pmd_t *pmdp, pmd_t pmd, unsigned long addr,
			     pte_t *ptep, pte_t pte, struct page *page, struct folio *folio,
			     unsigned nr)
{
	if (pmdp_get(pmdp).val != pmd.val)
		return true;
	if (!pte_same(ptep_get(ptep), pte) || page_folio(page) != folio)
		return true;
	return gup_run_len(folio, addr, ptep, pte, nr, g->flags) != nr;
}

/*
 * gup_fast_run - take the run at @ptep (in the table that @pmd, read
 * from @pmdp, points at) without the PTE lock. The order is Linux's:
 * grab first (folio_try_grab fails on a folio whose refcount already
 * fell to zero: it is being freed), then re-read the PMD and the entries
 * (gup_fast_changed(): a run whose entries changed meanwhile is given
 * back whole; the grab's barrier orders it before the re-reads, and a
 * path that clears an entry and then checks the refcount, as migration
 * and fork do, either sees the grab or is seen), and only then check
 * AnonExclusive (fork clears it before it looks at the refcount, so a
 * check made before the grab could miss a fork in between); the pages
 * after the first one that would need an unshare are given back. (The
 * first page is also checked before the grab, so a run that will go to
 * the slow path anyway is not grabbed at all.)
 * Return: pages kept; 0 when the slow path must take this page.
 * Context: inside lockless_walk_begin()/_end().
 */
static unsigned gup_fast_run(struct gup_ctx *g, pmd_t *pmdp, pmd_t pmd, unsigned long addr,
			     pte_t *ptep, unsigned long left, struct page **pages)
{
	pte_t pte = ptep_get(ptep);
	struct page *page;
	struct folio *folio;
	unsigned nr, keep;

	/* Not present (none, a migration entry: the slow path's fault waits
	 * for it), or PROT_NONE: present, but not for user mode (no VMA). */
	if (!pte_user(pte) || !gup_pte_ok(pte, g->flags, &g->fault))
		return 0;
	page = pfn_to_page(pte_pfn(pte));
	folio = page_folio(page);
	if (gup_must_unshare(g->flags, page))
		return 0;
	nr = gup_run_len(folio, addr, ptep, pte, left, g->flags);
	if (gup_fast_window_hook)
		gup_fast_window_hook(g->mm, addr, ptep); /* tests: another CPU's step here */
	nr = gup_try_grab(folio, nr, g->flags, true);
	if (!nr)
		return 0;
	if (gup_fast_changed(g, pmdp, pmd, addr, ptep, pte, page, folio, nr))
		keep = 0;
	else
		keep = gup_must_unshare(g->flags, page) ? 0
							: gup_unshare_prefix(g->flags, page, nr);
	if (keep < nr)
		gup_put_folio(folio, nr - keep, g->flags); /* undo the grab past the cut */
	if (keep) {
		if (g->flags & FOLL_TOUCH)
			gup_touch(folio, gup_wants_dirty(folio, g->flags) &&
						 !ptes_all_dirty(ptep, pte, keep));
		gup_store(pages, page, keep);
	}
	return keep;
}

/* The PMD leaf @pmd that the walk read at @pmdp, locklessly: grab, re-check
 * the leaf, then the unshare check, as gup_fast_run. The value is the one
 * the walk classified as a leaf: a second read could find a migration
 * entry or none, whose pfn is no page. */
static unsigned gup_fast_pmd(struct gup_ctx *g, pmd_t *pmdp, pmd_t pmd, unsigned long addr,
			     unsigned long end, struct page **pages)
{
	struct page *page;
	struct folio *folio;
	unsigned nr;

	if (!pmd_user(pmd) || ((g->flags & FOLL_WRITE) && !pmd_write(pmd)))
		return 0;
	page = pfn_to_page(pmd_pfn(pmd)) + ((addr & ~PMD_MASK) >> PAGE_SHIFT);
	folio = page_folio(page);
	nr = gup_try_grab(folio, (unsigned)((end - addr) >> PAGE_SHIFT), g->flags, true);
	if (!nr)
		return 0;
	if (pmdp_get(pmdp).val != pmd.val || gup_must_unshare(g->flags, &folio->page)) {
		gup_put_folio(folio, nr, g->flags);
		return 0;
	}
	if (g->flags & FOLL_TOUCH)
		gup_touch(folio, gup_wants_dirty(folio, g->flags) && !pmd_dirty(pmd));
	gup_store(pages, page, nr);
	return nr;
}

/* [addr, end) inside one PMD, locklessly: no lock, no fault. Return:
 * pages taken from @addr on, up to the first page it cannot take. */
static unsigned long gup_fast_pmd_range(struct gup_ctx *g, unsigned long addr, unsigned long end,
					struct page **pages)
{
	pmd_t *pmdp = mm_find_pmd(g->mm, addr, false);
	unsigned long done = 0;
	pte_t *ptep;
	pmd_t pmd;

	if (!pmdp)
		return 0;
	pmd = pmdp_get(pmdp);
	switch (pmd_state(pmd)) {
	case PMD_NONE:
	case PMD_MIGRATION: /* the slow path's fault waits for it */
		return 0;
	case PMD_LEAF:
		return gup_fast_pmd(g, pmdp, pmd, addr, end, pages);
	case PMD_TABLE:
		break;
	}
	ptep = pmd_table(pmd) + pte_index(addr); /* the table this walk read, not a newer one */
	while (addr < end) {
		unsigned nr = gup_fast_run(g, pmdp, pmd, addr, ptep, (end - addr) >> PAGE_SHIFT,
					   pages + done);

		if (!nr)
			break;
		done += nr;
		ptep += nr;
		addr += (unsigned long)nr * PAGE_SIZE;
	}
	return done;
}

/*
 * gup_fast - the lockless walk over [start, start + nr pages): stops at
 * the first page it cannot take. Linux's gup-fast looks at no VMA either:
 * a present entry in the user half is a user mapping.
 *
 * The walk is one lockless_walk_begin()/_end() section: no page-table
 * page it reaches is freed before it ends (lockless_walk.h; Linux runs
 * the walk with interrupts off for the same end). A FOLL_PIN walk also
 * reads the mm's write_protect_seq first: odd, a fork is copying the mm
 * and the walk is not made (the slow path waits for the fork's
 * mmap_lock); moved when the walk is over, a fork ran meanwhile and may
 * have shared a page this walk pinned, so every pin is given back and
 * the slow path starts from @start. The barrier between the grabs and
 * the second read pairs with mm_write_protect_begin()'s.
 */
static unsigned long gup_fast(struct gup_ctx *g, unsigned long start, unsigned long nr_pages,
			      struct page **pages)
{
	unsigned long addr = start, end = start + nr_pages * PAGE_SIZE, done = 0, seq = 0;

	if (g->flags & FOLL_PIN) {
		seq = mm_write_protect_seq(g->mm);
		if (seq & 1)
			return 0;
	}
	lockless_walk_begin();
	while (addr < end) {
		unsigned long next = pmd_addr_end(addr, end);
		unsigned long got = gup_fast_pmd_range(g, addr, next, pages + done);

		done += got;
		if (addr + got * PAGE_SIZE != next)
			break;
		addr = next;
	}
	lockless_walk_end();
	if (done && (g->flags & FOLL_PIN)) {
		mm_full_barrier(); /* the grabs before the seq read */
		if (mm_write_protect_seq(g->mm) != seq) {
			gup_fast_unpin_pages(pages, done);
			return 0;
		}
	}
	return done;
}

/* *_fast: the lockless walk, then the slow path for the rest. */
static long gup_fast_call(struct mm *mm, unsigned long start, unsigned long nr_pages,
			  unsigned flags, struct page **pages)
{
	struct gup_ctx g = { .mm = mm, .flags = flags };
	int err = gup_check_args(start, nr_pages, flags, pages);
	unsigned long got;
	long rest;

	if (err)
		return err;
	if (!nr_pages)
		return 0;
	if (flags & FOLL_PIN)
		mm_set_has_pinned(mm);
	got = gup_fast(&g, start, nr_pages, pages);
	if (got == nr_pages || (flags & FOLL_FAST_ONLY))
		return (long)got;
	rest = get_user_pages_locked(&g, start + got * PAGE_SIZE, nr_pages - got, pages + got);
	if (rest < 0)
		return got ? (long)got : rest;
	return (long)(got + (unsigned long)rest);
}

long get_user_pages_fast(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
			 struct page **pages)
{
	if (flags & (FOLL_GET | FOLL_PIN))
		return -EINVAL;
	return gup_fast_call(mm, start, nr_pages, flags | FOLL_GET, pages);
}

long pin_user_pages_fast(struct mm *mm, unsigned long start, unsigned long nr_pages, unsigned flags,
			 struct page **pages)
{
	if (flags & (FOLL_GET | FOLL_PIN))
		return -EINVAL;
	return gup_fast_call(mm, start, nr_pages, flags | FOLL_PIN, pages);
}
