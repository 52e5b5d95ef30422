/*
 * memblock.c - boot-time reservations and the early bump allocator (see
 * memblock.h).
 */
#include <stdio.h>

#include "kernel.h"
#include "memblock.h"

static struct memblock_region regions[MEMBLOCK_MAX];
static int nr_regions;
static bool closed;

/*
 * mm_reserve - record [start, start+size) widened outward to pages.
 * An empty range is ignored. Panics when the table is full, the range wraps
 * around, or the buddy allocator already owns memory.
 */
void mm_reserve(uint64_t start, uint64_t size, const char *what)
{
	uint64_t s = start & ~(PAGE_SIZE - 1), e;
	int i;

	if (size == 0)
		return;
	if (closed)
		panic("mm_reserve: %s [%#llx, +%#llx) after page_alloc_init", what,
		      (unsigned long long)start, (unsigned long long)size);
	if (start + size < start || start + size > UINT64_MAX - PAGE_SIZE)
		panic("mm_reserve: %s [%#llx, +%#llx) wraps around", what,
		      (unsigned long long)start, (unsigned long long)size);
	if (nr_regions == MEMBLOCK_MAX)
		panic("mm_reserve: more than %d reservations (adding %s)", MEMBLOCK_MAX, what);
	e = (start + size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	for (i = nr_regions; i > 0 && regions[i - 1].start > s; i--)
		regions[i] = regions[i - 1];
	regions[i] = (struct memblock_region){ s, e, what };
	nr_regions++;
}

bool memblock_next_free(uint64_t *pos, uint64_t end, uint64_t *fstart, uint64_t *fend)
{
	uint64_t p = *pos;

	for (int i = 0; i < nr_regions && p < end; i++) {
		if (regions[i].end <= p)
			continue;
		if (regions[i].start > p) {
			*fstart = p;
			*fend = regions[i].start < end ? regions[i].start : end;
			*pos = *fend;
			return true;
		}
		p = regions[i].end; /* sorted by start: later ones may extend it */
	}
	if (p >= end) {
		*pos = end;
		return false;
	}
	*fstart = p;
	*fend = end;
	*pos = end;
	return true;
}

/* Find @size bytes at @align in [base, end); 0 when found (in @pa). */
static int fit_in_range(uint64_t base, uint64_t end, uint64_t size, uint64_t align, uint64_t *pa)
{
	uint64_t pos = base, fs, fe;

	while (memblock_next_free(&pos, end, &fs, &fe)) {
		uint64_t a = (fs + align - 1) & ~(align - 1);

		if (a >= fs && a < fe && fe - a >= size) {
			*pa = a;
			return 0;
		}
	}
	return -1;
}

int memblock_alloc(uint64_t size, uint64_t align, int nid, const char *what, uint64_t *pa)
{
	const struct numa_node *n;

	if (closed)
		panic("memblock_alloc: %s after page_alloc_init (use folio_alloc)", what);
	if (nid < 0 || nid >= machine.nr_nodes || align < PAGE_SIZE || (align & (align - 1)))
		panic("memblock_alloc: %s: bad node %d or alignment %#llx", what, nid,
		      (unsigned long long)align);
	size = (size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	n = &machine.node[nid];
	for (int r = 0; r < n->nr_ranges; r++) {
		uint64_t base = n->range[r].base, end = base + n->range[r].size;

		if (size && fit_in_range(base, end & ~(PAGE_SIZE - 1), size, align, pa) == 0) {
			mm_reserve(*pa, size, what);
			return 0;
		}
	}
	return -1;
}

bool memblock_is_reserved(uint64_t pa)
{
	for (int i = 0; i < nr_regions && regions[i].start <= pa; i++)
		if (pa < regions[i].end)
			return true;
	return false;
}

int memblock_count(void)
{
	return nr_regions;
}

const struct memblock_region *memblock_region(int i)
{
	return i >= 0 && i < nr_regions ? &regions[i] : NULL;
}

void memblock_close(void)
{
	closed = true;
}

void memblock_print(void)
{
	for (int i = 0; i < nr_regions; i++)
		printf("mm: reserved [%#014llx-%#014llx) %s\n",
		       (unsigned long long)regions[i].start, (unsigned long long)regions[i].end,
		       regions[i].what);
}
