/*
 * proc_status.c - /proc/self/status: the lines programs parse, Linux's
 * format. libnuma reads Cpus_allowed and Mems_allowed at start to learn
 * which CPUs and nodes the task may use (numa_num_task_cpus(),
 * numa_all_nodes_ptr): every CPU and every node of the machine, as
 * sched_getaffinity() and get_mempolicy(MPOL_F_MEMS_ALLOWED) say.
 */
#include "kernel.h"
#include "page.h"
#include "process.h"
#include "procfs.h"

/* @n low bits set, as Linux prints a mask: 32-bit hex words, the most
 * significant first, comma-separated (up to 64 bits here). */
static void print_mask(struct proc_text *t, const char *name, int n)
{
	uint64_t m = n >= 64 ? ~0ull : (1ull << n) - 1;

	if (n > 32)
		proc_printf(t, "%s:\t%08x,%08x\n", name, (unsigned)(m >> 32), (unsigned)m);
	else
		proc_printf(t, "%s:\t%08x\n", name, (unsigned)m);
	proc_printf(t, "%s_list:\t0", name);
	if (n > 1)
		proc_printf(t, "-%d", n - 1);
	proc_printf(t, "\n");
}

/* The process's live tasks: its leader and threads. */
static int nr_threads(struct process *p)
{
	int n = 0;

	for (struct process *q = process_next(NULL); q; q = process_next(q))
		n += process_group(q) == p && q->state != PROC_ZOMBIE;
	return n;
}

int proc_status_text(struct process *p, const struct proc_entry *e, struct proc_text *t)
{
	(void)e;
	p = process_group(p);
	proc_printf(t, "Name:\tptelab-user\nUmask:\t0022\nState:\tR (running)\n");
	proc_printf(t, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\n", p->pid, p->pid,
		    p->parent ? p->parent->pid : 0);
	proc_printf(t, "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nThreads:\t%d\n", nr_threads(p));
	print_mask(t, "Cpus_allowed", machine.nr_cpus);
	print_mask(t, "Mems_allowed", nr_pglists);
	return 0;
}
