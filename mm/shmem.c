/*
 * shmem.c - shared anonymous memory: the page array behind a
 * MAP_SHARED|MAP_ANONYMOUS mapping and its faults (shmem.h says how it
 * is shared and counted).
 */
#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "mm_internal.h"
#include "shmem.h"

static struct spinlock shmem_list_lock = SPINLOCK_INIT(LOCK_LEAF, "shmem_list");
static struct shmem *shmem_list;

struct shmem *shmem_create(unsigned long pages)
{
	struct shmem *s = calloc(1, sizeof(*s) + pages * sizeof(s->pages[0]));

	if (!s)
		return NULL;
	spin_lock_init(&s->lock, LOCK_LEAF, "shmem");
	s->refs = 1;
	s->nr_pages = pages;
	spin_lock(&shmem_list_lock);
	s->next = shmem_list;
	shmem_list = s;
	spin_unlock(&shmem_list_lock);
	return s;
}

void shmem_get(struct shmem *s)
{
	__atomic_fetch_add(&s->refs, 1, __ATOMIC_RELAXED);
}

static void shmem_unlist(struct shmem *s)
{
	struct shmem **p = &shmem_list;

	spin_lock(&shmem_list_lock);
	while (*p != s)
		p = &(*p)->next;
	*p = s->next;
	spin_unlock(&shmem_list_lock);
}

/* Context: no VMA maps @s any more, so no fault or migration reaches it;
 * its pages lose their last mapping before this (a zap's gathered
 * references may still be pending: the folio goes with the last). */
void shmem_put(struct shmem *s)
{
	int refs = __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);

	if (refs < 0)
		panic("shmem_put: object %p has %d references", (void *)s, refs + 1);
	if (refs)
		return;
	shmem_unlist(s);
	for (unsigned long i = 0; i < s->nr_pages; i++)
		if (s->pages[i])
			folio_put(s->pages[i]);
	free(s);
}

/*
 * shmem_grab - the object's page at @index with one reference for the
 * caller, allocating it (zeroed, by @vma's policy for @addr) when there
 * is none. Return: the folio; NULL with *@err SHMEM_FAULT_WAIT when a
 * migration holds the page, 0 when another fault filled the slot first
 * (retry), -ENOMEM when out of memory.
 */
static struct folio *shmem_grab(struct vma *vma, unsigned long addr, unsigned long index, int *err)
{
	struct shmem *s = vma->shm;
	struct folio *f, *n;

	*err = 0;
	spin_lock(&s->lock);
	f = s->pages[index];
	if (f) {
		bool ok = !(page_flags(&f->page) & PG_locked) && folio_try_grab(f, 1, false);

		spin_unlock(&s->lock);
		if (!ok) /* a migration has it (or froze it): wait */
			*err = SHMEM_FAULT_WAIT;
		return ok ? f : NULL;
	}
	spin_unlock(&s->lock);
	n = vma_alloc_folio(vma, addr, 0, ALLOC_ZERO);
	if (!n) {
		*err = -ENOMEM;
		return NULL;
	}
	page_set_flags(&n->page, PG_shmem);
	spin_lock(&s->lock);
	f = s->pages[index];
	if (!f) {
		/* the allocation's reference is the object's; release: the
		 * zeroed page before the slot, for shmem_fault_wait()'s read */
		__atomic_store_n(&s->pages[index], n, __ATOMIC_RELEASE);
		folio_get(n);
	}
	spin_unlock(&s->lock);
	if (f) { /* another CPU's fault filled the slot first: retry */
		folio_put(n);
		return NULL;
	}
	return n;
}

int shmem_fault_none(struct vma *vma, pte_t *ptep, unsigned long addr, bool write)
{
	unsigned long index = vma_shmem_index(vma, addr);
	struct folio *f;
	pte_t pte;
	int err;

	if (index >= vma->shm->nr_pages)
		return -EFAULT;
	f = shmem_grab(vma, addr, index, &err);
	if (!f)
		return err;
	folio_add_rmap_ptes(f, &f->page, 1);
	pte = vma_mk_pte(vma, folio_pfn(f));
	if (write)
		pte = pte_mkdirty(pte);
	set_ptes(vma->mm, addr, ptep, pte, 1);
	return 0;
}

int shmem_fault_wait(struct vma *vma, unsigned long addr)
{
	unsigned long index = vma_shmem_index(vma, addr);
	struct folio *f;

	while ((f = shmem_folio(vma->shm, index)) && (page_flags(&f->page) & PG_locked))
		arch_cpu_relax();
	return 0;
}

void shmem_fault_present(struct vma *vma, pte_t *ptep, unsigned long addr, pte_t pte, bool write)
{
	pte_t entry = pte_mkyoung(pte);

	if (write)
		entry = pte_mkdirty(pte_mkwrite(entry));
	ptep_set_access_flags(vma, addr, ptep, entry);
}

void shmem_replace_folio(struct shmem *s, unsigned long index, struct folio *old, struct folio *new)
{
	spin_lock(&s->lock);
	if (index >= s->nr_pages || s->pages[index] != old)
		panic("shmem_replace_folio: slot %lu of %p is not the migrated folio", index,
		      (void *)s);
	__atomic_store_n(&s->pages[index], new, __ATOMIC_RELEASE); /* read unlocked: the wait */
	spin_unlock(&s->lock);
}

struct folio *shmem_folio(struct shmem *s, unsigned long index)
{
	return index < s->nr_pages ? __atomic_load_n(&s->pages[index], __ATOMIC_ACQUIRE) : NULL;
}

void shmem_for_each(void (*fn)(struct shmem *s, void *ctx), void *ctx)
{
	for (struct shmem *s = shmem_list; s; s = s->next)
		fn(s, ctx);
}
