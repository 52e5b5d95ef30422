/*
 * memblock.h - boot-time physical memory: the sorted list of reserved
 * ranges, and a bump allocator over what they leave free, in use until the
 * buddy allocator takes over (page_alloc_init() closes it).
 *
 * RAM itself is `machine`'s node ranges; this file only records what of it
 * must never reach the free lists (firmware, boot data, kernel image, heap,
 * memmaps, early page tables). Reservations are widened to whole pages and
 * may overlap each other.
 */
#ifndef MM_MEMBLOCK_H
#define MM_MEMBLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define MEMBLOCK_MAX 64

struct memblock_region {
	uint64_t start, end; /* [start, end), page aligned */
	const char *what;
};

/*
 * memblock_alloc - reserve @size bytes at @align (a power of two, at least
 * a page) in the first free piece of node index @nid's RAM that fits, and
 * store the physical address in @pa. The memory is not zeroed.
 * Return: 0, or -1 when nothing fits (nothing reserved). Panics after
 * page_alloc_init().
 */
int memblock_alloc(uint64_t size, uint64_t align, int nid, const char *what, uint64_t *pa);

/*
 * memblock_next_free - the first unreserved piece of [*pos, end): store it
 * in [*fstart, *fend) and move *pos past it. Return: false when none is
 * left. Use it as: pos = start; while (memblock_next_free(&pos, end, ...)).
 */
bool memblock_next_free(uint64_t *pos, uint64_t end, uint64_t *fstart, uint64_t *fend);

/* Is physical address @pa inside some reservation? */
bool memblock_is_reserved(uint64_t pa);

/* The reservations, sorted by start. */
int memblock_count(void);
const struct memblock_region *memblock_region(int i);

/* No more reservations: the buddy allocator owns the rest (panics later). */
void memblock_close(void);

/* Print the reservations, one a line. */
void memblock_print(void);

#endif
