/*
 * heap.c - the newlib heap (sbrk) over a reserved physical range.
 *
 * The range starts at the first 2 MiB boundary after the kernel image and
 * is HEAP_SIZE long. It lives in the direct map, so the boot page tables
 * already map it, and pages are only touched as malloc uses them (a large
 * zeroed .bss would cost boot time under KVM). mm/ reserves the same range.
 */
#include <errno.h>
#include <stddef.h>

#include "kernel.h"
#include "smp.h"
#include "spinlock.h"

#define HEAP_SIZE (16ul << 20)
#define HEAP_ALIGN (2ul << 20)

extern char _kernel_end[];

static uint64_t heap_phys;
static char *heap_base, *heap_brk;

void heap_range(uint64_t *start_phys, uint64_t *size)
{
	*start_phys = heap_phys;
	*size = HEAP_SIZE;
}

/* Is [start, start+size) inside the memory of some node? */
static int in_ram(uint64_t start, uint64_t size)
{
	for (int n = 0; n < machine.nr_nodes; n++)
		for (int r = 0; r < machine.node[n].nr_ranges; r++) {
			const struct mem_range *mr = &machine.node[n].range[r];
			if (start >= mr->base && start + size <= mr->base + mr->size)
				return 1;
		}
	return 0;
}

/* Does [start, start+size) overlap a range the boot protocol owns? */
static const char *overlaps_boot(uint64_t start, uint64_t size)
{
	for (int i = 0; i < boot_info->nr_reserved; i++) {
		const struct boot_range *b = &boot_info->reserved[i];
		if (start < b->start + b->size && b->start < start + size)
			return b->what;
	}
	return NULL;
}

void heap_init(void)
{
	const char *clash;

	heap_phys = (virt_to_phys(_kernel_end) + HEAP_ALIGN - 1) & ~(HEAP_ALIGN - 1);
	if (!in_ram(heap_phys, HEAP_SIZE) || heap_phys + HEAP_SIZE > BOOT_MAP_SIZE)
		panic("heap_init: heap [%#llx, +%#lx) is not in mapped RAM",
		      (unsigned long long)heap_phys, HEAP_SIZE);
	clash = overlaps_boot(heap_phys, HEAP_SIZE);
	if (clash)
		panic("heap_init: heap [%#llx, +%#lx) overlaps %s", (unsigned long long)heap_phys,
		      HEAP_SIZE, clash);
	heap_base = heap_brk = phys_to_virt(heap_phys);
	boot_reserve(heap_phys, HEAP_SIZE, "heap");
}

/* newlib's sbrk: grow the break, or fail with ENOMEM past the range. */
void *sbrk(ptrdiff_t incr)
{
	char *old = heap_brk;

	if (!heap_base || incr > heap_base + HEAP_SIZE - heap_brk || heap_brk + incr < heap_base) {
		errno = ENOMEM;
		return (void *)-1;
	}
	heap_brk += incr;
	return old;
}

void *_sbrk(ptrdiff_t incr)
{
	return sbrk(incr);
}

/*
 * newlib's malloc lock (its own is a no-op): malloc, free and sbrk from
 * several CPUs go through one lock. newlib may take it recursively, so
 * the holding CPU only counts depth. Class LOCK_LEAF: mm/ allocates VMAs
 * with the mmap_lock held, and nothing is taken under this lock.
 */
static struct spinlock malloc_lock = SPINLOCK_INIT(LOCK_LEAF, "malloc_lock");
static int malloc_owner = -1; /* CPU holding malloc_lock */
static unsigned malloc_depth; /* its nesting; the owner's alone */

struct _reent;

void __malloc_lock(struct _reent *r)
{
	int me = (int)smp_processor_id();

	(void)r;
	if (__atomic_load_n(&malloc_owner, __ATOMIC_RELAXED) != me) {
		spin_lock(&malloc_lock);
		__atomic_store_n(&malloc_owner, me, __ATOMIC_RELAXED);
	}
	malloc_depth++;
}

void __malloc_unlock(struct _reent *r)
{
	(void)r;
	if (--malloc_depth)
		return;
	__atomic_store_n(&malloc_owner, -1, __ATOMIC_RELAXED);
	spin_unlock(&malloc_lock);
}
