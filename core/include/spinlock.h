/*
 * spinlock.h - the kernel's locks: ticket spinlocks and a reader/writer
 * spinlock, with a lock-order check and per-kind contention counters.
 *
 * A ticket lock hands out tickets with one atomic fetch-add and serves
 * them in order, so no CPU starves (Linux's old x86 and arm64 spinlock).
 * An uncontended spin_lock() is one atomic add and one load, its unlock
 * one release store. The rwlock is a ticket lock that writers take plus
 * a reader count: a writer holds the ticket lock while it waits for the
 * readers to drain, and new readers wait while any writer holds or waits,
 * so a stream of readers (faults) cannot starve a writer (munmap, fork).
 *
 * Every lock has a class, and the classes have a fixed order; a CPU may
 * only take a lock of a class (and subclass) strictly above every lock it
 * holds. The order (docs/smp.md, "locks"):
 *
 *   LOCK_MIGRATE migrate_lock: one migration (mbind, migrate_pages,
 *                move_pages) at a time; its batch is its own.
 *   LOCK_FAMILY  anon_family.lock (rwlock, mm/anon_family.h): written by
 *                the migration, which walks and rewrites the tables of
 *                every mm of the family (no rmap); read by each member's
 *                mmap_lock writers and by its teardown.
 *   LOCK_MMAP    mm->mmap_lock (rwlock): the VMA list of one mm. Writers:
 *                mmap, munmap, mprotect, madvise, mbind, fork (parent, and
 *                the child as subclass 1). Readers: faults, the GUP slow
 *                path, migration's queueing and moves, numa_maps, ptdump.
 *   LOCK_PGTABLE mm->page_table_lock: installing or changing an entry
 *                above the PTE level (a new PUD/PMD/PTE table, a PMD leaf)
 *                by a holder of the mmap_lock for read.
 *   LOCK_PTL     the split PTE lock of one PTE table (struct page.ptl):
 *                every PTE of that table. Fork holds the parent's and then
 *                the child's (subclass 1).
 *   LOCK_ALLOC   pglist.lock: one node's free lists (folio_alloc/free).
 *   LOCK_LEAF    locks under which nothing else is taken: mm_list_lock,
 *                the host runner's TLB locks.
 *
 * The check runs while lock_debug is set (mm sets it with mm_debug_vm:
 * on for the tests, off for benchmarks): it keeps a per-CPU stack of held locks and panics with both names
 * when the order is broken. The "already held on this CPU" check (a
 * deadlock on one CPU) is always on: each lock records its holder.
 *
 * Contended acquisitions (the first ticket was not served at once) and
 * each slow-path wait of a ticket (below) are counted through two hooks,
 * lock_count_contended() and lock_count_wait(): mm counts them as
 * ptl_contended, mm_lock_contended (LOCK_FAMILY, LOCK_MMAP, LOCK_PGTABLE),
 * alloc_lock_contended, other_lock_contended and lock_waits.
 */
#ifndef CORE_SPINLOCK_H
#define CORE_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

enum lock_class {
	LOCK_MIGRATE,
	LOCK_FAMILY,
	LOCK_MMAP,
	LOCK_PGTABLE,
	LOCK_PTL,
	LOCK_ALLOC,
	LOCK_LEAF,
	NR_LOCK_CLASSES,
};

/* 16 bytes: it shares struct page's lru slot on page-table pages. The
 * lock is free when next == owner (little-endian: tickets is next in
 * its low half, owner in its high half). */
struct spinlock {
	union {
		struct {
			uint16_t next;	/* the ticket the next locker takes */
			uint16_t owner; /* the ticket being served */
		};
		uint32_t tickets; /* both, for lock_virt's compare-and-swap */
	};
	uint8_t holder;	  /* holding CPU + 1, 0 when free */
	uint8_t class;	  /* enum lock_class */
	uint16_t waiting; /* CPUs halted for a ticket (lock_pv_halt), or
			   * spinning to take it (lock_virt) */
	const char *name;
};

#define SPINLOCK_INIT(cls, nm) ((struct spinlock){ .class = (cls), .name = (nm) })

struct rwlock {
	struct spinlock wlock; /* held by the writer, and by a writer waiting for readers */
	uint32_t readers;
	const char *name;
};

#define RWLOCK_INIT_CLASS(cls, nm)                                                                 \
	((struct rwlock){ .wlock = SPINLOCK_INIT(cls, nm), .name = (nm) })
#define RWLOCK_INIT(nm) RWLOCK_INIT_CLASS(LOCK_MMAP, nm)

void spin_lock_init(struct spinlock *l, enum lock_class cls, const char *name);

/*
 * spin_lock - take @l, spinning until it is ours. Panics when this CPU
 * already holds it, or (lock_debug) when a lock of the same or a later
 * class is held. spin_lock_nested() takes a second lock of one class
 * (@subclass 1 ranks after subclass 0: fork's child PTE table).
 * spin_unlock panics when this CPU does not hold @l.
 */
void spin_lock(struct spinlock *l);
void spin_lock_nested(struct spinlock *l, unsigned subclass);
void spin_unlock(struct spinlock *l);

/* Is @l held (by any CPU)? For checks, not for deciding to lock. */
bool spin_is_locked(const struct spinlock *l);

/* Does a CPU wait for @l (a ticket taken beyond the holder's)? For tests
 * that must know another CPU reached the lock. */
bool spin_is_contended(const struct spinlock *l);

/* Reader/writer lock (class LOCK_MMAP unless RWLOCK_INIT_CLASS says
 * otherwise); the _nested writer ranks after another writer of the class
 * (fork's child). */
void read_lock(struct rwlock *l);
void read_unlock(struct rwlock *l);
void write_lock(struct rwlock *l);
void write_lock_nested(struct rwlock *l, unsigned subclass);
void write_unlock(struct rwlock *l);
/* Take @l for write if no CPU holds it (reader or writer) or waits for
 * it as a writer, without waiting: true when taken. No order check: a
 * holder of a later lock (a fault's mmap_lock) may try an earlier one. */
bool write_trylock(struct rwlock *l);
bool rwlock_is_write_locked(const struct rwlock *l);
bool rwlock_is_locked(const struct rwlock *l);

/*
 * lock_held_depth - how many locks this CPU holds (as the order check
 * tracks them; 0 while lock_debug is off). For tests and assertions.
 */
unsigned lock_held_depth(void);

/* Forget all but the first @depth locks of this CPU's stack (a panic
 * caught by the host runner unwinds past their unlocks). */
void lock_held_truncate(unsigned depth);

/*
 * arch_cpu_relax - required hook: the spin-wait hint of a busy loop (x86
 * PAUSE, arm64 YIELD; the host runner yields its thread, since its CPUs
 * are threads that may share a core with the lock holder).
 */
void arch_cpu_relax(void);

/*
 * The slow path of a ticket wait (docs/smp.md, "When vCPUs outnumber
 * CPUs"). With lock_pv_halt clear a waiter spins LOCK_SPIN_LIMIT times,
 * then calls arch_lock_wait() in its loop (arm64: WFE; x86 without KVM's
 * PV unhalt and the host runner: one more spin).
 *
 * With lock_pv_halt set a waiter halts instead of spinning when spinning
 * cannot help: when the CPU that holds the lock (or whose ticket is
 * served) is not running, its vCPU preempted (arch_vcpu_is_preempted())
 * or halted here, looked at every LOCK_STALL_PERIOD spins; and after
 * LOCK_SPIN_TICKS of arch_lock_clock() or LOCK_HALT_SPINS spins whatever
 * it looks like. The budget is in time as well as in spins because what
 * a spin costs is the machine's: a PAUSE may leave the guest (KVM's pause
 * filter), and a vCPU of an emulated, loaded host runs its spins slowly. A waiter publishes its lock and ticket for the whole wait;
 * to halt, it publishes that it is halted, re-reads owner, and calls
 * arch_lock_halt(). The unlocker, after its store of owner, kicks
 * (arch_lock_kick()) only a CPU halted for the ticket just served: a
 * kick costs a hypercall, and a halt an exit and a wake-up in the host.
 * The store of owner and the read of the halted state on one side, the
 * store of the halted state and the read of owner on the other, are all
 * sequentially consistent: one side sees the other's store, so either
 * the waiter does not halt or the unlocker kicks it. A kick that lands
 * before the halt ends that halt at once (arch_lock_halt's contract), so
 * none is lost.
 *
 * arch_lock_wait - required hook: wait until *@word may have left @val.
 * May return at any time.
 * arch_lock_halt - required hook: give the CPU away until
 * arch_lock_kick() for this CPU (one kick since the last halt returned
 * makes it return at once); may return early. Called only while
 * lock_pv_halt is set. Context: interrupts as the waiter had them.
 * arch_lock_kick - required hook: end CPU @cpu's arch_lock_halt().
 * arch_lock_can_halt - required hook: may lock_pv_halt be set here (x86:
 * on KVM with PV unhalt; the host runner: a flag; arm64: no, its
 * arch_lock_wait() is the event wait)?
 * arch_lock_clock - required hook: a clock for the spin budget, in ticks
 * of about a nanosecond (x86: the TSC); 0 where nothing halts.
 * arch_vcpu_is_preempted - required hook: is CPU @cpu's vCPU descheduled
 * by the host (x86: KVM's steal-time record says so)? False where
 * nothing tells.
 * lock_pv_halt - set by the arch at boot, before a second CPU runs (x86
 * on KVM with PV unhalt), or by a test while one CPU runs: an unlock
 * then reads the lock's halted count (one load more).
 */
#define LOCK_SPIN_LIMIT 1024
#define LOCK_STALL_PERIOD 64
#define LOCK_HALT_SPINS LOCK_SPIN_LIMIT
#define LOCK_SPIN_TICKS (1u << 20)
void arch_lock_wait(const uint16_t *word, uint16_t val);
void arch_lock_halt(void);
void arch_lock_kick(unsigned cpu);
bool arch_lock_can_halt(void);
bool arch_vcpu_is_preempted(unsigned cpu);
uint64_t arch_lock_clock(void);
extern bool lock_pv_halt;

/*
 * lock_virt - take locks out of turn: a CPU takes a lock only when no
 * ticket is outstanding (a compare-and-swap of next and owner together,
 * a ticket trylock) and otherwise spins until it is free, holding no
 * ticket. Unfair, so a waiter can starve in theory; but a lock is never
 * handed to a CPU that is not running, which is what a ticket lock does
 * when vCPUs outnumber host CPUs (Linux's virt_spin_lock() makes the
 * same choice for a guest without PV spinlocks). Set with
 * lock_set_virt() by the arch at boot (x86 on KVM without lock_pv_halt),
 * or by a test at any time: the two disciplines share the representation
 * and the unlock, so a ticket waiter and a lock_virt one may meet on one
 * lock. It costs the ticket path nothing: spin_lock() and write_lock()
 * test one flag, set while lock_debug or lock_virt is, and take an
 * out-of-line path (the order check, then the ticket or lock_virt) when
 * it is set.
 */
extern bool lock_virt;
void lock_set_virt(bool on);

/* The lock-order check's switch (default on); change it only with
 * lock_set_debug(), which also updates the lock path's flag. */
extern bool lock_debug;
void lock_set_debug(bool on);

/*
 * lock_count_contended, lock_count_wait - required hooks: count one
 * contended acquisition of a lock of class @cls, one slow-path wait of a
 * ticket. Defined by the layer that keeps the event counters (mm's
 * counters.c, under its own names): the core includes nothing of mm, and
 * mm's counter snapshot stays one sum of per-CPU copies. Context: the
 * lock's slow path, with any locks held; a hook takes none.
 */
void lock_count_contended(enum lock_class cls);
void lock_count_wait(void);

/* Is CPU @cpu halted in a lock's slow path (lock_pv_halt)? How many
 * kicks has it sent? For tests. */
bool lock_cpu_halted(unsigned cpu);
uint64_t lock_cpu_kicks(unsigned cpu);

#endif
