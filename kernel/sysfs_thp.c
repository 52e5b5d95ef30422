/*
 * sysfs_thp.c - /sys/kernel/mm/transparent_hugepage/: what a program
 * asks about THP (Linux's selftests read hpage_pmd_size to learn the PMD
 * folio size). Read-only: ptelab's user mappings of 2 MiB or more may
 * get PMD folios whatever the program advises (kernel/sys_mm.c), which
 * is Linux's "always".
 */
#include "kernel.h"
#include "page.h"
#include "procfs.h"

int sysfs_thp_pmd_size_text(struct process *p, struct proc_text *t)
{
	(void)p;
	proc_printf(t, "%lu\n", (unsigned long)PAGE_SIZE << PMD_ORDER);
	return 0;
}

int sysfs_thp_enabled_text(struct process *p, struct proc_text *t)
{
	(void)p;
	proc_printf(t, "[always] madvise never\n");
	return 0;
}
