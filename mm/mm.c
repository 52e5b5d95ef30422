/*
 * mm.c - the lifetime of an address space.
 *
 * An mm is created with an empty user half (the arch shares the kernel
 * half into its top level table) and lives while it has users; the last
 * mm_put() zaps every VMA with the batched zap (full teardown), frees its
 * page tables and itself. Parent and child of a fork hold their own mms,
 * so they can be torn down in any order.
 */
#include <stdlib.h>

#include "kernel.h"
#include "mm_internal.h"
#include "trace.h"

struct mm *cpu_current_mm[NR_CPUS];
struct mm *mm_list;
static int next_mm_id = 1;
/* Guards mm_list, next_mm and next_mm_id (nothing is taken under it). */
static struct spinlock mm_list_lock = SPINLOCK_INIT(LOCK_LEAF, "mm_list_lock");

/* An mm in @fam (NULL: a family of its own). Context: as
 * anon_family_join(). */
struct mm *mm_create_in(struct anon_family *fam)
{
	struct mm *mm = calloc(1, sizeof(*mm));

	if (!mm)
		return NULL;
	mm->pgd = pgd_alloc(mm);
	if (!mm->pgd)
		goto err_free;
	if (anon_family_join(mm, fam))
		goto err_pgd;
	mm->mmap_lock = RWLOCK_INIT("mmap_lock");
	spin_lock_init(&mm->page_table_lock, LOCK_PGTABLE, "page_table_lock");
	mm->users = 1;
	spin_lock(&mm_list_lock);
	mm->id = next_mm_id++;
	mm->next_mm = mm_list;
	mm_list = mm;
	spin_unlock(&mm_list_lock);
	return mm;
err_pgd:
	pgd_free(mm, mm->pgd);
err_free:
	free(mm);
	return NULL;
}

struct mm *mm_create(void)
{
	return mm_create_in(NULL);
}

void mm_get(struct mm *mm)
{
	arch_sched_point(SCHED_ATOMIC);
	__atomic_fetch_add(&mm->users, 1, __ATOMIC_RELAXED);
}

static void mm_unlist(struct mm *mm)
{
	struct mm **p = &mm_list;

	spin_lock(&mm_list_lock);
	while (*p != mm)
		p = &(*p)->next_mm;
	*p = mm->next_mm;
	spin_unlock(&mm_list_lock);
}

/* The full teardown's gather frees pages before its one flush at the end
 * (tlb.c): right only while no CPU's TLB can hold @mm's entries, i.e. no
 * other CPU has @mm live (this one has just switched away). */
static void mm_check_unloaded(struct mm *mm)
{
	unsigned long others = arch_mm_cpus_elsewhere(mm);

	if (others)
		panic("mm_put: mm %d torn down while live on other CPUs (mask %#lx)", mm->id,
		      others);
}

/*
 * mm_put - drop a reference; the last one tears @mm down: off the MMU
 * first, then every VMA zapped and every table freed under one mmu_gather
 * (one TLB flush), then the VMAs, the pgd and the mm itself. The last
 * reference is the only one, so the teardown takes no mmap_lock (Linux's
 * exit_mmap takes it only for the mmu notifiers and the OOM reaper); it
 * holds the family lock for read until it has left the family, so a
 * migration walking the family sees the mm whole or not at all.
 * Context: the caller's CPU is the last one with @mm live in its MMU; no
 * family lock held.
 */
void mm_put(struct mm *mm)
{
	struct mmu_gather tlb;
	int users;

	arch_sched_point(SCHED_ATOMIC);
	users = __atomic_sub_fetch(&mm->users, 1, __ATOMIC_ACQ_REL);

	if (users < 0)
		panic("mm_put: mm %d has %d users", mm->id, users + 1);
	if (users > 0)
		return;
	TRACE(trace_op_begin("exit", mm, 0, MM_USER_END, mm_caps.zap));
	if (current_mm == mm)
		switch_mm(NULL);
	mm_check_unloaded(mm);
	read_lock(&mm->family->lock);
	tlb_gather_init(&tlb, mm, true);
	for (struct vma *v = mm->vmas; v; v = v->next)
		zap_vma_range(&tlb, v, v->start, v->end);
	free_pgtables_tlb(&tlb, 0, MM_USER_END);
	tlb_finish(&tlb);
	anon_family_leave(mm); /* and the family lock */
	vma_free_all(mm);
	pgd_free(mm, mm->pgd);
	mm_unlist(mm);
	free(mm);
	TRACE(trace_op_end("exit"));
}

void switch_mm(struct mm *mm)
{
	if (mm == current_mm)
		return;
	current_mm = mm;
	arch_switch_mm(mm, mm ? virt_to_phys(mm->pgd) : 0);
}
