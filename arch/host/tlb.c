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
 * conflict). No ASIDs: switch_mm flushes everything, as the guest's
 * arch_switch_mm does.
 *
 * SMP: each CPU (a thread of smp_run()) has its own TLB, as hardware
 * does, behind its own lock (LOCK_LEAF). A CPU holds its lock from the
 * translation to the end of the access (host_tlb_lock()). A flush of an
 * mm drops the range from this CPU's TLB if the mm is live here, and is
 * sent to the other CPUs in the mm's cpumask only (mm->context.cpumask,
 * kept by arch_switch_mm() as the guests keep it), in the shape of x86's
 * shootdown (arch/x86_64/tlb.c): after a full barrier the sender reads
 * the mask; each target's "IPI" is its lock, taken between two of its
 * accesses, under which its "handler" flushes if that CPU still has the
 * mm live; the unlock is the acknowledgement. So once a flush returns no
 * CPU in the mask is in the middle of an access through an entry it
 * removed, and a CPU the mask wrongly leaves out keeps its stale entries,
 * which its next access reports. Per-CPU
 * rather than one shared TLB because CPUs run different mms (the child
 * of a fork on one, the parent on others) and a stale entry is a per-CPU
 * thing: a flush that missed one CPU must show up on that CPU.
 * While smp_run() runs more than one CPU, a stale entry used for an
 * access is served, not reported: another CPU may be between a change
 * and its flush, where hardware serves it too (counted in
 * host_tlb_stale_served; tests/mm/test_smp.c checks the outcome).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "lockless_walk.h"
#include "mm.h"

#include <host_tlb.h>

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

/* One CPU's TLB and the root its MMU walks. Context: lock. */
struct cpu_tlb {
	struct spinlock lock;
	struct mm *mm;
	uint64_t root; /* physical address of the live user pgd, 0 = none */
	struct tlb_entry page_tlb[TLB_SETS][TLB_WAYS];
	unsigned page_victim[TLB_SETS];
	struct tlb_entry pmd_tlb[PMD_ENTRIES];
	unsigned pmd_victim;
};

static struct cpu_tlb cpu_tlbs[NR_CPUS];

/* The TLB the functions below work on: this CPU's, or the one a
 * broadcast flush holds the lock of. */
static __thread struct cpu_tlb *cur;

static struct cpu_tlb *this_tlb(void)
{
	struct cpu_tlb *t = &cpu_tlbs[smp_processor_id()];

	if (!t->lock.name)
		spin_lock_init(&t->lock, LOCK_LEAF, "host TLB lock");
	return t;
}

unsigned long host_tlb_reports, host_tlb_hits, host_tlb_fills, host_tlb_stale_served;
unsigned long host_tlb_ipis;
/* Reports may come from any CPU thread; the test harness is not SMP. */
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
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
	pthread_mutex_lock(&report_lock);
	host_tlb_reports++;
	if (capture_buf) {
		if (!capture_buf[0])
			snprintf(capture_buf, capture_size, "%s", msg);
	} else if (host_tlb_reporter) {
		host_tlb_reporter(msg);
	} else {
		pthread_mutex_unlock(&report_lock);
		panic("strict TLB model: no reporter for: %s", msg);
	}
	pthread_mutex_unlock(&report_lock);
}

/* ---- the walk -------------------------------------------------------------- */

/* An entry as the MMU reads it: an acquire load, so the table or page it
 * points at is seen as written before the entry was (set_pte's release). */
static uint64_t mmu_load(const uint64_t *e)
{
	return __atomic_load_n(e, __ATOMIC_ACQUIRE);
}

/* Walk @root for @va (see host_mmu_walk). */
static void walk_root(uint64_t root, unsigned long va, struct host_walk *w)
{
	pgd_t pgd;
	pud_t pud;
	pmd_t pmd;
	pte_t *ptep;

	*w = (struct host_walk){ .kind = TLB_PAGE };
	if (!root || va >= MM_USER_END)
		return;
	pgd = (pgd_t){ mmu_load(&pgd_offset_pgd(phys_to_virt(root), va)->val) };
	if (!pgd_present(pgd))
		return;
	pud = (pud_t){ mmu_load(&(pgd_table(pgd) + pud_index(va))->val) };
	if (!pud_present(pud) || pud_leaf(pud))
		return;
	w->slot = &(pud_table(pud) + pmd_index(va))->val;
	pmd = (pmd_t){ mmu_load(w->slot) };
	if (!pmd_present(pmd)) {
		w->slot = NULL;
		return;
	}
	if (pmd_leaf(pmd)) {
		w->leaf = pmd_pte(pmd);
		w->kind = TLB_PMD;
		w->pa = (pmd_pfn(pmd) << PAGE_SHIFT) + (va & ~PMD_MASK & ~(PAGE_SIZE - 1));
		return;
	}
	w->pmd_table = true;
	ptep = pmd_table(pmd) + pte_index(va);
	w->leaf = (pte_t){ mmu_load(&ptep->val) };
	w->slot = &ptep->val;
	w->kind = pte_cont(w->leaf) ? TLB_CONT : TLB_PAGE;
	w->pa = pte_pfn(w->leaf) << PAGE_SHIFT;
}

static void walk(unsigned long va, struct host_walk *w)
{
	walk_root(cur->root, va, w);
}

void host_mmu_walk(unsigned long va, struct host_walk *w)
{
	walk_root(this_tlb()->root, va, w);
}

/* May the MMU use @leaf for a @write (or read), ignoring young/dirty? */
static bool leaf_allows(pte_t leaf, bool write)
{
	return pte_user(leaf) && (!write || pte_user_writable(leaf));
}

/* ---- the cache ------------------------------------------------------------- */

static struct tlb_entry *page_entry(unsigned long va)
{
	struct tlb_entry *set = cur->page_tlb[(va >> PAGE_SHIFT) % TLB_SETS];

	va &= ~(PAGE_SIZE - 1);
	for (int i = 0; i < TLB_WAYS; i++)
		if (set[i].used && set[i].va == va)
			return &set[i];
	return NULL;
}

static struct tlb_entry *pmd_entry(unsigned long va)
{
	for (int i = 0; i < PMD_ENTRIES; i++)
		if (cur->pmd_tlb[i].used && cur->pmd_tlb[i].va == (va & PMD_MASK))
			return &cur->pmd_tlb[i];
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

/* tlb_find() in this CPU's TLB (the entry points serve this CPU). */
static struct tlb_entry *tlb_find_this(unsigned long va, uint64_t *pa)
{
	cur = this_tlb();
	return tlb_find(va, pa);
}

/* A free way for @va's page: an evicted one when the set is full
 * (evicting is always allowed). */
static struct tlb_entry *page_alloc_entry(unsigned long va)
{
	unsigned set = (unsigned)((va >> PAGE_SHIFT) % TLB_SETS);

	for (int i = 0; i < TLB_WAYS; i++)
		if (!cur->page_tlb[set][i].used)
			return &cur->page_tlb[set][i];
	cur->page_victim[set] = (cur->page_victim[set] + 1) % TLB_WAYS;
	return &cur->page_tlb[set][cur->page_victim[set]];
}

static void tlb_insert(struct tlb_entry *slot, unsigned long va, uint64_t pa, pte_t leaf,
		       enum host_tlb_kind kind)
{
	*slot = (struct tlb_entry){ va, pa, leaf, kind, true };
	__atomic_fetch_add(&host_tlb_fills, 1, __ATOMIC_RELAXED);
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

	walk(e->va, &w);
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
			if (cur->page_tlb[s][i].used)
				check_entry(&cur->page_tlb[s][i], op);
	for (int i = 0; i < PMD_ENTRIES; i++)
		if (cur->pmd_tlb[i].used)
			check_entry(&cur->pmd_tlb[i], op);
}

/* Drop cur's entries for [start, end) after checking them all. */
static void flush_range(unsigned long start, unsigned long end)
{
	char op[64];

	snprintf(op, sizeof(op), "flush [%#lx, %#lx)", start, end);
	check_all(op);
	for (int s = 0; s < TLB_SETS; s++)
		for (int i = 0; i < TLB_WAYS; i++)
			if (cur->page_tlb[s][i].va + PAGE_SIZE > start &&
			    cur->page_tlb[s][i].va < end)
				cur->page_tlb[s][i].used = false;
	for (int i = 0; i < PMD_ENTRIES; i++)
		if (cur->pmd_tlb[i].va + PMD_SIZE > start && cur->pmd_tlb[i].va < end)
			cur->pmd_tlb[i].used = false;
}

/* Drop [start, end) from TLB @t if it holds @mm (else it switched away
 * since the sender read the mask, and the switch emptied it).
 * Context: @t's lock. */
static void flush_cpu(struct cpu_tlb *t, struct mm *mm, unsigned long start, unsigned long end)
{
	cur = t;
	if (host_tlb_model && t->mm == mm)
		flush_range(start, end);
}

void host_tlb_flush_local(unsigned long start, unsigned long end)
{
	struct cpu_tlb *self = this_tlb();

	spin_lock(&self->lock);
	flush_cpu(self, self->mm, start, end);
	spin_unlock(&self->lock);
}

void host_tlb_flush_others(struct mm *mm, unsigned long start, unsigned long end)
{
	struct cpu_tlb *self = this_tlb();
	unsigned long mask;

	if (!mm)
		return; /* a test's table outside any mm: no CPU has it live */
	/* The table writes before the mask read; acquire, as a CPU sets its
	 * bit after its TLB lock is initialised. */
	mm_full_barrier();
	mask = __atomic_load_n(&mm->context.cpumask, __ATOMIC_ACQUIRE);
	mask &= ~(1ul << smp_processor_id());
	for (unsigned c = 0; mask; c++, mask >>= 1) {
		struct cpu_tlb *t = &cpu_tlbs[c];

		if (!(mask & 1))
			continue;
		spin_lock(&t->lock); /* the request arrives between two of its accesses */
		flush_cpu(t, mm, start, end);
		spin_unlock(&t->lock); /* the acknowledgement */
		__atomic_fetch_add(&host_tlb_ipis, 1, __ATOMIC_RELAXED);
	}
	cur = self;
}

void host_tlb_switch(struct mm *mm, uint64_t root)
{
	cur = this_tlb();
	spin_lock(&cur->lock);
	if (host_tlb_model) {
		check_all("switch_mm"); /* the old mm's tables first */
		memset(cur->page_tlb, 0, sizeof(cur->page_tlb));
		memset(cur->pmd_tlb, 0, sizeof(cur->pmd_tlb));
	}
	cur->mm = mm;
	cur->root = root;
	spin_unlock(&cur->lock);
}

unsigned long host_tlb_cpus_with(struct mm *mm)
{
	struct cpu_tlb *self = this_tlb();
	unsigned long mask = 0;

	for (unsigned i = 0; i < smp_nr_cpus(); i++) {
		struct cpu_tlb *t = &cpu_tlbs[i];

		if (t == self || !t->lock.name)
			continue;
		spin_lock(&t->lock);
		if (t->mm == mm)
			mask |= 1ul << i;
		spin_unlock(&t->lock);
	}
	return mask;
}

struct mm *host_tlb_live_mm(void)
{
	return this_tlb()->mm;
}

void host_tlb_lock(void)
{
	cur = this_tlb();
	spin_lock(&cur->lock);
}

void host_tlb_unlock(void)
{
	spin_unlock(&cur->lock);
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
	if (why && __atomic_load_n(&host_smp_running, __ATOMIC_RELAXED) > 1) {
		/* Another CPU may be between its change and its flush, when a
		 * stale entry is still legal: serve it, as hardware does. The
		 * SMP cases check the outcome instead (no write through it
		 * lands after the call that flushes has returned). */
		__atomic_fetch_add(&host_tlb_stale_served, 1, __ATOMIC_RELAXED);
		return true;
	}
	if (why)
		tlb_report(why, e, va, w, op);
	return !why;
}

int host_tlb_translate(unsigned long va, bool write, uint64_t *pa)
{
	struct host_walk w;
	struct tlb_entry *e = tlb_find_this(va, pa);
	char op[48];
	const char *why;

	if (!host_tlb_model || !e)
		return 0;
	snprintf(op, sizeof(op), "%s of %#lx", write ? "write" : "read", va);
	walk(va, &w);
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
	__atomic_fetch_add(&host_tlb_hits, 1, __ATOMIC_RELAXED);
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
			if (cur->page_tlb[s][i].used &&
			    (cur->page_tlb[s][i].va & PMD_MASK) == base) {
				report_conflict(&cur->page_tlb[s][i], va, w);
				cur->page_tlb[s][i].used = false;
			}
	if (!e) {
		cur->pmd_victim = (cur->pmd_victim + 1) % PMD_ENTRIES;
		e = &cur->pmd_tlb[cur->pmd_victim];
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
	struct tlb_entry *pmd = (cur = this_tlb(), pmd_entry(va));
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
	struct tlb_entry *e = tlb_find_this(va, &pa);

	if (!host_tlb_model)
		return false;
	if (!e || leaf_allows(e->leaf, write))
		return false;
	walk(va, &w);
	if (!leaf_allows(w.leaf, write))
		return false;
	tlb_report("fault makes no progress: a cached entry denies what the table allows "
		   "(the change that allowed it was not flushed)",
		   e, va, &w, write ? "write fault" : "read fault");
	e->used = false;
	return true;
}
