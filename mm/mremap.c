/*
 * mremap.c - resizing and moving a mapping: mm_mremap().
 *
 * A move takes the old range's entries to the new range without touching
 * the pages: a PMD leaf or a whole PTE table whose 2 MiB lies aligned at
 * both ends moves by moving its PMD entry; everything else moves PTE by
 * PTE between the two tables. Batched as Linux's move_ptes() with
 * get_and_clear_ptes() (6.17), and where Linux batches: an entry the arch
 * knows to be in a block of one folio (pte_batch_hint() > 1, arm64's
 * contpte) starts a run of the folio's consecutive pages (folio_pte_batch,
 * young and dirty ignored) that is taken out with one clear_full_ptes()
 * and written at the destination with one set_ptes(), which folds each
 * 64 KiB block whose destination and frames are aligned and leaves the
 * rest unfolded. The per-PTE move unfolds every source block it touches
 * and refolds each destination block (a flush each). mm_caps.mremap bounds
 * the run; 1 is the per-PTE code.
 *
 * Without blocks (x86) every entry moves alone at any cap: a moved entry
 * costs one read, one exchange and one store whether in a run or not, so
 * a run saves nothing per entry and its folio lookup costs per run. With
 * runs taken for every large folio (an entry-by-entry clear loop, this
 * file's first version) bench:mremap measured, cap max against cap 1 in
 * guest instructions: 16K 0.55x, 64K 0.81x, 2M-pte 1.07x; Linux found
 * the same (its first version lost 37-43% on x86 until the
 * pte_batch_hint() gate came first). A 4 KiB VMA never reaches the gate.
 *
 * Mapcounts and references do not change: the same mm maps the same
 * pages, and ptelab's rmap is the mm's anon family, not an address.
 * The TLB is flushed once, at the end, for the old range: the entries
 * are moved under the mmap_lock for write, so until the flush a stale
 * translation of the old address reaches the page the new address maps.
 * The old range's tables left empty are freed under the same flush.
 *
 * VMAs: the old range must lie in one VMA (else -EFAULT); it is split
 * off and becomes the new VMA (with MREMAP_DONTUNMAP a copy does, and
 * the old one stays, empty). ptelab merges no VMAs (mmap and mprotect do
 * not either): a grown VMA grows, a moved one stays separate, as Linux's
 * moved anon VMA does unless its page offset lines up with a neighbour.
 */
#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "folio_walk.h"
#include "lru.h"
#include "mm_internal.h"
#include "shmem.h"
#include "swapops.h"
#include "pte_batch.h"
#include "trace.h"

/* Bytes from @old (moving to @new) that stay inside one PMD at both
 * ends, at most @left. */
static unsigned long extent_len(unsigned long old, unsigned long new, unsigned long left)
{
	unsigned long n = PMD_SIZE - (old & ~PMD_MASK), m = PMD_SIZE - (new & ~PMD_MASK);

	n = n < m ? n : m;
	return n < left ? n : left;
}

/* Does an extent of @n bytes move by its PMD entry? Only a whole PMD,
 * aligned at both ends (extent_len() cuts at both), onto nothing. */
static bool extent_moves_pmd(unsigned long n, pmd_t *dst)
{
	return n == PMD_SIZE && pmd_none(pmdp_get(dst));
}

/*
 * prepare_extent - make the move of the extent at @old (@n bytes, to
 * @new) unable to fail: the destination's upper tables exist; unless the
 * extent moves by its PMD entry, a PMD leaf there is split and a PTE
 * table waits at the destination.
 * Return: 0 or -ENOMEM (work done stays: it changes no mapping).
 * Context: mmap_lock held for write.
 */
static int prepare_extent(struct vma *vma, unsigned long old, unsigned long new, unsigned long n)
{
	struct mm *mm = vma->mm;
	pmd_t *src = mm_find_pmd(mm, old, false), *dst;
	int err = 0;

	if (!src || pmd_none(pmdp_get(src)))
		return 0;
	dst = mm_find_pmd(mm, new, true);
	if (!dst)
		return -ENOMEM;
	if (extent_moves_pmd(n, dst))
		return 0;
	if (pmd_leaf(pmdp_get(src)) && (err = split_huge_pmd(vma, src, old)))
		return err;
	spin_lock(&mm->page_table_lock);
	if (pmd_none(pmdp_get(dst)))
		err = pte_alloc(mm, dst);
	spin_unlock(&mm->page_table_lock);
	return err;
}

/* Move the one entry at @src (for @old) to the none @dst (for @new).
 * Context: both tables' locks are held. */
static inline __attribute__((always_inline)) void
move_one(struct mm *mm, unsigned long old, pte_t *src, unsigned long new, pte_t *dst)
{
	set_ptes(mm, new, dst, ptep_get_and_clear(mm, old, src), 1);
}

/*
 * move_folio_ptes - the batched step, for an entry the arch knows to be
 * in a block of one folio (pte_batch_hint() > 1: arm64 contpte): move
 * the run of at most @left entries from @src (value @pte) that map
 * consecutive pages of its folio as Linux's move_ptes() does:
 * folio_pte_batch() (one read per block), one clear_full_ptes() (young
 * and dirty gathered over the run, a block it covers only partly
 * unfolded) and one set_ptes() (each block whose destination and frames
 * are aligned folded again, the rest left unfolded). The destination
 * entries are none and were flushed when they last mapped something, so
 * set_ptes() owes no break. Out of line: called once per 16 entries at
 * least, and the per-PTE loop around it stays as tight as without it.
 * Return: entries moved (at least 1).
 * Context: both tables' locks are held.
 */
static __attribute__((noinline)) unsigned move_folio_ptes(struct mm *mm, unsigned long old,
							  pte_t *src, unsigned long new, pte_t *dst,
							  pte_t pte, unsigned long left)
{
	struct folio *folio = page_folio(pfn_to_page(pte_pfn(pte)));
	unsigned nr = folio_pte_batch(folio, old, src, pte, cap_nr(mm_caps.mremap, left),
				      FPB_IGNORE_DIRTY | FPB_IGNORE_YOUNG, NULL);

	set_ptes(mm, new, dst, clear_full_ptes(mm, old, src, nr, 0), nr);
	return nr;
}

/* What one table's loop moved: runs (a lone entry is one) and entries. */
struct moved {
	unsigned long runs, ptes;
};

/* A non-present entry at @old: a swap entry moves as it is (no rmap, no
 * flush); anything else is a bug. Out of line: the loop over present
 * entries stays what it was. */
static __attribute__((noinline, cold)) void move_swap_pte(unsigned long old, pte_t *src, pte_t *dst,
							  pte_t pte)
{
	if (!is_swap_entry(pte))
		panic("mremap: unexpected non-present pte %#llx at %#lx",
		      (unsigned long long)pte.val, old);
	set_pte(src, (pte_t){ 0 });
	set_pte(dst, pte);
}

/*
 * move_pte_loop - move the entries of [old, end) at @src to @dst, with
 * the batched step when @batch. move_ptes() makes one copy of the loop
 * for each value of @batch, so the per-PTE copy is the loop without
 * batching, instruction for instruction.
 * Context: both tables' locks are held.
 */
static inline __attribute__((always_inline)) struct moved
move_pte_loop(struct mm *mm, unsigned long old, unsigned long end, pte_t *src, unsigned long new,
	      pte_t *dst, bool batch)
{
	struct moved m = { 0, 0 };

	while (old < end) {
		/* The batched copy reads the entry raw: a block's run needs
		 * only its frame (move_folio_ptes() gathers the run's young
		 * and dirty itself), where ptep_get() would first OR the
		 * block's 16 entries; any other entry reads the same raw. */
		pte_t pte = batch ? __ptep_get(src) : ptep_get(src);

		if (batch && pte_present(pte) && pte_batch_hint(src, pte) > 1) {
			unsigned nr;

			arch_sched_point(SCHED_WINDOW); /* a run read, not yet moved */
			nr = move_folio_ptes(mm, old, src, new, dst, pte,
					     (end - old) >> PAGE_SHIFT);

			m.runs++, m.ptes += nr;
			src += nr, dst += nr;
			old += nr * PAGE_SIZE, new += nr *PAGE_SIZE;
			continue;
		}
		if (pte_present(pte)) {
			arch_sched_point(SCHED_WINDOW); /* an entry read, not yet moved */
			move_one(mm, old, src, new, dst);
			m.runs++, m.ptes++;
		} else if (!pte_none(pte)) {
			move_swap_pte(old, src, dst, pte);
		}
		src++, dst++;
		old += PAGE_SIZE, new += PAGE_SIZE;
	}
	return m;
}

/*
 * move_ptes - move the entries of [old, old + n) (one PTE table of
 * @vma) to the table at @dst_pmdp. The two tables may be one (a short
 * move); two are locked source first, the destination nested: only the
 * mmap_lock writer locks two tables of one mm, so no other path takes
 * them in the other order. The batched step runs only under a cap
 * above 1, on an arch with blocks, in a VMA whose folio orders reach a
 * block's (no fault, fork or move puts a folio in a VMA that does not
 * allow its order, so a 4 KiB or 16 KiB VMA runs the per-PTE copy of the
 * loop: the gate costs nothing there), for an entry in a block.
 * Counts once, at the end.
 * Context: mmap_lock held for write; no PTE lock held.
 */
static void move_ptes(struct vma *vma, pmd_t *src_pmdp, pmd_t *dst_pmdp, unsigned long old,
		      unsigned long new, unsigned long n)
{
	struct mm *mm = vma->mm;
	struct spinlock *src_ptl, *dst_ptl;
	pte_t *src = pte_offset_map_lock(mm, src_pmdp, old, &src_ptl), *dst;
	struct moved m;

	if (pmd_pt_page(pmdp_get(src_pmdp)) == pmd_pt_page(pmdp_get(dst_pmdp))) {
		dst = pte_offset_kernel(dst_pmdp, new);
		dst_ptl = src_ptl;
	} else {
		dst = pte_offset_map_lock_nested(mm, dst_pmdp, new, &dst_ptl, 1);
	}
	if (mm_caps.mremap > 1 && arch_pte_block_order() && vma->orders >> arch_pte_block_order())
		m = move_pte_loop(mm, old, old + n, src, new, dst, true);
	else
		m = move_pte_loop(mm, old, old + n, src, new, dst, false);
	if (dst_ptl != src_ptl)
		pte_unmap_unlock(dst, dst_ptl);
	pte_unmap_unlock(src, src_ptl);
	arch_sched_point(SCHED_WINDOW); /* the lock dropped, the old range not yet flushed */
	count_event(mremap_runs, m.runs);
	count_event(mremap_ptes_moved, m.ptes);
}

/* Move the PMD entry at @src (a leaf or a table) to the none @dst.
 * Context: mmap_lock held for write; page_table_lock taken here (it
 * guards entries above the PTE level). */
static void move_pmd(struct mm *mm, pmd_t *src, pmd_t *dst)
{
	pmd_t pmd;

	spin_lock(&mm->page_table_lock);
	pmd = pmdp_get_and_clear(src); /* with young and dirty as the MMU left them */
	set_pmd(dst, pmd);
	spin_unlock(&mm->page_table_lock);
	if (pmd_leaf(pmd))
		count_event(mremap_pmd_moves, 1);
	else
		count_event(mremap_table_moves, 1);
}

/* Move the extent at @old (@n bytes, in @vma) to @new, as
 * prepare_extent() made ready. Context: mmap_lock held for write. */
static void move_extent(struct vma *vma, unsigned long old, unsigned long new, unsigned long n)
{
	struct mm *mm = vma->mm;
	pmd_t *src = mm_find_pmd(mm, old, false), *dst;

	if (!src || pmd_none(pmdp_get(src)))
		return;
	dst = mm_find_pmd(mm, new, false);
	if (!dst)
		panic("mremap: no destination PMD table at %#lx", new);
	if (extent_moves_pmd(n, dst))
		move_pmd(mm, src, dst);
	else if (pmd_state(pmdp_get(src)) == PMD_TABLE)
		move_ptes(vma, src, dst, old, new, n);
	else
		panic("mremap: PMD %#llx at %#lx was not split",
		      (unsigned long long)pmdp_get(src).val, old);
}

/*
 * move_page_tables - move every entry of [old, old + len) of @vma to
 * [new, new + len): first everything that can fail (tables, splits), then
 * the moves, which cannot. Return: 0 or -ENOMEM (no entry moved; empty
 * tables made at the destination are freed).
 * Context: mmap_lock held for write.
 */
static int move_page_tables(struct vma *vma, unsigned long old, unsigned long new,
			    unsigned long len)
{
	unsigned long done, n;

	for (done = 0; done < len; done += n) {
		int err;

		n = extent_len(old + done, new + done, len - done);
		err = prepare_extent(vma, old + done, new + done, n);
		if (err) {
			free_pgtables(vma->mm, new, new + len);
			return err;
		}
	}
	for (done = 0; done < len; done += n) {
		n = extent_len(old + done, new + done, len - done);
		move_extent(vma, old + done, new + done, n);
	}
	return 0;
}

/* The walker's steps for lru_follow(): each folio whose first page is
 * mapped in the moved range has its record follow (folio_lru_moved()). */
static int follow_ptes(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr,
		       unsigned long end, void *priv)
{
	unsigned long delta = *(unsigned long *)priv;

	(void)pmdp;
	for (; addr < end; addr += PAGE_SIZE, ptep++) {
		pte_t pte = ptep_get(ptep);
		struct page *page;

		if (!pte_present(pte))
			continue;
		page = pfn_to_page(pte_pfn(pte));
		if (page == &page_folio(page)->page)
			folio_lru_moved(page_folio(page), mm, addr - delta, addr);
	}
	return 0;
}

static int follow_pmd(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end, void *priv)
{
	unsigned long delta = *(unsigned long *)priv;
	pmd_t pmd = pmdp_get(pmdp);

	(void)end;
	if (pmd_leaf(pmd))
		folio_lru_moved(page_folio(pfn_to_page(pmd_pfn(pmd))), mm, addr - delta, addr);
	return 0;
}

static const struct pt_walk_ops follow_ops = { .pmd_leaf = follow_pmd, .pte_range = follow_ptes };

/* The LRU records of the folios moved from @old to [new, new + len)
 * follow them; only while the lists are kept (a walk of the new range,
 * which a kernel that never reclaims does not pay for). */
static void lru_follow(struct mm *mm, unsigned long old, unsigned long new, unsigned long len)
{
	unsigned long delta = new - old;

	if (__atomic_load_n(&lru_kept, __ATOMIC_RELAXED))
		walk_page_range(mm, new, new + len, &follow_ops, &delta);
}

/*
 * move_vma - move [old, old + old_len) (inside @vma) to @new as a VMA of
 * @new_len. Return: @new, or -ENOMEM with no mapping changed.
 * Context: mmap_lock held for write.
 */
static long move_vma(struct mm *mm, unsigned long old, unsigned long old_len, unsigned long new_len,
		     unsigned flags, unsigned long new)
{
	struct mmu_gather tlb;
	struct vma *vma, *n;
	int err = split_range(mm, old, old + old_len);

	if (err)
		return err;
	vma = find_vma(mm, old);
	n = malloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	err = move_page_tables(vma, old, new, old_len);
	if (err) {
		free(n);
		return err;
	}
	lru_follow(mm, old, new, old_len);
	*n = *vma;
	if (n->shm) /* the same object and offset; vma_unlink_free() drops vma's */
		shmem_get(n->shm);
	n->start = new;
	n->end = new + new_len;
	if (!(flags & MREMAP_DONTUNMAP))
		vma_unlink_free(mm, vma);
	vma_link(mm, n);
	tlb_gather_init(&tlb, mm, false);
	tlb_gather_range(&tlb, old, old + old_len);
	free_pgtables_tlb(&tlb, old, old + old_len);
	tlb_finish(&tlb);
	return (long)new;
}

/*
 * resize_vma - the VMA that [old, old + old_len) must lie in.
 * Return: it, or NULL when no single VMA holds the range (-EFAULT).
 */
static struct vma *resize_vma(struct mm *mm, unsigned long old, unsigned long old_len)
{
	struct vma *vma = find_vma(mm, old);

	return vma && old_len <= vma->end - old ? vma : NULL;
}

/* Are the @len bytes from @start, which @vma ends at, free and in the
 * user half? */
static bool vma_can_grow(struct vma *vma, unsigned long start, unsigned long len)
{
	return len <= MM_USER_END - start && (!vma->next || vma->next->start >= start + len);
}

/*
 * mremap_to - move to @new_addr (MREMAP_FIXED: replacing what is there)
 * or, with MREMAP_DONTUNMAP alone, to a free range. The checks come
 * before any change, so an error changes nothing (Linux unmaps the
 * destination first; its errno is the same).
 */
static long mremap_to(struct mm *mm, unsigned long old, unsigned long old_len,
		      unsigned long new_len, unsigned flags, unsigned long new_addr)
{
	struct vma *vma = resize_vma(mm, old, old_len < new_len ? old_len : new_len);
	int err;

	if (!vma)
		return -EFAULT;
	if (flags & MREMAP_FIXED) {
		err = do_munmap(mm, new_addr, new_len);
	} else {
		new_addr = get_unmapped_area(mm, new_len, vma->orders);
		err = new_addr ? 0 : -ENOMEM;
	}
	if (!err && old_len > new_len) {
		err = do_munmap(mm, old + new_len, old_len - new_len);
		old_len = new_len;
	}
	return err ? err : move_vma(mm, old, old_len, new_len, flags, new_addr);
}

/* Linux's checks of the arguments, lengths rounded up to pages in place.
 * Return: 0 or -EINVAL. */
static int mremap_check(unsigned long old, unsigned long *old_len, unsigned long *new_len,
			unsigned flags, unsigned long new_addr)
{
	unsigned long page = PAGE_SIZE - 1;

	if (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP) || old & page)
		return -EINVAL;
	if ((flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((flags & MREMAP_DONTUNMAP) && *old_len != *new_len)
		return -EINVAL;
	*old_len = (*old_len + page) & ~page;
	*new_len = (*new_len + page) & ~page;
	if (!*new_len) /* also when rounding wrapped */
		return -EINVAL;
	if (!(flags & MREMAP_FIXED))
		return 0;
	if (new_addr & page || *new_len > MM_USER_END || new_addr > MM_USER_END - *new_len ||
	    new_addr < MM_USER_START)
		return -EINVAL;
	if (old < new_addr + *new_len && new_addr < old + *old_len)
		return -EINVAL; /* the ranges overlap */
	return 0;
}

static long do_mremap(struct mm *mm, unsigned long old, unsigned long old_len,
		      unsigned long new_len, unsigned flags, unsigned long new_addr)
{
	struct vma *vma;
	int err = mremap_check(old, &old_len, &new_len, flags, new_addr);

	if (err)
		return err;
	if (!find_vma(mm, old))
		return -EFAULT;
	if (!old_len) /* Linux: duplicating a mapping, for shared ones only */
		return -EINVAL;
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP))
		return mremap_to(mm, old, old_len, new_len, flags, new_addr);
	if (old_len >= new_len) {
		err = old_len > new_len ? do_munmap(mm, old + new_len, old_len - new_len) : 0;
		return err ? err : (long)old;
	}
	vma = resize_vma(mm, old, old_len);
	if (!vma)
		return -EFAULT;
	if (vma->end == old + old_len && vma_can_grow(vma, vma->end, new_len - old_len)) {
		vma->end = old + new_len;
		return (long)old;
	}
	if (!(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	new_addr = get_unmapped_area(mm, new_len, vma->orders);
	return new_addr ? move_vma(mm, old, old_len, new_len, flags, new_addr) : -ENOMEM;
}

long mm_mremap(struct mm *mm, unsigned long old, unsigned long old_len, unsigned long new_len,
	       unsigned flags, unsigned long new_addr)
{
	long ret;

	TRACE(trace_op_begin("mremap", mm, old, old + old_len, mm_caps.mremap));
	mmap_write_lock(mm);
	ret = do_mremap(mm, old, old_len, new_len, flags, new_addr);
	mmap_write_unlock(mm);
	TRACE(trace_op_end("mremap"));
	return ret;
}
