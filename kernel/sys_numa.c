/*
 * sys_numa.c - mbind, get_mempolicy, migrate_pages, move_pages (and
 * capget / capset, which decide migrate_pages' reach): Linux's arguments
 * (node masks of @maxnode bits in user memory, arrays of addresses)
 * checked and turned into mm/'s calls (mm/mempolicy.h) on the current
 * process's mm. ptelab has no task policy (docs/migrate.md): set_mempolicy
 * accepts MPOL_DEFAULT alone (set_task_policy()).
 */
#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "mempolicy.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "syscall.h"

#define BITS_PER_LONG 64
#define NODEMASK_MAX_BITS (PAGE_SIZE * 8) /* Linux refuses a longer mask */
#define MOVE_PAGES_MAX (1ul << 20)	  /* entries one call copies in */
#define CAP_SYS_NICE 23
#define CAP_V3 0x20080522u /* _LINUX_CAPABILITY_VERSION_3 */

/*
 * The mask at user @umask of @maxnode bits into *@nodes, as Linux's
 * get_nodes(): it reads @maxnode - 1 bits (its long-standing off-by-one,
 * which glibc's callers pass for); NULL or fewer than one bit is the
 * empty mask. A bit set for a node past MAX_NUMNODES is -EINVAL.
 */
static long nodes_from_user(unsigned long umask, unsigned long maxnode, unsigned long *nodes)
{
	unsigned long words, w;

	*nodes = 0;
	if (maxnode)
		maxnode--;
	if (!umask || !maxnode)
		return 0;
	if (maxnode > NODEMASK_MAX_BITS)
		return -EINVAL;
	words = (maxnode + BITS_PER_LONG - 1) / BITS_PER_LONG;
	if (copy_from_user(nodes, umask, sizeof(*nodes)))
		return -EFAULT;
	if (maxnode < BITS_PER_LONG)
		*nodes &= (1ul << maxnode) - 1;
	for (unsigned long i = 1; i < words; i++) {
		if (copy_from_user(&w, umask + i * sizeof(w), sizeof(w)))
			return -EFAULT;
		if (i == words - 1 && maxnode % BITS_PER_LONG)
			w &= (1ul << (maxnode % BITS_PER_LONG)) - 1;
		if (w)
			return -EINVAL;
	}
	return *nodes >> MAX_NUMNODES ? -EINVAL : 0;
}

/* @nodes to user @umask of @maxnode bits, the bits past the first word
 * cleared, as Linux's copy_nodes_to_user(). */
static long nodes_to_user(unsigned long umask, unsigned long maxnode, unsigned long nodes)
{
	unsigned long words = (maxnode + BITS_PER_LONG - 1) / BITS_PER_LONG, zero = 0;

	if (maxnode < BITS_PER_LONG)
		nodes &= (1ul << maxnode) - 1;
	if (copy_to_user(umask, &nodes, sizeof(nodes)))
		return -EFAULT;
	for (unsigned long i = 1; i < words; i++)
		if (copy_to_user(umask + i * sizeof(zero), &zero, sizeof(zero)))
			return -EFAULT;
	return 0;
}

/* Only the calling process itself: 0 or its own pid. */
static bool own_pid(long pid)
{
	return pid == 0 || pid == current_process->pid;
}

long sys_mbind(struct user_regs *r, const long *a)
{
	unsigned long start = (unsigned long)a[0], len = (unsigned long)a[1], nodes;
	long err = nodes_from_user((unsigned long)a[3], (unsigned long)a[4], &nodes);

	(void)r;
	if (err)
		return err;
	if (start & (PAGE_SIZE - 1))
		return -EINVAL;
	len = (len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	return mbind(current_process->mm, start, len, (unsigned)a[2], nodes, (unsigned)a[5]);
}

long sys_get_mempolicy(struct user_regs *r, const long *a)
{
	unsigned long umode = (unsigned long)a[0], umask = (unsigned long)a[1];
	unsigned long maxnode = (unsigned long)a[2], nodes = 0;
	int mode = 0;
	long err;

	(void)r;
	if (umask && maxnode < (unsigned long)nr_pglists)
		return -EINVAL;
	err = get_mempolicy(current_process->mm, &mode, &nodes, (unsigned long)a[3],
			    (unsigned)a[4]);
	if (err)
		return err;
	if (umode && copy_to_user(umode, &mode, sizeof(mode)))
		return -EFAULT;
	return umask ? nodes_to_user(umask, maxnode, nodes) : 0;
}

long sys_migrate_pages(struct user_regs *r, const long *a)
{
	struct process *p = current_process;
	unsigned long from, to;
	long err;

	(void)r;
	if (!own_pid(a[0]))
		return -ESRCH;
	err = nodes_from_user((unsigned long)a[2], (unsigned long)a[1], &from);
	if (!err)
		err = nodes_from_user((unsigned long)a[3], (unsigned long)a[1], &to);
	if (err)
		return err;
	/* With CAP_SYS_NICE, shared folios move too (Linux's MPOL_MF_MOVE_ALL). */
	return mm_migrate_pages(p->mm, from, to,
				p->cap_effective >> CAP_SYS_NICE & 1 ? MPOL_MF_MOVE_ALL : 0);
}

/* move_pages' three arrays, copied in (and the status array out). */
struct move_args {
	unsigned long *addrs;
	int *nodes, *status;
};

/* The status array is read in too: entries the call does not reach (past
 * a bad node) go back to the user as they were. */
static long move_args_in(struct move_args *m, unsigned long n, unsigned long upages,
			 unsigned long unodes, unsigned long ustatus)
{
	m->addrs = malloc(n * sizeof(*m->addrs));
	m->status = malloc(n * sizeof(*m->status));
	m->nodes = unodes ? malloc(n * sizeof(*m->nodes)) : NULL;
	if (!m->addrs || !m->status || (unodes && !m->nodes))
		return -ENOMEM;
	if (copy_from_user(m->addrs, upages, n * sizeof(*m->addrs)))
		return -EFAULT;
	if (unodes && copy_from_user(m->nodes, unodes, n * sizeof(*m->nodes)))
		return -EFAULT;
	return copy_from_user(m->status, ustatus, n * sizeof(*m->status)) ? -EFAULT : 0;
}

long sys_move_pages(struct user_regs *r, const long *a)
{
	unsigned long n = (unsigned long)a[1];
	struct move_args m = { 0 };
	long ret;

	(void)r;
	if (!own_pid(a[0]))
		return -ESRCH;
	if (!n)
		return 0;
	if (n > MOVE_PAGES_MAX)
		return -E2BIG;
	ret = move_args_in(&m, n, (unsigned long)a[2], (unsigned long)a[3], (unsigned long)a[4]);
	if (!ret) {
		for (unsigned long i = 0; i < n; i++)
			m.addrs[i] &= ~(PAGE_SIZE - 1);
		ret = move_pages(current_process->mm, n, m.addrs, m.nodes, m.status,
				 (unsigned)a[5]);
	}
	/* -ENODEV: the pages before the bad node have their status, as Linux. */
	if ((ret >= 0 || ret == -ENODEV) &&
	    copy_to_user((unsigned long)a[4], m.status, n * sizeof(*m.status)))
		ret = -EFAULT;
	free(m.addrs);
	free(m.nodes);
	free(m.status);
	return ret;
}

/* struct __user_cap_header_struct, version 3 only (what glibc passes). */
static long cap_header(unsigned long uhdr)
{
	unsigned hdr[2];

	if (copy_from_user(hdr, uhdr, sizeof(hdr)))
		return -EFAULT;
	if (hdr[0] != CAP_V3) {
		hdr[0] = CAP_V3;
		return copy_to_user(uhdr, hdr, sizeof(hdr)) ? -EFAULT : -EINVAL;
	}
	return own_pid(hdr[1]) ? 0 : -ESRCH;
}

/* Every capability permitted (the process runs as root); the effective
 * set is what capset() left. Two struct __user_cap_data_struct. */
long sys_capget(struct user_regs *r, const long *a)
{
	uint64_t e = current_process->cap_effective, all = (1ull << 41) - 1;
	unsigned data[6] = { (unsigned)e,	  (unsigned)all,	 0,
			     (unsigned)(e >> 32), (unsigned)(all >> 32), 0 };
	long err = cap_header((unsigned long)a[0]);

	(void)r;
	if (err)
		return err;
	return a[1] && copy_to_user((unsigned long)a[1], data, sizeof(data)) ? -EFAULT : 0;
}

long sys_capset(struct user_regs *r, const long *a)
{
	unsigned data[6];
	long err = cap_header((unsigned long)a[0]);

	(void)r;
	if (err)
		return err;
	if (copy_from_user(data, (unsigned long)a[1], sizeof(data)))
		return -EFAULT;
	current_process->cap_effective = (uint64_t)data[3] << 32 | data[0];
	return 0;
}

/* set_mempolicy(mode, nodemask, maxnode): the task's own policy is always
 * MPOL_DEFAULT here (get_mempolicy() says so), so MPOL_DEFAULT with an
 * empty mask is accepted and changes nothing; any other mode is refused
 * with -EINVAL, which libnuma's probe of MPOL_PREFERRED_MANY reads as
 * "not supported". Per-VMA policies are mbind()'s. */
long sys_set_mempolicy(struct user_regs *r, const long *a)
{
	unsigned long nodes = 0;
	long err = 0;

	(void)r;
	if (a[1])
		err = nodes_from_user((unsigned long)a[1], (unsigned long)a[2], &nodes);
	if (err)
		return err;
	return set_task_policy((unsigned)a[0], nodes);
}
