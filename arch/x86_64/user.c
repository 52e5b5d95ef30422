/*
 * user.c (x86_64) - ring 3 for kernel/user_arch.h: SYSCALL set-up, the
 * first entry, the syscall ABI (RAX number; RDI, RSI, RDX, R10, R8, R9
 * arguments; RAX result), the FS base, and exceptions user code causes.
 *
 * The GDT (traps.c) has the user selectors where SYSRET wants them: STAR
 * bits 63:48 hold 0x10, so SYSRET loads SS = 0x18 | 3 (user data) and
 * CS = 0x20 | 3 (user 64-bit code); SYSCALL loads CS = 0x08, SS = 0x10.
 */
#include <stddef.h>
#include <string.h>

#include "kernel.h"
#include "ksignal.h"
#include "mm.h"
#include "percpu.h"
#include "user_arch.h"

#include <asm/mmu.h>
#include <asm/traps.h>

#define MSR_EFER 0xc0000080
#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_FMASK 0xc0000084
#define MSR_FS_BASE 0xc0000100
#define EFER_SCE (1ul << 0)
/* Cleared on SYSCALL: TF, IF, DF, IOPL, NT, AC (as Linux). */
#define SYSCALL_FMASK 0x47700ul
#define USER_RFLAGS 0x202ul /* IF, and the always-one bit */
#define FCW_DEFAULT 0x37f
#define MXCSR_DEFAULT 0x1f80
#define FXSAVE_MXCSR 24

extern char x86_syscall_entry[];
extern uint64_t x86_user_kstack_top;
void x86_user_enter(struct user_regs *r) __attribute__((noreturn));
void x86_switch_stack(uint64_t *prev_sp, uint64_t next_sp);

_Static_assert(offsetof(struct user_regs, rip) == 0x78, "user_entry.S USER_RIP");
_Static_assert(offsetof(struct user_regs, fxsave) == 0xa0, "user_entry.S USER_FXSAVE");
_Static_assert(sizeof(struct user_regs) == 0x2c0, "user_entry.S USER_REGS_SIZE");

const struct syscall_numbers arch_syscall_numbers = {
	.read = SYSNR(0),
	.write = SYSNR(1),
	.open = SYSNR(2),
	.close = SYSNR(3),
	.fstat = SYSNR(5),
	.lseek = SYSNR(8),
	.mmap = SYSNR(9),
	.mprotect = SYSNR(10),
	.munmap = SYSNR(11),
	.brk = SYSNR(12),
	.rt_sigaction = SYSNR(13),
	.rt_sigprocmask = SYSNR(14),
	.rt_sigreturn = SYSNR(15),
	.ioctl = SYSNR(16),
	.pread64 = SYSNR(17),
	.pwrite64 = SYSNR(18),
	.readv = SYSNR(19),
	.writev = SYSNR(20),
	.access = SYSNR(21),
	.sched_yield = SYSNR(24),
	.sched_setscheduler = SYSNR(144),
	.madvise = SYSNR(28),
	.nanosleep = SYSNR(35),
	.getpid = SYSNR(39),
	.exit = SYSNR(60),
	.kill = SYSNR(62),
	.uname = SYSNR(63),
	.readlink = SYSNR(89),
	.getuid = SYSNR(102),
	.getgid = SYSNR(104),
	.geteuid = SYSNR(107),
	.getegid = SYSNR(108),
	.getppid = SYSNR(110),
	.rt_sigpending = SYSNR(127),
	.sigaltstack = SYSNR(131),
	.arch_prctl = SYSNR(158),
	.gettid = SYSNR(186),
	.tkill = SYSNR(200),
	.futex = SYSNR(202),
	.set_tid_address = SYSNR(218),
	.clone = SYSNR(56),
	.fork = SYSNR(57),
	.vfork = SYSNR(58),
	.wait4 = SYSNR(61),
	.pipe = SYSNR(22),
	.pipe2 = SYSNR(293),
	.dup = SYSNR(32),
	.dup2 = SYSNR(33),
	.dup3 = SYSNR(292),
	.fcntl = SYSNR(72),
	.clock_gettime = SYSNR(228),
	.clock_nanosleep = SYSNR(230),
	.mbind = SYSNR(237),
	.get_mempolicy = SYSNR(239),
	.migrate_pages = SYSNR(256),
	.move_pages = SYSNR(279),
	.capget = SYSNR(125),
	.capset = SYSNR(126),
	.mremap = SYSNR(25),
	.vmsplice = SYSNR(278),
	.exit_group = SYSNR(231),
	.tgkill = SYSNR(234),
	.openat = SYSNR(257),
	.newfstatat = SYSNR(262),
	.readlinkat = SYSNR(267),
	.faccessat = SYSNR(269),
	.set_robust_list = SYSNR(273),
	.prlimit64 = SYSNR(302),
	.getrandom = SYSNR(318),
	.rseq = SYSNR(334),
	.clone3 = SYSNR(435),
	.sched_getaffinity = SYSNR(204),
	.set_mempolicy = SYSNR(238),
	.sched_setaffinity = SYSNR(203),
};

void arch_user_init_cpu(void)
{
	wrmsr(MSR_STAR, 0x10ul << 48 | 0x08ul << 32);
	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)x86_syscall_entry);
	wrmsr(MSR_FMASK, SYSCALL_FMASK);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
}

void x86_fxsave_init(uint8_t *fx)
{
	uint32_t mxcsr = MXCSR_DEFAULT;
	uint16_t fcw = FCW_DEFAULT;

	memset(fx, 0, 512);
	memcpy(fx, &fcw, sizeof(fcw));
	memcpy(fx + FXSAVE_MXCSR, &mxcsr, sizeof(mxcsr));
}

void arch_user_regs_init(struct user_regs *r, unsigned long entry, unsigned long sp)
{
	memset(r, 0, sizeof(*r));
	r->rip = entry;
	r->rsp = sp;
	r->rflags = USER_RFLAGS;
	x86_fxsave_init(r->fxsave);
}

void arch_user_set_kstack(void *top)
{
	x86_user_kstack_top = (uint64_t)(uintptr_t)top;
	x86_tss_set_rsp0(smp_processor_id(), x86_user_kstack_top);
}

void arch_return_to_user(struct user_regs *r)
{
	arch_user_init_cpu();
	wrmsr(MSR_FS_BASE, r->fs_base);
	x86_user_enter(r);
}

long arch_syscall_nr(const struct user_regs *r)
{
	return (long)r->rax;
}

long arch_syscall_arg(const struct user_regs *r, int i)
{
	const uint64_t v[6] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 };

	return i >= 0 && i < 6 ? (long)v[i] : 0;
}

void arch_syscall_set_return(struct user_regs *r, long v)
{
	r->rax = (uint64_t)v;
}

/* The FS base is live in the MSR while the process runs on this CPU. */
void arch_set_tls(struct user_regs *r, unsigned long v)
{
	r->fs_base = v;
	wrmsr(MSR_FS_BASE, v);
}

const int arch_clone_child_tid_arg = 3;

void arch_user_regs_set_sp(struct user_regs *r, unsigned long sp)
{
	r->rsp = sp;
}

/* The frame holds every register but the FS base, which is live in the
 * MSR (arch_set_tls() writes both, and nothing else changes it). */
void arch_user_regs_fork(struct user_regs *child, const struct user_regs *parent)
{
	*child = *parent;
	child->fs_base = rdmsr(MSR_FS_BASE);
}

/* x86_switch_stack() pops six registers, then returns into @fn; the zero
 * above is @fn's return address, so @fn starts with RSP + 8 16-aligned,
 * as after a call. */
void arch_context_init(struct arch_context *c, void *stack_top, void (*fn)(void))
{
	uint64_t *sp = (uint64_t *)stack_top - 8;

	memset(sp, 0, 8 * sizeof(*sp));
	sp[6] = (uint64_t)(uintptr_t)fn;
	*c = (struct arch_context){ .sp = (uint64_t)(uintptr_t)sp };
}

void arch_switch_to(struct arch_context *prev, struct arch_context *next)
{
	prev->fs_base = rdmsr(MSR_FS_BASE);
	wrmsr(MSR_FS_BASE, next->fs_base);
	x86_switch_stack(&prev->sp, next->sp);
}

#define HWCAP_X86_SSE2 (1ul << 26) /* CPUID.1:EDX, which Linux passes as AT_HWCAP */

void arch_elf_info(struct arch_elf_info *info)
{
	uint32_t a = 1, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	*info = (struct arch_elf_info){ .machine = 62,
					.hwcap = d,
					.hwcap2 = 0,
					.minsigstksz = 0,
					.platform = "x86_64",
					.uts_machine = "x86_64" };
}

struct x86_stat {
	uint64_t dev, ino, nlink;
	uint32_t mode, uid, gid, pad0;
	uint64_t rdev;
	int64_t size, blksize, blocks;
	uint64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	int64_t unused[3];
};

unsigned long arch_stat_encode(const struct kstat *ks, void *out)
{
	struct x86_stat *st = out;

	_Static_assert(sizeof(struct x86_stat) == 144, "x86_64 struct stat");
	*st = (struct x86_stat){ .dev = ks->dev,
				 .ino = ks->ino,
				 .nlink = ks->nlink,
				 .mode = ks->mode,
				 .uid = ks->uid,
				 .gid = ks->gid,
				 .rdev = ks->rdev,
				 .size = (int64_t)ks->size,
				 .blksize = (int64_t)ks->blksize,
				 .blocks = (int64_t)ks->blocks };
	return sizeof(*st);
}

/* The signal, si_code and si_addr Linux gives exception @f taken in
 * user mode (a page fault mm/ refused, when @f is one, at @cr2). */
static int trap_signal(const struct trap_frame *f, uint64_t cr2, int *code, unsigned long *addr)
{
	*addr = f->rip;
	switch (f->vector) {
	case 0: /* #DE */
		*code = FPE_INTDIV;
		return SIGFPE;
	case 16:		    /* #MF */
	case 19:		    /* #XM */
		*code = FPE_FLTUNK; /* the status word is not decoded */
		return SIGFPE;
	case 6: /* #UD */
		*code = ILL_ILLOPN;
		return SIGILL;
	case 1: /* #DB: TF single-step */
		*code = TRAP_TRACE;
		return SIGTRAP;
	case 17: /* #AC */
		*code = BUS_ADRALN;
		*addr = 0;
		return SIGBUS;
	case 14:
		*code = user_segv_code(cr2);
		*addr = cr2;
		return SIGSEGV;
	case 3: /* #BP (int3): SIGTRAP, SI_KERNEL as Linux */
		*code = SI_KERNEL;
		*addr = 0;
		return SIGTRAP;
	default: /* #GP, #SS, #NP, ...: SI_KERNEL, no address */
		*code = SI_KERNEL;
		*addr = 0;
		return SIGSEGV;
	}
}

/* The trap frame and fxsave image as a struct user_regs and back; the
 * 15 general registers are in the same order in both. */
static void trap_to_regs(const struct trap_frame *f, const uint8_t *fx, uint64_t cr2,
			 struct user_regs *r)
{
	_Static_assert(offsetof(struct trap_frame, rax) == offsetof(struct user_regs, rax),
		       "trap_frame and user_regs registers");
	memcpy(r, f, offsetof(struct user_regs, rip));
	r->rip = f->rip;
	r->rsp = f->rsp;
	r->rflags = f->rflags;
	r->fs_base = rdmsr(MSR_FS_BASE);
	memcpy(r->fxsave, fx, sizeof(r->fxsave));
	r->trapno = f->vector;
	r->err = f->error;
	r->cr2 = f->vector == 14 ? cr2 : 0;
}

static void regs_to_trap(const struct user_regs *r, struct trap_frame *f, uint8_t *fx)
{
	memcpy(f, r, offsetof(struct user_regs, rip));
	f->rip = r->rip;
	f->rsp = r->rsp;
	f->rflags = r->rflags;
	memcpy(fx, r->fxsave, sizeof(r->fxsave));
}

int x86_user_exception(struct trap_frame *f, uint64_t cr2, uint8_t *fx)
{
	struct user_regs r;
	unsigned long addr;
	int sig, code;

	if ((f->cs & 3) != 3 || f->vector >= 32)
		return 0;
	if (f->vector == 14 && arch_handle_user_fault(f, cr2))
		return 1;
	__asm__ volatile("sti" : : : "memory"); /* the kernel runs with interrupts on */
	sig = trap_signal(f, cr2, &code, &addr);
	trap_to_regs(f, fx, cr2, &r);
	user_fault_signal(&r, sig, code, addr);
	__asm__ volatile("cli" : : : "memory");
	regs_to_trap(&r, f, fx);
	return 1;
}

/* Interrupts are on around user_timer_tick(), as in a system call: the
 * process it switches to may resume inside one. */
void x86_user_tick(struct trap_frame *f, uint8_t *fx)
{
	struct user_regs r;

	trap_to_regs(f, fx, 0, &r);
	__asm__ volatile("sti" : : : "memory");
	user_timer_tick(&r);
	__asm__ volatile("cli" : : : "memory");
	regs_to_trap(&r, f, fx);
}

void arch_user_regs_set_tls(struct user_regs *r, unsigned long tls)
{
	r->fs_base = tls;
}
