/*
 * explore_check.c - the checks of a mix at a quiescent point (no CPU in
 * smp_run()): every page of every live mm holds what the writes that
 * reached it imply, and every R/W pin is still the page its mm maps and
 * sees the mm's writes (cow.c's promise).
 *
 * Context: CPU 0, between rounds; reads tables without locks.
 */
#include "explore_mix.h"
#include "folio_walk.h"
#include "swap.h"
#include "swapops.h"

/* A fork's child: which pages its VMAs cover, and how. */
static void learn_vmas(struct mix_slot *s)
{
	for (unsigned p = 0; p < MIX_PAGES; p++) {
		struct vma *v = find_vma(s->mm, mix_addr(p));

		s->page[p].mapped = v != NULL;
		s->page[p].writable = v && (v->flags & VM_WRITE);
	}
	s->fresh = false;
}

/* The words of @page as @mm maps it: from its swap slot when it is
 * swapped out, zero where nothing is mapped. */
static void words_at(struct mm *mm, unsigned page, uint32_t w[MIX_CPUS])
{
	static uint32_t slot[PAGE_SIZE / sizeof(uint32_t)];
	bool by_pmd;
	pte_t pte, e;
	struct page *pg = page_at(mm, mix_addr(page), &by_pmd, &pte);
	const uint32_t *src = pg ? page_address(pg) : NULL;

	if (!pg && swap_entry_at(mm, mix_addr(page), &e)) {
		swap_read_page(swap_entry_offset(e), slot);
		src = slot;
	}
	for (unsigned c = 0; c < MIX_CPUS; c++)
		w[c] = src ? src[c] : 0;
}

/* Each word within its range, which then shrinks to what it holds; a
 * lazy page's word may be zero too (reclaim discarded its folio). A
 * write this round ends the laziness, unless a MADV_FREE came this
 * round too (after it, perhaps). */
static int check_page(struct mix *m, int slot, unsigned page)
{
	struct mix_slot *s = &m->slot[slot];
	struct mix_page *p = &s->page[page];
	uint32_t w[MIX_CPUS];
	int bad = 0;

	if (!p->mapped) {
		if (find_vma(m->slot[slot].mm, mix_addr(page)))
			bad += mix_bad(m, "contents", "mm %d page %#lx: mapped after its munmap",
				       slot, mix_addr(page));
		return bad;
	}
	words_at(m->slot[slot].mm, page, w);
	for (unsigned c = 0; c < MIX_CPUS; c++) {
		if ((w[c] < p->lo[c] || w[c] > p->hi[c]) &&
		    !(mix_may_read_zero(m, slot, page) && !w[c]))
			bad += mix_bad(
				m, "contents",
				"mm %d page %#lx word %u: %#x, the writes imply [%#x, %#x]%s", slot,
				mix_addr(page), c, w[c], p->lo[c], p->hi[c],
				w[c] < p->lo[c] ? ": LOST WRITE" : "");
		p->lo[c] = p->hi[c] = w[c];
	}
	p->lazy = s->freed[page] || (p->lazy && !s->dirtied[page]);
	return bad;
}

int mix_check_contents(struct mix *m)
{
	int bad = 0;

	for (int s = 0; s < MIX_SLOTS; s++) {
		if (!m->slot[s].live)
			continue;
		if (m->slot[s].fresh)
			learn_vmas(&m->slot[s]);
		for (unsigned p = 0; p < MIX_PAGES; p++)
			bad += check_page(m, s, p);
	}
	return bad;
}

/* One pinned page: the mm maps it, and a read through the mm agrees. */
static int check_pinned(struct mix *m, const struct mix_held *h, long i)
{
	struct mm *mm = m->slot[h->slot].mm;
	unsigned page = h->first + (unsigned)i;
	uint32_t via_mm[MIX_CPUS] = { 0 };
	const uint32_t *pinned = page_address(h->pages[i]);
	bool by_pmd;
	pte_t pte;
	struct page *now = page_at(mm, mix_addr(page), &by_pmd, &pte);
	int err = mm_access(mm, mix_addr(page), via_mm, sizeof(via_mm), false);

	switch_mm(NULL);
	if (now != h->pages[i] || err)
		return mix_bad(m, "pin",
			       "mm %d page %#lx: %s (flags %#x, round %u) pinned pfn %#llx, the mm "
			       "maps pfn %#llx (read %d): THE PIN LOST THE MM'S PAGE",
			       h->slot, mix_addr(page), h->how, h->flags, h->round,
			       (unsigned long long)page_to_pfn(h->pages[i]),
			       now ? (unsigned long long)page_to_pfn(now) : 0ull, err);
	if (memcmp(via_mm, pinned, sizeof(via_mm)))
		return mix_bad(m, "pin",
			       "mm %d page %#lx: the pinned page holds %#x.., the mm "
			       "reads %#x..",
			       h->slot, mix_addr(page), pinned[0], via_mm[0]);
	return 0;
}

/* One report per record: its first page that broke the promise. */
int mix_check_pins(struct mix *m)
{
	int bad = 0;

	for (unsigned c = 0; c < MIX_CPUS; c++)
		for (unsigned k = 0; k < MIX_HELD; k++) {
			const struct mix_held *h = &m->held[c][k];
			int broke = 0;

			for (long i = 0; h->used && h->checkable && i < h->n && !broke; i++)
				broke = check_pinned(m, h, i);
			bad += broke;
		}
	return bad;
}

void mix_pins_forget(struct mix *m, int slot, unsigned first, unsigned n)
{
	for (unsigned c = 0; c < MIX_CPUS; c++)
		for (unsigned k = 0; k < MIX_HELD; k++) {
			struct mix_held *h = &m->held[c][k];

			if (h->slot == slot && h->first < first + n &&
			    first < h->first + (unsigned)h->n)
				h->checkable = false;
		}
}
