/*
 * user.c (arm64) - EL0 for kernel/user_arch.h: the per-CPU set-up, the
 * state a program starts and resumes with, the C side of an exception
 * from EL0 (entry.S's el0_entry), Linux's asm-generic system-call numbers
 * and the AT_HWCAP bits this CPU and kernel give user code.
 *
 * An exception from EL0 runs arm64_el0_trap() on the kstack in the
 * kernel's normal state (EL1 on SP_EL0, interrupts masked, nesting depth
 * 0): SVC goes to syscall_entry(), an instruction or data abort to
 * handle_mm_fault() on the current mm (user_fault_signal() when it cannot
 * resolve it), an IRQ is acknowledged, and every other exception raises
 * the signal Linux would send (a handler's frame, or the process ends).
 * Then the program resumes from the (possibly changed) saved state.
 */
#include <stdint.h>

#include "kernel.h"
#include "ksignal.h"
#include "mm.h"
#include "percpu.h"
#include "user_arch.h"

#include <asm/mmu.h>
#include <asm/traps.h>
#include <asm/user.h>

/* ESR_EL1 exception classes from EL0 handled here (others: see el0_signal()). */
#define ESR_EC_WFX 0x01
#define ESR_EC_SVC64 0x15
#define ESR_EC_PC_ALIGN 0x22
#define ESR_EC_SP_ALIGN 0x26
#define ESR_EC_FP_EXC64 0x2c
#define ESR_DABT_CM (1ul << 8) /* a cache maintenance instruction faulted */
#define ESR_FSC_ALIGN 0x21     /* alignment fault */

/* SPSR bits a program keeps across an exception: NZCV. The rest is EL0t
 * (M = 0: AArch64, SP_EL0) with D, A, I and F clear. */
#define SPSR_EL0_KEEP 0xf0000000ul

/* SCTLR_EL1 bits for EL0: SP alignment checked (SA0), DC ZVA (DZE), CTR_EL0
 * reads (UCT) and cache maintenance by VA (UCI) allowed, as on Linux.
 * WFI and WFE stay trapped (nTWI, nTWE clear): el0_sync() skips them, so
 * a program never sleeps on a CPU that has no timer interrupt to wake it. */
#define SCTLR_EL1_SA0 (1ul << 4)
#define SCTLR_EL1_DZE (1ul << 14)
#define SCTLR_EL1_UCT (1ul << 15)
#define SCTLR_EL1_UCI (1ul << 26)
#define SCTLR_EL1_USER (SCTLR_EL1_SA0 | SCTLR_EL1_DZE | SCTLR_EL1_UCT | SCTLR_EL1_UCI)
/* CNTKCTL_EL1.EL0VCTEN: EL0 may read CNTVCT_EL0 and CNTFRQ_EL0. */
#define CNTKCTL_EL0VCTEN (1ul << 1)

_Static_assert(__builtin_offsetof(struct percpu, arch.user_kstack) == PERCPU_USER_KSTACK,
	       "PERCPU_USER_KSTACK");
_Static_assert(__builtin_offsetof(struct user_regs, tpidr) == UR_TPIDR, "UR_TPIDR");
_Static_assert(sizeof(struct user_regs) == UR_FRAME_SIZE, "UR_FRAME_SIZE");
_Static_assert(__builtin_offsetof(struct arch_context, sp) == CTX_SP, "CTX_SP");
_Static_assert(__builtin_offsetof(struct arch_context, d8_d15) == CTX_D8, "CTX_D8");

/* entry.S */
void arm64_ret_to_user(struct user_regs *r) __attribute__((noreturn));
void arm64_el0_trap(struct user_regs *r, uint64_t kind);
/* gic.c, tick.c */
uint64_t arm64_gic_ack(void);
void arm64_gic_eoi(uint64_t intid);
bool arm64_tick_rearm(uint64_t intid);

/* IRQs taken from EL0 on every CPU (tests read it). */
unsigned long arm64_user_irqs;

const struct syscall_numbers arch_syscall_numbers = {
	.read = SYSNR(63),
	.write = SYSNR(64),
	.readv = SYSNR(65),
	.writev = SYSNR(66),
	.openat = SYSNR(56),
	.close = SYSNR(57),
	.pread64 = SYSNR(67),
	.pwrite64 = SYSNR(68),
	.lseek = SYSNR(62),
	.fstat = SYSNR(80),
	.newfstatat = SYSNR(79),
	.readlinkat = SYSNR(78),
	.faccessat = SYSNR(48),
	.ioctl = SYSNR(29),
	.exit = SYSNR(93),
	.exit_group = SYSNR(94),
	.brk = SYSNR(214),
	.mmap = SYSNR(222),
	.munmap = SYSNR(215),
	.mprotect = SYSNR(226),
	.madvise = SYSNR(233),
	.uname = SYSNR(160),
	.getpid = SYSNR(172),
	.getppid = SYSNR(173),
	.gettid = SYSNR(178),
	.getuid = SYSNR(174),
	.geteuid = SYSNR(175),
	.getgid = SYSNR(176),
	.getegid = SYSNR(177),
	.set_tid_address = SYSNR(96),
	.clone = SYSNR(220),
	.wait4 = SYSNR(260),
	.pipe2 = SYSNR(59),
	.dup = SYSNR(23),
	.dup3 = SYSNR(24),
	.fcntl = SYSNR(25),
	.set_robust_list = SYSNR(99),
	.rseq = SYSNR(293),
	.prlimit64 = SYSNR(261),
	.getrandom = SYSNR(278),
	.clock_gettime = SYSNR(113),
	.rt_sigaction = SYSNR(134),
	.rt_sigprocmask = SYSNR(135),
	.rt_sigpending = SYSNR(136),
	.rt_sigreturn = SYSNR(139),
	.kill = SYSNR(129),
	.tkill = SYSNR(130),
	.tgkill = SYSNR(131),
	.sigaltstack = SYSNR(132),
	.futex = SYSNR(98),
	.sched_yield = SYSNR(124),
	.sched_setscheduler = SYSNR(119),
	.nanosleep = SYSNR(101),
	.clock_nanosleep = SYSNR(115),
	.mbind = SYSNR(235),
	.get_mempolicy = SYSNR(236),
	.migrate_pages = SYSNR(238),
	.move_pages = SYSNR(239),
	.capget = SYSNR(90),
	.capset = SYSNR(91),
	.mremap = SYSNR(216),
	.vmsplice = SYSNR(75),
	/* open, readlink, access, arch_prctl, fork, vfork, pipe, dup2: none
	 * on arm64 (0) */
	.clone3 = SYSNR(435),
	.sched_getaffinity = SYSNR(123),
	.set_mempolicy = SYSNR(237),
	.sched_setaffinity = SYSNR(122),
};

void arch_user_init_cpu(void)
{
	write_sysreg(read_sysreg(sctlr_el1) | SCTLR_EL1_USER, sctlr_el1);
	write_sysreg(read_sysreg(cntkctl_el1) | CNTKCTL_EL0VCTEN, cntkctl_el1);
	write_sysreg(0, tpidrro_el0); /* nothing of the kernel's for EL0 to read */
	isb();
}

void arch_user_regs_init(struct user_regs *r, unsigned long entry, unsigned long sp)
{
	*r = (struct user_regs){ 0 };
	r->regs.elr = entry;
	r->regs.sp = sp;
}

void arch_user_set_kstack(void *top)
{
	uint64_t t = (uint64_t)(uintptr_t)top;

	if (t & 15)
		panic("arch_user_set_kstack: top %p is not 16-byte aligned", top);
	this_cpu()->arch.user_kstack = t;
	arch_user_init_cpu(); /* kernel/ sets a kstack on the CPU before every exec */
}

/*
 * Whatever the saved SPSR says (a future sigreturn lets the program write
 * it), the ERET goes to EL0t in AArch64 with interrupts unmasked: only
 * NZCV is the program's. IRQs taken at EL0 are acknowledged and counted
 * (el0_irq()); the kernel itself keeps them masked.
 */
void arch_return_to_user(struct user_regs *r)
{
	if (!this_cpu()->arch.user_kstack)
		panic("arch_return_to_user: no kstack on cpu%u (arch_user_set_kstack)",
		      smp_processor_id());
	r->regs.spsr &= SPSR_EL0_KEEP;
	arm64_ret_to_user(r);
}

long arch_syscall_nr(const struct user_regs *r)
{
	return (long)r->regs.x[8];
}

long arch_syscall_arg(const struct user_regs *r, int i)
{
	return (long)r->regs.x[i];
}

void arch_syscall_set_return(struct user_regs *r, long v)
{
	r->regs.x[0] = (uint64_t)v;
}

void arch_set_tls(struct user_regs *r, unsigned long v)
{
	r->tpidr = v;
}

void arch_user_regs_set_tls(struct user_regs *r, unsigned long tls)
{
	r->tpidr = tls;
}

const int arch_clone_child_tid_arg = 4; /* CONFIG_CLONE_BACKWARDS */

void arch_user_regs_set_sp(struct user_regs *r, unsigned long sp)
{
	r->regs.sp = sp;
}

/* TPIDR_EL0 and everything else user mode sees are in the frame. */
void arch_user_regs_fork(struct user_regs *child, const struct user_regs *parent)
{
	*child = *parent;
}

/* arch_switch_to() returns to x30 = @fn with SP = @stack_top; x29 = 0
 * ends a frame-pointer walk there. */
void arch_context_init(struct arch_context *c, void *stack_top, void (*fn)(void))
{
	*c = (struct arch_context){ 0 };
	c->x19_x30[11] = (uint64_t)(uintptr_t)fn;
	c->sp = (uint64_t)(uintptr_t)stack_top;
}

/* ---- exceptions from EL0 ------------------------------------------------- */

/* Is this data or instruction abort's status one mm/ may resolve:
 * address size, translation, access flag or permission fault? */
static bool fsc_is_mm(uint64_t esr)
{
	return (esr & ESR_DABT_FSC_MASK) < 0x10;
}

/* What the access was for handle_mm_fault(). A faulting cache maintenance
 * instruction reports WnR = 1 but needs only read access (DC ZVA is a
 * store and reports CM = 0). */
static unsigned abort_flags(uint64_t esr, unsigned ec)
{
	if (ec == ESR_EC_IABT_LOW)
		return FAULT_EXEC;
	return esr_dabt_is_write(esr) && !(esr & ESR_DABT_CM) ? FAULT_WRITE : 0;
}

static void el0_abort(struct user_regs *r, unsigned ec)
{
	uint64_t esr = r->regs.esr, far = r->regs.far;

	if (fsc_is_mm(esr) && !(ec == ESR_EC_DABT_LOW && (esr & ESR_DABT_FNV)) &&
	    far < MM_USER_END && current_mm &&
	    handle_mm_fault(current_mm, far, abort_flags(esr, ec)) == 0)
		return;
	if (fsc_is_mm(esr))
		user_fault_signal(r, SIGSEGV, user_segv_code(far), far);
	else
		user_fault_signal(
			r, SIGBUS,
			(esr & ESR_DABT_FSC_MASK) == ESR_FSC_ALIGN ? BUS_ADRALN : BUS_OBJERR, far);
}

/* The signal, si_code and si_addr Linux gives an exception class it does
 * not resolve. */
static int el0_signal(const struct user_regs *r, unsigned ec, int *code, unsigned long *addr)
{
	*addr = r->regs.elr;
	switch (ec) {
	case ESR_EC_PC_ALIGN:
		*addr = r->regs.far;
		*code = BUS_ADRALN;
		return SIGBUS;
	case ESR_EC_SP_ALIGN:
		*addr = r->regs.sp;
		*code = BUS_ADRALN;
		return SIGBUS;
	case ESR_EC_FP_EXC64:
		*code = FPE_FLTUNK; /* the trapped-exception bits are not decoded */
		return SIGFPE;
	case 0x30: /* breakpoint, software step, watchpoint from EL0 */
	case 0x32:
	case 0x34:
	case 0x3c: /* BRK */
		*code = ec == 0x32 ? TRAP_TRACE : TRAP_BRKPT;
		return SIGTRAP;
	}
	*code = ILL_ILLOPC;
	return SIGILL; /* unknown instruction, trapped system register, SVE, ... */
}

static void el0_sync(struct user_regs *r)
{
	unsigned ec = esr_ec(r->regs.esr);
	unsigned long addr;
	int sig, code;

	switch (ec) {
	case ESR_EC_SVC64:
		syscall_entry(r);
		return;
	case ESR_EC_DABT_LOW:
	case ESR_EC_IABT_LOW:
		el0_abort(r, ec);
		return;
	case ESR_EC_WFX:
		r->regs.elr += 4; /* a hint: completing at once is allowed */
		return;
	}
	sig = el0_signal(r, ec, &code, &addr);
	user_fault_signal(r, sig, code, addr);
}

/* The IRQ sources are the GIC's wake-up SGI (gic.c), which a CPU running
 * a program is not waiting for: acknowledged and ended; and the
 * scheduler's tick (tick.c): re-armed before it ends, then
 * user_timer_tick(). Without a GIC set up no IRQ is ever signalled. */
static void el0_irq(struct user_regs *r)
{
	uint64_t intid = ~0ull;
	bool tick;

	if (this_cpu()->arch.gicr_rd)
		intid = arm64_gic_ack();
	__atomic_fetch_add(&arm64_user_irqs, 1, __ATOMIC_RELAXED);
	tick = arm64_tick_rearm(intid);
	arm64_gic_eoi(intid);
	if (tick)
		user_timer_tick(r);
}

/*
 * arm64_el0_trap - the C side of an exception from EL0 (entry.S).
 * @r: the program's state at the top of the kstack; what it holds when
 * this returns is what the program resumes with.
 * @kind: VEC_GROUP_EL0_64 * 4 + VEC_TYPE_*.
 * Context: on the kstack, interrupts masked, the process's mm loaded.
 */
void arm64_el0_trap(struct user_regs *r, uint64_t kind)
{
	unsigned type = kind & 3;

	if (kind >> 2 != VEC_GROUP_EL0_64) /* no AArch32 EL0: cannot happen */
		panic("arm64_el0_trap: exception from AArch32 EL0 (vector %llu)",
		      (unsigned long long)kind);
	if (type == VEC_TYPE_SYNC)
		el0_sync(r);
	else if (type == VEC_TYPE_IRQ)
		el0_irq(r);
	else
		user_fault_fatal(SIGBUS, 0, r->regs.elr); /* SError (FIQ: none is routed) */
}

/* ---- what a program learns about the CPU --------------------------------- */

enum { ISAR0, ISAR1, PFR0, NR_IDREGS };

/* HWCAP bits (Linux's uapi <asm/hwcap.h> numbering) by ID register field:
 * set when the 4-bit field at @shift of @reg is at least @min. Only
 * instruction-set features EL0 can use without kernel support: no SVE,
 * SME, MTE, BTI or pointer authentication keys (all off here). */
static const struct hwcap_rule {
	uint8_t reg, shift, min, word; /* word: 1 = AT_HWCAP, 2 = AT_HWCAP2 */
	unsigned long bit;
} hwcap_rules[] = {
	{ ISAR0, 4, 1, 1, 1ul << 3 },	/* AES */
	{ ISAR0, 4, 2, 1, 1ul << 4 },	/* PMULL */
	{ ISAR0, 8, 1, 1, 1ul << 5 },	/* SHA1 */
	{ ISAR0, 12, 1, 1, 1ul << 6 },	/* SHA2 */
	{ ISAR0, 12, 2, 1, 1ul << 21 }, /* SHA512 */
	{ ISAR0, 16, 1, 1, 1ul << 7 },	/* CRC32 */
	{ ISAR0, 20, 2, 1, 1ul << 8 },	/* ATOMICS (LSE) */
	{ ISAR0, 28, 1, 1, 1ul << 12 }, /* ASIMDRDM */
	{ ISAR0, 32, 1, 1, 1ul << 17 }, /* SHA3 */
	{ ISAR0, 36, 1, 1, 1ul << 18 }, /* SM3 */
	{ ISAR0, 40, 1, 1, 1ul << 19 }, /* SM4 */
	{ ISAR0, 44, 1, 1, 1ul << 20 }, /* ASIMDDP */
	{ ISAR0, 48, 1, 1, 1ul << 23 }, /* ASIMDFHM */
	{ ISAR0, 52, 1, 1, 1ul << 27 }, /* FLAGM */
	{ ISAR0, 52, 2, 2, 1ul << 7 },	/* FLAGM2 */
	{ ISAR0, 60, 1, 2, 1ul << 16 }, /* RNG */
	{ ISAR1, 0, 1, 1, 1ul << 16 },	/* DCPOP */
	{ ISAR1, 0, 2, 2, 1ul << 0 },	/* DCPODP */
	{ ISAR1, 12, 1, 1, 1ul << 13 }, /* JSCVT */
	{ ISAR1, 16, 1, 1, 1ul << 14 }, /* FCMA */
	{ ISAR1, 20, 1, 1, 1ul << 15 }, /* LRCPC */
	{ ISAR1, 20, 2, 1, 1ul << 26 }, /* ILRCPC */
	{ ISAR1, 32, 1, 2, 1ul << 8 },	/* FRINT */
	{ ISAR1, 36, 1, 1, 1ul << 29 }, /* SB */
	{ ISAR1, 44, 1, 2, 1ul << 14 }, /* BF16 */
	{ ISAR1, 52, 1, 2, 1ul << 13 }, /* I8MM */
};

/* FP and AdvSIMD fields are signed: 0xf means absent, 1 adds half precision. */
static void fp_hwcaps(uint64_t pfr0, unsigned long *hwcap)
{
	unsigned fp = (pfr0 >> 16) & 0xf, simd = (pfr0 >> 20) & 0xf;

	if (fp != 0xf)
		*hwcap |= 1ul << 0 | (fp == 1 ? 1ul << 9 : 0); /* FP, FPHP */
	if (simd != 0xf)
		*hwcap |= 1ul << 1 | (simd == 1 ? 1ul << 10 : 0); /* ASIMD, ASIMDHP */
}

void arch_elf_info(struct arch_elf_info *info)
{
	uint64_t id[NR_IDREGS] = { read_sysreg(id_aa64isar0_el1), read_sysreg(id_aa64isar1_el1),
				   read_sysreg(id_aa64pfr0_el1) };
	unsigned long caps[3] = { 0 };

	for (unsigned i = 0; i < sizeof(hwcap_rules) / sizeof(hwcap_rules[0]); i++) {
		const struct hwcap_rule *h = &hwcap_rules[i];

		if (((id[h->reg] >> h->shift) & 0xf) >= h->min)
			caps[h->word] |= h->bit;
	}
	fp_hwcaps(id[PFR0], &caps[1]);
	/* AT_MINSIGSTKSZ: Linux's uapi MINSIGSTKSZ for arm64, at least the
	 * signal frame Linux builds without SVE or SME state. */
	*info = (struct arch_elf_info){ .machine = 183, /* EM_AARCH64 */
					.hwcap = caps[1],
					.hwcap2 = caps[2],
					.minsigstksz = 5120,
					.platform = "aarch64",
					.uts_machine = "aarch64" };
}

/* asm-generic's struct stat, which arm64 uses. */
struct arm64_stat {
	uint64_t dev, ino;
	uint32_t mode, nlink, uid, gid;
	uint64_t rdev, pad1;
	int64_t size;
	int32_t blksize, pad2;
	int64_t blocks;
	int64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	uint32_t unused[2];
};

unsigned long arch_stat_encode(const struct kstat *ks, void *out)
{
	struct arm64_stat *st = out;

	*st = (struct arm64_stat){ .dev = ks->dev,
				   .ino = ks->ino,
				   .mode = ks->mode,
				   .nlink = (uint32_t)ks->nlink,
				   .uid = ks->uid,
				   .gid = ks->gid,
				   .rdev = ks->rdev,
				   .size = (int64_t)ks->size,
				   .blksize = (int32_t)ks->blksize,
				   .blocks = (int64_t)ks->blocks };
	return sizeof(*st);
}
