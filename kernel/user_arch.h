/*
 * user_arch.h - the contract between the generic user-process code in
 * kernel/ (exec.c, syscall.c, process.c) and each arch's user mode
 * (x86_64 ring 3, arm64 EL0).
 *
 * Each arch provides:
 *   arch/<arch>/include/asm/user.h  struct user_regs (the saved user state,
 *                                   TLS register included) and nothing the
 *                                   generic code must know beyond its name,
 *                                   and ARCH_MINSIGSTKSZ (Linux's uapi
 *                                   MINSIGSTKSZ, sigaltstack()'s minimum);
 *   arch/<arch>/user.c, signal.c (+ an entry .S)  the functions declared
 *                                   below, and
 *                                   arch_syscall_numbers.
 * The generic side provides syscall_entry(), user_fault_signal() and
 * user_fault_fatal(), which the arch's entry code calls.
 *
 * Beyond the brief's list this header adds arch_user_set_kstack() (the
 * stack user-mode entries run on: each process has its own), arch_elf_info() (auxv
 * and uname values), arch_stat_encode() (struct stat differs per arch)
 * and user_fault_fatal() (an unresolvable user fault
 * ends the process, not the kernel). Syscall numbers are a struct of
 * SYSNR() values named by SYSCALL_LIST below: a field an arch leaves out
 * is 0, "no such call on this arch", and dispatches to -ENOSYS.
 */
#ifndef KERNEL_USER_ARCH_H
#define KERNEL_USER_ARCH_H

#include <asm/user.h> /* struct user_regs */

/* --- implemented by each arch ------------------------------------------- */

/* Per CPU, once, before any process runs on it: the system-call entry
 * (x86: STAR/LSTAR/FMASK/EFER.SCE; arm64: nothing beyond the vectors) and
 * the CPU features user code needs (x86: CR4.OSFXSR/OSXMMEXCPT). */
void arch_user_init_cpu(void);

/* @r: the state that starts a program at @entry with stack pointer @sp
 * (user mode, interrupts as the kernel runs them, every other register 0,
 * TLS 0). */
void arch_user_regs_init(struct user_regs *r, unsigned long entry, unsigned long sp);

/* System calls and exceptions taken from user mode run on the stack whose
 * top (16-byte aligned) is @top. Set before arch_return_to_user(). */
void arch_user_set_kstack(void *top);

/* Enter user mode with the state @r (the current mm's page tables are
 * already loaded), every register from @r (rt_sigreturn needs them all).
 * Never returns: the process ends inside syscall_entry() or
 * user_fault_fatal(), on the kstack, by switching away for good
 * (kernel/scheduler.c). */
__attribute__((noreturn)) void arch_return_to_user(struct user_regs *r);

/* The system call's number and argument @i (0..5) as user code passed them. */
long arch_syscall_nr(const struct user_regs *r);
long arch_syscall_arg(const struct user_regs *r, int i);

/* What the system call returns to user code (a value or -errno). */
void arch_syscall_set_return(struct user_regs *r, long v);

/* The thread pointer user code sees (x86: FS base; arm64: TPIDR_EL0). */
void arch_set_tls(struct user_regs *r, unsigned long v);

/* The user stack pointer @r resumes with (clone's newsp). */
void arch_user_regs_set_sp(struct user_regs *r, unsigned long sp);

/* Which clone() argument (3 or 4) is child_tid: x86_64 passes (flags,
 * newsp, parent_tid, child_tid, tls), arm64 (flags, newsp, parent_tid,
 * tls, child_tid). */
extern const int arch_clone_child_tid_arg;

/*
 * arch_user_regs_fork - @child becomes the state a fork child resumes
 * user mode from: a copy of @parent, the frame of the system call that
 * forks, plus whatever user state the arch keeps live in the CPU rather
 * than in that frame (x86: the FS base MSR). The caller then sets the
 * child's return value.
 * Context: in the parent's system call, on its CPU.
 */
void arch_user_regs_fork(struct user_regs *child, const struct user_regs *parent);

/*
 * Kernel task switch. struct arch_context (<asm/user.h>) is a process's
 * saved kernel context: the callee-saved registers of the arch's C ABI,
 * the stack pointer, and the user state the kernel keeps live in the CPU
 * instead of in the user_regs frame of an entry (x86: the FS base MSR;
 * arm64 keeps nothing live: TPIDR_EL0 and the FP/SIMD state are saved in
 * the frame at every entry from EL0, as x86 saves its fxsave state).
 * The kstack top (arch_user_set_kstack()) and the mm (switch_mm()) are
 * the caller's to switch.
 *
 * arch_context_init: @c, when switched to, runs @fn() on the stack whose
 * top (16-byte aligned) is @stack_top, as if called there; @fn never
 * returns.
 * arch_switch_to: save the running context in @prev and resume @next
 * (returns when something switches back to @prev).
 * Context: process context, interrupts as the caller runs them; no lock
 * held (a switched-out context keeps what it holds).
 */
struct arch_context;
void arch_context_init(struct arch_context *c, void *stack_top, void (*fn)(void));
void arch_switch_to(struct arch_context *prev, struct arch_context *next);

/*
 * The scheduler's tick (kernel/preempt.c). arch_tick_start: a periodic
 * interrupt every @period_us microseconds on this CPU; one taken in user
 * mode calls user_timer_tick() on the kstack, one taken in kernel mode
 * is only acknowledged. arch_tick_stop: no more ticks on this CPU.
 * Context: the CPU that runs processes, sched_run()'s context.
 */
void arch_tick_start(unsigned period_us);
void arch_tick_stop(void);

/* The thread pointer a clone(CLONE_SETTLS) child starts with, in @r only
 * (the caller's live TLS register is left alone). */
void arch_user_regs_set_tls(struct user_regs *r, unsigned long tls);

/* What exec.c and uname need to know about the arch. */
struct arch_elf_info {
	unsigned short machine;	   /* e_machine to accept: EM_X86_64, EM_AARCH64 */
	unsigned long hwcap;	   /* AT_HWCAP */
	unsigned long hwcap2;	   /* AT_HWCAP2 */
	unsigned long minsigstksz; /* AT_MINSIGSTKSZ; 0 leaves the entry out */
	const char *platform;	   /* AT_PLATFORM string: "x86_64", "aarch64" */
	const char *uts_machine;   /* uname's machine field */
};
void arch_elf_info(struct arch_elf_info *info);

/* A file's attributes; arch_stat_encode() writes them as this arch's
 * struct stat (x86_64's 144-byte layout, arm64's asm-generic 128 bytes)
 * into @out (ARCH_STAT_MAX bytes) and returns the size written. */
struct kstat {
	unsigned long dev, ino, nlink, rdev, size, blksize, blocks;
	unsigned mode, uid, gid;
};
#define ARCH_STAT_MAX 160
unsigned long arch_stat_encode(const struct kstat *ks, void *out);

/* --- signals (kernel/signal.c builds on these) ------------------------- */

struct linux_siginfo;
struct linux_stack;

/* The user state's stack pointer and program counter. */
unsigned long arch_user_sp(const struct user_regs *r);
unsigned long arch_user_pc(const struct user_regs *r);

/* Where a signal frame on the ordinary stack goes below: the user SP,
 * less x86_64's 128-byte red zone. */
unsigned long arch_signal_sp(const struct user_regs *r);

/* What arch_signal_frame() needs beyond @r. */
struct signal_frame_args {
	int sig;
	int siginfo;		/* SA_SIGINFO: copy @info, pass its address */
	int fault;		/* raised by an exception: the fault address is real */
	unsigned long handler;	/* the address the handler starts at */
	unsigned long restorer; /* its return address; 0: none given */
	unsigned long sp;	/* the frame goes below this */
	uint64_t mask;		/* uc_sigmask: restored by rt_sigreturn */
	const struct linux_siginfo *info;
	const struct linux_stack *stack; /* uc_stack */
};

/*
 * arch_signal_frame - write Linux's rt_sigframe for @a below @a->sp in
 * user memory, saving every register of @r (FP/SIMD included), then
 * change @r to enter the handler with Linux's arguments and return
 * address.
 * Return: 0, or -EFAULT when the frame cannot be written or the handler
 * cannot be entered (x86_64: no restorer); @r is unchanged then.
 */
int arch_signal_frame(struct user_regs *r, const struct signal_frame_args *a);

/*
 * arch_signal_return - rt_sigreturn: read the frame the user SP in @r
 * points at (as the restorer left it) and restore every register from
 * it into @r, returning in *@mask its uc_sigmask and in *@stack its
 * uc_stack. Return: 0, or -EFAULT for a frame Linux refuses too (@r is
 * unchanged then).
 */
int arch_signal_return(struct user_regs *r, uint64_t *mask, struct linux_stack *stack);

/* The sigreturn code kernel/signal.c maps into every process for
 * handlers without SA_RESTORER (arm64: mov x8, #139; svc #0, as
 * Linux's vDSO), or NULL where SA_RESTORER is required (x86_64). */
const void *arch_sigtramp(unsigned long *len);

/* --- the system-call numbering ------------------------------------------ */

/* Every call the generic table knows, by Linux's name. Calls one arch
 * lacks (open, readlink, arch_prctl, fork, vfork, pipe, dup2 on arm64)
 * stay 0 in its numbering. */
#define SYSCALL_LIST(X)                                                                            \
	X(read)                                                                                    \
	X(write)                                                                                   \
	X(readv)                                                                                   \
	X(writev)                                                                                  \
	X(open)                                                                                    \
	X(openat)                                                                                  \
	X(close)                                                                                   \
	X(pread64)                                                                                 \
	X(pwrite64)                                                                                \
	X(lseek)                                                                                   \
	X(fstat)                                                                                   \
	X(newfstatat)                                                                              \
	X(readlink)                                                                                \
	X(readlinkat)                                                                              \
	X(access)                                                                                  \
	X(faccessat)                                                                               \
	X(ioctl)                                                                                   \
	X(exit)                                                                                    \
	X(exit_group)                                                                              \
	X(brk)                                                                                     \
	X(mmap)                                                                                    \
	X(munmap)                                                                                  \
	X(mprotect)                                                                                \
	X(madvise)                                                                                 \
	X(uname)                                                                                   \
	X(getpid)                                                                                  \
	X(getppid)                                                                                 \
	X(gettid)                                                                                  \
	X(getuid)                                                                                  \
	X(geteuid)                                                                                 \
	X(getgid)                                                                                  \
	X(getegid)                                                                                 \
	X(arch_prctl)                                                                              \
	X(set_tid_address)                                                                         \
	X(clone)                                                                                   \
	X(fork)                                                                                    \
	X(vfork)                                                                                   \
	X(wait4)                                                                                   \
	X(pipe)                                                                                    \
	X(pipe2)                                                                                   \
	X(dup)                                                                                     \
	X(dup2)                                                                                    \
	X(dup3)                                                                                    \
	X(fcntl)                                                                                   \
	X(set_robust_list)                                                                         \
	X(rseq)                                                                                    \
	X(prlimit64)                                                                               \
	X(getrandom)                                                                               \
	X(clock_gettime)                                                                           \
	X(rt_sigaction)                                                                            \
	X(rt_sigprocmask)                                                                          \
	X(rt_sigreturn)                                                                            \
	X(rt_sigpending)                                                                           \
	X(sigaltstack)                                                                             \
	X(kill)                                                                                    \
	X(tkill)                                                                                   \
	X(tgkill)                                                                                  \
	X(futex)                                                                                   \
	X(sched_yield)                                                                             \
	X(sched_setscheduler)                                                                      \
	X(nanosleep)                                                                               \
	X(clock_nanosleep)                                                                         \
	X(mbind)                                                                                   \
	X(get_mempolicy)                                                                           \
	X(migrate_pages)                                                                           \
	X(move_pages)                                                                              \
	X(capget)                                                                                  \
	X(capset)                                                                                  \
	X(mremap)                                                                                  \
	X(vmsplice)                                                                                \
	X(clone3)                                                                                  \
	X(sched_getaffinity)                                                                       \
	X(sched_setaffinity)                                                                       \
	X(set_mempolicy)

/* A field holds SYSNR(Linux number); 0 means the arch has no such call. */
#define SYSNR(n) ((n) + 1)

struct syscall_numbers {
#define SYSCALL_FIELD(name) int name;
	SYSCALL_LIST(SYSCALL_FIELD)
#undef SYSCALL_FIELD
};

/* Linux's numbering on this arch, e.g. { .read = SYSNR(0), ... } on x86_64,
 * { .read = SYSNR(63), ... } on arm64. */
extern const struct syscall_numbers arch_syscall_numbers;

/* Numbers at or above this are refused (-ENOSYS, counted as "other"). */
#define SYSCALL_MAX_NR 1024

/* --- implemented by kernel/, called by the arch's entry code ----------- */

/*
 * syscall_entry - run the system call user code asked for in @r and store
 * its return value there, then deliver the pending signals the mask lets
 * through (@r may then enter a handler). Returns to the arch, which
 * resumes user mode from @r; does not return when the call ends the
 * process, nor from rt_sigreturn (which restores every register and
 * leaves by arch_return_to_user()).
 * Context: on the kstack, interrupts enabled, the process's mm loaded.
 */
void syscall_entry(struct user_regs *r);

/*
 * user_fault_signal - an exception user code caused that the kernel does
 * not resolve (a fault handle_mm_fault() refused, an undefined
 * instruction, ...): signal @sig with si_code @code and si_addr @addr,
 * as Linux forces it. With a handler installed and @sig not blocked,
 * @r is changed to enter the handler and this returns; otherwise (the
 * default action, SIG_IGN, blocked, or no room for the frame) it prints
 * one line and ends the process with status 128 + @sig.
 * Context: on the kstack, interrupts as the kernel runs.
 */
void user_fault_signal(struct user_regs *r, int sig, int code, unsigned long addr);

/* SEGV_ACCERR when a VMA of the current mm holds @addr, else SEGV_MAPERR:
 * the si_code of a page fault mm/ refused. */
int user_segv_code(unsigned long addr);

/*
 * user_timer_tick - a tick of arch_tick_start() taken in user mode: let
 * the next runnable process run (round robin), then deliver the pending
 * signals the mask lets through (@r may then enter a handler).
 * Context: on the kstack, interrupts as the kernel runs them, the tick
 * already acknowledged.
 */
void user_timer_tick(struct user_regs *r);

/* A tick taken in kernel mode: ask for a switch at the end of the
 * current system call (preempt_syscall_return(), syscall_entry()).
 * Context: the tick's interrupt handler, on the kstack. */
void kernel_timer_tick(void);
void preempt_syscall_return(void);

/*
 * preempt_ticks - the ticks taken in user mode so far. preempt_check_rate
 * - @ticks of them in @run_ns, one period of @period_us apart at the
 * least (the arch re-arms a tick when it is taken): more than
 * @run_ns / period + 1 means one interrupt was delivered twice (a level
 * still high when it ended: arm64 tick.c); says so in one line.
 */
unsigned long preempt_ticks(void);
void preempt_check_rate(uint64_t run_ns, unsigned long ticks, unsigned period_us);

/*
 * user_fault_fatal - print "exec: pid N killed by signal S (NAME) at
 * address A, pc P" and end the process with status 128 + @sig, with no
 * handler asked (an SError, a frame that cannot be written).
 * Context: on the kstack.
 */
__attribute__((noreturn)) void user_fault_fatal(int sig, unsigned long addr, unsigned long pc);

#endif
