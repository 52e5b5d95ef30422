/*
 * mempolicy.h - NUMA memory policies and page migration: where an mm's
 * anonymous folios are allocated, and moving them between nodes.
 *
 * Nodes are named by their index in pglists[] (bit i of a node mask is
 * pglists[i]); on ptelab's machines that is the FDT node order.
 *
 * Policies (per VMA, Linux's semantics):
 *  MPOL_DEFAULT     the VMA's home node (vma->nid), then the others by
 *                   distance from it;
 *  MPOL_BIND        only the nodes of the mask, nearest to the home node
 *                   first; no fallback outside it;
 *  MPOL_PREFERRED   the mask's first node, then the others by distance from
 *                   it; with an empty mask mbind stores MPOL_LOCAL instead;
 *  MPOL_LOCAL       the local node, then the others by distance: ptelab's
 *                   local node for a VMA is its home (as for DEFAULT), so
 *                   LOCAL differs from DEFAULT only in what it reports;
 *  MPOL_INTERLEAVE  per folio, round robin over the mask by the folio's
 *                   address (index = addr >> (PAGE_SHIFT + order)), then
 *                   by distance from the chosen node when it is full.
 * docs/migrate.md follows a folio through migration.
 */
#ifndef MM_MEMPOLICY_H
#define MM_MEMPOLICY_H

#include "mm.h"

#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_MAX 5

/* mbind / migrate flags. */
#define MPOL_MF_STRICT (1u << 0)   /* fail (-EIO) if a folio is not where the policy says */
#define MPOL_MF_MOVE (1u << 1)	   /* move folios only this mm maps */
#define MPOL_MF_MOVE_ALL (1u << 2) /* move shared folios too, in every mm that maps them */

/* get_mempolicy flags. */
#define MPOL_F_NODE (1u << 0)	      /* with MPOL_F_ADDR: the node of the page at addr */
#define MPOL_F_ADDR (1u << 1)	      /* the policy of the VMA at addr */
#define MPOL_F_MEMS_ALLOWED (1u << 2) /* alone: the nodes a policy may name */

/*
 * mbind - set the policy of [start, start + len) (page aligned, every
 * byte inside a VMA), splitting VMAs at both ends. With MPOL_MF_MOVE(_ALL)
 * the folios mapped there that are not on a node the policy allows move
 * to where the policy allocates (the shared ones only with MOVE_ALL;
 * MOVE leaves them, and that is no failure). As in Linux, MPOL_DEFAULT
 * ignores MPOL_MF_STRICT and may span holes, though not a range with no
 * VMA in it (the other modes fail on any hole); @nodes is cut down to
 * the nodes that exist; @len 0 does nothing.
 * Return: 0; -EINVAL (bad mode, flags, range or mask: DEFAULT and LOCAL
 * take an empty mask, PREFERRED an empty one or one naming an existing
 * node, the others one naming an existing node); -EFAULT (a hole in the
 * range); -ENOMEM (a VMA split failed: nothing changed); -EIO with
 * MPOL_MF_STRICT when a folio is on a node the policy does not allow:
 * with a MOVE flag, one that could not be moved (the policy is set
 * anyway); without, one found before anything changed (the policy is
 * not set).
 */
int mbind(struct mm *mm, unsigned long start, unsigned long len, unsigned mode, unsigned long nodes,
	  unsigned flags);

/*
 * get_mempolicy - @flags 0: the mm's own policy (always MPOL_DEFAULT
 * here); MPOL_F_ADDR: the policy of the VMA at @addr in *@mode and
 * *@nodes; MPOL_F_NODE|MPOL_F_ADDR: the node index of the page at @addr in
 * *@mode (faulting it in for reading first, as Linux does);
 * MPOL_F_MEMS_ALLOWED alone: every node in *@nodes, MPOL_DEFAULT in *@mode.
 * Return: 0, -EFAULT (no VMA at @addr), -EINVAL (bad flags) or -ENOMEM.
 */
/* The mode flags set_mempolicy and mbind take beside a mode
 * (MPOL_F_STATIC_NODES, RELATIVE_NODES, NUMA_BALANCING). */
#define MPOL_MODE_FLAGS 0xe000u

/*
 * set_task_policy - set_mempolicy()'s answer: ptelab keeps no task policy
 * (a process's is always MPOL_DEFAULT, get_mempolicy() says so), so
 * MPOL_DEFAULT with no nodes is accepted and changes nothing, and any
 * other mode is -EINVAL (libnuma reads that as "not supported").
 */
long set_task_policy(unsigned mode, unsigned long nodes);

int get_mempolicy(struct mm *mm, int *mode, unsigned long *nodes, unsigned long addr,
		  unsigned flags);

/*
 * migrate_pages - move every folio of @mm on a node of @from to the node
 * of @to in the same position (the n-th node of @from goes to the n-th of
 * @to, wrapping; when the masks differ in weight, a node of @from that is
 * also in @to keeps its pages), as Linux's do_migrate_pages() with
 * MPOL_MF_MOVE: folios that another mm maps too stay (not counted: the
 * call chose not to move them). One walk applies the whole map, so each
 * folio moves at most once ({0,1} -> {1,2} moves node 0's pages to 1 and
 * node 1's to 2).
 * mm_migrate_pages - the same with MPOL_MF_MOVE_ALL possible in @flags
 * (Linux's migrate_pages() for a caller with CAP_SYS_NICE).
 * Return: the number of pages that could not be moved (busy, no memory
 * on the target), counted by whole folios: a folio that @mm maps only in
 * part counts every page it has. Or -EINVAL when @to names no existing
 * node (nodes of @from that do not exist have no pages: 0).
 */
long migrate_pages(struct mm *mm, unsigned long from, unsigned long to);
long mm_migrate_pages(struct mm *mm, unsigned long from, unsigned long to, unsigned flags);

/*
 * move_pages - move the folio of each page @addrs[i] to node @nodes[i]
 * (a large folio moves whole), or with @nodes NULL only report where each
 * page is. @status[i] gets the page's node after the call, or:
 * -EFAULT (no VMA), -ENOENT (nothing mapped there), -EACCES (the folio is
 * shared with another mm and @flags has no MPOL_MF_MOVE_ALL), -EBUSY (the
 * folio is pinned or has references besides its mappings), -ENOMEM (no
 * free memory on the target node).
 * A folio moves once per call, to the node of the first of its pages in
 * the list (Linux moves it again for a later page with another node).
 * Return: the number of pages with -EBUSY or -ENOMEM (not -EACCES: a
 * shared folio left in place is not a failed migration, as in Linux); -ENODEV
 * (a node that does not exist: the statuses of the pages before it are
 * set and nothing after it was looked at, as Linux); -EINVAL (bad flags).
 */
long move_pages(struct mm *mm, unsigned long n, const unsigned long *addrs, const int *nodes,
		int *status, unsigned flags);

/*
 * mm_numa_maps_to - one line per VMA of @mm, like Linux's
 * /proc/PID/numa_maps: start address, policy, anon pages per node
 * (N0=.. N1=..) and the folios mapped there by size (4K=.., mTHP=.. for
 * 16K to 1M, 2M-pte=.., 2M-pmd=.. for PMD-mapped ones). Each line goes to
 * @out.
 */
void mm_numa_maps_to(struct mm *mm, void (*out)(void *ctx, const char *line), void *ctx);

/*
 * NUMA hinting (mm/numa_hint.c). cpu_nid[cpu]: the node index of each CPU
 * (the guest sets it from the device tree, tests as they need; 0 unless
 * set); numa_node_id() is this CPU's.
 * change_prot_numa - make the entries of [start, end) (page aligned) in
 * @mm's accessible VMAs hinting entries: PROT_NONE while the VMA keeps
 * its access, so that the next access takes a hinting fault, which gives
 * the folio's entries back and moves it to the node of the faulting CPU
 * when it is elsewhere. Folios already on node @nid, and entries already
 * marked, are left alone (per run of one folio: mm_caps.numa_hint). One TLB
 * flush. Return: the entries marked (a PMD leaf counts its 512 pages),
 * or -EINVAL. Context: takes @mm's mmap_lock for read.
 */
extern int cpu_nid[NR_CPUS];
static inline int numa_node_id(void)
{
	return cpu_nid[smp_processor_id()];
}
long change_prot_numa(struct mm *mm, unsigned long start, unsigned long end, int nid);

/*
 * The periodic scan of NUMA balancing (mm/numa_scan.c; Linux's
 * task_numa_work(), which a task runs every scan period): every
 * @faults faults of an mm (0: never, the default), the faulting CPU runs
 * one step, change_prot_numa() over the next NUMA_SCAN_STEP bytes of the
 * mm's VMAs from where the last step stopped, wrapping to the first VMA
 * at the end, with its own node as the target (folios already there are
 * left alone). The hinting faults that follow move what other nodes
 * touch. numa_scan_tick() is the fault's hook.
 * Context: numa_scan_tick(): no lock held (after the fault released the
 * mmap_lock, as the hinting migration is).
 */
#define NUMA_SCAN_STEP (1ul << 20)
void numa_scan_set(unsigned long faults);
extern unsigned long numa_scan_period;
void __numa_scan_tick(struct mm *mm);
static inline void numa_scan_tick(struct mm *mm)
{
	if (__atomic_load_n(&numa_scan_period, __ATOMIC_RELAXED))
		__numa_scan_tick(mm);
}

/* ---- for the rest of mm/: allocating by policy ------------------------- */

/* A folio of 2^@order pages for @addr of @vma, where the VMA's policy says
 * (ALLOC_ZERO allowed in @flags). Return: it or NULL. */
struct folio *vma_alloc_folio(struct vma *vma, unsigned long addr, unsigned order, unsigned flags);

/* A folio of 2^@order pages allocated as @pol says (@home: the node
 * DEFAULT, LOCAL and BIND start from, @addr: the interleave index). */
struct folio *mpol_alloc(const struct mempolicy *pol, int home, unsigned long addr, unsigned order,
			 unsigned flags);

/* Does @pol allow node index @nid? (DEFAULT and LOCAL: only @home.) */
bool mpol_allows(const struct mempolicy *pol, int home, int nid);

/*
 * Benchmarks and tests: called with true when a migrate call starts
 * queueing and false when it starts migrating what it queued (a call
 * alternates between the two when the queue fills up). NULL: none.
 */
extern void (*migrate_phase_hook)(bool queueing);

#endif
