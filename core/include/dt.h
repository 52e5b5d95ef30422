/*
 * dt.h - a small, bounds-checked reader of flattened device trees.
 *
 * Written for the guest (no libc beyond string functions) and also built
 * on the host for tests. It trusts nothing in the blob: every offset and
 * length is checked against the header and the caller's size limit.
 */
#ifndef GUEST_DT_H
#define GUEST_DT_H

#include <stddef.h>
#include <stdint.h>

#define DT_MAGIC 0xd00dfeedu
#define DT_MAX_DEPTH 16

struct dt {
	const uint8_t *blob;
	uint32_t total; /* header totalsize, <= the caller's limit */
	uint32_t struct_off, struct_size;
	uint32_t strings_off, strings_size;
};

/* Callbacks of dt_walk(); a non-zero return stops the walk with that value.
 * @depth is 0 for the root node. @name is the node's unit name ("memory@0"). */
struct dt_visitor {
	int (*begin_node)(void *ctx, int depth, const char *name);
	int (*prop)(void *ctx, int depth, const char *name, const void *data, uint32_t len);
	int (*end_node)(void *ctx, int depth);
	void *ctx;
};

/* dt_open - check the header of @blob (at most @max bytes readable).
 * Return: 0, or -1 when the blob is not a well-formed FDT. */
int dt_open(struct dt *dt, const void *blob, size_t max);

/* Total size claimed by the header of @blob, 0 when it is not an FDT. */
uint32_t dt_total_size(const void *blob);

/* dt_walk - visit every node and property in tree order.
 * Return: 0 at the end of the tree, -1 on a malformed structure block, or
 * the first non-zero callback value. */
int dt_walk(const struct dt *dt, const struct dt_visitor *v);

/* Big-endian cell readers for property data. */
static inline uint32_t dt_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t dt_be64(const void *p)
{
	return (uint64_t)dt_be32(p) << 32 | dt_be32((const uint8_t *)p + 4);
}

/* Read @cells (1 or 2) big-endian cells at @p as one number. */
static inline uint64_t dt_cells(const void *p, int cells)
{
	return cells == 2 ? dt_be64(p) : dt_be32(p);
}

#endif
