/*
 * semantics_mm.c - ptelab's side of the semantics check: the scenarios of
 * tests/linux/semantics_table.c through mm/'s calls, in the mm host
 * runners (three nodes, like the Linux boot tests/linux/record.sh makes).
 * The case `semantics/linux_scenarios` prints (with MM_SEMANTICS=1 in the
 * environment) the same SEM lines as the Linux program;
 * tests/linux/semantics.sh diffs them against the recorded
 * Linux 6.12 output. The case itself checks what a test of mm/ checks
 * after each scenario: the invariant checker, and no page leaked.
 *
 * Each scenario gets a fresh mm with the region at one fixed 4 MiB
 * aligned address (Linux's is 4 MiB aligned too, so MPOL_INTERLEAVE's
 * index, which counts folios from address 0, picks the same nodes).
 */
#include <stdlib.h>

#include "../mm/migrate_cases.h"
#include "semantics.h"

#define SEM_BASE 0x40000000ul

static struct {
	struct mm *mm, *child;
	uint64_t free_before;
} sem;

static unsigned long page_addr(unsigned long page)
{
	return SEM_BASE + page * PAGE_SIZE;
}

long sem_begin(enum sem_kind kind)
{
	static const unsigned flags[SEM_KINDS] = { VM_NOHUGEPMD, VM_NOHUGEPMD, 0 };
	static const unsigned long orders[SEM_KINDS] = { ORDERS(0), ORDERS(4), ORDERS(PMD_ORDER) };
	long a;

	sem.free_before = total_free_pages();
	sem.mm = mm_create();
	if (!sem.mm)
		return -ENOMEM;
	a = mm_mmap(sem.mm, SEM_BASE, SEM_PAGES * PAGE_SIZE, RW | flags[kind], MAP_FIXED_ADDR,
		    orders[kind]);
	return a < 0 ? a : 0;
}

/* Context: after every scenario: the checker and the free count say
 * whether the scenario left mm/ consistent. */
void sem_end(void)
{
	CHECK_MM_OK();
	if (sem.child)
		mm_put(sem.child);
	sem.child = NULL;
	if (sem.mm)
		mm_put(sem.mm);
	sem.mm = NULL;
	CHECK_MM_OK();
	CHECK_EQ(total_free_pages(), sem.free_before);
}

long sem_touch(unsigned long first, unsigned long n)
{
	return mm_touch(sem.mm, page_addr(first), n * PAGE_SIZE, true);
}

long sem_child_touch(unsigned long first, unsigned long n)
{
	return sem.child ? mm_touch(sem.child, page_addr(first), n * PAGE_SIZE, true) : -ESRCH;
}

long sem_munmap(unsigned long first, unsigned long n)
{
	return mm_munmap(sem.mm, page_addr(first), n * PAGE_SIZE);
}

long sem_mprotect(unsigned long first, unsigned long n, enum sem_prot prot)
{
	static const unsigned vm[] = { 0, VM_READ, RW };

	return mm_mprotect(sem.mm, page_addr(first), n * PAGE_SIZE, vm[prot]);
}

long sem_fork(void)
{
	int err = 0;

	sem.child = mm_fork(sem.mm, &err);
	return sem.child ? 0 : err;
}

long sem_mbind(unsigned long first, unsigned long n, int mode, unsigned long nodes, unsigned flags)
{
	return mbind(sem.mm, page_addr(first), n * PAGE_SIZE, (unsigned)mode, nodes, flags);
}

/* ptelab has no task policy (docs/migrate.md, the differences). */
long sem_set_mempolicy(int mode, unsigned long nodes)
{
	return set_task_policy((unsigned)mode, nodes);
}

long sem_get_mempolicy(int *mode, unsigned long *nodes, unsigned long page, unsigned flags)
{
	return get_mempolicy(sem.mm, mode, nodes, page_addr(page), flags);
}

/* Linux's migrate_pages() moves shared folios too for a caller with
 * CAP_SYS_NICE; mm_migrate_pages() takes that as MPOL_MF_MOVE_ALL. */
long sem_migrate_pages(unsigned long from, unsigned long to, bool nice)
{
	return nice ? mm_migrate_pages(sem.mm, from, to, MPOL_MF_MOVE_ALL)
		    : migrate_pages(sem.mm, from, to);
}

long sem_move_pages(unsigned long n, const unsigned long *pages, const int *nodes, int *status,
		    unsigned flags)
{
	static unsigned long addrs[SEM_PAGES];

	for (unsigned long i = 0; i < n; i++)
		addrs[i] = page_addr(pages[i]);
	return move_pages(sem.mm, n, addrs, nodes, status, flags);
}

/* Linux's pagemap: present for a present entry; exclusive when the page
 * is mapped once (its PTE mappings plus its folio's PMD mappings). */
void sem_pages(unsigned long first, unsigned long n, struct sem_page *out)
{
	static unsigned long pages[SEM_PAGES];
	static int status[SEM_PAGES];

	for (unsigned long i = 0; i < n; i++)
		pages[i] = first + i;
	if (sem_move_pages(n, pages, NULL, status, 0) < 0)
		memset(status, 0, sizeof(status));
	for (unsigned long i = 0; i < n; i++) {
		bool by_pmd;
		pte_t pte;
		struct page *p = page_at(sem.mm, page_addr(first + i), &by_pmd, &pte);

		out[i].node = status[i];
		out[i].present = p != NULL;
		out[i].excl = p && page_mapcount(p) + page_folio(p)->page.entire_mapcount == 1;
	}
}

/* The lines only when tests/linux/semantics.sh asks (MM_SEMANTICS=1):
 * the mm stage runs the case for its checks alone. */
void sem_out(const char *line)
{
	static int print = -1;

	if (print < 0)
		print = getenv("MM_SEMANTICS") != NULL;
	if (print)
		printf("%s\n", line);
}

/* Every scenario of the table runs and leaves mm/ consistent; what each
 * call answered is tests/linux/semantics.sh's to compare. */
TEST(linux_scenarios)
{
	NEED_THREE_NODES();
	CHECK(sem_run_all() > 0);
}

TEST_SUITE(semantics, linux_scenarios);
