/*
 * test_family.c - a migration walks and rewrites the tables of every mm
 * of a folio's anon family, under their page-table locks but not their
 * mmap_lock; so no member may change its VMAs or tables, fork or go away
 * meanwhile (mm/anon_family.h). Each case forks a child that maps the
 * parent's folios, and CPU 0 migrates them MOVE_ALL from the parent. While
 * the migration entries stand in both mms (migrate_unmapped_hook), CPU 1
 * changes the child; CPU 0 waits 50 ms for it inside the window (guest
 * instructions under icount: time enough for CPU 1's turns). The
 * change must not complete before the migration has (the family lock
 * holds it back), and afterwards the child's change, the parent's bytes
 * and nodes and every count must be what they would be had the two run
 * one after the other.
 */
#include "migrate_cases.h"
#include "smp.h"
#include "spinlock.h"

#define FAM_PAGES 64	      /* four 64K folios */
#define WINDOW_NS 50000000ull /* CPU 0's wait for the child's change inside the window */

enum fam_op { FAM_MUNMAP, FAM_MPROTECT, FAM_FORK, FAM_EXIT };

static const char *const fam_op_names[] = { "munmap", "mprotect", "fork", "exit" };

struct fam_case {
	struct mm *parent, *child;
	unsigned long a;
	enum fam_op op;
	unsigned window;      /* 1: CPU 0 is in the window, 2: the migration returned */
	unsigned done;	      /* CPU 1's change returned */
	unsigned done_inside; /* ... and CPU 0 saw that inside the window */
	long migrated;
	int err;
};

static struct fam_case *fam_now;

/* CPU 0 inside the window: let CPU 1 start, wait for its change a while. */
static void fam_window(void)
{
	struct fam_case *c = fam_now;
	uint64_t t0 = time_ns();

	__atomic_store_n(&c->window, 1, __ATOMIC_RELEASE);
	while (time_ns() - t0 < WINDOW_NS) {
		if (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE)) {
			c->done_inside = 1;
			return;
		}
		arch_cpu_relax();
	}
}

/* The child's change, as CPU 1 makes it. Return: 0 or -errno. */
static int fam_change(struct fam_case *c)
{
	struct mm *grandchild;
	int err = 0;

	switch (c->op) {
	case FAM_MUNMAP:
		return mm_munmap(c->child, c->a, FAM_PAGES * PAGE_SIZE);
	case FAM_MPROTECT:
		return mm_mprotect(c->child, c->a, FAM_PAGES * PAGE_SIZE, VM_READ);
	case FAM_FORK:
		grandchild = mm_fork(c->child, &err);
		if (grandchild)
			mm_put(grandchild);
		return grandchild ? 0 : err;
	case FAM_EXIT:
		mm_put(c->child);
		c->child = NULL;
		return 0;
	}
	return -EINVAL;
}

static void fam_cpu(unsigned cpu, void *arg)
{
	struct fam_case *c = arg;

	if (cpu == 0) {
		c->migrated = mm_migrate_pages(c->parent, N0, N1, MPOL_MF_MOVE_ALL);
		__atomic_store_n(&c->window, 2, __ATOMIC_RELEASE);
		return;
	}
	if (cpu != 1)
		return;
	while (!__atomic_load_n(&c->window, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	c->err = fam_change(c);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
}

/* What the child's change left, checked once both have returned. */
static void fam_check_child(struct fam_case *c)
{
	unsigned char x = 1;

	switch (c->op) {
	case FAM_MUNMAP:
		CHECK(find_vma(c->child, c->a) == NULL);
		break;
	case FAM_MPROTECT:
		CHECK_EQ(mm_access(c->child, c->a, &x, 1, true), -EFAULT);
		CHECK_EQ(bad_bytes(c->child, c->a, FAM_PAGES, 6), 0);
		CHECK_EQ(off_node(c->child, c->a, FAM_PAGES, 1), 0);
		break;
	case FAM_FORK:
		CHECK_EQ(bad_bytes(c->child, c->a, FAM_PAGES, 6), 0);
		CHECK_EQ(off_node(c->child, c->a, FAM_PAGES, 1), 0);
		break;
	case FAM_EXIT:
		CHECK(c->child == NULL);
		break;
	}
}

static void fam_case_run(enum fam_op op)
{
	struct fam_case c = { .op = op };
	bool two = smp_nr_cpus() >= 2;

	c.parent = begin(1);
	c.a = test_mmap(c.parent, FAM_PAGES * PAGE_SIZE, RW, ORDERS(4));
	fill(c.parent, c.a, FAM_PAGES, 6);
	c.child = mm_fork(c.parent, NULL);
	CHECK(c.child != NULL);
	fam_now = &c;
	migrate_unmapped_hook = two ? fam_window : NULL;
	if (two) {
		smp_run(2, fam_cpu, &c);
	} else {
		c.migrated = mm_migrate_pages(c.parent, N0, N1, MPOL_MF_MOVE_ALL);
		c.err = fam_change(&c);
	}
	migrate_unmapped_hook = NULL;
	printf("    %s of the child: %s\n", fam_op_names[op],
	       !two	       ? "after the migration (1 CPU online)"
	       : c.done_inside ? "COMPLETED INSIDE the migration's window"
			       : "held back until the migration returned");
	CHECK_EQ(c.done_inside, 0);
	CHECK_EQ(c.err, 0);
	CHECK_EQ(c.migrated, 0);
	CHECK_EQ(off_node(c.parent, c.a, FAM_PAGES, 1), 0);
	CHECK_EQ(bad_bytes(c.parent, c.a, FAM_PAGES, 6), 0);
	fam_check_child(&c);
	CHECK_MM_OK();
	if (c.child)
		mm_put(c.child);
	mm_case_end(c.parent, free_before);
}

/* The four changes of a member that the family lock holds back. */
TEST(family_member_munmap_waits_for_migration)
{
	NEED_TWO_NODES();
	fam_case_run(FAM_MUNMAP);
}

TEST(family_member_mprotect_waits_for_migration)
{
	NEED_TWO_NODES();
	fam_case_run(FAM_MPROTECT);
}

TEST(family_member_fork_waits_for_migration)
{
	NEED_TWO_NODES();
	fam_case_run(FAM_FORK);
}

TEST(family_member_exit_waits_for_migration)
{
	NEED_TWO_NODES();
	fam_case_run(FAM_EXIT);
}

TEST_SUITE(family, family_member_munmap_waits_for_migration,
	   family_member_mprotect_waits_for_migration, family_member_fork_waits_for_migration,
	   family_member_exit_waits_for_migration)
