/*
 * thp_policy.h - the system's transparent-hugepage settings, as Linux's
 * /sys/kernel/mm/transparent_hugepage/ has them: a top-level mode and
 * one mode per anonymous folio order (2 .. PMD_ORDER: 16 KiB to 2 MiB
 * with 4 KiB pages), "inherit" taking the top-level one.
 *
 * They decide the folio orders of a fault only in a VMA with
 * VM_THP_SYSTEM (the user processes' mappings, kernel/sys_mm.c): an
 * order in "always" mode, or in "madvise" mode where MADV_HUGEPAGE set
 * VM_HUGEPAGE; none where MADV_NOHUGEPAGE set VM_NOHUGEPMD (Linux's
 * VM_NOHUGEPAGE). Every other VMA keeps the orders its creator gave
 * (vma->orders: the benchmarks, the tests). The defaults are Debian's
 * Linux 6.12: "always", the PMD order "inherit", the others "never".
 */
#ifndef MM_THP_POLICY_H
#define MM_THP_POLICY_H

#include "mm.h"
#include "page.h"

enum thp_mode { THP_NEVER, THP_ALWAYS, THP_MADVISE, THP_INHERIT };

#define THP_MIN_ORDER 2 /* Linux has no anonymous order-1 folios */

/* Orders allowed in every VMA, and those allowed where VM_HUGEPAGE is
 * set, derived from the modes by thp_set_mode(). Read by faults. */
extern unsigned long thp_orders_always, thp_orders_madvise;

/* @order's mode (THP_INHERIT possible); @order 0 is the top-level one. */
enum thp_mode thp_get_mode(unsigned order);

/*
 * thp_set_mode - set the top-level mode (@order 0; THP_INHERIT refused)
 * or @order's (THP_MIN_ORDER .. PMD_ORDER). Faults after it see the new
 * orders; folios already mapped stay as they are.
 * Return: 0, or -EINVAL for an order or mode that cannot be set.
 * Context: any; the settings are one word each, read without a lock.
 */
int thp_set_mode(unsigned order, enum thp_mode mode);

/* The folio orders a fault in @vma may use (bit n = order n; bit 0 always). */
static inline unsigned long vma_fault_orders(const struct vma *vma)
{
	unsigned long o;

	if (!(vma->flags & VM_THP_SYSTEM))
		return vma->orders;
	if (vma->flags & VM_NOHUGEPMD)
		return 1;
	o = __atomic_load_n(&thp_orders_always, __ATOMIC_RELAXED);
	if (vma->flags & VM_HUGEPAGE)
		o |= __atomic_load_n(&thp_orders_madvise, __ATOMIC_RELAXED);
	return o | 1;
}

#endif
