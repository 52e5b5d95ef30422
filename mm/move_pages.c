/*
 * move_pages.c - move_pages(): the folios of a list of pages, each to its
 * own node, with a status per page (mempolicy.h has the contract).
 *
 * The pages are looked up and their folios queued in chunks of at most
 * MIGRATE_CHUNK pages, each chunk migrated with one migrate_run_batch(), so a
 * folio moves at most once per chunk: to the node of the first of its
 * pages in the list. Linux migrates each run of pages with one target
 * before it looks at the next, so a folio that two pages send to two
 * nodes moves twice there and ends on the later node. ptelab does not:
 * GUP takes more than three faults in a row on one address for a bug
 * (mm/gup.c, GUP_MAX_FAULTS), and one call that migrated a folio again
 * and again would make every fault of a concurrent GUP on it meet a new
 * migration entry (the explorer's pmd_pin_migrate found that schedule).
 * Unlike
 * Linux, which answers -EBUSY for the second page of a large folio it has
 * already queued in the same batch, every page of a queued folio gets the
 * folio's result.
 */
#include <errno.h>

#include "kernel.h"
#include "folio_walk.h"
#include "migrate.h"

/* The folio mapping @addr of @mm and the page's index in it, or NULL
 * with *@err = -EFAULT (no VMA) or -ENOENT (nothing present: a page under
 * migration too, as in Linux's do_pages_stat()). */
static struct folio *lookup_folio(struct mm *mm, unsigned long addr, unsigned long *idx, int *err)
{
	struct folio_walk fw;

	*err = -EFAULT;
	if (!find_vma(mm, addr))
		return NULL;
	*err = -ENOENT;
	if (!folio_walk(mm, addr, 0, &fw))
		return NULL;
	*idx = (unsigned long)(fw.page - &fw.folio->page);
	return fw.folio;
}

/* The item of the batch that queued @folio. */
static int queued_item(struct migrate_batch *b, struct folio *folio)
{
	for (int k = b->nr - 1; k >= 0; k--)
		if (b->item[k].folio == folio)
			return k;
	panic("move_pages: folio pfn %#llx is locked but not queued",
	      (unsigned long long)folio_pfn(folio));
}

/*
 * move_one - look up page @addr and queue its folio for @node. Return:
 * the final status (node or -errno), or MOVE_PENDING + item index.
 */
#define MOVE_PENDING 0x100000
static int move_one(struct mm *mm, unsigned long addr, int node, unsigned flags)
{
	struct migrate_batch *b = &migrate_batch_buf;
	struct mempolicy target = { MPOL_BIND, 1ul << node };
	unsigned long idx;
	int err;
	struct folio *f = lookup_folio(mm, addr & ~(PAGE_SIZE - 1), &idx, &err);

	if (!f)
		return err;
	if (f->page.flags & PG_locked)
		return MOVE_PENDING + queued_item(b, f);
	if (f->page.node == node)
		return node;
	addr = (addr & ~(PAGE_SIZE - 1)) - idx * PAGE_SIZE;
	if (!(flags & MPOL_MF_MOVE_ALL) && folio_shared_with_other_mm(f, mm, addr))
		return -EACCES;
	if (!migrate_batch_add(b, f, mm, addr, &target, node))
		return -ENOENT; /* it went since the lookup */
	return MOVE_PENDING + b->nr - 1;
}

/* Migrate the chunk queued for status[0..n) and fill in the pending
 * statuses. Return: the pages of the chunk that did not move (a shared
 * folio left without MPOL_MF_MOVE_ALL is -EACCES but not counted, as in
 * Linux, where it never reaches the migration). */
static long move_chunk(int *status, unsigned long n)
{
	struct migrate_batch *b = &migrate_batch_buf;
	long failed = 0;

	migrate_phase(false);
	migrate_run_batch(b);
	for (unsigned long i = 0; i < n; i++) {
		if (status[i] >= MOVE_PENDING)
			status[i] = b->item[status[i] - MOVE_PENDING].status;
		failed += status[i] == -EBUSY || status[i] == -ENOMEM;
	}
	return failed;
}

/* nodes == NULL: where is each page? */
static void query_pages(struct mm *mm, unsigned long n, const unsigned long *addrs, int *status)
{
	for (unsigned long i = 0; i < n; i++) {
		unsigned long idx;
		struct folio *f = lookup_folio(mm, addrs[i] & ~(PAGE_SIZE - 1), &idx, &status[i]);

		if (f)
			status[i] = f->page.node;
	}
}

static long do_move_pages(struct mm *mm, unsigned long n, const unsigned long *addrs,
			  const int *nodes, int *status, unsigned flags)
{
	unsigned long start = 0;
	long failed = 0;

	migrate_phase(true);
	for (unsigned long i = 0; i < n; i++) {
		if (nodes[i] < 0 || nodes[i] >= nr_pglists) {
			move_chunk(status + start, i - start);
			return -ENODEV;
		}
		if (migrate_batch_buf.nr == MIGRATE_CHUNK) {
			failed += move_chunk(status + start, i - start);
			start = i;
			migrate_phase(true);
		}
		status[i] = move_one(mm, addrs[i], nodes[i], flags);
	}
	return failed + move_chunk(status + start, n - start);
}

long move_pages(struct mm *mm, unsigned long n, const unsigned long *addrs, const int *nodes,
		int *status, unsigned flags)
{
	long ret;

	if (flags & ~(MPOL_MF_MOVE | MPOL_MF_MOVE_ALL))
		return -EINVAL;
	if (!nodes) { /* a query moves nothing: no migrate_lock */
		read_lock(&mm->mmap_lock);
		query_pages(mm, n, addrs, status);
		read_unlock(&mm->mmap_lock);
		return 0;
	}
	migrate_lock_mm(mm);
	ret = do_move_pages(mm, n, addrs, nodes, status, flags);
	migrate_unlock_mm(mm);
	return ret;
}
