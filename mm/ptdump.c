/*
 * ptdump.c - an mm as a student would want to read it: each VMA, then its
 * mappings as runs. A run is a stretch of entries that map consecutive
 * pages of one folio with the same bits and the same AnonExclusive state,
 * which is what folio_pte_batch() would batch with dirty and young
 * respected. Example:
 *
 *   mm 3: 2 VMAs, 4 page-table pages
 *   vma 0x200000000-0x200400000 rw- orders 0x11 node 0
 *     0x200000000-0x200010000   16 ptes  pfn 0x100410-0x10041f  folio 64K page 0  rw dirty young excl cont
 *     0x200200000-0x200400000  pmd       pfn 0x100600-0x1007ff  folio 2M page 0  rw dirty young excl
 *
 * "cont" marks entries of an arch block (arm64 contpte). The raw entries
 * are read (no counters), as the MMU would see them.
 */
#include <stdio.h>

#include "thp_policy.h"
#include "kernel.h"
#include "folio_walk.h"
#include "mm_internal.h"
#include "pte_batch.h"
#include "swapops.h"
#include "thp_policy.h"

#define DUMP_LINE_MAX 200

struct dump {
	void (*out)(void *ctx, const char *line);
	void *ctx;
	char line[DUMP_LINE_MAX];
};

struct run {
	unsigned long start, nr;
	pte_t first;
	struct folio *folio;
	bool excl;
};

static const char *order_label(unsigned order)
{
	static const char *const label[] = { "4K",   "8K",   "16K", "32K", "64K", "128K",
					     "256K", "512K", "1M",  "2M",  "4M" };

	return order <= MAX_ORDER ? label[order] : "?";
}

/* One run: addresses, how many entries, frames, folio, state. */
static void print_run(struct dump *d, const struct run *r, bool by_pmd)
{
	pte_t p = r->first;
	uint64_t pfn = pte_pfn(p);
	char what[16];

	if (by_pmd)
		snprintf(what, sizeof(what), "pmd      ");
	else
		snprintf(what, sizeof(what), "%4lu pte%s", r->nr, r->nr == 1 ? " " : "s");
	snprintf(d->line, sizeof(d->line),
		 "  %#lx-%#lx %s  pfn %#llx-%#llx  folio %s page %llu  %s%s%s%s%s", r->start,
		 r->start + r->nr * PAGE_SIZE, what, (unsigned long long)pfn,
		 (unsigned long long)(pfn + r->nr - 1), order_label(folio_order(r->folio)),
		 (unsigned long long)(pfn - folio_pfn(r->folio)), pte_write(p) ? "rw" : "ro",
		 pte_dirty(p) ? " dirty" : "", pte_young(p) ? " young" : "", r->excl ? " excl" : "",
		 pte_cont(p) ? " cont" : "");
	d->out(d->ctx, d->line);
}

/* Does @pte at @addr extend run @r? */
static bool run_extends(const struct run *r, unsigned long addr, pte_t pte, struct folio *f,
			bool excl)
{
	return r->nr && f == r->folio && addr == r->start + r->nr * PAGE_SIZE &&
	       pte_same(pte, pte_advance_pfn(r->first, r->nr)) && excl == r->excl;
}

/* The entries of the PTE table behind @pmd in [addr, end). */
static void dump_ptes(struct dump *d, pmd_t pmd, unsigned long addr, unsigned long end,
		      struct run *r)
{
	pte_t *ptes = pmd_table(pmd);

	for (; addr < end; addr += PAGE_SIZE) {
		pte_t pte = __ptep_get(&ptes[pte_index(addr)]);
		struct page *page;
		bool excl;

		if (!pte_present(pte))
			continue;
		page = pfn_to_page(pte_pfn(pte));
		excl = PageAnonExclusive(page);
		if (run_extends(r, addr, pte, page_folio(page), excl)) {
			r->nr++;
			continue;
		}
		if (r->nr)
			print_run(d, r, false);
		*r = (struct run){ addr, 1, pte, page_folio(page), excl };
	}
}

static void dump_vma(struct dump *d, struct vma *v)
{
	struct run r = { 0 };

	snprintf(d->line, sizeof(d->line), "vma %#lx-%#lx %c%c%c orders %#lx node %d%s%s", v->start,
		 v->end, v->flags & VM_READ ? 'r' : '-', v->flags & VM_WRITE ? 'w' : '-',
		 v->flags & VM_EXEC ? 'x' : '-', vma_fault_orders(v), v->nid,
		 v->flags & VM_DONTCOPY ? " dontcopy" : "",
		 v->flags & VM_NOHUGEPMD ? " nohugepmd" : "");
	d->out(d->ctx, d->line);
	for (unsigned long addr = v->start, next; addr < v->end; addr = next) {
		pmd_t *pmdp = mm_find_pmd(v->mm, addr, false);
		struct page *head;

		next = pmd_addr_end(addr, v->end);
		switch (pmd_state(pmdp ? pmdp_get(pmdp) : (pmd_t){ 0 })) {
		case PMD_NONE:
			continue;
		case PMD_TABLE:
			dump_ptes(d, pmdp_get(pmdp), addr, next, &r);
			continue;
		case PMD_MIGRATION:
			snprintf(d->line, sizeof(d->line), "  %#lx pmd migration entry pfn %#llx",
				 addr,
				 (unsigned long long)migration_entry_pfn(pmd_pte(pmdp_get(pmdp))));
			d->out(d->ctx, d->line);
			continue;
		case PMD_LEAF:
			break;
		}
		if (r.nr)
			print_run(d, &r, false);
		head = pfn_to_page(pmd_pfn(pmdp_get(pmdp)));
		r = (struct run){ addr, PTRS_PER_TABLE, pmd_pte(pmdp_get(pmdp)), page_folio(head),
				  PageAnonExclusive(head) };
		print_run(d, &r, true);
		r.nr = 0;
	}
	if (r.nr)
		print_run(d, &r, false);
}

void mm_ptdump_to(struct mm *mm, void (*out)(void *ctx, const char *line), void *ctx)
{
	struct dump d = { .out = out, .ctx = ctx };
	int nr = 0;

	read_lock(&mm->mmap_lock);
	for (struct vma *v = mm->vmas; v; v = v->next)
		nr++;
	snprintf(d.line, sizeof(d.line), "mm %d: %d VMA%s, %llu page-table pages", mm->id, nr,
		 nr == 1 ? "" : "s", (unsigned long long)mm->nr_pt_pages);
	out(ctx, d.line);
	for (struct vma *v = mm->vmas; v; v = v->next)
		dump_vma(&d, v);
	read_unlock(&mm->mmap_lock);
}

/* ---- the PTE strip ------------------------------------------------------- */

#define STRIP_ROW 64 /* entries a row, in groups of 16 */

char pte_strip_char(pte_t pte)
{
	if (pte_none(pte))
		return '.';
	if (!pte_present(pte))
		return is_migration_entry(pte) ? 'm' : is_swap_entry(pte) ? 's' : '?';
	if (pte_write(pte))
		return pte_dirty(pte) ? 'W' : 'w';
	return pte_dirty(pte) ? 'R' : 'r';
}

struct strip_row {
	char ent[STRIP_ROW + STRIP_ROW / 16 + 1];   /* the entries */
	char folio[STRIP_ROW + STRIP_ROW / 16 + 1]; /* a letter per folio */
	char cont[STRIP_ROW + STRIP_ROW / 16 + 1];  /* 'c' in an arch block */
	char excl[STRIP_ROW + STRIP_ROW / 16 + 1];  /* 'x' AnonExclusive */
	char node[STRIP_ROW + STRIP_ROW / 16 + 1];  /* the folio's node, 0..9 */
	unsigned n;
	bool any_cont, any_page;
};

/* The folio letters cycle a..z; a new letter whenever the folio changes. */
struct strip_folios {
	const struct folio *last;
	char letter;
};

static void row_add(struct strip_row *r, struct strip_folios *sf, pte_t pte)
{
	unsigned at = r->n + r->n / 16;
	char f = ' ', x = ' ', nid = ' ';

	if (r->n && r->n % 16 == 0)
		r->ent[at - 1] = r->folio[at - 1] = r->cont[at - 1] = r->excl[at - 1] =
			r->node[at - 1] = ' ';
	if (pte_present(pte)) {
		struct page *page = pfn_to_page(pte_pfn(pte));

		if (page_folio(page) != sf->last) {
			sf->letter = sf->last ? (char)('a' + (sf->letter - 'a' + 1) % 26) : 'a';
			sf->last = page_folio(page);
		}
		f = sf->letter;
		x = PageAnonExclusive(page) ? 'x' : '-';
		nid = (char)('0' + folio_nid(page_folio(page)) % 10);
		r->any_page = true;
	}
	r->ent[at] = pte_strip_char(pte);
	r->folio[at] = f;
	r->excl[at] = x;
	r->node[at] = nid;
	r->cont[at] = pte_present(pte) && pte_cont(pte) ? 'c' : ' ';
	r->any_cont |= r->cont[at] == 'c';
	r->n++;
	r->ent[at + 1] = r->folio[at + 1] = r->cont[at + 1] = r->excl[at + 1] = r->node[at + 1] =
		'\0';
}

static void row_print(struct dump *d, struct strip_row *r, unsigned long addr)
{
	snprintf(d->line, sizeof(d->line), "  %#lx  %s", addr, r->ent);
	d->out(d->ctx, d->line);
	if (r->any_page) {
		snprintf(d->line, sizeof(d->line), "  %-11s  %s", "folio", r->folio);
		d->out(d->ctx, d->line);
		snprintf(d->line, sizeof(d->line), "  %-11s  %s", "exclusive", r->excl);
		d->out(d->ctx, d->line);
		if (nr_pglists > 1) {
			snprintf(d->line, sizeof(d->line), "  %-11s  %s", "node", r->node);
			d->out(d->ctx, d->line);
		}
	}
	if (r->any_cont) {
		snprintf(d->line, sizeof(d->line), "  %-11s  %s", "contpte", r->cont);
		d->out(d->ctx, d->line);
	}
	*r = (struct strip_row){ 0 };
}

void mm_ptstrip_to(struct mm *mm, unsigned long start, unsigned long end,
		   void (*out)(void *ctx, const char *line), void *ctx)
{
	struct dump d = { .out = out, .ctx = ctx };
	struct strip_folios sf = { 0 };
	struct strip_row r = { 0 };
	unsigned long row = start;

	snprintf(d.line, sizeof(d.line),
		 "strip %#lx-%#lx: W/w writable dirty/clean, R/r read-only dirty/clean, "
		 "m migration, . none",
		 start, end);
	out(ctx, d.line);
	read_lock(&mm->mmap_lock);
	for (unsigned long addr = start; addr < end; addr += PAGE_SIZE) {
		pmd_t *pmdp = mm_find_pmd(mm, addr, false);
		pmd_t pmd = pmdp ? pmdp_get(pmdp) : (pmd_t){ 0 };
		pte_t pte = { 0 };

		if (pmd_state(pmd) == PMD_LEAF || pmd_state(pmd) == PMD_MIGRATION) {
			if (r.n)
				row_print(&d, &r, row);
			snprintf(d.line, sizeof(d.line), "  %#lx  pmd %s: a 2 MiB folio, one entry",
				 addr & PMD_MASK,
				 pmd_state(pmd) == PMD_LEAF ? "leaf" : "migration entry");
			out(ctx, d.line);
			addr = (addr & PMD_MASK) + PMD_SIZE - PAGE_SIZE;
			row = addr + PAGE_SIZE;
			continue;
		}
		if (pmd_state(pmd) == PMD_TABLE)
			pte = __ptep_get(&pmd_table(pmd)[pte_index(addr)]);
		if (!r.n)
			row = addr;
		row_add(&r, &sf, pte);
		if (r.n == STRIP_ROW)
			row_print(&d, &r, row);
	}
	if (r.n)
		row_print(&d, &r, row);
	read_unlock(&mm->mmap_lock);
}

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("%s\n", line);
}

void mm_ptdump(struct mm *mm)
{
	mm_ptdump_to(mm, print_line, NULL);
}

void mm_ptstrip(struct mm *mm, unsigned long start, unsigned long end)
{
	mm_ptstrip_to(mm, start, end, print_line, NULL);
}
