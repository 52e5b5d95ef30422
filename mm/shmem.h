/*
 * shmem.h - the object behind a MAP_SHARED|MAP_ANONYMOUS mapping (Linux
 * backs one with a shmem file; here it is an array of pages by offset).
 *
 * mmap(MAP_SHARED|MAP_ANONYMOUS) creates the object, sized to the
 * mapping; every VMA that maps part of it (the first, the pieces a split
 * or mremap makes, a fork child's copy) holds one reference, and the
 * last VMA to go frees it with its pages. A page of the object is an
 * order-0 folio with PG_shmem: the object holds one reference on it, each
 * PTE mapping one more (a mapcount, as an anon page). Shared folios are
 * never AnonExclusive and are never copied on write: a write fault maps
 * the object's page writable when the VMA is, in every mm alike.
 *
 * Order 0 only: no large folio, no PMD mapping (MADV_HUGEPAGE is
 * accepted and changes nothing). MADV_PAGEOUT and reclaim leave shared
 * folios alone (no swap), MADV_FREE refuses a shared VMA (-EINVAL, as
 * Linux refuses it on anything but private anon).
 *
 * Context: the object's lock (LOCK_LEAF) guards its page array; nothing
 * is allocated or freed under it. A fault reads the array under its PTE
 * lock; a migration replaces a page under the family lock (the folio is
 * frozen, so no fault can take it meanwhile).
 */
#ifndef MM_SHMEM_H
#define MM_SHMEM_H

#include <stdbool.h>

#include "mm.h"
#include "page.h"

struct shmem {
	struct spinlock lock;	/* pages[] */
	int refs;		/* VMAs mapping it (atomic) */
	unsigned long nr_pages; /* its size, fixed at mmap */
	struct shmem *next;	/* every live object, for the checker (shmem_list_lock) */
	struct folio *pages[];	/* NULL: not yet faulted in */
};

/* A new object of @pages zero pages (none allocated yet), one reference.
 * Return: it, or NULL when out of memory. */
struct shmem *shmem_create(unsigned long pages);
void shmem_get(struct shmem *s);
/* Drop a reference; the last frees the object and puts its pages. */
void shmem_put(struct shmem *s);

/* The page offset in @vma's object of @addr. */
static inline unsigned long vma_shmem_index(const struct vma *vma, unsigned long addr)
{
	return vma->pgoff + ((addr - vma->start) >> PAGE_SHIFT);
}

/*
 * shmem_fault_none - a fault at @addr of the shared @vma on the empty PTE
 * @ptep: map the object's page there (allocated, zeroed, if the object
 * has none yet), writable when the VMA is, dirty for a @write.
 * Return: 0 (mapped, or left empty for the access to retry when another
 * CPU's fault filled the slot first), SHMEM_FAULT_WAIT (a migration holds
 * the page: call shmem_fault_wait() once the PTE lock is dropped), -EFAULT
 * (beyond the object's end: Linux's SIGBUS) or -ENOMEM.
 * Context: the PTE table lock is held.
 */
#define SHMEM_FAULT_WAIT 1
int shmem_fault_none(struct vma *vma, pte_t *ptep, unsigned long addr, bool write);

/*
 * shmem_fault_wait - wait until the object's page for @addr is no longer
 * held by a migration (PG_locked, Linux's folio lock), so that the
 * retried access maps the page it moved to. The migration needs no lock
 * the fault still holds (the mmap_lock for read only). Return: 0.
 * Context: the mmap_lock held for read (the VMA and its object stay).
 */
int shmem_fault_wait(struct vma *vma, unsigned long addr);

/* A write to the present read-only entry @pte of a shared writable VMA,
 * or an access that found it old: set young (and writable, dirty for a
 * write) in place, no copy. Context: the PTE table lock is held. */
void shmem_fault_present(struct vma *vma, pte_t *ptep, unsigned long addr, pte_t pte, bool write);

/*
 * shmem_replace_folio - migration moved the object's page at @index from
 * @old to @new: the slot names @new, which takes over the object's
 * reference (the caller gives @new one; @old's went with the freeze).
 * Context: @old is frozen; the migration lock and family lock held.
 */
void shmem_replace_folio(struct shmem *s, unsigned long index, struct folio *old,
			 struct folio *new);

/* The object's page at @index, or NULL (the checker, pagemap). */
struct folio *shmem_folio(struct shmem *s, unsigned long index);

/* Every live object, for the checker: @fn on each. Context: quiescent. */
void shmem_for_each(void (*fn)(struct shmem *s, void *ctx), void *ctx);

#endif
