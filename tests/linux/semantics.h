/*
 * semantics.h - the scenario table of `make linux-semantics` and of the
 * `semantics` stage, and the small system-call layer it runs on.
 *
 * tests/linux/semantics_table.c holds the scenarios and prints one line
 * per call. It is compiled twice: into tests/linux/semantics.c, a static
 * Linux program whose layer makes the real system calls, and into the mm
 * host runners through tests/linux/semantics_mm.c, whose layer calls
 * mm_mmap(), mbind(), move_pages()... on a fresh ptelab mm. Both print
 * the same line format, so tests/linux/semantics.sh can diff them.
 *
 * A scenario works on one region of SEM_PAGES pages, aligned to 4 MiB,
 * and names pages by their index in it (never an address, so the output
 * is the same from run to run; the 4 MiB alignment makes MPOL_INTERLEAVE's
 * index of the region's first THP, address >> 21, even on both sides).
 * Every call returns a value >= 0 or a
 * negative errno, as the kernel's own functions do.
 */
#ifndef TESTS_LINUX_SEMANTICS_H
#define TESTS_LINUX_SEMANTICS_H

#include <stdbool.h>

#define SEM_PAGES 1024ul /* two 2 MiB halves */
#define SEM_NODES 3	 /* both sides run with three nodes */

/* Linux's constants (uapi/linux/mempolicy.h), the same numbers in mm/. */
#define SEM_MPOL_DEFAULT 0
#define SEM_MPOL_PREFERRED 1
#define SEM_MPOL_BIND 2
#define SEM_MPOL_INTERLEAVE 3
#define SEM_MPOL_LOCAL 4
#define SEM_MPOL_PREFERRED_MANY 5
#define SEM_MF_STRICT (1u << 0)
#define SEM_MF_MOVE (1u << 1)
#define SEM_MF_MOVE_ALL (1u << 2)
#define SEM_F_NODE (1u << 0)
#define SEM_F_ADDR (1u << 1)
#define SEM_F_MEMS_ALLOWED (1u << 2)

/* The folios a region's faults get. */
enum sem_kind {
	SEM_4K,	 /* order 0 only */
	SEM_64K, /* 64 KiB mTHP (Linux 6.12: hugepages-64kB "always") */
	SEM_THP, /* 2 MiB, PMD-mapped (MADV_HUGEPAGE) */
	SEM_KINDS
};

enum sem_prot { SEM_NONE, SEM_RO, SEM_RW };

/* What one page of the region looks like after a call. */
struct sem_page {
	int node;     /* move_pages' query: a node, or a negative errno */
	bool present; /* /proc/self/pagemap bit 63 */
	bool excl;    /* bit 56: the page is mapped exactly once */
};

/* ---- the layer each side implements ------------------------------------ */

/* Start a scenario: map the region of @kind (read-write, untouched).
 * End it: unmap everything, end the fork child, reset the task policy. */
long sem_begin(enum sem_kind kind);
void sem_end(void);

/* Write one byte to each page of [first, first + n), in this process or
 * in the fork child. */
long sem_touch(unsigned long first, unsigned long n);
long sem_child_touch(unsigned long first, unsigned long n);
long sem_munmap(unsigned long first, unsigned long n);
long sem_mprotect(unsigned long first, unsigned long n, enum sem_prot prot);
/* A child that maps the region copy-on-write and waits (at most one). */
long sem_fork(void);

long sem_mbind(unsigned long first, unsigned long n, int mode, unsigned long nodes, unsigned flags);
long sem_set_mempolicy(int mode, unsigned long nodes);
/* @page: the page for MPOL_F_ADDR (ignored without it). */
long sem_get_mempolicy(int *mode, unsigned long *nodes, unsigned long page, unsigned flags);
/* @nice: the caller has CAP_SYS_NICE (Linux then migrates with
 * MPOL_MF_MOVE_ALL: shared folios too), as root has; without it, only
 * the folios this process alone maps move (MPOL_MF_MOVE). */
long sem_migrate_pages(unsigned long from, unsigned long to, bool nice);
/* @pages: page indices; @nodes NULL: query. */
long sem_move_pages(unsigned long n, const unsigned long *pages, const int *nodes, int *status,
		    unsigned flags);

/* The state of @n pages from @first (query, then pagemap). */
void sem_pages(unsigned long first, unsigned long n, struct sem_page *out);

/* Print one line (the side adds nothing: Linux's prints to stdout). */
void sem_out(const char *line);

/* ---- the table (semantics_table.c) -------------------------------------- */

/* Run every scenario; Return: how many lines were printed. */
int sem_run_all(void);

#endif
