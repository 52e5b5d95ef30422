/*
 * dt.c - flattened device tree reader (see dt.h).
 *
 * The structure block is a stream of big-endian 32-bit tokens: BEGIN_NODE
 * (followed by the NUL-terminated name, padded to 4 bytes), PROP (length,
 * name offset into the strings block, then the data, padded), END_NODE,
 * NOP and END.
 */
#include <string.h>

#include "dt.h"

enum { DT_BEGIN_NODE = 1, DT_END_NODE = 2, DT_PROP = 3, DT_NOP = 4, DT_END = 9 };

uint32_t dt_total_size(const void *blob)
{
	if (!blob || dt_be32(blob) != DT_MAGIC)
		return 0;
	return dt_be32((const uint8_t *)blob + 4);
}

/* Is [off, off+len) inside [0, limit)? Overflow-safe. */
static int in_bounds(uint32_t off, uint32_t len, uint32_t limit)
{
	return off <= limit && len <= limit - off;
}

int dt_open(struct dt *dt, const void *blob, size_t max)
{
	const uint8_t *h = blob;

	if (!blob || max < 40 || dt_be32(h) != DT_MAGIC)
		return -1;
	dt->blob = h;
	dt->total = dt_be32(h + 4);
	dt->struct_off = dt_be32(h + 8);
	dt->strings_off = dt_be32(h + 12);
	dt->strings_size = dt_be32(h + 32);
	dt->struct_size = dt_be32(h + 36);
	if (dt->total > max || dt->total < 40)
		return -1;
	if (dt_be32(h + 20) < 17 && dt_be32(h + 24) > 17) /* version, last_comp_version */
		return -1;
	if (!in_bounds(dt->struct_off, dt->struct_size, dt->total) ||
	    !in_bounds(dt->strings_off, dt->strings_size, dt->total) || (dt->struct_off & 3))
		return -1;
	return 0;
}

/* Length of the NUL-terminated string at @s within @avail bytes, or -1. */
static int bounded_strlen(const uint8_t *s, uint32_t avail)
{
	const void *nul = memchr(s, 0, avail);

	return nul ? (int)((const uint8_t *)nul - s) : -1;
}

static uint32_t align4(uint32_t x)
{
	return (x + 3) & ~3u;
}

/* Decode one PROP token whose payload starts at *pos; advance *pos. */
static int walk_prop(const struct dt *dt, uint32_t *pos, int depth, const struct dt_visitor *v)
{
	const uint8_t *s = dt->blob + dt->struct_off;
	uint32_t len, nameoff;
	int nlen;

	if (!in_bounds(*pos, 8, dt->struct_size))
		return -1;
	len = dt_be32(s + *pos);
	nameoff = dt_be32(s + *pos + 4);
	*pos += 8;
	if (!in_bounds(*pos, len, dt->struct_size) || nameoff >= dt->strings_size)
		return -1;
	nlen = bounded_strlen(dt->blob + dt->strings_off + nameoff, dt->strings_size - nameoff);
	if (nlen < 0)
		return -1;
	if (v->prop) {
		int r = v->prop(v->ctx, depth, (const char *)dt->blob + dt->strings_off + nameoff,
				s + *pos, len);
		if (r)
			return r;
	}
	*pos = align4(*pos + len);
	return 0;
}

/* Decode one BEGIN_NODE token whose name starts at *pos; advance *pos. */
static int walk_begin(const struct dt *dt, uint32_t *pos, int depth, const struct dt_visitor *v)
{
	const uint8_t *s = dt->blob + dt->struct_off;
	int nlen = bounded_strlen(s + *pos, dt->struct_size - *pos);
	int r;

	if (nlen < 0 || depth >= DT_MAX_DEPTH)
		return -1;
	if (v->begin_node) {
		r = v->begin_node(v->ctx, depth, (const char *)s + *pos);
		if (r)
			return r;
	}
	*pos = align4(*pos + (uint32_t)nlen + 1);
	return 0;
}

int dt_walk(const struct dt *dt, const struct dt_visitor *v)
{
	const uint8_t *s = dt->blob + dt->struct_off;
	uint32_t pos = 0, tok;
	int depth = -1, r = 0;

	while (r == 0) {
		if (!in_bounds(pos, 4, dt->struct_size))
			return -1;
		tok = dt_be32(s + pos);
		pos += 4;
		switch (tok) {
		case DT_BEGIN_NODE:
			r = walk_begin(dt, &pos, ++depth, v);
			break;
		case DT_PROP:
			r = depth < 0 ? -1 : walk_prop(dt, &pos, depth, v);
			break;
		case DT_END_NODE:
			if (depth < 0)
				return -1;
			if (v->end_node)
				r = v->end_node(v->ctx, depth);
			depth--;
			break;
		case DT_NOP:
			break;
		case DT_END:
			return depth == -1 ? 0 : -1;
		default:
			return -1;
		}
	}
	return r;
}
