/*
 * explore_mix.c - the model of a mix (explore_mix.h): where the areas
 * are, the seeded random choices, and what a round can be sure of.
 */
#include <stdarg.h>

#include "explore_mix.h"

#define MIX_BASE 0x40000000ul /* PMD aligned */

const struct mix_area mix_areas[MIX_AREAS] = {
	{ "4K", MIX_BASE, 0, 16, RW, 1 },
	{ "mTHP", MIX_BASE + PMD_SIZE, 16, 32, RW | VM_NOHUGEPMD, (1ul << 4) | (1ul << 2) | 1 },
	{ "PMD", MIX_BASE + 2 * PMD_SIZE, 48, 512, RW, (1ul << PMD_ORDER) | 1 },
};

/* splitmix64: every choice of a schedule comes from its seed. */
uint64_t mix_rand(struct mix *m)
{
	uint64_t z = (m->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

unsigned mix_below(struct mix *m, unsigned n)
{
	return n ? (unsigned)(mix_rand(m) % n) : 0;
}

const struct mix_area *mix_area_of(unsigned page)
{
	for (int i = 0; i < MIX_AREAS; i++)
		if (page < mix_areas[i].first + mix_areas[i].npages)
			return &mix_areas[i];
	panic("mix_area_of: page %u beyond the areas", page);
}

unsigned long mix_addr(unsigned page)
{
	const struct mix_area *a = mix_area_of(page);

	return a->start + (unsigned long)(page - a->first) * PAGE_SIZE;
}

static unsigned pick_area(struct mix *m)
{
	unsigned total = 0, r;

	for (int i = 0; i < MIX_AREAS; i++)
		total += m->prof->area_weight[i];
	r = mix_below(m, total);
	for (unsigned i = 0; i < MIX_AREAS; i++) {
		if (r < m->prof->area_weight[i])
			return i;
		r -= m->prof->area_weight[i];
	}
	return 0;
}

/* Runs start on a folio boundary half of the time (whole folios move,
 * pin and split less), anywhere otherwise. */
void mix_pick_run(struct mix *m, unsigned max, unsigned *first, unsigned *n)
{
	const struct mix_area *a = &mix_areas[pick_area(m)];
	unsigned len = 1 + mix_below(m, max < a->npages ? max : a->npages);
	unsigned off = mix_below(m, a->npages - len + 1);

	if (mix_below(m, 2))
		off &= ~15u;
	*first = a->first + off;
	*n = len;
}

int mix_pick_slot(struct mix *m)
{
	int live[MIX_SLOTS], nr = 0;

	for (int s = 0; s < MIX_SLOTS; s++)
		if (m->slot[s].live && !m->slot[s].fresh)
			live[nr++] = s;
	return nr ? live[mix_below(m, (unsigned)nr)] : -1;
}

bool mix_certain(struct mix *m, int slot, unsigned page, bool write)
{
	const struct mix_slot *s = &m->slot[slot];
	const struct mix_page *p = &s->page[page];

	return p->mapped && (!write || p->writable) && !s->vma_busy[page];
}

unsigned mix_certain_run(struct mix *m, int slot, unsigned first, unsigned n, bool write)
{
	unsigned i = 0;

	while (i < n && mix_certain(m, slot, first + i, write))
		i++;
	return i;
}

bool mix_may_read_zero(struct mix *m, int slot, unsigned page)
{
	return m->slot[slot].page[page].lazy || m->slot[slot].freed[page];
}

/* A VMA op over [first, first + n) of @slot this round; @zero: a munmap
 * or remap (the pages read as zero afterwards). */
void mix_mark_vma_op(struct mix *m, int slot, unsigned first, unsigned n, bool zero)
{
	struct mix_slot *s = &m->slot[slot];

	s->vma_op = true;
	for (unsigned i = first; i < first + n; i++) {
		s->vma_busy[i] = true;
		s->zeroed[i] |= zero;
	}
}

/* Report one problem of a schedule; return 1 (a problem count). */
int mix_bad(struct mix *m, const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("    explore %s seed %llu round %u: %s: ", m->prof->name,
	       (unsigned long long)m->seed, m->round, what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return 1;
}
