/*
 * vma.c - the VMA list of an mm: lookup, splitting, placement, and the
 * mmap/munmap/mprotect/madvise entry points that edit it.
 *
 * VMAs are kept in a sorted singly linked list: simple to read, and the
 * tests and benchmarks use a handful per mm. Every entry point validates
 * its arguments first and makes the splits (the only step that can fail)
 * before it changes any mapping, so an error leaves the mm as it was.
 *
 * Context: the entry points take the mm's mmap_lock for write; find_vma()
 * and the rest need it held (for read at least) by the caller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "mm.h"
#include "mm_internal.h"
#include "shmem.h"
#include "trace.h"

#define MMAP_BASE 0x200000000ul /* first address mm_mmap() picks: 8 GiB */

struct vma *find_vma(struct mm *mm, unsigned long addr)
{
	for (struct vma *v = mm->vmas; v && v->start <= addr; v = v->next)
		if (addr < v->end)
			return v;
	return NULL;
}

/* The first VMA that ends after @addr (it may start after it), or NULL. */
struct vma *find_vma_from(struct mm *mm, unsigned long addr)
{
	struct vma *v = mm->vmas;

	while (v && v->end <= addr)
		v = v->next;
	return v;
}

void vma_link(struct mm *mm, struct vma *n)
{
	struct vma **p = &mm->vmas;

	while (*p && (*p)->start < n->start)
		p = &(*p)->next;
	n->next = *p;
	*p = n;
}

void vma_unlink_free(struct mm *mm, struct vma *v)
{
	struct vma **p = &mm->vmas;

	while (*p != v)
		p = &(*p)->next;
	*p = v->next;
	if (v->shm)
		shmem_put(v->shm);
	free(v);
}

/*
 * vma_split - make @addr a VMA boundary if it falls inside a VMA.
 * Return: 0, or -ENOMEM (nothing changed).
 */
static int vma_split(struct mm *mm, unsigned long addr)
{
	struct vma *v = find_vma(mm, addr), *n;

	if (!v || v->start == addr)
		return 0;
	n = malloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	*n = *v;
	n->start = addr;
	if (n->shm) {
		shmem_get(n->shm);
		n->pgoff += (addr - v->start) >> PAGE_SHIFT;
	}
	v->end = addr;
	n->next = v->next;
	v->next = n;
	return 0;
}

/* May @a and @b (adjacent) be one VMA? Every attribute equal; shared
 * ones map one object at consecutive offsets. */
static bool vma_mergeable(const struct vma *a, const struct vma *b)
{
	return a->end == b->start && a->flags == b->flags && a->orders == b->orders &&
	       a->nid == b->nid && a->pol.mode == b->pol.mode && a->pol.nodes == b->pol.nodes &&
	       a->shm == b->shm &&
	       (!a->shm || a->pgoff + ((a->end - a->start) >> PAGE_SHIFT) == b->pgoff);
}

/*
 * vma_merge_around - after a change of [start, end)'s attributes, join
 * the VMAs from the one ending at @start to the one starting at @end
 * where neighbours became equal again, as Linux's vma_modify() merges: an
 * mprotect(PROT_READ) of one page and back leaves one VMA. Only the
 * boundaries the change made or touched are joined; separate mmaps that
 * happen to be adjacent stay separate unless the change spans them.
 * Context: mmap_lock held for write.
 */
void vma_merge_around(struct mm *mm, unsigned long start, unsigned long end)
{
	struct vma *v = find_vma(mm, start ? start - 1 : start);

	if (!v || v->end < start)
		v = find_vma_from(mm, start);
	while (v && v->next && v->start <= end) {
		struct vma *n = v->next;

		if (n->start > end || !vma_mergeable(v, n)) {
			v = n;
			continue;
		}
		v->end = n->end;
		vma_unlink_free(mm, n);
	}
}

/* Validate a user range. */
int range_ok(unsigned long addr, unsigned long len)
{
	return len && !(addr & (PAGE_SIZE - 1)) && !(len & (PAGE_SIZE - 1)) &&
	       addr >= MM_USER_START && addr < MM_USER_END && len <= MM_USER_END - addr;
}

/* Is every byte of [start, end) inside some VMA? */
bool range_mapped(struct mm *mm, unsigned long start, unsigned long end)
{
	struct vma *v = find_vma_from(mm, start);

	while (start < end) {
		if (!v || v->start > start)
			return false;
		start = v->end;
		v = v->next;
	}
	return true;
}

/* Largest page size the folio orders in @orders can use, at most a PMD. */
static unsigned long orders_align(unsigned long orders)
{
	for (int o = PMD_ORDER; o > 0; o--)
		if (orders & (1ul << o))
			return PAGE_SIZE << o;
	return PAGE_SIZE;
}

/* Find a free range of @len aligned to @align at or above @from; 0 if none. */
static unsigned long find_gap(struct mm *mm, unsigned long from, unsigned long len,
			      unsigned long align)
{
	unsigned long a = (from + align - 1) & ~(align - 1);

	for (struct vma *v = find_vma_from(mm, a); a + len <= MM_USER_END; v = v->next) {
		if (!v || a + len <= v->start)
			return a;
		a = (v->end + align - 1) & ~(align - 1);
	}
	return 0;
}

/* A free range of @len for a VMA whose folios have @orders, aligned as
 * mm_mmap() aligns a new one; 0 if none. */
unsigned long get_unmapped_area(struct mm *mm, unsigned long len, unsigned long orders)
{
	return find_gap(mm, MMAP_BASE, len, orders_align(orders | 1));
}

static long do_mmap(struct mm *mm, unsigned long addr, unsigned long len, unsigned vm_flags,
		    unsigned map_flags, unsigned long orders)
{
	struct vma *v;
	int err;

	if ((vm_flags &
	     ~(VM_ACCESS_FLAGS | VM_NOHUGEPMD | VM_HUGEPAGE | VM_THP_SYSTEM | VM_SHARED)) ||
	    orders >> (PMD_ORDER + 1))
		return -EINVAL;
	if (vm_flags & VM_SHARED) { /* order-0 pages only (mm/shmem.h) */
		vm_flags &= ~VM_THP_SYSTEM;
		orders = 1;
	}
	if (map_flags & MAP_FIXED_ADDR) {
		if (!range_ok(addr, len))
			return -EINVAL;
	} else {
		if (!len || (len & (PAGE_SIZE - 1)))
			return -EINVAL;
		if (len > MM_USER_END - MM_USER_START)
			return -ENOMEM;
		if (addr < MM_USER_START || addr >= MM_USER_END)
			addr = MMAP_BASE;
		addr = find_gap(mm, addr, len, orders_align(orders | 1));
		if (!addr)
			return -ENOMEM;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if ((vm_flags & VM_SHARED) && !(v->shm = shmem_create(len >> PAGE_SHIFT))) {
		free(v);
		return -ENOMEM;
	}
	if ((map_flags & MAP_FIXED_ADDR) && (err = do_munmap(mm, addr, len))) {
		if (v->shm)
			shmem_put(v->shm);
		free(v);
		return err;
	}
	v->mm = mm;
	v->start = addr;
	v->end = addr + len;
	v->flags = vm_flags;
	v->orders = orders | 1;
	v->nid = 0;
	vma_link(mm, v);
	return (long)addr;
}

long mm_mmap(struct mm *mm, unsigned long addr, unsigned long len, unsigned vm_flags,
	     unsigned map_flags, unsigned long orders)
{
	long ret;

	mmap_write_lock(mm);
	ret = do_mmap(mm, addr, len, vm_flags, map_flags, orders);
	mmap_write_unlock(mm);
	return ret;
}

/*
 * split_range - make @start and @end VMA boundaries, splitting first the
 * PMD leaves that would straddle them (a leaf never spans two VMAs).
 * Return: 0 or -ENOMEM; on failure some of the splits may be done, which
 * changes no mapping, protection or content.
 */
int split_range(struct mm *mm, unsigned long start, unsigned long end)
{
	int err = prepare_range(mm, start, end);

	if (!err)
		err = vma_split(mm, start);
	return err ? err : vma_split(mm, end);
}

int do_munmap(struct mm *mm, unsigned long addr, unsigned long len)
{
	unsigned long end = addr + len;
	struct mmu_gather tlb;
	struct vma *v, *next;
	int err;

	if (!range_ok(addr, len))
		return -EINVAL;
	err = split_range(mm, addr, end);
	if (err)
		return err;
	tlb_gather_init(&tlb, mm, false);
	for (v = find_vma_from(mm, addr); v && v->start < end; v = next) {
		next = v->next;
		zap_vma_range(&tlb, v, v->start, v->end);
		vma_unlink_free(mm, v);
	}
	free_pgtables_tlb(&tlb, addr, end);
	tlb_finish(&tlb);
	return 0;
}

int mm_munmap(struct mm *mm, unsigned long addr, unsigned long len)
{
	int ret;

	TRACE(trace_op_begin("munmap", mm, addr, addr + len, mm_caps.zap));
	mmap_write_lock(mm);
	ret = do_munmap(mm, addr, len);
	mmap_write_unlock(mm);
	TRACE(trace_op_end("munmap"));
	return ret;
}

static int do_mprotect(struct mm *mm, unsigned long addr, unsigned long len, unsigned vm_flags)
{
	unsigned long end = addr + len;
	int err;

	if (!range_ok(addr, len) || (vm_flags & ~VM_ACCESS_FLAGS))
		return -EINVAL;
	if (!range_mapped(mm, addr, end))
		return -ENOMEM;
	err = split_range(mm, addr, end);
	if (err)
		return err;
	for (struct vma *v = find_vma(mm, addr); v && v->start < end; v = v->next) {
		unsigned newflags = (v->flags & ~VM_ACCESS_FLAGS) | vm_flags;

		change_protection(v, v->start, v->end, newflags);
		v->flags = newflags;
	}
	flush_tlb_range(mm, addr, end);
	vma_merge_around(mm, addr, end);
	return 0;
}

int mm_mprotect(struct mm *mm, unsigned long addr, unsigned long len, unsigned vm_flags)
{
	int ret;

	TRACE(trace_op_begin("mprotect", mm, addr, addr + len, mm_caps.mprotect));
	mmap_write_lock(mm);
	ret = do_mprotect(mm, addr, len, vm_flags);
	mmap_write_unlock(mm);
	TRACE(trace_op_end("mprotect"));
	return ret;
}

static int do_madvise_flags(struct mm *mm, unsigned long addr, unsigned long len, unsigned set,
			    unsigned clear)
{
	unsigned long end = addr + len;
	int err;

	if (!range_ok(addr, len) || ((set | clear) & ~(VM_DONTCOPY | VM_NOHUGEPMD | VM_HUGEPAGE)))
		return -EINVAL;
	if (!range_mapped(mm, addr, end))
		return -ENOMEM;
	err = split_range(mm, addr, end);
	if (err)
		return err;
	for (struct vma *v = find_vma(mm, addr); v && v->start < end; v = v->next)
		v->flags = (v->flags | set) & ~clear;
	vma_merge_around(mm, addr, end);
	return 0;
}

int mm_madvise_flags(struct mm *mm, unsigned long addr, unsigned long len, unsigned set,
		     unsigned clear)
{
	int ret;

	mmap_write_lock(mm);
	ret = do_madvise_flags(mm, addr, len, set, clear);
	mmap_write_unlock(mm);
	return ret;
}

bool mm_range_free(struct mm *mm, unsigned long addr, unsigned long len)
{
	struct vma *v;
	bool free;

	mmap_write_lock(mm);
	v = find_vma_from(mm, addr);
	free = !v || v->start >= addr + len;
	mmap_write_unlock(mm);
	return free;
}

/* Free every VMA of @mm (their mappings must already be gone). */
void vma_free_all(struct mm *mm)
{
	while (mm->vmas)
		vma_unlink_free(mm, mm->vmas);
}
