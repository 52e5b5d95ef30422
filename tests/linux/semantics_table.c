/*
 * semantics_table.c - the scenarios that check ptelab's NUMA calls against
 * Linux's (tests/linux/semantics.h says how it is run on both sides).
 *
 * Each scenario runs once per folio kind it lists, on a fresh region, and
 * every call prints one line:
 *
 *   SEM <scenario>/<kind> <call> = <return> [<what the call wrote>] | <pages>
 *
 * <return> is the value or the errno's name; <pages> is the state of
 * every page of the region afterwards, run-length coded ("0px*16"): the
 * node move_pages' query answers (a digit; "-" for -ENOENT, "f" for
 * -EFAULT, "e<N>" for another errno), then "p" when pagemap says present
 * and "x" when it says exclusively mapped ("." for either bit clear).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "semantics.h"

#define HALF (SEM_PAGES / 2)
#define NB(n) (1ul << (n))
#define BAD_NODE 5 /* no machine here has it */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *scenario, *kind_name;
static int lines;

static const char *err_name(long e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" },   { ENOENT, "ENOENT" }, { EIO, "EIO" },
		{ E2BIG, "E2BIG" },   { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },   { EEXIST, "EEXIST" },
		{ EXDEV, "EXDEV" },   { ENODEV, "ENODEV" }, { EINVAL, "EINVAL" },
		{ ENOSYS, "ENOSYS" }, { EAGAIN, "EAGAIN" },
	};
	static char other[24];

	for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(other, sizeof(other), "E%ld", e);
	return other;
}

/* A return value or status: the number, or the errno's name. */
static const char *val(long v, char *buf, size_t size)
{
	if (v < 0)
		return err_name(-v);
	snprintf(buf, size, "%ld", v);
	return buf;
}

static void page_token(const struct sem_page *p, char *buf, size_t size)
{
	char node[16];

	if (p->node >= 0)
		snprintf(node, sizeof(node), "%d", p->node);
	else if (p->node == -ENOENT)
		snprintf(node, sizeof(node), "-");
	else if (p->node == -EFAULT)
		snprintf(node, sizeof(node), "f");
	else
		snprintf(node, sizeof(node), "e%d", -p->node);
	snprintf(buf, size, "%s%c%c", node, p->present ? 'p' : '.', p->excl ? 'x' : '.');
}

/* Append @tok repeated @n times to @out (at most @size bytes). */
static void put_run(char *out, size_t size, const char *tok, unsigned long n)
{
	size_t len = strlen(out);

	if (n == 1)
		snprintf(out + len, size - len, " %s", tok);
	else
		snprintf(out + len, size - len, " %s*%lu", tok, n);
}

/* The run-length coded state of the whole region. */
static void pages_state(char *out, size_t size)
{
	static struct sem_page pages[SEM_PAGES];
	char tok[24], prev[24] = "";
	unsigned long run = 0;

	sem_pages(0, SEM_PAGES, pages);
	out[0] = '\0';
	for (unsigned long i = 0; i < SEM_PAGES; i++) {
		page_token(&pages[i], tok, sizeof(tok));
		if (run && strcmp(tok, prev)) {
			put_run(out, size, prev, run);
			run = 0;
		}
		strcpy(prev, tok);
		run++;
	}
	put_run(out, size, prev, run);
}

/* Print the line of one call: @call, its return, @extra (may be ""). */
static void report(const char *call, long ret, const char *extra)
{
	static char state[8192], line[8400];
	char num[24];

	pages_state(state, sizeof(state));
	snprintf(line, sizeof(line), "SEM %s/%s %s = %s%s%s |%s", scenario, kind_name, call,
		 val(ret, num, sizeof(num)), *extra ? " " : "", extra, state);
	sem_out(line);
	lines++;
}

static void mask_str(unsigned long nodes, char *buf, size_t size)
{
	size_t len;

	snprintf(buf, size, "{");
	for (int n = 0; n < 64; n++)
		if (nodes & NB(n)) {
			len = strlen(buf);
			snprintf(buf + len, size - len, "%s%d", buf[1] ? "," : "", n);
		}
	len = strlen(buf);
	snprintf(buf + len, size - len, "}");
}

static const char *mode_str(int mode)
{
	static const char *const names[] = { "DEFAULT",	   "PREFERRED", "BIND",
					     "INTERLEAVE", "LOCAL",	"PREFERRED_MANY" };
	static char other[24];

	if (mode >= 0 && mode < (int)ARRAY_SIZE(names))
		return names[mode];
	snprintf(other, sizeof(other), "mode%d", mode);
	return other;
}

static void flags_str(unsigned flags, const char *const *names, unsigned nr, char *buf, size_t size)
{
	size_t len;

	snprintf(buf, size, "%s", flags ? "" : "0");
	for (unsigned b = 0; b < 32; b++) {
		if (!(flags & (1u << b)))
			continue;
		len = strlen(buf);
		if (b < nr)
			snprintf(buf + len, size - len, "%s%s", len ? "|" : "", names[b]);
		else
			snprintf(buf + len, size - len, "%s0x%x", len ? "|" : "", 1u << b);
	}
}

static void mf_str(unsigned flags, char *buf, size_t size)
{
	static const char *const names[] = { "STRICT", "MOVE", "MOVE_ALL" };

	flags_str(flags, names, ARRAY_SIZE(names), buf, size);
}

/* ---- the calls, each printing its line ---------------------------------- */

static void touch(unsigned long first, unsigned long n)
{
	char call[256];

	snprintf(call, sizeof(call), "touch(%lu+%lu)", first, n);
	report(call, sem_touch(first, n), "");
}

static void child_touch(unsigned long first, unsigned long n)
{
	char call[256];

	snprintf(call, sizeof(call), "child_touch(%lu+%lu)", first, n);
	report(call, sem_child_touch(first, n), "");
}

static void unmap(unsigned long first, unsigned long n)
{
	char call[256];

	snprintf(call, sizeof(call), "munmap(%lu+%lu)", first, n);
	report(call, sem_munmap(first, n), "");
}

static void protect(unsigned long first, unsigned long n, enum sem_prot prot)
{
	static const char *const names[] = { "NONE", "RO", "RW" };
	char call[256];

	snprintf(call, sizeof(call), "mprotect(%lu+%lu,%s)", first, n, names[prot]);
	report(call, sem_mprotect(first, n, prot), "");
}

static void fork_child(void)
{
	report("fork()", sem_fork(), "");
}

static void mbind_(unsigned long first, unsigned long n, int mode, unsigned long nodes,
		   unsigned flags)
{
	char call[256], mask[64], fl[64];

	mask_str(nodes, mask, sizeof(mask));
	mf_str(flags, fl, sizeof(fl));
	snprintf(call, sizeof(call), "mbind(%lu+%lu,%s,%s,%s)", first, n, mode_str(mode), mask, fl);
	report(call, sem_mbind(first, n, mode, nodes, flags), "");
}

static void setpol(int mode, unsigned long nodes)
{
	char call[256], mask[64];

	mask_str(nodes, mask, sizeof(mask));
	snprintf(call, sizeof(call), "set_mempolicy(%s,%s)", mode_str(mode), mask);
	report(call, sem_set_mempolicy(mode, nodes), "");
}

static void getpol(unsigned long page, unsigned flags)
{
	static const char *const names[] = { "NODE", "ADDR", "MEMS_ALLOWED" };
	char call[256], fl[64], mask[64], extra[256] = "";
	int mode = -1;
	unsigned long nodes = 0;
	long ret;

	flags_str(flags, names, ARRAY_SIZE(names), fl, sizeof(fl));
	snprintf(call, sizeof(call), "get_mempolicy(%lu,%s)", page, fl);
	ret = sem_get_mempolicy(&mode, &nodes, page, flags);
	mask_str(nodes, mask, sizeof(mask));
	if (ret >= 0 && (flags & SEM_F_NODE))
		snprintf(extra, sizeof(extra), "node=%d", mode);
	else if (ret >= 0)
		snprintf(extra, sizeof(extra), "mode=%s nodes=%s",
			 flags & SEM_F_MEMS_ALLOWED ? "-" : mode_str(mode), mask);
	report(call, ret, extra);
}

/* migrate_pages by a caller with CAP_SYS_NICE (root: MOVE_ALL) or
 * without it (nonice: MOVE). */
static void migrate_as(unsigned long from, unsigned long to, bool nice)
{
	char call[256], f[64], t[64];

	mask_str(from, f, sizeof(f));
	mask_str(to, t, sizeof(t));
	snprintf(call, sizeof(call), "migrate_pages%s(%s,%s)", nice ? "" : "_nonice", f, t);
	report(call, sem_migrate_pages(from, to, nice), "");
}

static void migrate(unsigned long from, unsigned long to)
{
	migrate_as(from, to, true);
}

/* move_pages of @n pages to @nodes (NULL: query); prints the statuses. */
static void move(unsigned long n, const unsigned long *pages, const int *nodes, unsigned flags)
{
	char call[256], fl[64], extra[256] = "status=", num[24];
	int status[16];
	size_t len;
	long ret;

	mf_str(flags, fl, sizeof(fl));
	snprintf(call, sizeof(call), "move_pages(");
	for (unsigned long i = 0; i < n; i++) {
		len = strlen(call);
		if (nodes)
			snprintf(call + len, sizeof(call) - len, "%s%lu>%d", i ? "," : "", pages[i],
				 nodes[i]);
		else
			snprintf(call + len, sizeof(call) - len, "%s%lu", i ? "," : "", pages[i]);
	}
	len = strlen(call);
	snprintf(call + len, sizeof(call) - len, "%s,%s)", nodes ? "" : ",query", fl);
	for (unsigned long i = 0; i < n; i++)
		status[i] = 99;
	ret = sem_move_pages(n, pages, nodes, status, flags);
	for (unsigned long i = 0; i < n; i++) {
		len = strlen(extra);
		snprintf(extra + len, sizeof(extra) - len, "%s%s", i ? "," : "",
			 status[i] == 99 ? "unset" : val(status[i], num, sizeof(num)));
	}
	report(call, ret, n ? extra : "");
}

#define MOVE(flags, ...)                                                                           \
	do {                                                                                       \
		const unsigned long p_[] = { __VA_ARGS__ };                                        \
		move(ARRAY_SIZE(p_), p_, to_, flags);                                              \
	} while (0)

/* ---- the scenarios ------------------------------------------------------ */

#define ALL ((1u << SEM_4K) | (1u << SEM_64K) | (1u << SEM_THP))
#define K4 (1u << SEM_4K)

static void map_touch(void)
{
	touch(0, SEM_PAGES);
}

static void munmap_part(void)
{
	touch(0, SEM_PAGES);
	unmap(HALF - 8, 24); /* across the 2 MiB boundary and 64K folios */
}

static void mprotect_part(void)
{
	touch(0, SEM_PAGES);
	protect(8, 16, SEM_RO);
	protect(0, SEM_PAGES, SEM_NONE);
}

static void fork_cow(void)
{
	touch(0, SEM_PAGES);
	fork_child();
	child_touch(0, 16);
	touch(32, 16);
}

/* mbind on a populated region, policy read back at both halves. */
static void touched_mbind(int mode, unsigned long nodes, unsigned flags)
{
	touch(0, SEM_PAGES);
	mbind_(0, HALF, mode, nodes, flags);
	getpol(0, SEM_F_ADDR);
	getpol(HALF, SEM_F_ADDR);
}

static void mbind_default(void)
{
	touched_mbind(SEM_MPOL_DEFAULT, 0, 0);
}

static void mbind_default_mask(void)
{
	touched_mbind(SEM_MPOL_DEFAULT, NB(1), 0);
}

static void mbind_default_strict_move(void)
{
	touched_mbind(SEM_MPOL_DEFAULT, 0, SEM_MF_STRICT | SEM_MF_MOVE);
}

static void mbind_bind(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(1), 0);
}

static void mbind_bind_strict(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(1), SEM_MF_STRICT);
}

static void mbind_bind_move(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(1), SEM_MF_MOVE);
}

static void mbind_bind_move_strict(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(1), SEM_MF_MOVE | SEM_MF_STRICT);
}

static void mbind_bind_move_all(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(2), SEM_MF_MOVE_ALL);
}

static void mbind_bind_move_both(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(2), SEM_MF_MOVE | SEM_MF_MOVE_ALL);
}

static void mbind_bind_two_nodes(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(1) | NB(2), SEM_MF_MOVE);
}

static void mbind_bind_empty(void)
{
	touched_mbind(SEM_MPOL_BIND, 0, SEM_MF_MOVE);
}

static void mbind_bind_missing_node(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(BAD_NODE), SEM_MF_MOVE);
}

static void mbind_bind_some_missing(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(1) | NB(BAD_NODE), SEM_MF_MOVE);
}

/* A range that starts and ends inside large folios. */
static void mbind_part_of_folios(void)
{
	touch(0, SEM_PAGES);
	mbind_(8, 16, SEM_MPOL_BIND, NB(1), SEM_MF_MOVE);
	getpol(7, SEM_F_ADDR);
	getpol(8, SEM_F_ADDR);
}

static void mbind_preferred(void)
{
	touched_mbind(SEM_MPOL_PREFERRED, NB(2), SEM_MF_MOVE);
}

static void mbind_preferred_two(void)
{
	touched_mbind(SEM_MPOL_PREFERRED, NB(1) | NB(2), SEM_MF_MOVE);
}

static void mbind_preferred_empty(void)
{
	touched_mbind(SEM_MPOL_PREFERRED, 0, SEM_MF_MOVE);
}

static void mbind_interleave(void)
{
	touched_mbind(SEM_MPOL_INTERLEAVE, NB(1) | NB(2), SEM_MF_MOVE);
}

static void mbind_interleave_one(void)
{
	touched_mbind(SEM_MPOL_INTERLEAVE, NB(1), SEM_MF_MOVE);
}

static void mbind_local(void)
{
	touched_mbind(SEM_MPOL_LOCAL, 0, SEM_MF_MOVE);
}

static void mbind_local_mask(void)
{
	touched_mbind(SEM_MPOL_LOCAL, NB(1), SEM_MF_MOVE);
}

static void mbind_preferred_many(void)
{
	touched_mbind(SEM_MPOL_PREFERRED_MANY, NB(1) | NB(2), SEM_MF_MOVE);
}

static void mbind_bad_mode(void)
{
	touched_mbind(9, NB(1), 0);
}

static void mbind_bad_flags(void)
{
	touched_mbind(SEM_MPOL_BIND, NB(1), 1u << 3);
}

static void mbind_mode_flag(void)
{
	touched_mbind(SEM_MPOL_BIND | (1 << 15), NB(1), SEM_MF_MOVE); /* MPOL_F_STATIC_NODES */
}

static void mbind_zero_len(void)
{
	touch(0, SEM_PAGES);
	mbind_(0, 0, SEM_MPOL_BIND, NB(1), SEM_MF_MOVE);
}

/* The policy first, then the faults it places. */
static void policy_then_touch(int mode, unsigned long nodes)
{
	mbind_(0, SEM_PAGES, mode, nodes, 0);
	touch(0, SEM_PAGES);
}

static void bind_then_touch(void)
{
	policy_then_touch(SEM_MPOL_BIND, NB(2));
}

static void preferred_then_touch(void)
{
	policy_then_touch(SEM_MPOL_PREFERRED, NB(1));
}

static void interleave_then_touch(void)
{
	policy_then_touch(SEM_MPOL_INTERLEAVE, NB(1) | NB(2));
}

static void mbind_hole(int mode, unsigned flags)
{
	touch(0, SEM_PAGES);
	unmap(HALF, 16);
	mbind_(0, SEM_PAGES, mode, mode == SEM_MPOL_DEFAULT ? 0 : NB(1), flags);
	getpol(0, SEM_F_ADDR);
}

static void mbind_hole_bind(void)
{
	mbind_hole(SEM_MPOL_BIND, SEM_MF_MOVE);
}

static void mbind_hole_default(void)
{
	mbind_hole(SEM_MPOL_DEFAULT, SEM_MF_MOVE | SEM_MF_STRICT);
}

static void mbind_nothing(int mode, unsigned flags)
{
	unmap(0, SEM_PAGES);
	mbind_(0, 61, mode, mode == SEM_MPOL_DEFAULT ? 0 : NB(1), flags);
}

static void mbind_nothing_default(void)
{
	mbind_nothing(SEM_MPOL_DEFAULT, SEM_MF_STRICT | SEM_MF_MOVE);
}

static void mbind_nothing_bind(void)
{
	mbind_nothing(SEM_MPOL_BIND, 0);
}

/* After fork every folio is shared with the child. */
static void forked_mbind(unsigned flags)
{
	touch(0, SEM_PAGES);
	fork_child();
	child_touch(0, 16);
	mbind_(0, SEM_PAGES, SEM_MPOL_BIND, NB(1), flags);
}

static void mbind_fork_move(void)
{
	forked_mbind(SEM_MF_MOVE);
}

static void mbind_fork_move_strict(void)
{
	forked_mbind(SEM_MF_MOVE | SEM_MF_STRICT);
}

static void mbind_fork_move_all(void)
{
	forked_mbind(SEM_MF_MOVE_ALL);
}

static void mbind_then_mprotect(void)
{
	mbind_(0, HALF, SEM_MPOL_BIND, NB(1), 0);
	protect(0, HALF / 2, SEM_RO);
	getpol(0, SEM_F_ADDR);
	getpol(HALF / 2, SEM_F_ADDR);
	getpol(HALF, SEM_F_ADDR);
}

static void setpol_bind_touch(void)
{
	setpol(SEM_MPOL_BIND, NB(1));
	touch(0, SEM_PAGES);
	getpol(0, 0);
	getpol(0, SEM_F_ADDR);
}

static void setpol_interleave_touch(void)
{
	setpol(SEM_MPOL_INTERLEAVE, NB(1) | NB(2));
	touch(0, SEM_PAGES);
	getpol(0, 0);
}

static void setpol_default(void)
{
	setpol(SEM_MPOL_DEFAULT, 0);
	getpol(0, 0);
}

static void setpol_bad(void)
{
	setpol(9, NB(1));
	setpol(SEM_MPOL_BIND, 0);
	setpol(SEM_MPOL_DEFAULT, NB(1));
	getpol(0, 0);
}

static void getpol_plain(void)
{
	getpol(0, 0);
	getpol(0, SEM_F_ADDR);
}

static void getpol_node_addr(void)
{
	const int to_[] = { 2 };

	touch(0, 16);
	MOVE(SEM_MF_MOVE, 0);
	getpol(0, SEM_F_NODE | SEM_F_ADDR);
}

static void getpol_node_untouched(void)
{
	getpol(5, SEM_F_NODE | SEM_F_ADDR);
}

static void getpol_hole(void)
{
	unmap(0, 16);
	getpol(0, SEM_F_ADDR);
	getpol(0, SEM_F_NODE | SEM_F_ADDR);
}

static void getpol_mems_allowed(void)
{
	getpol(0, SEM_F_MEMS_ALLOWED);
	getpol(0, SEM_F_MEMS_ALLOWED | SEM_F_ADDR);
}

static void getpol_bad_flags(void)
{
	getpol(0, SEM_F_NODE);
	getpol(0, 1u << 4);
}

static void migrate_even(void)
{
	touch(0, SEM_PAGES);
	migrate(NB(0), NB(1));
}

/* Half 0 on node 1, half 1 on node 0, then @from -> @to. */
static void split_then_migrate(unsigned long from, unsigned long to)
{
	touch(0, SEM_PAGES);
	mbind_(0, HALF, SEM_MPOL_BIND, NB(1), SEM_MF_MOVE);
	migrate(from, to);
}

static void migrate_rotate(void)
{
	split_then_migrate(NB(0) | NB(1), NB(1) | NB(2));
}

static void migrate_uneven(void)
{
	split_then_migrate(NB(0) | NB(1), NB(2));
}

static void migrate_uneven_keep(void)
{
	split_then_migrate(NB(0), NB(0) | NB(2));
}

static void migrate_same(void)
{
	split_then_migrate(NB(0) | NB(1), NB(0) | NB(1));
}

static void migrate_bad_masks(void)
{
	touch(0, 16);
	migrate(0, NB(1));
	migrate(NB(0), 0);
	migrate(NB(0), NB(BAD_NODE));
	migrate(NB(BAD_NODE), NB(1));
}

static void migrate_fork(void)
{
	touch(0, SEM_PAGES);
	fork_child();
	child_touch(0, 16);
	migrate(NB(0), NB(1));
}

static void migrate_fork_nonice(void)
{
	touch(0, SEM_PAGES);
	fork_child();
	child_touch(0, 16);
	migrate_as(NB(0), NB(1), false);
}

static void migrate_nonice(void)
{
	touch(0, SEM_PAGES);
	migrate_as(NB(0), NB(2), false);
}

static void move_basic(void)
{
	const int to_[] = { 1, 2, 1 };

	touch(0, SEM_PAGES);
	MOVE(SEM_MF_MOVE, 0, 16, HALF);
}

static void move_same_folio(void)
{
	const int to_[] = { 1, 1, 2 };

	touch(0, SEM_PAGES);
	MOVE(SEM_MF_MOVE, 0, 1, 2);
}

static void move_missing_node(void)
{
	const int to_[] = { 1, BAD_NODE, 1 };

	touch(0, SEM_PAGES);
	MOVE(SEM_MF_MOVE, 0, 16, HALF);
}

static void move_negative_node(void)
{
	const int to_[] = { -1 };

	touch(0, SEM_PAGES);
	MOVE(SEM_MF_MOVE, 0);
}

static void move_hole(void)
{
	const int to_[] = { 1, 1, 1 };

	touch(0, SEM_PAGES);
	unmap(16, 16);
	MOVE(SEM_MF_MOVE, 0, 16, 32);
}

static void move_untouched(void)
{
	const int to_[] = { 1, 1 };

	touch(0, 16);
	MOVE(SEM_MF_MOVE, 0, HALF);
}

static void move_same_node(void)
{
	const int to_[] = { 0, 1 };

	touch(0, SEM_PAGES);
	MOVE(SEM_MF_MOVE, 0, HALF);
}

static void move_forked(unsigned flags)
{
	const int to_[] = { 1, 1, 1 };

	touch(0, SEM_PAGES);
	fork_child();
	child_touch(0, 16);
	MOVE(flags, 0, 16, HALF);
}

static void move_fork(void)
{
	move_forked(SEM_MF_MOVE);
}

static void move_fork_all(void)
{
	move_forked(SEM_MF_MOVE_ALL);
}

static void move_query(void)
{
	const int *to_ = NULL;

	touch(0, 16);
	unmap(32, 16);
	MOVE(0, 0, 20, 32, HALF);
}

static void move_bad_flags(void)
{
	const int to_[] = { 1 };

	touch(0, 16);
	MOVE(SEM_MF_STRICT, 0);
	move(0, NULL, to_, SEM_MF_MOVE);
}

/* The table. Kinds: which folios the scenario runs over. */
static const struct {
	const char *name;
	void (*run)(void);
	unsigned kinds;
} scenarios[] = {
#define S(name, kinds)                                                                             \
	{                                                                                          \
#name, name, kinds                                                                 \
	}
	S(map_touch, ALL),
	S(munmap_part, ALL),
	S(mprotect_part, ALL),
	S(fork_cow, ALL),
	S(mbind_default, ALL),
	S(mbind_default_mask, K4),
	S(mbind_default_strict_move, ALL),
	S(mbind_bind, ALL),
	S(mbind_bind_strict, ALL),
	S(mbind_bind_move, ALL),
	S(mbind_bind_move_strict, ALL),
	S(mbind_bind_move_all, ALL),
	S(mbind_bind_move_both, K4),
	S(mbind_bind_two_nodes, K4),
	S(mbind_bind_empty, K4),
	S(mbind_bind_missing_node, K4),
	S(mbind_bind_some_missing, K4),
	S(mbind_part_of_folios, ALL),
	S(mbind_preferred, ALL),
	S(mbind_preferred_two, K4),
	S(mbind_preferred_empty, K4),
	S(mbind_interleave, ALL),
	S(mbind_interleave_one, K4),
	S(mbind_local, ALL),
	S(mbind_local_mask, K4),
	S(mbind_preferred_many, ALL),
	S(mbind_bad_mode, K4),
	S(mbind_bad_flags, K4),
	S(mbind_mode_flag, K4),
	S(mbind_zero_len, K4),
	S(bind_then_touch, ALL),
	S(preferred_then_touch, ALL),
	S(interleave_then_touch, ALL),
	S(mbind_hole_bind, ALL),
	S(mbind_hole_default, ALL),
	S(mbind_nothing_default, K4),
	S(mbind_nothing_bind, K4),
	S(mbind_fork_move, ALL),
	S(mbind_fork_move_strict, ALL),
	S(mbind_fork_move_all, ALL),
	S(mbind_then_mprotect, K4),
	S(setpol_bind_touch, K4),
	S(setpol_interleave_touch, K4),
	S(setpol_default, K4),
	S(setpol_bad, K4),
	S(getpol_plain, K4),
	S(getpol_node_addr, ALL),
	S(getpol_node_untouched, K4),
	S(getpol_hole, K4),
	S(getpol_mems_allowed, K4),
	S(getpol_bad_flags, K4),
	S(migrate_even, ALL),
	S(migrate_rotate, ALL),
	S(migrate_uneven, ALL),
	S(migrate_uneven_keep, ALL),
	S(migrate_same, K4),
	S(migrate_bad_masks, K4),
	S(migrate_fork, ALL),
	S(migrate_fork_nonice, ALL),
	S(migrate_nonice, K4),
	S(move_basic, ALL),
	S(move_same_folio, ALL),
	S(move_missing_node, ALL),
	S(move_negative_node, K4),
	S(move_hole, ALL),
	S(move_untouched, ALL),
	S(move_same_node, ALL),
	S(move_fork, ALL),
	S(move_fork_all, ALL),
	S(move_query, ALL),
	S(move_bad_flags, K4),
#undef S
};

int sem_run_all(void)
{
	static const char *const kinds[SEM_KINDS] = { "4K", "64K", "THP" };
	char call[32];

	lines = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(scenarios); i++)
		for (int k = 0; k < SEM_KINDS; k++) {
			long ret;

			if (!(scenarios[i].kinds & (1u << k)))
				continue;
			scenario = scenarios[i].name;
			kind_name = kinds[k];
			ret = sem_begin((enum sem_kind)k);
			snprintf(call, sizeof(call), "map(%lu)", SEM_PAGES);
			report(call, ret, "");
			if (ret >= 0)
				scenarios[i].run();
			sem_end();
		}
	return lines;
}
