/*
 * spinlock.c - ticket spinlocks, the reader/writer lock and the lock-order
 * check (the contract and the order are in spinlock.h).
 *
 * Ordering: taking a ticket is an acquire RMW and the wait an acquire
 * load of owner, so what the previous holder wrote before its release
 * store of owner is visible to the next. The rwlock's reader count and
 * the writer's ticket lock are read and written sequentially consistent:
 * a reader raises the count and then looks at the lock, a writer takes
 * the lock and then looks at the count, so at least one of them sees
 * the other (the two cannot both go in).
 */
#include "kernel.h"
#include "sched_point.h"
#include "smp.h"
#include "spinlock.h"

#define LOCK_DEPTH 16

/* The locks each CPU holds, in the order taken (the order check). */
struct held_locks {
	unsigned depth;
	struct {
		const void *lock;
		const char *name;
		unsigned level;
	} held[LOCK_DEPTH];
};

static struct held_locks held_locks[NR_CPUS];

static const char *const class_names[NR_LOCK_CLASSES] = {
	"migrate_lock", "anon family lock", "mmap_lock", "page_table_lock",
	"PTE lock",	"allocator lock",   "leaf lock",
};

static unsigned lock_level(enum lock_class cls, unsigned subclass)
{
	return (unsigned)cls * 2 + subclass;
}

/* Put @lock on @h's stack at @level. */
static inline void order_record(struct held_locks *h, const void *lock, const char *name,
				unsigned level)
{
	if (h->depth == LOCK_DEPTH)
		panic("lock order: more than %d locks held, taking %s", LOCK_DEPTH, name);
	h->held[h->depth].lock = lock;
	h->held[h->depth].name = name;
	h->held[h->depth].level = level;
	h->depth++;
}

/* Panic if CPU @cpu holds a lock at @level or later; then record @lock.
 * Inline, and nothing but a test of lock_debug while it is off. */
static inline void order_push(unsigned cpu, const void *lock, const char *name, unsigned level)
{
	struct held_locks *h = &held_locks[cpu];

	if (!lock_debug)
		return;
	if (h->depth && h->held[h->depth - 1].level >= level)
		panic("lock order: taking %s (%s) while holding %s (%s)", name,
		      class_names[level / 2], h->held[h->depth - 1].name,
		      class_names[h->held[h->depth - 1].level / 2]);
	order_record(h, lock, name, level);
}

/* Record @lock, taken by a trylock, with no order check: a trylock
 * cannot wait, so it cannot close a cycle. It ranks with the lock above
 * it, so the locks taken after it are checked against both. */
static void order_push_try(unsigned cpu, const void *lock, const char *name, unsigned level)
{
	struct held_locks *h = &held_locks[cpu];

	if (!lock_debug)
		return;
	if (h->depth && h->held[h->depth - 1].level > level)
		level = h->held[h->depth - 1].level;
	order_record(h, lock, name, level);
}

/* Forget @lock (usually the last taken; locks may be dropped in any
 * order). A lock taken while the check was off is not on the stack. */
static inline void order_pop(unsigned cpu, const void *lock)
{
	struct held_locks *h = &held_locks[cpu];

	for (unsigned i = h->depth; i-- > 0;) {
		if (h->held[i].lock != lock)
			continue;
		for (; i + 1 < h->depth; i++)
			h->held[i] = h->held[i + 1];
		h->depth--;
		return;
	}
}

unsigned lock_held_depth(void)
{
	return held_locks[smp_processor_id()].depth;
}

void lock_held_truncate(unsigned depth)
{
	struct held_locks *h = &held_locks[smp_processor_id()];

	if (depth < h->depth)
		h->depth = depth;
}

static const char *lock_name(const struct spinlock *l)
{
	return l->name ? l->name : "lock";
}

void spin_lock_init(struct spinlock *l, enum lock_class cls, const char *name)
{
	*l = SPINLOCK_INIT(cls, name);
}

bool lock_pv_halt;

/* What each CPU waits for in ticket_wait_pv(), for the unlocker's kick
 * and for the waiters behind it: written by that CPU (and `halted`
 * cleared by the kicker), read by unlockers and other waiters. */
static struct lock_waiter {
	const struct spinlock *lock;
	uint16_t ticket;
	uint8_t halted;
	uint64_t kicks; /* kicks this CPU sent (not an mm counter: the
			 * counters' layout is the uncontended path's) */
} __attribute__((aligned(64))) lock_waiters[NR_CPUS];

bool lock_cpu_halted(unsigned cpu)
{
	return __atomic_load_n(&lock_waiters[cpu].halted, __ATOMIC_ACQUIRE);
}

uint64_t lock_cpu_kicks(unsigned cpu)
{
	return __atomic_load_n(&lock_waiters[cpu].kicks, __ATOMIC_RELAXED);
}

/*
 * ticket_halt - publish "halted" for ticket @t of @l (published by the
 * caller), count this CPU in @l->waiting, and halt unless @t is served by
 * then (the protocol and its ordering: spinlock.h). Context:
 * lock_pv_halt set.
 */
static void ticket_halt(struct spinlock *l, uint16_t t)
{
	struct lock_waiter *w = &lock_waiters[smp_processor_id()];

	__atomic_fetch_add(&l->waiting, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->halted, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->owner, __ATOMIC_SEQ_CST) != t)
		arch_lock_halt();
	__atomic_store_n(&w->halted, 0, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&l->waiting, 1, __ATOMIC_RELAXED);
}

static void lock_count_kick(void)
{
	uint64_t *n = &lock_waiters[smp_processor_id()].kicks;

	__atomic_store_n(n, __atomic_load_n(n, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* Kick the CPU halted for ticket @t of @l, if one is: taking its
 * `halted` to 0 makes the kick once per halt (a kick to a CPU that
 * already saw @t served ends its next halt early, which is allowed). */
static void ticket_kick(const struct spinlock *l, uint16_t t)
{
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		struct lock_waiter *w = &lock_waiters[cpu];

		if (__atomic_load_n(&w->lock, __ATOMIC_RELAXED) != l ||
		    __atomic_load_n(&w->ticket, __ATOMIC_RELAXED) != t ||
		    !__atomic_exchange_n(&w->halted, 0, __ATOMIC_SEQ_CST))
			continue;
		lock_count_kick();
		arch_lock_kick(cpu);
	}
}

/* ticket_release() with lock_pv_halt: a sequentially consistent store
 * of @next, then the look for a CPU halted for it. */
static __attribute__((noinline)) void ticket_release_pv(struct spinlock *l, uint16_t next)
{
	__atomic_store_n(&l->owner, next, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->waiting, __ATOMIC_SEQ_CST))
		ticket_kick(l, next);
}

/* Serve the next ticket of @l: a release store, or ticket_release_pv().
 * Inline: the uncontended unlock pays one load and branch for PV. */
static inline __attribute__((always_inline)) void ticket_release(struct spinlock *l)
{
	uint16_t next = (uint16_t)(__atomic_load_n(&l->owner, __ATOMIC_RELAXED) + 1);

	if (__builtin_expect(lock_pv_halt, 0))
		ticket_release_pv(l, next);
	else
		__atomic_store_n(&l->owner, next, __ATOMIC_RELEASE);
}

/*
 * served_cpu_stalled - is the CPU that holds @l, or whose ticket @cur is
 * served and has yet to see it, not running (its vCPU preempted by the
 * host, or halted here)? A guess from racy reads: false when that CPU
 * cannot be found.
 */
static bool served_cpu_stalled(const struct spinlock *l, uint16_t cur)
{
	unsigned holder = __atomic_load_n(&l->holder, __ATOMIC_RELAXED);

	if (holder)
		return arch_vcpu_is_preempted(holder - 1);
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		struct lock_waiter *w = &lock_waiters[cpu];

		if (__atomic_load_n(&w->lock, __ATOMIC_RELAXED) == l &&
		    __atomic_load_n(&w->ticket, __ATOMIC_RELAXED) == cur)
			return __atomic_load_n(&w->halted, __ATOMIC_RELAXED) ||
			       arch_vcpu_is_preempted(cpu);
	}
	return false;
}

/* Halt now? After LOCK_SPIN_TICKS of arch_lock_clock() or
 * LOCK_HALT_SPINS spins since @t0, or sooner when the CPU served is
 * stalled (looked at every LOCK_STALL_PERIOD spins). */
static bool ticket_should_halt(const struct spinlock *l, uint16_t cur, unsigned spins, uint64_t t0)
{
	if (spins >= LOCK_HALT_SPINS || arch_lock_clock() - t0 >= LOCK_SPIN_TICKS)
		return true;
	return spins % LOCK_STALL_PERIOD == 0 && served_cpu_stalled(l, cur);
}

/* ticket_wait() with lock_pv_halt: this CPU's ticket is published for
 * the whole wait (the waiters behind look at it), and it halts when
 * ticket_should_halt() says so; after a halt it spins again. */
static void ticket_wait_pv(struct spinlock *l, uint16_t t)
{
	struct lock_waiter *w = &lock_waiters[smp_processor_id()];
	uint64_t t0 = arch_lock_clock();
	unsigned spins = 0;
	uint16_t cur;

	__atomic_store_n(&w->ticket, t, __ATOMIC_RELAXED);
	__atomic_store_n(&w->lock, l, __ATOMIC_RELAXED);
	while ((cur = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE)) != t) {
		if (!ticket_should_halt(l, cur, ++spins, t0)) {
			arch_cpu_relax();
			continue;
		}
		lock_count_wait();
		ticket_halt(l, t);
		spins = 0;
		t0 = arch_lock_clock();
	}
	__atomic_store_n(&w->lock, NULL, __ATOMIC_RELAXED);
}

/* Wait for served ticket @cur of @l to become @t: LOCK_SPIN_LIMIT spins,
 * then the slow path's waits (each counts lock_waits). */
static __attribute__((noinline)) void ticket_wait_contended(struct spinlock *l, uint16_t t,
							    uint16_t cur)
{
	unsigned spins = 0;

	lock_count_contended((enum lock_class)l->class);
	if (lock_pv_halt) {
		ticket_wait_pv(l, t);
		return;
	}
	for (; cur != t; cur = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE)) {
		if (++spins < LOCK_SPIN_LIMIT) {
			arch_cpu_relax();
			continue;
		}
		lock_count_wait();
		arch_lock_wait(&l->owner, cur);
	}
}

bool lock_virt;

/* Take @l if no ticket is outstanding: true when taken. The acquire
 * load of owner pairs with the last unlock's release store of it (a
 * 16-bit access meeting a 16-bit one: ThreadSanitizer, and C11, order
 * no access of another size); the compare-and-swap then checks that
 * next is owner too and takes the next ticket. */
static inline __attribute__((always_inline)) bool ticket_trylock(struct spinlock *l)
{
	uint16_t owner = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);
	uint32_t old = (uint32_t)owner << 16 | owner;

	return __atomic_compare_exchange_n(&l->tickets, &old,
					   (uint32_t)owner << 16 | (uint16_t)(owner + 1), false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* lock_virt's wait: spin, then the slow path's waits (each counts
 * lock_waits), until a ticket trylock succeeds. Counted in @l->waiting
 * meanwhile (spin_is_contended()). */
static __attribute__((noinline)) void virt_lock_contended(struct spinlock *l)
{
	unsigned spins = 0;

	lock_count_contended((enum lock_class)l->class);
	__atomic_fetch_add(&l->waiting, 1, __ATOMIC_RELAXED);
	while (!ticket_trylock(l)) {
		uint16_t cur = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);

		if (++spins < LOCK_SPIN_LIMIT) {
			arch_cpu_relax();
			continue;
		}
		lock_count_wait();
		if (__atomic_load_n(&l->next, __ATOMIC_RELAXED) != cur)
			arch_lock_wait(&l->owner, cur);
	}
	__atomic_fetch_sub(&l->waiting, 1, __ATOMIC_RELAXED);
}

/* Wait for ticket @t of @l to be served. Inline: the uncontended lock
 * is one load and branch after the fetch-add. */
static inline __attribute__((always_inline)) void ticket_wait(struct spinlock *l, uint16_t t)
{
	uint16_t cur = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);

	if (cur != t)
		ticket_wait_contended(l, t, cur);
}

bool lock_debug = true;

/*
 * lock_slow - lock_debug || lock_virt: the one flag the lock paths test
 * (one load and branch) before they take lock_take_slow(). Starts as
 * lock_debug's default.
 */
static bool lock_slow = true;

static void lock_mode_changed(void)
{
	__atomic_store_n(&lock_slow, lock_debug || lock_virt, __ATOMIC_RELAXED);
}

void lock_set_debug(bool on)
{
	lock_debug = on;
	lock_mode_changed();
}

void lock_set_virt(bool on)
{
	lock_virt = on;
	lock_mode_changed();
}

/* Take @l, first recording @key (the lock the caller will unlock: @l,
 * or the rwlock around it) named @name at @level for the order check
 * (lock_debug); under lock_virt out of turn, else by ticket. Every take
 * is sequentially consistent here, as the rwlock's writer needs (this
 * file's head). */
static __attribute__((noinline)) void lock_take_slow(struct spinlock *l, const void *key,
						     const char *name, unsigned level)
{
	order_push(smp_processor_id(), key, name, level);
	arch_sched_point(SCHED_LOCK);
	if (!lock_virt)
		ticket_wait(l, __atomic_fetch_add(&l->next, 1, __ATOMIC_SEQ_CST));
	else if (!ticket_trylock(l))
		virt_lock_contended(l);
}

/* Take @l: lock_take_slow() while lock_slow is set, else a ticket with
 * memory order @order (constant after inlining). */
static inline __attribute__((always_inline)) void
lock_take(struct spinlock *l, const void *key, const char *name, unsigned level, int order)
{
	if (__builtin_expect(lock_slow, 0)) {
		lock_take_slow(l, key, name, level);
		return;
	}
	arch_sched_point(SCHED_LOCK);
	ticket_wait(l, __atomic_fetch_add(&l->next, 1, order));
}

static void ticket_lock(struct spinlock *l, unsigned level)
{
	unsigned cpu = smp_processor_id();
	uint8_t me = (uint8_t)(cpu + 1);

	if (__atomic_load_n(&l->holder, __ATOMIC_RELAXED) == me)
		panic("spin_lock: %s already held on this CPU (a deadlock)", lock_name(l));
	lock_take(l, l, lock_name(l), level, __ATOMIC_ACQUIRE);
	__atomic_store_n(&l->holder, me, __ATOMIC_RELAXED);
}

void spin_lock(struct spinlock *l)
{
	ticket_lock(l, lock_level((enum lock_class)l->class, 0));
}

void spin_lock_nested(struct spinlock *l, unsigned subclass)
{
	ticket_lock(l, lock_level((enum lock_class)l->class, subclass));
}

void spin_unlock(struct spinlock *l)
{
	unsigned cpu = smp_processor_id();

	if (__atomic_load_n(&l->holder, __ATOMIC_RELAXED) != cpu + 1)
		panic("spin_unlock: %s is not held on this CPU", lock_name(l));
	order_pop(cpu, l);
	__atomic_store_n(&l->holder, 0, __ATOMIC_RELAXED);
	ticket_release(l);
	arch_sched_point(SCHED_UNLOCK);
}

bool spin_is_locked(const struct spinlock *l)
{
	return __atomic_load_n(&l->next, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
}

bool spin_is_contended(const struct spinlock *l)
{
	uint16_t next = __atomic_load_n(&l->next, __ATOMIC_RELAXED);

	return (uint16_t)(next - __atomic_load_n(&l->owner, __ATOMIC_RELAXED)) > 1 ||
	       __atomic_load_n(&l->waiting, __ATOMIC_RELAXED);
}

/* ---- the reader/writer lock --------------------------------------------- */

static bool wlock_taken(const struct rwlock *l)
{
	return __atomic_load_n(&l->wlock.next, __ATOMIC_SEQ_CST) !=
	       __atomic_load_n(&l->wlock.owner, __ATOMIC_SEQ_CST);
}

void read_lock(struct rwlock *l)
{
	bool contended = false;

	enum lock_class cls = (enum lock_class)l->wlock.class;

	order_push(smp_processor_id(), l, l->name, lock_level(cls, 0));
	arch_sched_point(SCHED_LOCK);
	for (;;) {
		while (wlock_taken(l)) {
			contended = true;
			arch_cpu_relax();
		}
		__atomic_fetch_add(&l->readers, 1, __ATOMIC_SEQ_CST);
		arch_sched_point(SCHED_LOCK);
		if (!wlock_taken(l))
			break;
		__atomic_fetch_sub(&l->readers, 1, __ATOMIC_SEQ_CST);
	}
	if (contended)
		lock_count_contended(cls);
}

void read_unlock(struct rwlock *l)
{
	if (__atomic_fetch_sub(&l->readers, 1, __ATOMIC_RELEASE) == 0)
		panic("read_unlock: %s has no reader", l->name);
	order_pop(smp_processor_id(), l);
	arch_sched_point(SCHED_UNLOCK);
}

/* The ticket lock without the order check (done for the rwlock), then
 * the wait for the readers to leave. */
static void write_lock_level(struct rwlock *l, unsigned level)
{
	unsigned cpu = smp_processor_id();
	uint8_t me = (uint8_t)(cpu + 1);

	if (__atomic_load_n(&l->wlock.holder, __ATOMIC_RELAXED) == me)
		panic("write_lock: %s already held on this CPU (a deadlock)", l->name);
	lock_take(&l->wlock, l, l->name, level, __ATOMIC_SEQ_CST);
	arch_sched_point(SCHED_LOCK);
	if (__atomic_load_n(&l->readers, __ATOMIC_SEQ_CST)) {
		lock_count_contended((enum lock_class)l->wlock.class);
		while (__atomic_load_n(&l->readers, __ATOMIC_ACQUIRE))
			arch_cpu_relax();
	}
	__atomic_store_n(&l->wlock.holder, me, __ATOMIC_RELAXED);
}

void write_lock(struct rwlock *l)
{
	write_lock_level(l, lock_level((enum lock_class)l->wlock.class, 0));
}

void write_lock_nested(struct rwlock *l, unsigned subclass)
{
	write_lock_level(l, lock_level((enum lock_class)l->wlock.class, subclass));
}

bool write_trylock(struct rwlock *l)
{
	unsigned cpu = smp_processor_id();

	arch_sched_point(SCHED_LOCK);
	if (!ticket_trylock(&l->wlock))
		return false;
	/* Sequentially consistent both sides: a reader adds itself and then
	 * looks at the ticket lock, so one of the two sees the other. */
	if (__atomic_load_n(&l->readers, __ATOMIC_SEQ_CST)) {
		ticket_release(&l->wlock);
		return false;
	}
	order_push_try(cpu, l, l->name, lock_level((enum lock_class)l->wlock.class, 0));
	__atomic_store_n(&l->wlock.holder, (uint8_t)(cpu + 1), __ATOMIC_RELAXED);
	return true;
}

void write_unlock(struct rwlock *l)
{
	unsigned cpu = smp_processor_id();

	if (__atomic_load_n(&l->wlock.holder, __ATOMIC_RELAXED) != cpu + 1)
		panic("write_unlock: %s is not write-held on this CPU", l->name);
	order_pop(cpu, l);
	__atomic_store_n(&l->wlock.holder, 0, __ATOMIC_RELAXED);
	ticket_release(&l->wlock);
	arch_sched_point(SCHED_UNLOCK);
}

bool rwlock_is_write_locked(const struct rwlock *l)
{
	return __atomic_load_n(&l->wlock.holder, __ATOMIC_RELAXED) != 0;
}

bool rwlock_is_locked(const struct rwlock *l)
{
	return rwlock_is_write_locked(l) || __atomic_load_n(&l->readers, __ATOMIC_RELAXED);
}
