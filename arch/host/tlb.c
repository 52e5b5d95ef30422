/*
 * tlb.c (host) - a strict TLB for the simulated MMU. Every translation the
 * MMU walks is cached and serves later accesses until a flush covers it,
 * so a missing or too narrow flush shows up as a stale translation; the
 * tables are compared with what is cached at every flush, switch and
 * access, so a break-before-make violation shows up too.
 *
 * Where hardware may differ, the model takes the choice that makes a bug
 * visible:
 *  - An arm64 contiguous entry (PTE_CONT) is cached once for the whole
 *    block (a walk of one page fills all 16) but dropped page by page: an
 *    implementation may hold the block as one entry or as one per page,
 *    so only a flush of every page is sure to remove it. A later walk
 *    does not replace the pages still cached. A PMD leaf is one entry.
 *  - Entries that fault on the walk for want of a valid descriptor or
 *    the access flag are not cached (the architectures forbid it); an
 *    arm64 entry that only denies a write is cached and keeps faulting
 *    until flushed: arm64 does not re-walk on a permission fault, and
 *    Linux relies on whoever relaxed the entry to have flushed it (its
 *    flush_tlb_fix_spurious_fault() does nothing). x86 drops the entry
 *    that faulted, and re-walks to set a missing accessed or dirty bit.
 *  - Changes the hardware tolerates without a flush are not reported:
 *    permissions relaxed (arm64 faults once more and the fault handler
 *    must flush; x86 re-walks), young cleared, an entry cleared (until
 *    an access uses the stale copy).
 *
 * Reported (a failed check of the running case): an access served by a
 * cached entry that allows it while the table no longer maps the page
 * there or no longer allows the access; a fault that cannot make
 * progress; a valid entry replaced by a valid one of another size or
 * kind (block, table, page: x86's rule and arm64's), or on the arm64
 * format by one with another output address or contiguous bit, with no
 * invalid entry and flush between (break-before-make); two cached
 * entries that overlap with different sizes or addresses (a TLB
 * conflict). One CPU, no ASIDs: switch_mm flushes everything, as the
 * guest's arch_switch_mm does.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "mm.h"

#include <host_tlb.h>

extern uint64_t host_mmu_root; /* mmu.c */

#define CONT_SIZE (16 * PAGE_SIZE) /* an arm64 contiguous block */
#define TLB_SETS 256
#define TLB_WAYS 4
#define PMD_ENTRIES 16

struct tlb_entry {
	unsigned long va; /* the page (TLB_PMD: the 2 MiB block) */
	uint64_t pa;	  /* its physical address */
	pte_t leaf;	  /* the descriptor as walked (young/dirty updated) */
	enum host_tlb_kind kind;
	bool used;
};

static struct tlb_entry page_tlb[TLB_SETS][TLB_WAYS];
static unsigned page_victim[TLB_SETS];
static struct tlb_entry pmd_tlb[PMD_ENTRIES];
static unsigned pmd_victim;

unsigned long host_tlb_reports, host_tlb_hits, host_tlb_fills;
bool host_tlb_model = true;
void (*host_tlb_reporter)(const char *msg);
static char *capture_buf;
static size_t capture_size;

/* The arm64 rules (break-before-make for output address and contiguous
 * bit changes, no re-walk on a permission fault) apply to its format only. */
static bool arm64_rules(void)
{
	return strcmp(HOST_PTE_FORMAT, "arm64") == 0;
}

void host_tlb_capture(char *buf, size_t size)
{
	capture_buf = buf;
	capture_size = size;
}

static const char *kind_name(enum host_tlb_kind k)
{
	return k == TLB_PMD ? "2M block" : k == TLB_CONT ? "contiguous page" : "page";
}

/* Report @what about @e at @va (table entry @w) during @op. */
static void tlb_report(const char *what, const struct tlb_entry *e, unsigned long va,
		       const struct host_walk *w, const char *op)
{
	char msg[400];

	snprintf(msg, sizeof(msg), "%s at %#lx: cached %s %#llx, table %s %#llx, during %s", what,
		 va, kind_name(e->kind), (unsigned long long)e->leaf.val,
		 pte_none(w->leaf) ? "none" : kind_name(w->kind), (unsigned long long)w->leaf.val,
		 op);
	host_tlb_reports++;
	if (capture_buf) {
		if (!capture_buf[0])
			snprintf(capture_buf, capture_size, "%s", msg);
		return;
	}
	if (!host_tlb_reporter)
		panic("strict TLB model: no reporter for: %s", msg);
	host_tlb_reporter(msg);
}

/* ---- the walk -------------------------------------------------------------- */

void host_mmu_walk(unsigned long va, struct host_walk *w)
{
	pgd_t *pgdp;
	pud_t *pudp;
	pmd_t *pmdp;
	pte_t *ptep;

	*w = (struct host_walk){ .kind = TLB_PAGE };
	if (!host_mmu_root || va >= MM_USER_END)
		return;
	pgdp = pgd_offset_pgd(phys_to_virt(host_mmu_root), va);
	if (!pgd_present(*pgdp))
		return;
	pudp = pud_offset(pgdp, va);
	if (!pud_present(*pudp) || pud_leaf(*pudp))
		return;
	pmdp = pmd_offset(pudp, va);
	if (!pmd_present(*pmdp))
		return;
	if (pmd_leaf(*pmdp)) {
		w->leaf = pmd_pte(*pmdp);
		w->slot = &pmdp->val;
		w->kind = TLB_PMD;
		w->pa = (pmd_pfn(*pmdp) << PAGE_SHIFT) + (va & ~PMD_MASK & ~(PAGE_SIZE - 1));
		return;
	}
	w->pmd_table = true;
	ptep = pte_offset_kernel(pmdp, va);
	w->leaf = __ptep_get(ptep);
	w->slot = &ptep->val;
	w->kind = pte_cont(w->leaf) ? TLB_CONT : TLB_PAGE;
	w->pa = pte_pfn(w->leaf) << PAGE_SHIFT;
}

/* May the MMU use @leaf for a @write (or read), ignoring young/dirty? */
static bool leaf_allows(pte_t leaf, bool write)
{
	return pte_user(leaf) && (!write || pte_user_writable(leaf));
}

/* ---- the cache ------------------------------------------------------------- */

static struct tlb_entry *page_entry(unsigned long va)
{
	struct tlb_entry *set = page_tlb[(va >> PAGE_SHIFT) % TLB_SETS];

	va &= ~(PAGE_SIZE - 1);
	for (int i = 0; i < TLB_WAYS; i++)
		if (set[i].used && set[i].va == va)
			return &set[i];
	return NULL;
}

static struct tlb_entry *pmd_entry(unsigned long va)
{
	for (int i = 0; i < PMD_ENTRIES; i++)
		if (pmd_tlb[i].used && pmd_tlb[i].va == (va & PMD_MASK))
			return &pmd_tlb[i];
	return NULL;
}

/* The entry serving @va, and its physical address for @va's page. */
static struct tlb_entry *tlb_find(unsigned long va, uint64_t *pa)
{
	struct tlb_entry *e = pmd_entry(va);

	if (e) {
		*pa = e->pa + (va & ~PMD_MASK & ~(PAGE_SIZE - 1));
		return e;
	}
	e = page_entry(va);
	if (e)
		*pa = e->pa;
	return e;
}

/* A free way for @va's page: an evicted one when the set is full
 * (evicting is always allowed). */
static struct tlb_entry *page_alloc_entry(unsigned long va)
{
	unsigned set = (unsigned)((va >> PAGE_SHIFT) % TLB_SETS);

	for (int i = 0; i < TLB_WAYS; i++)
		if (!page_tlb[set][i].used)
			return &page_tlb[set][i];
	page_victim[set] = (page_victim[set] + 1) % TLB_WAYS;
	return &page_tlb[set][page_victim[set]];
}

static void tlb_insert(struct tlb_entry *slot, unsigned long va, uint64_t pa, pte_t leaf,
		       enum host_tlb_kind kind)
{
	*slot = (struct tlb_entry){ va, pa, leaf, kind, true };
	host_tlb_fills++;
}

/* ---- break-before-make ----------------------------------------------------- */

/* Is the table's entry @w a valid replacement of cached @e (which maps
 * the page of the walk at @pa) that needed break-before-make?
 * Return: the rule broken, or NULL. */
static const char *bbm_problem(const struct tlb_entry *e, uint64_t pa, const struct host_walk *w)
{
	if (e->kind == TLB_PMD && w->pmd_table)
		return "2M block replaced by a table without break-before-make";
	if (!pte_user(w->leaf))
		return NULL; /* broken; the flush is still to come */
	if ((e->kind == TLB_PMD) != (w->kind == TLB_PMD))
		return "page size changed without break-before-make";
	if (!arm64_rules())
		return NULL;
	if (e->kind != w->kind)
		return "contiguous bit changed without break-before-make";
	if (pa != w->pa)
		return "output address changed without break-before-make";
	return NULL;
}

/* Compare cached @e with the tables; report and drop it if broken. */
static void check_entry(struct tlb_entry *e, const char *op)
{
	struct host_walk w;
	const char *why;

	host_mmu_walk(e->va, &w);
	why = bbm_problem(e, e->pa, &w);
	if (why) {
		tlb_report(why, e, e->va, &w, op);
		e->used = false;
	}
}

static void check_all(const char *op)
{
	for (int s = 0; s < TLB_SETS; s++)
		for (int i = 0; i < TLB_WAYS; i++)
			if (page_tlb[s][i].used)
				check_entry(&page_tlb[s][i], op);
	for (int i = 0; i < PMD_ENTRIES; i++)
		if (pmd_tlb[i].used)
			check_entry(&pmd_tlb[i], op);
}

void host_tlb_flush(unsigned long start, unsigned long end)
{
	char op[64];

	if (!host_tlb_model)
		return;
	snprintf(op, sizeof(op), "flush [%#lx, %#lx)", start, end);
	check_all(op);
	for (int s = 0; s < TLB_SETS; s++)
		for (int i = 0; i < TLB_WAYS; i++)
			if (page_tlb[s][i].va + PAGE_SIZE > start && page_tlb[s][i].va < end)
				page_tlb[s][i].used = false;
	for (int i = 0; i < PMD_ENTRIES; i++)
		if (pmd_tlb[i].va + PMD_SIZE > start && pmd_tlb[i].va < end)
			pmd_tlb[i].used = false;
}

void host_tlb_flush_all(void)
{
	if (!host_tlb_model)
		return;
	check_all("switch_mm");
	memset(page_tlb, 0, sizeof(page_tlb));
	memset(pmd_tlb, 0, sizeof(pmd_tlb));
}

/* ---- accesses -------------------------------------------------------------- */

/*
 * Does the access (described by @op) through cached @e, whose page is
 * at @pa, meet a table entry @w that the hardware would not reconcile
 * by itself? Report it. Return: true when @e may serve the access.
 */
static bool access_consistent(struct tlb_entry *e, uint64_t pa, const struct host_walk *w,
			      unsigned long va, bool write, const char *op)
{
	const char *why = NULL;

	if (!pte_user(w->leaf))
		why = "stale entry used: table entry not valid (missing flush)";
	else if (pa != w->pa)
		why = "stale entry used: table maps another page (missing flush)";
	else if (!leaf_allows(w->leaf, write)) /* user, so only a write is denied */
		why = "stale entry allows a write: table entry read-only (missing flush)";
	else if (arch_has_hw_ad() && write && !pte_dirty(w->leaf))
		why = "stale dirty entry used for a write: table entry clean (missing flush)";
	if (why)
		tlb_report(why, e, va, w, op);
	return !why;
}

int host_tlb_translate(unsigned long va, bool write, uint64_t *pa)
{
	struct host_walk w;
	struct tlb_entry *e = tlb_find(va, pa);
	char op[48];
	const char *why;

	if (!host_tlb_model || !e)
		return 0;
	snprintf(op, sizeof(op), "%s of %#lx", write ? "write" : "read", va);
	host_mmu_walk(va, &w);
	why = bbm_problem(e, *pa, &w);
	if (why) {
		tlb_report(why, e, va, &w, op);
		goto drop;
	}
	if (!leaf_allows(e->leaf, write)) {
		if (arm64_rules())
			return -1; /* the entry stays until a flush */
		goto drop;	   /* x86 drops the entry that faulted */
	}
	if (arch_has_hw_ad() && (!pte_young(e->leaf) || (write && !pte_dirty(e->leaf))))
		goto drop; /* x86 walks again to set accessed or dirty */
	if (!access_consistent(e, *pa, &w, va, write, op))
		goto drop;
	host_tlb_hits++;
	*pa |= va & (PAGE_SIZE - 1);
	return 1;
drop:
	e->used = false;
	return 0;
}

/* A new entry for @va overlaps cached @old in size or address. */
static void report_conflict(const struct tlb_entry *old, unsigned long va,
			    const struct host_walk *w)
{
	tlb_report("TLB conflict: two cached entries overlap", old, va, w, "a walk");
}

static void fill_pmd(unsigned long va, const struct host_walk *w)
{
	unsigned long base = va & PMD_MASK;
	struct tlb_entry *e = pmd_entry(va);

	for (int s = 0; s < TLB_SETS; s++)
		for (int i = 0; i < TLB_WAYS; i++)
			if (page_tlb[s][i].used && (page_tlb[s][i].va & PMD_MASK) == base) {
				report_conflict(&page_tlb[s][i], va, w);
				page_tlb[s][i].used = false;
			}
	if (!e) {
		pmd_victim = (pmd_victim + 1) % PMD_ENTRIES;
		e = &pmd_tlb[pmd_victim];
	}
	tlb_insert(e, base, w->pa & PMD_MASK, w->leaf, TLB_PMD);
}

/* Cache the page @va (kind @kind, at @pa) unless it is cached already
 * the same way; another size or address there is a conflict. */
static void fill_page(unsigned long va, uint64_t pa, const struct host_walk *w,
		      enum host_tlb_kind kind, bool keep_same)
{
	struct tlb_entry *e = page_entry(va);

	if (e && (e->kind != kind || e->pa != pa))
		report_conflict(e, va, w);
	else if (e && keep_same)
		return;
	tlb_insert(e ? e : page_alloc_entry(va), va, pa, w->leaf, kind);
}

void host_tlb_fill(unsigned long va, const struct host_walk *w, bool ok)
{
	struct tlb_entry *pmd = pmd_entry(va);
	unsigned long block = va & ~(CONT_SIZE - 1);

	if (!host_tlb_model)
		return;
	if (!pte_user(w->leaf) || !pte_young(w->leaf) || (!ok && !arm64_rules()))
		return;
	va &= ~(PAGE_SIZE - 1);
	if (w->kind == TLB_PMD) {
		fill_pmd(va, w);
		return;
	}
	if (pmd) {
		report_conflict(pmd, va, w);
		pmd->used = false;
	}
	if (w->kind == TLB_CONT) {
		for (unsigned long a = block; a < block + CONT_SIZE; a += PAGE_SIZE)
			fill_page(a, w->pa - (va - a), w, TLB_CONT, a != va);
		return;
	}
	for (unsigned long a = block; a < block + CONT_SIZE; a += PAGE_SIZE) {
		struct tlb_entry *e = page_entry(a);

		if (e && e->kind == TLB_CONT && a != va) {
			report_conflict(e, va, w); /* a block entry covers @va too */
			e->used = false;
		}
	}
	fill_page(va, w->pa, w, TLB_PAGE, false);
}

bool host_tlb_stuck(unsigned long va, bool write)
{
	struct host_walk w;
	uint64_t pa;
	struct tlb_entry *e = tlb_find(va, &pa);

	if (!host_tlb_model)
		return false;
	if (!e || leaf_allows(e->leaf, write))
		return false;
	host_mmu_walk(va, &w);
	if (!leaf_allows(w.leaf, write))
		return false;
	tlb_report("fault makes no progress: a cached entry denies what the table allows "
		   "(the change that allowed it was not flushed)",
		   e, va, &w, write ? "write fault" : "read fault");
	e->used = false;
	return true;
}
