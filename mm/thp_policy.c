/*
 * thp_policy.c - the system's transparent-hugepage modes and the two
 * order masks faults read (thp_policy.h).
 */
#include <errno.h>

#include "thp_policy.h"

static enum thp_mode modes[PMD_ORDER + 1] = { [0] = THP_ALWAYS, [PMD_ORDER] = THP_INHERIT };
unsigned long thp_orders_always = 1ul << PMD_ORDER, thp_orders_madvise = 1ul << PMD_ORDER;

enum thp_mode thp_get_mode(unsigned order)
{
	return order <= PMD_ORDER ? modes[order] : THP_NEVER;
}

/* Each order's mode, "inherit" resolved to the top-level one, as masks. */
static void thp_recompute(void)
{
	unsigned long always = 0, madvise = 0;

	for (unsigned o = THP_MIN_ORDER; o <= PMD_ORDER; o++) {
		enum thp_mode m = modes[o] == THP_INHERIT ? modes[0] : modes[o];

		if (m == THP_ALWAYS)
			always |= 1ul << o;
		if (m == THP_ALWAYS || m == THP_MADVISE)
			madvise |= 1ul << o;
	}
	__atomic_store_n(&thp_orders_always, always, __ATOMIC_RELAXED);
	__atomic_store_n(&thp_orders_madvise, madvise, __ATOMIC_RELAXED);
}

int thp_set_mode(unsigned order, enum thp_mode mode)
{
	if (mode > THP_INHERIT || (order && (order < THP_MIN_ORDER || order > PMD_ORDER)) ||
	    (!order && mode == THP_INHERIT))
		return -EINVAL;
	modes[order] = mode;
	thp_recompute();
	return 0;
}
