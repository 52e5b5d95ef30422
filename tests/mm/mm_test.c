/*
 * mm_test.c - the shared mm test helpers (see mm_test.h).
 */
#include <stdio.h>

#include "mm_test.h"

/* Weak defaults for the guest, where a panic ends the run; the host
 * runner's tests/mm/host/setup.c overrides both. */
__attribute__((weak)) bool test_can_catch_panic(void)
{
	return false;
}

__attribute__((weak)) int test_catch_panic(void (*fn)(void *), void *arg, char *msg, size_t size)
{
	(void)fn;
	(void)arg;
	if (size)
		msg[0] = '\0';
	return -1;
}

void mm_snapshot_take(struct mm_snapshot *s)
{
	struct list_head *e;

	*s = (struct mm_snapshot){ .total_free = total_free_pages() };
	for (int i = 0; i < nr_pglists; i++) {
		s->node_free[i] = pglists[i].free_pages;
		for (int k = 0; k <= MAX_ORDER; k++) {
			s->nr_free[i][k] = pglists[i].nr_free[k];
			list_for_each(e, &pglists[i].free_area[k])
				s->pfn_sum[i][k] += page_to_pfn(list_entry(e, struct page, lru));
		}
	}
}

int mm_snapshot_diff(const struct mm_snapshot *s)
{
	struct mm_snapshot now;
	int bad = 0;

	mm_snapshot_take(&now);
	for (int i = 0; i < nr_pglists; i++) {
		if (now.node_free[i] != s->node_free[i]) {
			printf("    node index %d: %llu free pages, were %llu\n", i,
			       (unsigned long long)now.node_free[i],
			       (unsigned long long)s->node_free[i]);
			bad++;
		}
		for (int k = 0; k <= MAX_ORDER; k++) {
			if (now.nr_free[i][k] == s->nr_free[i][k] &&
			    now.pfn_sum[i][k] == s->pfn_sum[i][k])
				continue;
			printf("    node index %d order %d: %llu blocks (pfn sum %#llx), were %llu "
			       "(%#llx)\n",
			       i, k, (unsigned long long)now.nr_free[i][k],
			       (unsigned long long)now.pfn_sum[i][k],
			       (unsigned long long)s->nr_free[i][k],
			       (unsigned long long)s->pfn_sum[i][k]);
			bad++;
		}
	}
	return bad;
}

int mm_test_put_list(struct list_head *list)
{
	int n = 0;

	while (!list_empty(list)) {
		struct page *p = list_entry(list->next, struct page, lru);

		list_del(&p->lru);
		folio_put((struct folio *)p);
		n++;
	}
	return n;
}

uint64_t mm_test_hold_memory(struct list_head *list, uint64_t keep)
{
	uint64_t taken = 0;

	for (int order = MAX_ORDER; order >= 0; order--) {
		while (total_free_pages() >= keep + (1ull << order)) {
			struct folio *f = folio_alloc(0, (unsigned)order, ALLOC_ANY_NODE);

			if (!f)
				break;
			list_add(&f->page.lru, list);
			taken += 1ull << order;
		}
	}
	return taken;
}

uint32_t mm_test_rand(uint32_t *state)
{
	uint32_t x = *state ? *state : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}
