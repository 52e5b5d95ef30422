/*
 * mempolicy.c - NUMA memory policies: validation, allocation by policy
 * (faults and migration targets), mbind, get_mempolicy and
 * migrate_pages (the semantics are in mempolicy.h).
 */
#include <errno.h>

#include "kernel.h"
#include "folio_walk.h"
#include "migrate.h"
#include "trace.h"

void (*migrate_phase_hook)(bool queueing);

static unsigned long node_bit(int nid)
{
	return 1ul << nid;
}

static unsigned long all_nodes(void)
{
	return (1ul << nr_pglists) - 1;
}

/* The @n-th node (0-based, wrapping) of the non-empty mask @nodes. */
static int nth_node(unsigned long nodes, unsigned long n)
{
	n %= (unsigned long)__builtin_popcountl(nodes);
	for (int nid = 0;; nid++)
		if ((nodes & node_bit(nid)) && n-- == 0)
			return nid;
}

bool mpol_allows(const struct mempolicy *pol, int home, int nid)
{
	if (pol->mode == MPOL_DEFAULT || pol->mode == MPOL_LOCAL)
		return nid == home;
	return pol->nodes & node_bit(nid);
}

/* Try the nodes of @mask in the fallback order of @from. */
static struct folio *alloc_in_mask(int from, unsigned long mask, unsigned order, unsigned flags)
{
	for (int i = 0; i < nr_pglists; i++) {
		int nid = pglists[from].fallback[i];
		struct folio *f;

		if (!(mask & node_bit(nid)))
			continue;
		f = folio_alloc(nid, order, flags);
		if (f)
			return f;
	}
	return NULL;
}

struct folio *mpol_alloc(const struct mempolicy *pol, int home, unsigned long addr, unsigned order,
			 unsigned flags)
{
	switch (pol->mode) {
	case MPOL_LOCAL:
		return alloc_in_mask(home, all_nodes(), order, flags);
	case MPOL_BIND:
		return alloc_in_mask(home, pol->nodes, order, flags);
	case MPOL_PREFERRED:
		return alloc_in_mask(nth_node(pol->nodes, 0), all_nodes(), order, flags);
	case MPOL_INTERLEAVE:
		return alloc_in_mask(nth_node(pol->nodes, addr >> (PAGE_SHIFT + order)),
				     all_nodes(), order, flags);
	default:
		return alloc_in_mask(home, all_nodes(), order, flags);
	}
}

struct folio *vma_alloc_folio(struct vma *vma, unsigned long addr, unsigned order, unsigned flags)
{
	return mpol_alloc(&vma->pol, vma->nid, addr, order, flags);
}

/* Is (@mode, @nodes) a policy mbind accepts? As Linux's mpol_new() and
 * mpol_set_nodemask(): DEFAULT and LOCAL take an empty mask, PREFERRED
 * an empty one too (it means LOCAL); a mask is then cut down to the nodes
 * that exist, and one left empty is refused. */
static bool mpol_valid(unsigned mode, unsigned long nodes)
{
	if (mode >= MPOL_MAX)
		return false;
	if (mode == MPOL_DEFAULT || mode == MPOL_LOCAL)
		return nodes == 0;
	return (nodes & all_nodes()) || (mode == MPOL_PREFERRED && !nodes);
}

/* The policy mbind stores for a valid (@mode, @nodes), as Linux's
 * mpol_new(): PREFERRED keeps the first node of its mask, and with an
 * empty mask becomes LOCAL. */
static struct mempolicy mpol_new(unsigned mode, unsigned long nodes)
{
	if (mode == MPOL_PREFERRED && !nodes)
		return (struct mempolicy){ MPOL_LOCAL, 0 };
	if (mode == MPOL_PREFERRED)
		nodes &= -nodes;
	return (struct mempolicy){ mode, nodes };
}

#define MPOL_MF_VALID (MPOL_MF_STRICT | MPOL_MF_MOVE | MPOL_MF_MOVE_ALL)

/* Does a VMA overlap [start, end)? */
static bool range_touches_vma(struct mm *mm, unsigned long start, unsigned long end)
{
	struct vma *v = find_vma_from(mm, start);

	return v && v->start < end;
}

/* The VMA half of mbind: split at the ends, set @pol on [start, end).
 * Return: 0, -EFAULT (a hole; MPOL_DEFAULT may span holes, but not a
 * range with no VMA at all: Linux's queue_pages_range() finds no first
 * VMA there) or -ENOMEM. Takes the mmap_lock for write;
 * the queueing then runs under it for read (VMAs may have changed in
 * between, as in Linux, which also walks the VMAs again). */
static int set_policy(struct mm *mm, unsigned long start, unsigned long end, unsigned mode,
		      unsigned long nodes)
{
	int err = -EFAULT;
	bool ok;

	mmap_write_lock(mm);
	if (mode == MPOL_DEFAULT)
		ok = range_touches_vma(mm, start, end);
	else
		ok = range_mapped(mm, start, end);
	if (ok)
		err = split_range(mm, start, end);
	if (!err)
		for (struct vma *v = find_vma_from(mm, start); v && v->start < end; v = v->next)
			v->pol = mpol_new(mode, nodes);
	mmap_write_unlock(mm);
	return err;
}

/*
 * MPOL_MF_STRICT without a MOVE flag: is every folio in [start, end) on a
 * node the new policy (@mode, @nodes) allows? Linux checks this before it
 * sets the policy and leaves the policy as it was when one is not
 * (-EIO). A folio is misplaced when its node is not in @nodes (LOCAL and
 * an empty PREFERRED allow none: Linux compares with the mask it was
 * given). Return: 0 or -EIO.
 */
static int strict_check(struct mm *mm, unsigned long start, unsigned long end, unsigned long nodes)
{
	struct queue_want want = { .by_vma = false };
	long failed;

	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		want.map[nid] = nodes & node_bit(nid) ? -1 : nid;
	migrate_lock_mm(mm);
	failed = queue_pages_range(mm, start, end, &want, MPOL_MF_STRICT);
	migrate_unlock_mm(mm);
	return failed ? -EIO : 0;
}

int mbind(struct mm *mm, unsigned long start, unsigned long len, unsigned mode, unsigned long nodes,
	  unsigned flags)
{
	unsigned long end = start + len;
	struct queue_want want = { .by_vma = true };
	long failed;
	int err;

	/* Linux's order: mode and flags, the start, an empty range (0, with
	 * any mask), then the mask. */
	if (mode >= MPOL_MAX || (flags & ~MPOL_MF_VALID) || (start & (PAGE_SIZE - 1)))
		return -EINVAL;
	if (!len)
		return 0;
	if (!range_ok(start, len) || !mpol_valid(mode, nodes))
		return -EINVAL;
	nodes &= all_nodes();
	if (mode == MPOL_DEFAULT)
		flags &= ~MPOL_MF_STRICT; /* Linux: nothing to be strict about */
	if (flags == MPOL_MF_STRICT)	  /* the check is the only walk */
		return strict_check(mm, start, end, nodes)
			       ?: set_policy(mm, start, end, mode, nodes);
	err = set_policy(mm, start, end, mode, nodes);
	if (err || !(flags & MPOL_MF_VALID))
		return err;
	TRACE(trace_op_begin("mbind", mm, start, end, mm_caps.migrate));
	migrate_lock_mm(mm);
	failed = queue_pages_range(mm, start, end, &want, flags);
	migrate_unlock_mm(mm);
	TRACE(trace_op_end("mbind"));
	if (failed < 0)
		return (int)failed;
	return failed && (flags & MPOL_MF_STRICT) ? -EIO : 0;
}

/* The node of the page mapped at @addr (fault it in for reading first).
 * A page under migration is still where its migration entry says. */
static int page_node(struct mm *mm, unsigned long addr, int *nid)
{
	struct folio_walk fw;

	if (!folio_walk(mm, addr, FW_MIGRATION, &fw)) {
		int err = __handle_mm_fault(mm, addr, 0);

		if (err)
			return err;
		if (!folio_walk(mm, addr, FW_MIGRATION, &fw))
			return -EFAULT;
	}
	*nid = fw.page->node;
	return 0;
}

static int do_get_mempolicy(struct mm *mm, int *mode, unsigned long *nodes, unsigned long addr,
			    unsigned flags)
{
	struct vma *vma;

	if (flags == MPOL_F_MEMS_ALLOWED) {
		*mode = MPOL_DEFAULT; /* Linux sets it to 0 too */
		if (nodes)
			*nodes = all_nodes();
		return 0;
	}
	if (flags & ~(MPOL_F_NODE | MPOL_F_ADDR) || flags == MPOL_F_NODE)
		return -EINVAL;
	if (!flags) {
		*mode = MPOL_DEFAULT;
		if (nodes)
			*nodes = 0;
		return 0;
	}
	vma = find_vma(mm, addr);
	if (!vma)
		return -EFAULT;
	if (flags & MPOL_F_NODE)
		return page_node(mm, addr & ~(PAGE_SIZE - 1), mode);
	*mode = (int)vma->pol.mode;
	if (nodes)
		*nodes = vma->pol.nodes;
	return 0;
}

int get_mempolicy(struct mm *mm, int *mode, unsigned long *nodes, unsigned long addr,
		  unsigned flags)
{
	int ret;

	read_lock(&mm->mmap_lock);
	ret = do_get_mempolicy(mm, mode, nodes, addr, flags);
	read_unlock(&mm->mmap_lock);
	return ret;
}

long mm_migrate_pages(struct mm *mm, unsigned long from, unsigned long to, unsigned flags)
{
	struct queue_want want = { .by_vma = false };
	/* Linux: masks of different weights cannot keep the nodes' relative
	 * layout, so a source node that is also a target keeps its pages. */
	bool uneven;
	unsigned long i = 0;

	/* Linux: the target mask is cut down to the nodes that exist and must
	 * keep one; a source node that does not exist has no pages. */
	to &= all_nodes();
	from &= node_bit(MAX_NUMNODES) - 1;
	if (!to || (flags & ~(MPOL_MF_MOVE | MPOL_MF_MOVE_ALL)))
		return -EINVAL;
	uneven = __builtin_popcountl(from) != __builtin_popcountl(to);
	for (int src = 0; src < MAX_NUMNODES; src++) {
		want.map[src] = -1;
		if (from & node_bit(src))
			want.map[src] = nth_node(to, i++);
		if (want.map[src] == src || (uneven && (to & node_bit(src))))
			want.map[src] = -1;
	}
	long failed;

	TRACE(trace_op_begin("migrate_pages", mm, 0, MM_USER_END, mm_caps.migrate));
	migrate_lock_mm(mm);
	failed = queue_pages_range(mm, 0, MM_USER_END, &want, flags | MPOL_MF_MOVE);
	migrate_unlock_mm(mm);
	TRACE(trace_op_end("migrate_pages"));
	return failed;
}

long migrate_pages(struct mm *mm, unsigned long from, unsigned long to)
{
	return mm_migrate_pages(mm, from, to, MPOL_MF_MOVE);
}

long set_task_policy(unsigned mode, unsigned long nodes)
{
	return (mode & ~MPOL_MODE_FLAGS) == MPOL_DEFAULT && !nodes ? 0 : -EINVAL;
}
