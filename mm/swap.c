/*
 * swap.c - the swap device (swap.h): a table of slots, each a count and
 * the page that holds its contents while the count is above 0.
 */
#include <errno.h>
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
static unsigned long nr_slots = SWAP_SLOTS; /* the device's size (swap_set_slots()) */

_Static_assert(SWAP_SLOTS <= 1ul << 16, "struct swap_dest keeps slots in 16 bits");
static struct spinlock swap_lock = SPINLOCK_INIT(LOCK_LEAF, "swap_lock");

/* The table, or NULL before the first swap_alloc_folio(). Set once by a
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
	for (unsigned long n = 0; n < nr_slots; n += align) {
		unsigned long off = (cursor + n) % nr_slots & ~(align - 1);

		if (off + nr > nr_slots || !run_free(off, nr))
			continue;
		for (unsigned i = 0; i < nr; i++)
			slot_table()[off + i].count = 1;
		used += nr;
		cursor = off + nr;
		return (long)off;
	}
	return -1;
}

/* Reserve @nr free slots wherever they are into @d->slot (count 1, no
 * page yet). Return: 0, or -1 with none reserved. Context: swap_lock held. */
static int reserve_scattered(struct swap_dest *d, unsigned nr)
{
	unsigned got = 0;

	if (nr_slots - used < nr)
		return -1;
	for (unsigned long n = 0; got < nr; n++) { /* @nr are free: it ends */
		unsigned long off = (cursor + n) % nr_slots;

		if (slot_table()[off].count)
			continue;
		slot_table()[off].count = 1;
		d->slot[got++] = (uint16_t)off;
	}
	used += nr;
	cursor = (d->slot[nr - 1] + 1ul) % nr_slots;
	return 0;
}

/* The slot table, allocated on first use; not under swap_lock. */
static bool slots_ready(void)
{
	if (!slot_table()) {
		struct swap_slot *t = calloc(SWAP_SLOTS, sizeof(*t)), *none = NULL;

		if (t && !__atomic_compare_exchange_n(&slots, &none, t, false, __ATOMIC_ACQ_REL,
						      __ATOMIC_ACQUIRE))
			free(t);
	}
	return slot_table() != NULL;
}

/* Reserve @nr slots into @d: a run, else scattered. Return: 0 or -1. */
static int reserve_dest(struct swap_dest *d, unsigned nr)
{
	int ret = 0;

	d->nr = nr;
	spin_lock(&swap_lock);
	d->first = reserve_run(nr);
	if (d->first < 0 && (nr == 1 || reserve_scattered(d, nr)))
		ret = -1;
	spin_unlock(&swap_lock);
	if (!ret && d->first < 0)
		count_event(swpout_fallback, 1);
	return ret;
}

int swap_alloc_folio(struct swap_dest *d, unsigned nr)
{
	if (!nr || nr > sizeof(d->slot) / sizeof(d->slot[0]) || !slots_ready() ||
	    reserve_dest(d, nr))
		return -1;
	for (unsigned i = 0; i < nr; i++) {
		struct folio *f = swap_page_get();

		if (!f) {
			swap_dest_free(d); /* frees the pages allocated so far */
			return -1;
		}
		slot_table()[swap_dest_slot(d, i)].data = f;
	}
	return 0;
}

void swap_dest_free(const struct swap_dest *d)
{
	if (d->first >= 0) {
		swap_free_nr((unsigned long)d->first, d->nr);
		return;
	}
	for (unsigned i = 0; i < d->nr; i++)
		swap_free_nr(d->slot[i], 1);
}

int swap_set_slots(unsigned long nr)
{
	int ret = -EBUSY;

	if (!nr || nr > SWAP_SLOTS)
		return -EINVAL;
	spin_lock(&swap_lock);
	if (!used) {
		nr_slots = nr;
		cursor = 0;
		ret = 0;
	}
	spin_unlock(&swap_lock);
	return ret;
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
