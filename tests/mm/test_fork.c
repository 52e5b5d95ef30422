/*
 * test_fork.c - fork and copy-on-write, in the spirit of the anonymous
 * memory cases of Linux's tools/testing/selftests/mm/cow.c.
 *
 * Every case runs on every folio size (4K to 2M, PTE-mapped, and 2M
 * PMD-mapped) and, for large folios, on each way cow.c prepares one:
 *   whole      the folios as the fault made them;
 *   split      (2M-pmd only) PTE-mapped by an mprotect RO/RW of one page;
 *   single     a single PTE of a large folio left (the rest unmapped);
 *   partial    the upper half of the folio unmapped;
 *   shared     partially shared: all but the first page made VM_DONTCOPY
 *              (MADV_DONTFORK), a fork whose child exits at once, the flag
 *              cleared again, so one page lost AnonExclusive and the rest
 *              did not.
 * The invariant checker runs after every step, memory contents are
 * compared byte for byte on every side, and after each sub-case every
 * page is free again. A failing check names its sub-case ("in 64K single").
 *
 * The host runner sweeps every preparation on every size. The guest runs
 * every size whole, and the other preparations on 16K and 2M-pmd only:
 * there each checker call walks the memmap of all its RAM under QEMU TCG
 * (about 10 ms), and the full sweep took a minute per arch.
 */
#include "gup.h"
#include "mm_cases.h"

/* A folio size: order, PMD-mapped. */
struct fsize {
	const char *label;
	unsigned order;
	bool pmd;
};

static const struct fsize fsizes[] = {
	{ "4K", 0, false },	{ "16K", 2, false },   { "32K", 3, false },  { "64K", 4, false },
	{ "128K", 5, false },	{ "256K", 6, false },  { "512K", 7, false }, { "1M", 8, false },
	{ "2M-pte", 9, false }, { "2M-pmd", 9, true },
};
#define NR_FSIZES (int)(sizeof(fsizes) / sizeof(fsizes[0]))

enum prep { PREP_WHOLE, PREP_SPLIT, PREP_SINGLE, PREP_PARTIAL, PREP_SHARED, NR_PREPS };
static const char *const prep_label[] = { "whole", "split", "single", "partial", "shared" };

static char where[48]; /* the sub-case, for failure messages */

#define SUB_CHECK_EQ(a, b)                                                                         \
	do {                                                                                       \
		unsigned long long x_ = (unsigned long long)(a), y_ = (unsigned long long)(b);     \
		if (x_ != y_)                                                                      \
			printf("    in %s: %s\n", where, #a);                                      \
		CHECK_EQ(x_, y_);                                                                  \
	} while (0)
#define SUB_CHECK(cond) SUB_CHECK_EQ(!!(cond), 1)
#define SUB_CHECK_MM_OK() SUB_CHECK_EQ(mm_check(NULL), 0)

/* The byte at user address @va after fill(seed): differs from page to
 * page, so a page mapped at the wrong place shows. */
static unsigned char pattern(unsigned long va, unsigned seed)
{
	return (unsigned char)(va * 31 + (va >> PAGE_SHIFT) * 101 + seed);
}

static unsigned char buf[64 << 10];

static int fill(struct mm *mm, unsigned long a, unsigned long len, unsigned seed)
{
	for (unsigned long off = 0; off < len; off += sizeof(buf)) {
		unsigned long n = len - off < sizeof(buf) ? len - off : sizeof(buf);
		int err;

		for (unsigned long i = 0; i < n; i++)
			buf[i] = pattern(a + off + i, seed);
		err = mm_access(mm, a + off, buf, n, true);
		if (err)
			return err;
	}
	return 0;
}

/* How many bytes of [a, a+len) differ from fill(seed) (all when the
 * memory cannot be read). */
static unsigned long mismatches(struct mm *mm, unsigned long a, unsigned long len, unsigned seed)
{
	unsigned long bad = 0;

	for (unsigned long off = 0; off < len; off += sizeof(buf)) {
		unsigned long n = len - off < sizeof(buf) ? len - off : sizeof(buf);

		if (mm_access(mm, a + off, buf, n, false))
			return len;
		for (unsigned long i = 0; i < n; i++)
			bad += buf[i] != pattern(a + off + i, seed);
	}
	return bad;
}

/* The same through the kernel's view of pinned @pages (one per page). */
static unsigned long pinned_mismatches(struct page **pages, unsigned long a, unsigned long len,
				       unsigned seed)
{
	unsigned long bad = 0;

	for (unsigned long off = 0; off < len; off++)
		bad += ((unsigned char *)page_address(pages[off >> PAGE_SHIFT]))[off & 4095] !=
		       pattern(a + off, seed);
	return bad;
}

#define SEED0 1 /* what the parent holds at fork */

/* Is the folio at @a of @order and mapped the way @fs says? */
static bool folio_as_expected(struct mm *mm, unsigned long a, const struct fsize *fs)
{
	bool by_pmd;
	pte_t pte;
	struct page *p = page_at(mm, a, &by_pmd, &pte);

	return p && folio_order(page_folio(p)) == fs->order && by_pmd == fs->pmd;
}

/*
 * prepare - map folios of @fs in a new mm, write them and shape them as
 * @prep says. Return: the mm (NULL if @prep does not apply to @fs), with
 * the bytes under test at *@a, *@len.
 */
static struct mm *prepare(const struct fsize *fs, enum prep prep, unsigned long *a,
			  unsigned long *len)
{
	unsigned long size = PAGE_SIZE << fs->order;
	struct mm *mm, *child;

	if ((prep != PREP_WHOLE && fs->order == 0) || (prep == PREP_SPLIT && !fs->pmd))
		return NULL;
	mm = mm_create();
	*len = fs->order == PMD_ORDER ? size : 2 * size;
	*a = test_mmap(mm, *len, RW | (fs->pmd ? 0 : VM_NOHUGEPMD), ORDERS(fs->order));
	SUB_CHECK_EQ(fill(mm, *a, *len, SEED0), 0);
	SUB_CHECK(folio_as_expected(mm, *a, fs));
	switch (prep) {
	case PREP_SPLIT:
		SUB_CHECK_EQ(mm_mprotect(mm, *a + PAGE_SIZE, PAGE_SIZE, VM_READ), 0);
		SUB_CHECK_EQ(mm_mprotect(mm, *a + PAGE_SIZE, PAGE_SIZE, RW), 0);
		SUB_CHECK(!folio_as_expected(mm, *a, fs));
		break;
	case PREP_SINGLE:
		SUB_CHECK_EQ(mm_munmap(mm, *a + PAGE_SIZE, *len - PAGE_SIZE), 0);
		*len = PAGE_SIZE;
		break;
	case PREP_PARTIAL:
		SUB_CHECK_EQ(mm_munmap(mm, *a + size / 2, *len - size / 2), 0);
		*len = size / 2;
		break;
	case PREP_SHARED:
		SUB_CHECK_EQ(mm_madvise_flags(mm, *a + PAGE_SIZE, *len - PAGE_SIZE, VM_DONTCOPY, 0),
			     0);
		child = mm_fork(mm, NULL);
		SUB_CHECK(child != NULL);
		if (child)
			mm_put(child);
		SUB_CHECK_EQ(mm_madvise_flags(mm, *a + PAGE_SIZE, *len - PAGE_SIZE, 0, VM_DONTCOPY),
			     0);
		SUB_CHECK(!PageAnonExclusive(page_at(mm, *a, &(bool){ 0 }, &(pte_t){ 0 })));
		break;
	default:
		break;
	}
	SUB_CHECK_MM_OK();
	return mm;
}

/* Does this runner sweep preparation @prep on size @fs? */
static bool in_sweep(const struct fsize *fs, enum prep prep)
{
#ifdef HOST_PTE_FORMAT
	(void)fs, (void)prep;
	return true;
#else
	return prep == PREP_WHOLE || fs->order == 2 || fs->pmd;
#endif
}

/* A case: gets the parent (which it must put) and the bytes under test. */
typedef void (*fork_case_fn)(struct mm *p, unsigned long a, unsigned long len);

/* Run @fn on every folio size and preparation; check for leaks after each. */
static void run_everywhere(fork_case_fn fn)
{
	for (int s = 0; s < NR_FSIZES; s++) {
		for (int prep = 0; prep < NR_PREPS; prep++) {
			struct mm_snapshot snap;
			unsigned long a, len;
			struct mm *p;

			if (!in_sweep(&fsizes[s], prep))
				continue;
			caps_set_all(true);
			mm_snapshot_take(&snap);
			snprintf(where, sizeof(where), "%s %s", fsizes[s].label, prep_label[prep]);
			p = prepare(&fsizes[s], prep, &a, &len);
			if (!p)
				continue;
			fn(p, a, len);
			SUB_CHECK_MM_OK(); /* which includes page_alloc_check() */
			SUB_CHECK_EQ(total_free_pages(), snap.total_free);
			SUB_CHECK_EQ(mm_snapshot_diff(&snap), 0);
		}
	}
}

/* Fork, checked. */
static struct mm *fork_ok(struct mm *p)
{
	struct mm *c = mm_fork(p, NULL);

	SUB_CHECK(c != NULL);
	SUB_CHECK_MM_OK();
	return c;
}

/* Optionally mprotect RO then RW (cow.c: "mprotect() optimizations might
 * try avoiding write faults by mapping pages writable directly"). */
static void mprotect_ro_rw(struct mm *mm, unsigned long a, unsigned long len)
{
	SUB_CHECK_EQ(mm_mprotect(mm, a, len, VM_READ), 0);
	SUB_CHECK_EQ(mm_mprotect(mm, a, len, RW), 0);
	SUB_CHECK_MM_OK();
}

/* Fork; @writer (parent or child) writes, after an mprotect RO/RW if
 * @mprot; the other side must still read what was there at fork. */
static void cow_one_side(struct mm *p, unsigned long a, unsigned long len, bool child_writes,
			 bool mprot)
{
	struct mm *c = fork_ok(p);
	struct mm *writer = child_writes ? c : p, *reader = child_writes ? p : c;

	if (!c) {
		mm_put(p);
		return;
	}
	if (mprot)
		mprotect_ro_rw(writer, a, len);
	SUB_CHECK_EQ(fill(writer, a, len, 0xff), 0);
	SUB_CHECK_MM_OK();
	SUB_CHECK_EQ(mismatches(reader, a, len, SEED0), 0);
	SUB_CHECK_EQ(mismatches(writer, a, len, 0xff), 0);
	mm_put(c);
	SUB_CHECK_MM_OK();
	SUB_CHECK_EQ(mismatches(p, a, len, child_writes ? SEED0 : 0xff), 0);
	mm_put(p);
}

static void cow_parent(struct mm *p, unsigned long a, unsigned long len)
{
	cow_one_side(p, a, len, false, false);
}
static void cow_parent_mprotect(struct mm *p, unsigned long a, unsigned long len)
{
	cow_one_side(p, a, len, false, true);
}
static void cow_child(struct mm *p, unsigned long a, unsigned long len)
{
	cow_one_side(p, a, len, true, false);
}
static void cow_child_mprotect(struct mm *p, unsigned long a, unsigned long len)
{
	cow_one_side(p, a, len, true, true);
}

/* No leak from parent into child after fork and a write. */
TEST(basic_cow_parent_writes)
{
	run_everywhere(cow_parent);
}

/* The same with mprotect RO then RW in the parent before the write. */
TEST(basic_cow_parent_writes_after_mprotect)
{
	run_everywhere(cow_parent_mprotect);
}

/* No leak from child into parent after fork and a write. */
TEST(basic_cow_child_writes)
{
	run_everywhere(cow_child);
}

/* The same with mprotect RO then RW in the child before the write. */
TEST(basic_cow_child_writes_after_mprotect)
{
	run_everywhere(cow_child_mprotect);
}

/*
 * Writes from both sides in both orders, each side then reads its own
 * data; the first fork's pair is torn down parent first, the second's
 * child first.
 */
static void both_sides(struct mm *p, unsigned long a, unsigned long len)
{
	for (int order = 0; order < 2; order++) {
		struct mm *c = fork_ok(p), *first = order ? c : p, *second = order ? p : c;

		if (!c)
			break;
		SUB_CHECK_EQ(fill(first, a, len, 10 + order), 0);
		SUB_CHECK_MM_OK();
		SUB_CHECK_EQ(fill(second, a, len, 20 + order), 0);
		SUB_CHECK_MM_OK();
		SUB_CHECK_EQ(mismatches(first, a, len, 10 + order), 0);
		SUB_CHECK_EQ(mismatches(second, a, len, 20 + order), 0);
		if (order == 0) { /* parent goes first, the child carries on */
			mm_put(p);
			SUB_CHECK_MM_OK();
			SUB_CHECK_EQ(mismatches(c, a, len, 20), 0);
			p = c;
		} else {
			mm_put(c);
			SUB_CHECK_MM_OK();
			SUB_CHECK_EQ(mismatches(p, a, len, 20 + order), 0);
		}
	}
	mm_put(p);
}

TEST(writes_from_both_sides_in_every_order)
{
	run_everywhere(both_sides);
}

/* fork of a fork: three views of one folio, each separated on write; the
 * middle one exits first. */
static void three_generations(struct mm *p, unsigned long a, unsigned long len)
{
	struct mm *c = fork_ok(p), *g = c ? fork_ok(c) : NULL;

	if (!g) {
		if (c)
			mm_put(c);
		mm_put(p);
		return;
	}
	SUB_CHECK_EQ(fill(g, a, len, 9), 0);
	SUB_CHECK_MM_OK();
	SUB_CHECK_EQ(fill(c, a, len / 2, 8), 0);
	SUB_CHECK_MM_OK();
	SUB_CHECK_EQ(mismatches(p, a, len, SEED0), 0);
	SUB_CHECK_EQ(mismatches(g, a, len, 9), 0);
	SUB_CHECK_EQ(mismatches(c, a, len / 2, 8), 0);
	SUB_CHECK_EQ(mismatches(c, a + len / 2, len - len / 2, SEED0), 0);
	mm_put(c);
	SUB_CHECK_MM_OK();
	SUB_CHECK_EQ(mismatches(g, a, len, 9), 0);
	SUB_CHECK_EQ(fill(p, a, len, 7), 0);
	SUB_CHECK_EQ(mismatches(g, a, len, 9), 0);
	mm_put(p);
	SUB_CHECK_MM_OK();
	SUB_CHECK_EQ(mismatches(g, a, len, 9), 0);
	mm_put(g);
}

TEST(fork_of_fork)
{
	run_everywhere(three_generations);
}

#define MAX_PIN_PAGES (2 * PTRS_PER_TABLE)
static struct page *pinned[MAX_PIN_PAGES];

/*
 * A R/W longterm pin before fork (cow.c's "fork() with an iouring fixed
 * buffer"): the pinned pages are not shared with the child, so the
 * parent's writes through its page tables reach the pinned pages, and the
 * child keeps what was there.
 */
static void pin_before_fork(struct mm *p, unsigned long a, unsigned long len)
{
	unsigned long n = len >> PAGE_SHIFT;
	long got = pin_user_pages(p, a, n, FOLL_WRITE | FOLL_LONGTERM, pinned);
	struct mm *c;

	SUB_CHECK_EQ(got, n);
	SUB_CHECK_MM_OK();
	c = fork_ok(p);
	for (unsigned long i = 0; c && i < n; i++) {
		bool by_pmd;
		pte_t pte;

		SUB_CHECK(page_at(c, a + i * PAGE_SIZE, &by_pmd, &pte) != pinned[i]);
		SUB_CHECK(page_at(p, a + i * PAGE_SIZE, &by_pmd, &pte) == pinned[i]);
	}
	SUB_CHECK_EQ(fill(p, a, len, 0x77), 0);
	SUB_CHECK_MM_OK();
	SUB_CHECK_EQ(pinned_mismatches(pinned, a, len, 0x77), 0);
	if (c) {
		SUB_CHECK_EQ(mismatches(c, a, len, SEED0), 0);
		mm_put(c);
	}
	unpin_user_pages_dirty_lock(pinned, got > 0 ? (unsigned long)got : 0, true);
	mm_put(p);
}

TEST(pinned_pages_are_copied_at_fork)
{
	run_everywhere(pin_before_fork);
}

/*
 * A R/O longterm pin on pages shared with a child (cow.c's "R/O GUP pin on
 * R/O-mapped shared page"), and on pages that were shared until the child
 * exited ("previously shared"): the pin unshares, so a later write by the
 * parent is seen through the pin, and the child keeps its data.
 */
static void ro_pin_on_shared(struct mm *p, unsigned long a, unsigned long len, bool child_exits)
{
	unsigned long n = len >> PAGE_SHIFT;
	struct mm *c = fork_ok(p);
	long got;

	if (c && child_exits) {
		mm_put(c);
		c = NULL;
	}
	got = pin_user_pages(p, a, n, FOLL_LONGTERM, pinned);
	SUB_CHECK_EQ(got, n);
	SUB_CHECK_MM_OK();
	SUB_CHECK_EQ(fill(p, a, len, 0x55), 0);
	SUB_CHECK_MM_OK();
	SUB_CHECK_EQ(pinned_mismatches(pinned, a, len, 0x55), 0);
	if (c) {
		SUB_CHECK_EQ(mismatches(c, a, len, SEED0), 0);
		mm_put(c);
	}
	unpin_user_pages(pinned, got > 0 ? (unsigned long)got : 0);
	mm_put(p);
}

static void ro_pin_shared(struct mm *p, unsigned long a, unsigned long len)
{
	ro_pin_on_shared(p, a, len, false);
}
static void ro_pin_previously_shared(struct mm *p, unsigned long a, unsigned long len)
{
	ro_pin_on_shared(p, a, len, true);
}

TEST(ro_pin_on_shared_page)
{
	run_everywhere(ro_pin_shared);
}

TEST(ro_pin_on_previously_shared_page)
{
	run_everywhere(ro_pin_previously_shared);
}

TEST_SUITE(fork, basic_cow_parent_writes, basic_cow_parent_writes_after_mprotect,
	   basic_cow_child_writes, basic_cow_child_writes_after_mprotect,
	   writes_from_both_sides_in_every_order, fork_of_fork, pinned_pages_are_copied_at_fork,
	   ro_pin_on_shared_page, ro_pin_on_previously_shared_page)
