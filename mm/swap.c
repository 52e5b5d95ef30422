/*
 * swap.c - the swap device (swap.h): a table of slots, each a count and
 * the page that holds its contents while the count is above 0.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "mm_internal.h"
#include "spinlock.h"
#include "swap.h"

struct swap_slot {
	struct folio *data; /* the backing page; NULL while free or being allocated */
	int32_t count;
};

static struct swap_slot *slots; /* SWAP_SLOTS of them, allocated at first use */
static unsigned long used, cursor;
static struct spinlock swap_lock = SPINLOCK_INIT(LOCK_LEAF, "swap_lock");

/* The table, or NULL before the first swap_alloc(). Set once by a
 * compare-and-swap outside swap_lock, so every read is atomic (a plain
 * read beside a losing CPU's compare-and-swap is a data race). */
static struct swap_slot *slot_table(void)
{
	return __atomic_load_n(&slots, __ATOMIC_ACQUIRE);
}

/* Are the @nr slots from @off all free? Context: swap_lock held. */
static bool run_free(unsigned long off, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		if (slot_table()[off + i].count)
			return false;
	return true;
}

/* Reserve @nr free slots aligned to @nr rounded up to a power of two
 * (count 1, no page yet). Return: the first, or -1. Context: swap_lock held. */
static long reserve_run(unsigned nr)
{
	unsigned long align = 1;

	while (align < nr)
		align <<= 1;
	for (unsigned long n = 0; n < SWAP_SLOTS; n += align) {
		unsigned long off = (cursor + n) % SWAP_SLOTS & ~(align - 1);

		if (off + nr > SWAP_SLOTS || !run_free(off, nr))
			continue;
		for (unsigned i = 0; i < nr; i++)
			slot_table()[off + i].count = 1;
		used += nr;
		cursor = off + nr;
		return (long)off;
	}
	return -1;
}

long swap_alloc(unsigned nr)
{
	long off;

	if (!__atomic_load_n(&slots, __ATOMIC_ACQUIRE)) { /* the table, once; not under swap_lock */
		struct swap_slot *t = calloc(SWAP_SLOTS, sizeof(*t)), *none = NULL;

		if (t && !__atomic_compare_exchange_n(&slots, &none, t, false, __ATOMIC_ACQ_REL,
						      __ATOMIC_ACQUIRE))
			free(t);
	}
	spin_lock(&swap_lock);
	off = slot_table() && nr && nr <= SWAP_SLOTS ? reserve_run(nr) : -1;
	spin_unlock(&swap_lock);
	if (off < 0)
		return -1;
	for (unsigned i = 0; i < nr; i++) {
		struct folio *f = swap_page_get();

		if (!f) {
			swap_free_nr((unsigned long)off, nr); /* frees the pages allocated so far */
			return -1;
		}
		slot_table()[off + i].data = f;
	}
	return off;
}

void swap_dup(unsigned long offset, unsigned nr)
{
	spin_lock(&swap_lock);
	for (unsigned i = 0; i < nr; i++) {
		BUG_ON(slot_table()[offset + i].count <= 0);
		slot_table()[offset + i].count++;
	}
	spin_unlock(&swap_lock);
}

void swap_free_nr(unsigned long offset, unsigned nr)
{
	struct folio *gone[64];
	unsigned n = 0;

	while (nr) {
		unsigned chunk = nr < 64 ? nr : 64;

		n = 0;
		spin_lock(&swap_lock);
		for (unsigned i = 0; i < chunk; i++) {
			struct swap_slot *s = &slot_table()[offset + i];

			BUG_ON(s->count <= 0);
			if (--s->count)
				continue;
			used--;
			if (s->data)
				gone[n++] = s->data;
			s->data = NULL;
		}
		spin_unlock(&swap_lock);
		for (unsigned i = 0; i < n; i++)
			swap_page_put(gone[i]);
		offset += chunk;
		nr -= chunk;
	}
}

int swap_count(unsigned long offset)
{
	return slot_table() && offset < SWAP_SLOTS
		       ? __atomic_load_n(&slot_table()[offset].count, __ATOMIC_RELAXED)
		       : 0;
}

void swap_write_page(unsigned long offset, const void *src)
{
	memcpy(page_address(&slot_table()[offset].data->page), src, PAGE_SIZE);
}

void swap_read_page(unsigned long offset, void *dst)
{
	memcpy(dst, page_address(&slot_table()[offset].data->page), PAGE_SIZE);
}

unsigned long swap_slots_used(void)
{
	return __atomic_load_n(&used, __ATOMIC_RELAXED);
}
