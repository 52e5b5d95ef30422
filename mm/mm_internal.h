/*
 * mm_internal.h - what the files of mm/ share with each other and with the
 * tests, but not with the rest of the kernel.
 */
#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

#include <asm/mmu.h>

#include "anon_family.h"
#include "knobs.h"
#include "lockless_walk.h"
#include "mempolicy.h"
#include "mm.h"

struct vma *find_vma_from(struct mm *mm, unsigned long addr);
/* mm.c: mm_create() into @fam's family (NULL: a new one); fork's child.
 * Context: @fam's lock held for read. */
struct mm *mm_create_in(struct anon_family *fam);
void vma_free_all(struct mm *mm);

/* vma.c: is [addr, addr + len) a non-empty, page-aligned user range? */
int range_ok(unsigned long addr, unsigned long len);
/* vma.c: is every byte of [start, end) inside some VMA? */
bool range_mapped(struct mm *mm, unsigned long start, unsigned long end);
/* vma.c: make @start and @end VMA boundaries (PMD leaves straddling them
 * split first). Return: 0 or -ENOMEM (some splits may be done, which
 * changes no mapping). */
int split_range(struct mm *mm, unsigned long start, unsigned long end);
/* Join the VMAs around [start, end) that became equal (vma.c). */
void vma_merge_around(struct mm *mm, unsigned long start, unsigned long end);

/* vma.c, for mremap.c: link @n into @mm's sorted list; unlink and free
 * @v; munmap with the mmap_lock held for write (0 or -errno, as
 * mm_munmap()); a free range for a VMA of @len with folio @orders. */
void vma_link(struct mm *mm, struct vma *n);
void vma_unlink_free(struct mm *mm, struct vma *v);
int do_munmap(struct mm *mm, unsigned long addr, unsigned long len);
unsigned long get_unmapped_area(struct mm *mm, unsigned long len, unsigned long orders);
/* fault.c: hook a new PTE table under the empty @pmdp. Return: 0 or
 * -ENOMEM. Context: page_table_lock held. */
int pte_alloc(struct mm *mm, pmd_t *pmdp);

/*
 * mmu_gather (mm/tlb.c) - what an unmap must not give back before the TLB
 * forgets it: folio references to drop and page-table pages to free.
 * Zap clears entries and gathers (folio, refs); free_pgtables_tlb()
 * unhooks empty tables and gathers them; tlb_finish() flushes the TLB
 * once for everything cleared, then drops the references and frees the
 * tables, so no CPU can reach a freed page through a stale TLB entry.
 * When GATHER_MAX folios are pending the gather flushes early.
 */
#define GATHER_MAX 256 /* 4 KiB of stack */
struct mmu_gather {
	struct mm *mm;
	unsigned long start, end; /* range cleared since the last flush */
	bool full;		  /* tearing down the whole mm */
	int nr;
	struct {
		struct folio *folio;
		int refs;
	} item[GATHER_MAX];
	struct list_head tables; /* unhooked page-table pages, linked by lru */
};

void tlb_gather_init(struct mmu_gather *tlb, struct mm *mm, bool full);
/* @refs references on @f, whose mapping of [addr, end) was cleared. */
void tlb_gather_folio(struct mmu_gather *tlb, struct folio *f, int refs, unsigned long addr,
		      unsigned long end);
/* Table page @pt, unhooked from the tree, that mapped [addr, end). */
void tlb_gather_table(struct mmu_gather *tlb, struct page *pt, unsigned long addr,
		      unsigned long end);
void tlb_finish(struct mmu_gather *tlb);
/* Widen the range @tlb flushes by [addr, end) (entries moved, not freed). */
void tlb_gather_range(struct mmu_gather *tlb, unsigned long addr, unsigned long end);

/*
 * zap_vma_range - unmap [start, end) of @vma: clear the entries, drop the
 * mapcounts, gather the references in @tlb. PMD leaves in the range must
 * lie wholly inside it (prepare_range() splits the others).
 * Context: no PTE lock held; each PTE table's lock is taken once.
 */
void zap_vma_range(struct mmu_gather *tlb, struct vma *vma, unsigned long start, unsigned long end);

/* do_swap_page - read the page of the swap entry @entry at @ptep back
 * (swapin.c), with the run around it when it can be one folio.
 * Return: 0 or -ENOMEM. Context: the PTE table lock is held. */
int do_swap_page(struct vma *vma, pte_t *ptep, unsigned long addr, pte_t entry, bool write);

/* MADV_PAGEOUT of [s, e) in @v (pageout.c). Context: mmap_lock held for write. */
void madvise_pageout_vma(struct vma *v, unsigned long s, unsigned long e);
/* MADV_COLD on [s, e) of @v (madvise_cold.c): the young bits of each folio
 * mapped only there cleared, and the folio to the inactive tail (lru.h).
 * Context: @v's mm's mmap_lock held. */
void madvise_cold_vma(struct vma *v, unsigned long s, unsigned long e);

/*
 * zap_swap_ptes - drop the run of swap entries from @ptep (value @pte,
 * at most @left entries) whose slots follow one another: clear them,
 * one swap_free_nr() for the run (Linux's free_swap_and_cache_nr()).
 * Return: the entries handled (at least 1). Context: the PTE lock held.
 */
unsigned zap_swap_ptes(struct mm *mm, unsigned long addr, pte_t *ptep, pte_t pte,
		       unsigned long left);

/* free_pgtables() into a gather: the tables are freed by tlb_finish(). */
void free_pgtables_tlb(struct mmu_gather *tlb, unsigned long start, unsigned long end);

/* Apply @newflags' protection to the entries of [start, end) in @vma. */
void change_protection(struct vma *vma, unsigned long start, unsigned long end, unsigned newflags);

/* Split PMD leaves that [start, end) covers only partly, so later steps
 * work on PTEs. Return: 0 or -ENOMEM (the mappings are still valid: a
 * leaf split before the failure stays split). */
int prepare_range(struct mm *mm, unsigned long start, unsigned long end);

/* Replace the PMD leaf at @pmdp (mapping @addr's 2 MiB) by a PTE table
 * mapping the same pages. Return: 0 or -ENOMEM (nothing changed). */
int split_huge_pmd(struct vma *vma, pmd_t *pmdp, unsigned long addr);

/* The PMD value mapping all of @folio in @vma (young; dirty if @dirty). */
pmd_t vma_mk_pmd(struct vma *vma, struct folio *folio, bool dirty);

/* The PTE value for page @pfn in @vma: young and clean. */
pte_t vma_mk_pte(struct vma *vma, uint64_t pfn);

/* A new anon folio: PG_anon, and every page AnonExclusive. */
void folio_prepare_anon(struct folio *folio);

/*
 * Fault handlers (fault.c, huge.c, cow.c). Each returns 0 or -ENOMEM.
 * do_huge_pmd_anonymous_page - a PMD-mapped 2 MiB folio at the empty pmd.
 * Context: page_table_lock held.
 * do_wp_page - a write or unshare fault on the present PTE @pte for
 * @addr, read from @ptep under the table's lock, which is held from that
 * read to the return: the entry cannot change (a migration cannot make it
 * a migration entry) between the decision and cow.c's work.
 * do_huge_pmd_wp_page - the same on a PMD leaf: reuse it, or split it
 * and return 1, for the PTE fault to go on under the new table's lock.
 * Context: page_table_lock held.
 */
int do_huge_pmd_anonymous_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, bool write);
int do_wp_page(struct vma *vma, unsigned long addr, pte_t *ptep, pte_t pte, unsigned flags);
int do_huge_pmd_wp_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, unsigned flags);

/*
 * NUMA hinting faults (numa_hint.c). A fault that finds a hinting entry
 * (present, not pte_user(), in a VMA with access) gives the folio's
 * entries their access back: do_numa_page() the run of the folio around
 * @addr in the PTE table under @pmdp (its lock held), do_huge_pmd_numa_page()
 * the leaf (page_table_lock held). Each notes in *@nf (when not NULL) the
 * folio to move when it is not on the faulting CPU's node;
 * numa_migrate_misplaced() moves it, with no lock held (the migration
 * takes its own, before the mmap_lock). Return: 0.
 */
struct numa_fault {
	unsigned long addr;  /* a page of the folio to move */
	int nid;	     /* where to */
	unsigned long pages; /* its pages; 0: nothing to move */
};
int do_numa_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, pte_t pte,
		 struct numa_fault *nf);
int do_huge_pmd_numa_page(struct vma *vma, pmd_t *pmdp, unsigned long addr, struct numa_fault *nf);
void numa_fault_note(struct numa_fault *nf, unsigned long addr, struct folio *folio);
void numa_migrate_misplaced(struct mm *mm, const struct numa_fault *nf);

/* Tests only (NULL otherwise): called by a fault on a present PTE that
 * needs cow.c, after the fault read the entry and before cow.c acts on
 * it (the PTE lock held), so that a test can try to land another CPU's
 * step (a migration) there. */
extern void (*wp_fault_window_hook)(struct mm *mm, unsigned long addr);

/* Tests only (NULL otherwise): called by split_huge_pmd() after the leaf
 * was cleared and flushed and before the table is installed (the pmd is
 * none; the caller's page_table_lock or mmap_lock held), so that a test
 * can land another CPU's fault there. */
extern void (*split_pmd_window_hook)(struct mm *mm, unsigned long addr);

/* Tests only (NULL otherwise): called by an unshare fault that reuses a
 * page of a large folio that is not AnonExclusive, after can_reuse()
 * decided and before the other pages of the folio are looked at (the
 * PTE lock held), so that a test can land another CPU's migration there. */
extern void (*wp_reuse_window_hook)(struct mm *mm, unsigned long addr);

/* Pins (mm/pin.c): mark @mm as having had pages pinned (MMF_HAS_PINNED). */
void mm_set_has_pinned(struct mm *mm);

/* gup_put_folio - give back @refs references (FOLL_GET in @flags) or
 * pins (FOLL_PIN) that GUP took on @folio, with one refcount update. */
void gup_put_folio(struct folio *folio, unsigned refs, unsigned flags);
/* Unpin @n pages gup-fast pinned, without unpin_user_pages()' check. */
void gup_fast_unpin_pages(struct page **pages, unsigned long n);

/* ---- kmap.c: the kernel half's tables at boot ---------------------------- */

/* Where kmap_range() builds, and whether it may use 1 GiB leaves. */
struct kmap {
	pgd_t *pgd;
	bool pud_leaves;
};

/* Leaf entries for the kernel half, from the arch (its mmu.c): @prot is
 * the arch's kernel leaf bits, @pa aligned to the leaf size. */
pud_t kernel_pud_leaf(uint64_t pa, uint64_t prot);
pmd_t kernel_pmd_leaf(uint64_t pa, uint64_t prot);
pte_t kernel_pte_leaf(uint64_t pa, uint64_t prot);

/* A zeroed page-table page from memblock (panics when there is none). */
void *kmap_table(uint64_t *pa);

/* Map [@pa, @pa + @size) at @va, page aligned, with the largest leaves
 * that fit; every RAM range of `machine` at PAGE_OFFSET + its address.
 * Context: boot, from arch_mm_init(), before page_alloc_init(). */
void kmap_range(const struct kmap *k, unsigned long va, uint64_t pa, uint64_t size, uint64_t prot);
void kmap_ram(const struct kmap *k, uint64_t prot);

/*
 * The write_protect_seq of @mm: fork writes it around its copy
 * (mm_fork(), under the mmap_lock for write, so there is one writer), a
 * FOLL_PIN gup-fast reads it before and after its walk. A pin that
 * gup-fast takes while fork runs could land between fork's check of the
 * pin (folio_maybe_dma_pinned(), MMF_HAS_PINNED) and its write-protect
 * of the entry, and fork would then share the pinned page with the child.
 *
 * Ordering: fork stores the odd value, then a full barrier, then reads
 * MMF_HAS_PINNED and the refcounts; gup-fast sets MMF_HAS_PINNED and
 * takes its grabs (atomic), then a full barrier, then reads the seq
 * again. Either fork sees the pin (and copies the page for the child) or
 * gup-fast sees the seq moved and gives every pin back.
 */
static inline void mm_write_protect_begin(struct mm *mm)
{
	__atomic_store_n(&mm->write_protect_seq, mm->write_protect_seq + 1, __ATOMIC_RELAXED);
	mm_full_barrier();
}

static inline void mm_write_protect_end(struct mm *mm)
{
	__atomic_store_n(&mm->write_protect_seq, mm->write_protect_seq + 1, __ATOMIC_RELEASE);
}

static inline unsigned long mm_write_protect_seq(struct mm *mm)
{
	return __atomic_load_n(&mm->write_protect_seq, __ATOMIC_ACQUIRE);
}

/* One character for the entry @pte, the PTE strip's (mm/ptdump.c; the
 * trace's strip uses the same letters): . none, m migration, s swap,
 * W/w writable dirty/clean, R/r read-only dirty/clean. */
char pte_strip_char(pte_t pte);

#endif
