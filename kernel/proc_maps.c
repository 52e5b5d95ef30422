/*
 * proc_maps.c - /proc/self/maps and /proc/self/smaps: one block per VMA
 * in Linux's format, from the VMA list and the page tables.
 *
 *   7f0000000000-7f0000200000 rw-p 00000000 00:00 0
 *   Size:               2048 kB
 *   ...
 *   VmFlags: rd wr mr mw me ac
 *
 * Every mapping is anonymous (a program's segments are copies), so
 * device and inode are 0, and only [heap] and [stack] have a name; a
 * shared one (MAP_SHARED|MAP_ANONYMOUS, mm/shmem.h) is "s" with its page
 * offset in the object, as Linux shows its shmem file's offset. smaps
 * carries the fields ptelab has a value for: Size, KernelPageSize,
 * MMUPageSize, Rss, Pss, Shared_Clean, Shared_Dirty, Private_Clean,
 * Private_Dirty (a page mapped more than once is shared; dirty by its
 * entry or its folio), Anonymous (not the shared pages: Linux counts
 * shmem as file memory), AnonHugePages
 * (PMD-mapped, as Linux counts it), Swap (pages whose entry is a swap
 * entry, mm/swap.h), Locked (0), THPeligible,
 * VmFlags. VmFlags has no "sd": there is no soft-dirty tracking, which is
 * how a program (the selftests' softdirty_supported()) tells.
 */
#include "exec.h"
#include "folio_walk.h"
#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "procfs.h"
#include "spinlock.h"
#include "thp_policy.h"

/* Linux pads a named line to 25 + 6 * sizeof(long) - 1 characters, then
 * a space, then the name (seq_pad()). */
#define NAME_PAD 72

/* What smaps counts in one VMA, in bytes. */
struct smaps_count {
	unsigned long rss, pss, anon, anon_pmd, swap;
	unsigned long shared_clean, shared_dirty, private_clean, private_dirty;
};

/* Count the page of @fw (one of its folio's mappings) into @c. */
static void count_page(struct smaps_count *c, const struct folio_walk *fw)
{
	int mapcount = page_mapcount(fw->page) + folio_entire_mapcount(fw->folio);

	bool dirty = (page_flags(&fw->folio->page) & PG_dirty) || pte_dirty(fw->pte);

	c->rss += PAGE_SIZE;
	c->pss += PAGE_SIZE / (unsigned long)(mapcount > 1 ? mapcount : 1);
	if (!(page_flags(&fw->folio->page) & PG_shmem))
		c->anon += PAGE_SIZE;
	if (mapcount > 1)
		*(dirty ? &c->shared_dirty : &c->shared_clean) += PAGE_SIZE;
	else
		*(dirty ? &c->private_dirty : &c->private_clean) += PAGE_SIZE;
	if (fw->by_pmd && !fw->migration)
		c->anon_pmd += PAGE_SIZE;
}

/* Walk @v's range, a PMD's worth of nothing at a time where there is no
 * table. Context: the mmap_lock held for read. */
static void count_vma(struct mm *mm, const struct vma *v, struct smaps_count *c)
{
	for (unsigned long a = v->start; a < v->end;) {
		struct pmd_walk pw;
		struct folio_walk fw;

		if (pmd_walk(mm, a, &pw) == PMD_NONE) {
			a = (a + PMD_SIZE) & PMD_MASK;
			continue;
		}
		if (folio_walk(mm, a, FW_MIGRATION, &fw))
			count_page(c, &fw);
		else if (swap_entry_at(mm, a, &(pte_t){ 0 }))
			c->swap += PAGE_SIZE;
		a += PAGE_SIZE;
	}
}

/* "[heap]" and "[stack]" as Linux names them, else NULL. */
static const char *vma_name(const struct process *p, const struct vma *v)
{
	if (v->start <= p->brk && v->end >= p->brk_start)
		return "[heap]";
	if (v->start < EXEC_STACK_TOP && v->end >= EXEC_STACK_TOP)
		return "[stack]";
	return NULL;
}

/* The maps line of @v (the first line of its smaps block). */
static void vma_header(struct process *p, const struct vma *v, struct proc_text *t)
{
	const char *name = vma_name(p, v);
	size_t line = t->len;
	int pad;

	proc_printf(t, "%08lx-%08lx %c%c%c%c %08lx %02x:%02x %lu ", v->start, v->end,
		    v->flags & VM_READ ? 'r' : '-', v->flags & VM_WRITE ? 'w' : '-',
		    v->flags & VM_EXEC ? 'x' : '-', v->flags & VM_SHARED ? 's' : 'p',
		    v->flags & VM_SHARED ? v->pgoff << PAGE_SHIFT : 0ul, 0, 0, 0ul);
	pad = NAME_PAD - (int)(t->len - line);
	if (name)
		proc_printf(t, "%*s %s", pad > 0 ? pad : 0, "", name);
	proc_printf(t, "\n");
}

/* Linux's mnemonics in Linux's bit order. A private anonymous VMA may
 * always become readable, writable, executable (mr mw me); a writable
 * one is accounted (ac); MADV_HUGEPAGE is hg, MADV_NOHUGEPAGE nh (a
 * user VMA's VM_NOHUGEPMD is Linux's VM_NOHUGEPAGE: thp_policy.h). */
static void vma_flags(const struct vma *v, struct proc_text *t)
{
	bool nh = (v->flags & (VM_THP_SYSTEM | VM_NOHUGEPMD)) == (VM_THP_SYSTEM | VM_NOHUGEPMD);

	proc_printf(t, "VmFlags:%s%s%s mr mw me%s%s%s%s \n", v->flags & VM_READ ? " rd" : "",
		    v->flags & VM_WRITE ? " wr" : "", v->flags & VM_EXEC ? " ex" : "",
		    v->flags & VM_DONTCOPY ? " dc" : "", v->flags & VM_WRITE ? " ac" : "",
		    v->flags & VM_HUGEPAGE ? " hg" : "", nh ? " nh" : "");
}

/* The lines of @c that smaps and smaps_rollup share, Rss to Locked. */
static void smaps_counts(const struct smaps_count *c, struct proc_text *t)
{
	proc_printf(t, "%-16s%8lu kB\n", "Rss:", c->rss >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "Pss:", c->pss >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "Shared_Clean:", c->shared_clean >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "Shared_Dirty:", c->shared_dirty >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "Private_Clean:", c->private_clean >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "Private_Dirty:", c->private_dirty >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "Anonymous:", c->anon >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "AnonHugePages:", c->anon_pmd >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "Swap:", c->swap >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "Locked:", 0ul);
}

static void vma_smaps(struct process *p, const struct vma *v, struct proc_text *t)
{
	struct smaps_count c = { 0 };
	int thp = (vma_fault_orders(v) & ~1ul) != 0; /* any large order may be faulted in */

	count_vma(p->mm, v, &c);
	vma_header(p, v, t);
	proc_printf(t, "%-16s%8lu kB\n", "Size:", (v->end - v->start) >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "KernelPageSize:", PAGE_SIZE >> 10);
	proc_printf(t, "%-16s%8lu kB\n", "MMUPageSize:", PAGE_SIZE >> 10);
	smaps_counts(&c, t);
	proc_printf(t, "THPeligible:    %8d\n", thp);
	vma_flags(v, t);
}

/* Each VMA of @p, by @show. Context: takes the mmap_lock for read. */
static int each_vma(struct process *p, struct proc_text *t,
		    void (*show)(struct process *p, const struct vma *v, struct proc_text *t))
{
	read_lock(&p->mm->mmap_lock);
	for (const struct vma *v = p->mm->vmas; v; v = v->next)
		show(p, v, t);
	read_unlock(&p->mm->mmap_lock);
	return t->err;
}

int proc_maps_text(struct process *p, const struct proc_entry *e, struct proc_text *t)
{
	(void)e;
	return each_vma(p, t, vma_header);
}

int proc_smaps_text(struct process *p, const struct proc_entry *e, struct proc_text *t)
{
	(void)e;
	return each_vma(p, t, vma_smaps);
}

/*
 * /proc/self/smaps_rollup: the smaps counts of every VMA summed, under
 * one header spanning the first VMA's start to the last one's end, named
 * [rollup] as Linux names it. A program reads AnonHugePages there to
 * tell PMD-mapped THPs from PTE-mapped ones (lbench does).
 */
int proc_smaps_rollup_text(struct process *p, const struct proc_entry *e, struct proc_text *t)
{
	struct smaps_count c = { 0 };
	unsigned long start = 0, end = 0;
	size_t line = t->len;
	int pad;

	(void)e;
	read_lock(&p->mm->mmap_lock);
	for (const struct vma *v = p->mm->vmas; v; v = v->next) {
		start = start ? start : v->start;
		end = v->end;
		count_vma(p->mm, v, &c);
	}
	read_unlock(&p->mm->mmap_lock);
	proc_printf(t, "%08lx-%08lx ---p %08x %02x:%02x %lu ", start, end, 0, 0, 0, 0ul);
	pad = NAME_PAD - (int)(t->len - line);
	proc_printf(t, "%*s [rollup]\n", pad > 0 ? pad : 0, "");
	smaps_counts(&c, t);
	return t->err;
}
