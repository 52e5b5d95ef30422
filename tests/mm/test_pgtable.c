/*
 * test_pgtable.c - the arch contract of mm/pgtable.h, in the spirit of
 * Linux's mm/debug_vm_pgtable.c: the same cases run unchanged on every PTE
 * format (host x86_64 and arm64 formats, and in the guest on the real
 * MMU's format), so a format that differs from the others in what the
 * generic layer relies on fails here first. Then the generic layer itself:
 * table pages, the descent, the PTE lock, the walker and table freeing,
 * each with its counters.
 */
#include "kernel.h"
#include "mm_internal.h"
#include "mm_test.h"

/* Every user protection, and pfns from small to the 48-bit maximum. */
static const unsigned all_vm_flags[] = { VM_READ, VM_READ | VM_EXEC, VM_READ | VM_WRITE,
					 VM_READ | VM_WRITE | VM_EXEC };
#define NR_FLAGS (int)(sizeof(all_vm_flags) / sizeof(all_vm_flags[0]))
static const uint64_t some_pfns[] = { 0,       1,	0x1ff,	     0x200,
				      0x12345, 0xfffff, 0x123456789, (1ull << 36) - 1 };
#define NR_PFNS (int)(sizeof(some_pfns) / sizeof(some_pfns[0]))

static pte_t user_pte(uint64_t pfn, unsigned vm_flags)
{
	return pfn_pte(pfn, vm_get_page_prot(vm_flags));
}

/* ---- PTE values ------------------------------------------------------------ */

/* mkwrite/wrprotect toggle only the write permission. */
TEST(pte_write_round_trip)
{
	for (int i = 0; i < NR_FLAGS; i++) {
		pte_t p = user_pte(0x1234, all_vm_flags[i]);
		pte_t w = pte_mkwrite(p), r = pte_wrprotect(w);

		CHECK(pte_write(w));
		CHECK(!pte_write(r));
		CHECK(!pte_write(pte_wrprotect(pte_mkwrite(pte_mkdirty(p)))));
		CHECK_EQ(pte_pfn(r), 0x1234);
		CHECK_EQ(pte_young(r), pte_young(p));
		CHECK_EQ(pte_dirty(r), pte_dirty(p));
		CHECK_EQ(pte_exec(r), pte_exec(p));
		CHECK(pte_user(r) && pte_present(r));
	}
}

/* Dirtiness survives write-protection and re-enabling write, and clean
 * really is clean, whether or not the entry is writable. */
TEST(pte_dirty_round_trip)
{
	for (int i = 0; i < NR_FLAGS; i++) {
		pte_t p = user_pte(0x42, all_vm_flags[i]);
		pte_t d = pte_mkdirty(p);

		CHECK(!pte_dirty(p));
		CHECK(pte_dirty(d));
		CHECK(!pte_dirty(pte_mkclean(d)));
		CHECK(pte_dirty(pte_wrprotect(pte_mkdirty(pte_mkwrite(p)))));
		CHECK(pte_dirty(pte_mkwrite(pte_wrprotect(d))));
		CHECK(!pte_dirty(pte_mkwrite(pte_mkclean(d))));
		CHECK(pte_write(pte_mkclean(pte_mkdirty(pte_mkwrite(p)))));
		CHECK(!pte_dirty(pte_wrprotect(pte_mkclean(pte_mkwrite(d)))));
		CHECK_EQ(pte_write(pte_mkdirty(p)), pte_write(p));
	}
}

/* The MMU's write view: a dirty writable entry can be written at once, a
 * write-protected one never; where dirtiness is tracked by faults, a clean
 * entry is read-only to the MMU until the fault makes it dirty. */
TEST(pte_user_writable_follows_write_and_dirty)
{
	for (int i = 0; i < NR_FLAGS; i++) {
		pte_t p = user_pte(0x42, all_vm_flags[i]);
		pte_t wd = pte_mkdirty(pte_mkwrite(p));

		CHECK(pte_user_writable(wd));
		CHECK(pte_user_writable(pte_mkwrite(pte_wrprotect(wd))));
		CHECK(!pte_user_writable(pte_wrprotect(wd)));
		CHECK(!pte_user_writable(pte_wrprotect(pte_mkdirty(p))));
		CHECK(pte_user_writable(pte_modify(wd, vm_get_page_prot(VM_READ | VM_WRITE))));
		if (!arch_has_hw_ad())
			CHECK(!pte_user_writable(pte_mkclean(wd)));
		else
			CHECK(pte_user_writable(pte_mkclean(wd)));
	}
}

TEST(pte_young_round_trip)
{
	for (int i = 0; i < NR_FLAGS; i++) {
		pte_t p = user_pte(0x42, all_vm_flags[i]);

		CHECK(pte_young(pte_mkyoung(pte_mkold(p))));
		CHECK(!pte_young(pte_mkold(pte_mkyoung(p))));
		CHECK_EQ(pte_dirty(pte_mkold(pte_mkdirty(p))), 1);
		CHECK_EQ(pte_write(pte_mkold(p)), pte_write(p));
		CHECK(pte_present(pte_mkold(p)));
	}
}

/* The frame number survives pfn_pte for every pfn a 48-bit PA can hold,
 * and the protection comes back from pte_pgprot. */
TEST(pte_pfn_round_trip)
{
	for (int i = 0; i < NR_PFNS; i++)
		for (int j = 0; j < NR_FLAGS; j++) {
			pgprot_t prot = vm_get_page_prot(all_vm_flags[j]);
			pte_t p = pfn_pte(some_pfns[i], prot);

			CHECK_EQ(pte_pfn(p), some_pfns[i]);
			CHECK_EQ(pte_pgprot(p).val, prot.val);
			CHECK_EQ(pfn_pte(pte_pfn(p), pte_pgprot(p)).val, p.val);
			CHECK(!pte_none(p));
		}
}

/* pte_advance_pfn moves the frame only, carries across bit boundaries. */
TEST(pte_advance_pfn_moves_only_the_pfn)
{
	static const uint64_t starts[] = { 0, 0xff, 0x1ff, 0xfffff, (1ull << 36) - 17 };

	for (unsigned i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		pte_t p = pte_mkdirty(pte_mkwrite(user_pte(starts[i], VM_READ | VM_WRITE)));

		for (unsigned long nr = 0; nr <= 16; nr += 1 + nr) {
			pte_t q = pte_advance_pfn(p, nr);

			CHECK_EQ(pte_pfn(q), starts[i] + nr);
			CHECK_EQ(pte_pgprot(q).val, pte_pgprot(p).val);
		}
	}
}

/* pte_modify takes the permissions from the new protection and keeps the
 * frame, dirty and young, from every protection to every other. */
TEST(pte_modify_keeps_pfn_dirty_young)
{
	for (int i = 0; i < NR_FLAGS; i++)
		for (int j = 0; j < NR_FLAGS; j++)
			for (int state = 0; state < 4; state++) {
				unsigned to = all_vm_flags[j];
				pte_t p = user_pte(0xabcde, all_vm_flags[i]), q;

				p = state & 1 ? pte_mkdirty(p) : pte_mkclean(p);
				p = state & 2 ? pte_mkyoung(p) : pte_mkold(p);
				q = pte_modify(p, vm_get_page_prot(to));
				CHECK_EQ(pte_pfn(q), 0xabcde);
				CHECK_EQ(pte_dirty(q), !!(state & 1));
				CHECK_EQ(pte_young(q), !!(state & 2));
				CHECK_EQ(pte_write(q), !!(to & VM_WRITE));
				CHECK_EQ(pte_exec(q), !!(to & VM_EXEC));
				CHECK(pte_user(q));
			}
}

/* One protection per VM_READ/VM_WRITE/VM_EXEC combination: writable only
 * with VM_WRITE, new entries young and clean, no access = mapped but not
 * accessible (PROT_NONE). */
TEST(vm_get_page_prot_per_flag_combination)
{
	for (unsigned f = 0; f <= VM_ACCESS_FLAGS; f++) {
		pte_t p = user_pte(0x777, f);
		bool any = f & VM_ACCESS_FLAGS;

		CHECK(pte_present(p));
		CHECK_EQ(pte_user(p), any);
		CHECK_EQ(pte_write(p), !!(f & VM_WRITE));
		CHECK_EQ(pte_exec(p), !!(f & VM_EXEC));
		CHECK(!pte_dirty(p));
		if (any)
			CHECK(pte_young(p));
	}
	CHECK_EQ(vm_get_page_prot(VM_READ | VM_DONTCOPY).val, vm_get_page_prot(VM_READ).val);
}

/* ---- the hooks on runs of entries ------------------------------------------- */

/* Each hook on a run of 32 entries of one 128K folio, the same way on
 * every format, with the arch's blocks folded (contpte on) or not. */
static void run_hooks_case(bool contpte)
{
	struct mm_snapshot snap;
	struct page *pt;
	struct folio *f;
	struct vma vma = { .mm = NULL };
	unsigned long base = 0x40000000ul;
	pte_t *t, pte, old;
	int n = 0;

	mm_snapshot_take(&snap);
	mm_caps.contpte = contpte;
	pt = pt_alloc(NULL);
	f = folio_alloc(0, 5, 0);
	CHECK(pt && f);
	if (!pt || !f)
		return;
	t = page_address(pt);
	pte = pte_mkyoung(pfn_pte(folio_pfn(f), vm_get_page_prot(VM_READ | VM_WRITE)));
	set_ptes(NULL, base, t, pte, 32);
	for (int i = 0; i < 32; i++)
		n += pte_pfn(ptep_get(t + i)) == folio_pfn(f) + (uint64_t)i && pte_write(t[i]);
	CHECK_EQ(n, 32);
	CHECK(pte_batch_hint(t + 5, ptep_get(t + 5)) >= 1);
	CHECK(ptep_set_access_flags(&vma, base + 0x7000, t + 7, pte_mkdirty(ptep_get(t + 7))));
	CHECK(pte_dirty(ptep_get(t + 7)));
	CHECK_EQ(pte_dirty(ptep_get(t + 6)), contpte && arch_has_pte_blocks()); /* one block */
	wrprotect_ptes(NULL, base + 0x2000, t + 2, 20);
	CHECK(pte_write(ptep_get(t + 1)) && !pte_write(ptep_get(t + 2)));
	CHECK(!pte_write(ptep_get(t + 21)) && pte_write(ptep_get(t + 22)));
	old = clear_full_ptes(NULL, base + 0x3000, t + 3, 10, 0);
	CHECK(pte_dirty(old) && pte_young(old) && pte_pfn(old) == folio_pfn(f) + 3);
	CHECK(pte_none(ptep_get(t + 3)) && pte_none(ptep_get(t + 12)));
	CHECK(pte_present(ptep_get(t + 2)) && pte_present(ptep_get(t + 13)));
	old = ptep_get_and_clear(NULL, base + 0x1e000, t + 30);
	CHECK(pte_pfn(old) == folio_pfn(f) + 30 && pte_none(ptep_get(t + 30)));
	CHECK(pte_present(ptep_get(t + 31)));
	CHECK_EQ(arch_check_pte_table(t, &(const char *){ NULL }), -1);
	memset(t, 0, PAGE_SIZE);
	pt_free(NULL, pt);
	folio_put(f);
	mm_caps.contpte = true;
	CHECK_NO_LEAK(&snap);
}

TEST(run_hooks_keep_their_contract)
{
	mm_init();
	run_hooks_case(false);
	run_hooks_case(true);
}

/* ---- upper levels ------------------------------------------------------------ */

/* Table entries point at the pfn given, are present and not leaves; the
 * empty entry is none. */
TEST(table_entry_helpers)
{
	for (int i = 0; i < NR_PFNS; i++) {
		uint64_t pfn = some_pfns[i];
		pgd_t g = pgd_mktable(pfn);
		pud_t u = pud_mktable(pfn);
		pmd_t m = pmd_mktable(pfn);

		CHECK(pgd_present(g) && !pgd_none(g) && pgd_table_pfn(g) == pfn);
		CHECK(pud_present(u) && !pud_none(u) && !pud_leaf(u) && pud_table_pfn(u) == pfn);
		CHECK(pmd_present(m) && !pmd_none(m) && !pmd_leaf(m) && pmd_table_pfn(m) == pfn);
	}
	CHECK(pgd_none((pgd_t){ 0 }) && !pgd_present((pgd_t){ 0 }));
	CHECK(pud_none((pud_t){ 0 }) && !pud_present((pud_t){ 0 }));
	CHECK(pmd_none((pmd_t){ 0 }) && !pmd_present((pmd_t){ 0 }));
	CHECK(pte_none((pte_t){ 0 }) && !pte_present((pte_t){ 0 }));
}

/* PMD leaves: frame, leaf bit and the state helpers, like PTEs. */
TEST(pmd_leaf_helpers)
{
	uint64_t pfn = 0x40000; /* 2 MiB aligned */
	pmd_t m = pfn_pmd(pfn, vm_get_page_prot(VM_READ | VM_WRITE));

	CHECK(pmd_present(m) && pmd_leaf(m) && !pmd_none(m));
	CHECK_EQ(pmd_pfn(m), pfn);
	CHECK(pmd_write(m) && pmd_young(m) && !pmd_dirty(m) && pmd_user(m));
	CHECK(!pmd_write(pmd_wrprotect(m)));
	CHECK(pmd_write(pmd_mkwrite(pmd_wrprotect(m))));
	CHECK(pmd_dirty(pmd_mkdirty(m)));
	CHECK(pmd_dirty(pmd_wrprotect(pmd_mkdirty(m))));
	CHECK(!pmd_dirty(pmd_mkclean(pmd_mkdirty(m))));
	CHECK(!pmd_young(pmd_mkold(m)));
	CHECK(pmd_young(pmd_mkyoung(pmd_mkold(m))));
	CHECK(pmd_leaf(pmd_mkold(pmd_wrprotect(pmd_mkdirty(m)))));
	CHECK_EQ(pmd_pfn(pmd_mkdirty(pmd_wrprotect(m))), pfn);
	m = pmd_modify(pmd_mkdirty(m), vm_get_page_prot(VM_READ | VM_EXEC));
	CHECK(pmd_leaf(m) && pmd_dirty(m) && !pmd_write(m) && pmd_pfn(m) == pfn);
	CHECK(pte_exec(pmd_pte(m)));
	m = pfn_pmd(pfn, vm_get_page_prot(VM_READ));
	CHECK(pmd_leaf(m) && !pmd_write(m) && pmd_pfn(m) == pfn);
}

/* ---- the generic layer ------------------------------------------------------- */

/* A bare mm: just a pgd, no VMAs (mm_create's work is the lead's). */
static void bare_mm(struct mm *mm)
{
	mm_init(); /* once; the guest's selftest may run before anything else did */
	*mm = (struct mm){ .id = 9000 };
	mm->mmap_lock = RWLOCK_INIT("mmap_lock");
	spin_lock_init(&mm->page_table_lock, LOCK_PGTABLE, "page_table_lock");
	mm->pgd = pgd_alloc(mm);
	CHECK(mm->pgd != NULL);
}

static void bare_mm_free(struct mm *mm)
{
	free_pgtables(mm, 0, MM_USER_END);
	CHECK_EQ(mm->nr_pt_pages, 0);
	pgd_free(mm, mm->pgd);
}

/* pt_alloc gives a zeroed, unlocked PG_pgtable page and counts it; pt_free
 * undoes all of it. */
TEST(pt_alloc_free_and_counters)
{
	struct mm_snapshot snap;
	struct mm_counters c0 = mm_counters_read();
	struct mm mm = { .id = 9001 };
	struct page *pt;
	uint64_t *e;
	bool zero = true;

	mm_init();
	mm_snapshot_take(&snap);
	pt = pt_alloc(&mm);
	CHECK(pt != NULL);
	if (!pt)
		return;
	e = page_address(pt);
	for (int i = 0; i < PTRS_PER_TABLE; i++)
		zero &= e[i] == 0;
	CHECK(zero);
	CHECK(pt->flags & PG_pgtable);
	CHECK(!spin_is_locked(&pt->ptl) && pt->ptl.name != NULL);
	CHECK_EQ(mm.nr_pt_pages, 1);
	CHECK_EQ(mm_counters_read().pt_allocs - c0.pt_allocs, 1);
	pt_free(&mm, pt);
	CHECK_EQ(mm.nr_pt_pages, 0);
	CHECK_EQ(mm_counters_read().pt_frees - c0.pt_frees, 1);
	CHECK_NO_LEAK(&snap);
}

/* mm_find_pmd: one descent per call; without alloc a missing level is
 * NULL; with alloc the PUD and PMD tables appear once and are reused. */
TEST(mm_find_pmd_allocates_missing_levels)
{
	struct mm_snapshot snap;
	struct mm mm;
	struct mm_counters c0;
	unsigned long a = 0x40000000ul, b = a + PMD_SIZE, far = 1ul << 40;
	pmd_t *pa, *pb;

	mm_init();
	mm_snapshot_take(&snap);
	bare_mm(&mm);
	c0 = mm_counters_read();
	CHECK(mm_find_pmd(&mm, a, false) == NULL);
	CHECK_EQ(mm_counters_read().pt_descents - c0.pt_descents, 1);
	pa = mm_find_pmd(&mm, a, true);
	CHECK(pa != NULL);
	CHECK_EQ(mm.nr_pt_pages, 2);
	CHECK_EQ(mm_counters_read().pt_allocs - c0.pt_allocs, 2);
	CHECK(mm_find_pmd(&mm, a + 0x1234, false) == pa);
	pb = mm_find_pmd(&mm, b, true);
	CHECK(pb == pa + 1);
	CHECK_EQ(mm.nr_pt_pages, 2);
	CHECK(mm_find_pmd(&mm, far, true) != NULL);
	CHECK_EQ(mm.nr_pt_pages, 4);
	CHECK_EQ(mm_counters_read().pt_descents - c0.pt_descents, 5);
	CHECK(pmd_none(*pa));
	bare_mm_free(&mm);
	CHECK_EQ(mm_counters_read().pt_frees - c0.pt_frees, 4 + 1); /* and the pgd */
	CHECK_NO_LEAK(&snap);
}

/* mm_find_pmd stops at a PMD leaf, and pte_offset_map_lock refuses leaves
 * and empty entries (nothing locked or counted). */
TEST(mm_find_pmd_stops_at_a_leaf)
{
	struct mm mm;
	struct spinlock *ptl = NULL;
	struct mm_counters c0;
	unsigned long a = 0x40000000ul;
	pmd_t *pmdp;

	bare_mm(&mm);
	pmdp = mm_find_pmd(&mm, a, true);
	CHECK(pmdp != NULL);
	if (!pmdp)
		return;
	c0 = mm_counters_read();
	CHECK(pte_offset_map_lock(&mm, pmdp, a, &ptl) == NULL);
	*pmdp = pfn_pmd(0x40000, vm_get_page_prot(VM_READ));
	CHECK(mm_find_pmd(&mm, a + 0x3000, false) == pmdp);
	CHECK(pte_offset_map_lock(&mm, pmdp, a, &ptl) == NULL);
	CHECK(ptl == NULL);
	CHECK_EQ(mm_counters_read().ptl_takes - c0.ptl_takes, 0);
	*pmdp = (pmd_t){ 0 };
	bare_mm_free(&mm);
}

/* Hook a fresh PTE table under @addr; return its pmd entry. */
static pmd_t *add_pte_table(struct mm *mm, unsigned long addr)
{
	pmd_t *pmdp = mm_find_pmd(mm, addr, true);
	struct page *pt = pmdp ? pt_alloc(mm) : NULL;

	CHECK(pt != NULL);
	if (!pt)
		return NULL;
	*pmdp = pmd_mktable(page_to_pfn(pt));
	return pmdp;
}

/* The PTE lock: one ptl_take per lock, the entry for the address, the
 * lock of that table page, released by pte_unmap_unlock. */
TEST(pte_offset_map_lock_counts_and_locks)
{
	struct mm mm;
	struct spinlock *ptl;
	struct mm_counters c0;
	unsigned long a = 0x40000000ul + 37 * PAGE_SIZE;
	pmd_t *pmdp;
	pte_t *ptep;

	bare_mm(&mm);
	pmdp = add_pte_table(&mm, a);
	if (!pmdp)
		return;
	c0 = mm_counters_read();
	ptep = pte_offset_map_lock(&mm, pmdp, a, &ptl);
	CHECK(ptep == pmd_table(*pmdp) + 37);
	CHECK(ptep == pte_offset_kernel(pmdp, a));
	CHECK(ptl == &pmd_pt_page(*pmdp)->ptl);
	CHECK(spin_is_locked(ptl));
	CHECK_EQ(mm_counters_read().ptl_takes - c0.ptl_takes, 1);
	pte_unmap_unlock(ptep, ptl);
	CHECK(!spin_is_locked(ptl));
	CHECK_EQ(mm.nr_pt_pages, 3);
	bare_mm_free(&mm);
}

static void take_twice(void *arg)
{
	struct spinlock *l = arg;

	spin_lock(l);
	spin_lock(l);
}

static void release_unheld(void *arg)
{
	spin_unlock(arg);
}

/* Taking a lock this CPU holds is a deadlock: a panic naming the lock.
 * So is releasing a lock this CPU does not hold. */
TEST(lock_misuse_panics)
{
	struct spinlock l = SPINLOCK_INIT(LOCK_LEAF, "test lock");

	spin_lock(&l);
	CHECK(spin_is_locked(&l));
	spin_unlock(&l);
	CHECK(!spin_is_locked(&l));
	CHECK_PANICS(take_twice, &l, "test lock already held on this CPU");
	if (spin_is_locked(&l))
		spin_unlock(&l); /* the first spin_lock of take_twice */
	CHECK(!spin_is_locked(&l));
	CHECK_PANICS(release_unheld, &l, "test lock is not held");
}

static void take_out_of_order(void *arg)
{
	struct spinlock *locks = arg; /* [0] a PTE lock, [1] an mm lock */

	spin_lock(&locks[0]);
	spin_lock(&locks[1]);
}

/* The lock-order check (on while mm_debug_vm is): a PTE lock and then a
 * lock of an earlier class panics with both names; the right order and a
 * nested second lock of one class do not. */
TEST(lock_order_check)
{
	struct spinlock locks[2] = { SPINLOCK_INIT(LOCK_PTL, "PTE lock A"),
				     SPINLOCK_INIT(LOCK_PGTABLE, "page_table_lock B") };
	struct spinlock ptl2 = SPINLOCK_INIT(LOCK_PTL, "PTE lock C");
	unsigned depth = lock_held_depth();

	spin_lock(&locks[1]);
	spin_lock(&locks[0]);
	spin_lock_nested(&ptl2, 1);
	CHECK_EQ(lock_held_depth(), depth + 3);
	spin_unlock(&ptl2);
	spin_unlock(&locks[0]);
	spin_unlock(&locks[1]);
	CHECK_EQ(lock_held_depth(), depth);
	CHECK_PANICS(take_out_of_order, locks,
		     "taking page_table_lock B (page_table_lock) while holding PTE lock A");
	/* The host runner's panic catcher forgets what the panicking call
	 * pushed on the order stack; its locks are still held. */
	for (int i = 0; i < 2; i++)
		if (spin_is_locked(&locks[i]))
			spin_unlock(&locks[i]);
	CHECK_EQ(lock_held_depth(), depth);
}

static void take_family_after_trylock(void *arg)
{
	struct rwlock *locks = arg; /* [0] an mmap_lock, [1] a family lock */

	read_lock(&locks[0]);
	if (write_trylock(&locks[1]))
		read_lock(&locks[0]); /* a second lock of the mmap class: out of order */
}

/* write_trylock: taken when nobody holds the lock, refused while a reader
 * or a writer does, and exempt from the order check (a family lock tried
 * under an mmap_lock, as reclaim does), ranking with the lock above it:
 * a lock of that class after it still panics. */
TEST(rwlock_trylock)
{
	struct rwlock locks[2] = { RWLOCK_INIT("mmap_lock M"),
				   RWLOCK_INIT_CLASS(LOCK_FAMILY, "family lock F") };
	unsigned depth = lock_held_depth();

	read_lock(&locks[1]);
	CHECK(!write_trylock(&locks[1]));
	read_unlock(&locks[1]);
	write_lock(&locks[1]);
	CHECK(!write_trylock(&locks[1]));
	write_unlock(&locks[1]);
	read_lock(&locks[0]);
	CHECK(write_trylock(&locks[1]));
	CHECK(rwlock_is_write_locked(&locks[1]));
	CHECK_EQ(lock_held_depth(), depth + 2);
	write_unlock(&locks[1]);
	read_unlock(&locks[0]);
	CHECK(!rwlock_is_locked(&locks[1]));
	CHECK_EQ(lock_held_depth(), depth);
	CHECK_PANICS(take_family_after_trylock, locks,
		     "taking mmap_lock M (mmap_lock) while holding family lock F");
	if (rwlock_is_write_locked(&locks[1]))
		write_unlock(&locks[1]);
	while (rwlock_is_locked(&locks[0]))
		read_unlock(&locks[0]);
	CHECK_EQ(lock_held_depth(), depth);
}

/* flush_tlb_range: one flush, the pages the range touches; an empty range
 * is no flush. */
TEST(flush_tlb_range_counts)
{
	struct mm_counters c0 = mm_counters_read();

	flush_tlb_range(NULL, 0x1000, 0x3000);
	CHECK_EQ(mm_counters_read().tlb_flushes - c0.tlb_flushes, 1);
	CHECK_EQ(mm_counters_read().tlb_pages - c0.tlb_pages, 2);
	flush_tlb_range(NULL, 0x1800, 0x2801);
	CHECK_EQ(mm_counters_read().tlb_flushes - c0.tlb_flushes, 2);
	CHECK_EQ(mm_counters_read().tlb_pages - c0.tlb_pages, 4);
	flush_tlb_range(NULL, 0x5000, 0x5000);
	CHECK_EQ(mm_counters_read().tlb_flushes - c0.tlb_flushes, 2);
}

/* ---- the walker ---------------------------------------------------------------- */

#define WALK_BASE 0x40000000ul /* 1 GiB aligned */

struct walk_log {
	int runs, leaves;
	unsigned long run_start[4], run_end[4], run_present[4];
	unsigned long leaf_start, leaf_end;
	bool all_locked;
};

static int log_run(struct mm *mm, pmd_t *pmdp, pte_t *ptep, unsigned long addr, unsigned long end,
		   void *priv)
{
	struct walk_log *w = priv;
	int i = w->runs++;

	(void)mm;
	w->all_locked &= spin_is_locked(&pmd_pt_page(*pmdp)->ptl);
	if (i >= 4)
		return 0;
	w->run_start[i] = addr;
	w->run_end[i] = end;
	for (; addr < end; addr += PAGE_SIZE, ptep++)
		w->run_present[i] += pte_present(ptep_get(ptep));
	return 0;
}

static int log_leaf(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end, void *priv)
{
	struct walk_log *w = priv;

	(void)mm, (void)pmdp;
	w->leaves++;
	w->leaf_start = addr;
	w->leaf_end = end;
	return 0;
}

static const struct pt_walk_ops log_ops = { log_leaf, log_run };

/*
 * Tables for the walker: [WALK_BASE, +2M) a PTE table with 3 entries,
 * [+2M, +4M) a PMD leaf, [+4M, +6M) nothing, [+6M, +8M) an empty table.
 */
static void walk_tables(struct mm *mm)
{
	pmd_t *t0, *t3, *leaf;

	bare_mm(mm);
	t0 = add_pte_table(mm, WALK_BASE);
	t3 = add_pte_table(mm, WALK_BASE + 3 * PMD_SIZE);
	leaf = mm_find_pmd(mm, WALK_BASE + PMD_SIZE, true);
	if (!t0 || !t3 || !leaf)
		return;
	*leaf = pfn_pmd(0x40000, vm_get_page_prot(VM_READ));
	for (int i = 0; i < 3; i++)
		set_pte(pmd_table(*t0) + 10 + i, user_pte(0x1000 + i, VM_READ));
}

/* Clear what walk_tables() set and free everything. */
static void walk_tables_free(struct mm *mm)
{
	pmd_t *t0 = mm_find_pmd(mm, WALK_BASE, false);
	pmd_t *leaf = mm_find_pmd(mm, WALK_BASE + PMD_SIZE, false);

	if (t0 && pmd_present(*t0) && !pmd_leaf(*t0))
		memset(pmd_table(*t0), 0, PAGE_SIZE);
	if (leaf && pmd_leaf(*leaf))
		*leaf = (pmd_t){ 0 };
	bare_mm_free(mm);
}

/* One descent for the whole walk; each PTE table is one locked run up to
 * the table or range end; leaves are reported clipped; holes are skipped. */
TEST(walk_visits_runs_and_leaves)
{
	struct mm mm;
	struct walk_log w = { .all_locked = true };
	struct mm_counters c0;
	unsigned long start = WALK_BASE + 5 * PAGE_SIZE, end = WALK_BASE + 3 * PMD_SIZE + 0x3000;

	walk_tables(&mm);
	c0 = mm_counters_read();
	CHECK_EQ(walk_page_range(&mm, start, end, &log_ops, &w), 0);
	CHECK_EQ(mm_counters_read().pt_descents - c0.pt_descents, 1);
	CHECK_EQ(mm_counters_read().ptl_takes - c0.ptl_takes, 2);
	CHECK_EQ(w.runs, 2);
	CHECK(w.all_locked);
	CHECK_EQ(w.run_start[0], start);
	CHECK_EQ(w.run_end[0], WALK_BASE + PMD_SIZE);
	CHECK_EQ(w.run_present[0], 3);
	CHECK_EQ(w.run_start[1], WALK_BASE + 3 * PMD_SIZE);
	CHECK_EQ(w.run_end[1], end);
	CHECK_EQ(w.run_present[1], 0);
	CHECK_EQ(w.leaves, 1);
	CHECK_EQ(w.leaf_start, WALK_BASE + PMD_SIZE);
	CHECK_EQ(w.leaf_end, WALK_BASE + 2 * PMD_SIZE);
	walk_tables_free(&mm);
}

/* A range under no table at all calls nothing, with one descent. */
TEST(walk_of_an_empty_mm_visits_nothing)
{
	struct mm mm;
	struct walk_log w = { .all_locked = true };
	struct mm_counters c0 = mm_counters_read();

	bare_mm(&mm);
	CHECK_EQ(walk_page_range(&mm, 0x10000, 3ul << 39, &log_ops, &w), 0);
	CHECK_EQ(w.runs + w.leaves, 0);
	CHECK_EQ(mm_counters_read().pt_descents - c0.pt_descents, 1);
	bare_mm_free(&mm);
}

static int stop_at_leaf(struct mm *mm, pmd_t *pmdp, unsigned long addr, unsigned long end,
			void *priv)
{
	(void)mm, (void)pmdp, (void)addr, (void)end, (void)priv;
	return -7;
}

/* A callback's non-zero value stops the walk and is returned. */
TEST(walk_stops_on_callback_value)
{
	struct mm mm;
	struct walk_log w = { .all_locked = true };
	struct pt_walk_ops ops = { stop_at_leaf, log_run };

	walk_tables(&mm);
	CHECK_EQ(walk_page_range(&mm, WALK_BASE, WALK_BASE + 4 * PMD_SIZE, &ops, &w), -7);
	CHECK_EQ(w.runs, 1);
	walk_tables_free(&mm);
}

/* ---- freeing tables ----------------------------------------------------------- */

/* free_pgtables frees empty tables the range touches (rounded out), keeps
 * tables with entries, flushes once, and frees upper levels left empty. */
TEST(free_pgtables_frees_only_empty_tables)
{
	struct mm_snapshot snap;
	struct mm mm;
	struct mm_counters c0;
	pmd_t *t0, *t1;

	mm_init();
	mm_snapshot_take(&snap);
	bare_mm(&mm);
	t0 = add_pte_table(&mm, WALK_BASE);
	t1 = add_pte_table(&mm, WALK_BASE + PMD_SIZE);
	if (!t0 || !t1)
		return;
	set_pte(pmd_table(*t0) + 100, user_pte(0x1000, VM_READ));
	CHECK_EQ(mm.nr_pt_pages, 4);
	c0 = mm_counters_read();
	free_pgtables(&mm, WALK_BASE + 0x5000, WALK_BASE + PMD_SIZE + 0x1000);
	CHECK_EQ(mm.nr_pt_pages, 3);
	CHECK(pmd_present(*t0) && pmd_none(*t1));
	CHECK_EQ(mm_counters_read().pt_frees - c0.pt_frees, 1);
	CHECK_EQ(mm_counters_read().tlb_flushes - c0.tlb_flushes, 1);
	CHECK_EQ(mm_counters_read().tlb_pages - c0.tlb_pages, 1); /* one page of the freed span */
	free_pgtables(&mm, 0, MM_USER_END);
	CHECK_EQ(mm.nr_pt_pages, 3);
	set_pte(pmd_table(*t0) + 100, (pte_t){ 0 });
	c0 = mm_counters_read();
	free_pgtables(&mm, WALK_BASE + 0x5000, WALK_BASE + 0x6000);
	CHECK_EQ(mm.nr_pt_pages, 0);
	CHECK_EQ(mm_counters_read().pt_frees - c0.pt_frees, 3);
	CHECK_EQ(mm_counters_read().tlb_flushes - c0.tlb_flushes, 1);
	CHECK(pgd_none(mm.pgd[pgd_index(WALK_BASE)]));
	pgd_free(&mm, mm.pgd);
	CHECK_NO_LEAK(&snap);
}

static void free_pgd_with_tables(void *arg)
{
	struct mm *mm = arg;

	pgd_free(mm, mm->pgd);
}

/* pgd_free refuses a pgd that still has user tables. */
TEST(pgd_free_panics_with_tables_left)
{
	struct mm mm;

	bare_mm(&mm);
	CHECK(add_pte_table(&mm, WALK_BASE) != NULL);
	CHECK_PANICS(free_pgd_with_tables, &mm, "still has a table");
	bare_mm_free(&mm);
}

TEST_SUITE(pgtable, pte_write_round_trip, pte_dirty_round_trip,
	   pte_user_writable_follows_write_and_dirty, pte_young_round_trip, pte_pfn_round_trip,
	   pte_advance_pfn_moves_only_the_pfn, pte_modify_keeps_pfn_dirty_young,
	   vm_get_page_prot_per_flag_combination, run_hooks_keep_their_contract,
	   table_entry_helpers, pmd_leaf_helpers, pt_alloc_free_and_counters,
	   mm_find_pmd_allocates_missing_levels, mm_find_pmd_stops_at_a_leaf,
	   pte_offset_map_lock_counts_and_locks, lock_misuse_panics, lock_order_check,
	   rwlock_trylock, flush_tlb_range_counts, walk_visits_runs_and_leaves,
	   walk_of_an_empty_mm_visits_nothing, walk_stops_on_callback_value,
	   free_pgtables_frees_only_empty_tables, pgd_free_panics_with_tables_left)
