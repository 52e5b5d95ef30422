/*
 * sigtest.c - signal delivery (kernel/signal.c), one case per argument;
 * tests/user/run.sh runs each and checks its last line and status.
 *
 *   longjmp   a store to a PROT_READ page and a load from an unmapped
 *             one reach a SIGSEGV handler with si_addr and si_code
 *             (ACCERR, MAPERR); it leaves by siglongjmp (mkdirty.c's
 *             way), the page is unmodified and SIGSEGV unblocked again
 *   resume    the handler mprotect()s the page writable and returns:
 *             rt_sigreturn resumes the store, which succeeds; every
 *             register the code holds across the fault (callee- and
 *             caller-saved, FP/SIMD, a volatile double) survives, and
 *             registers the handler changes in the frame take effect
 *   kill      kill/raise to itself with a handler (si_code, si_pid, the
 *             mask inside it), blocked then unblocked (rt_sigpending),
 *             SIG_IGN, default-ignored SIGCHLD, SA_RESETHAND, errors
 *   altstack  sigaltstack: SA_ONSTACK handlers run on it (SS_ONSTACK
 *             inside, EPERM to change it there), others do not
 *   traps     an undefined instruction (SIGILL), a breakpoint (SIGTRAP)
 *             and on x86 a divide by zero (SIGFPE) reach handlers with
 *             Linux's si_code and si_addr, trapno (x86) or an ESR record
 *             (arm64) in the frame; the handler steps over the
 *             instruction by changing the frame's PC
 *   badframe  rt_sigreturn on a forged frame Linux refuses (x86: a
 *             non-canonical RIP; arm64: an FP/SIMD record of the wrong
 *             size) is a SIGSEGV with SI_KERNEL, caught by a handler
 *   dfl       SIGUSR1 with SIG_DFL ends the process: status 138
 *   blocked   a SIGSEGV fault while SIGSEGV is blocked ends the process
 *             (139) even with a handler installed, as Linux forces it
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__aarch64__)
#include <asm/sigcontext.h>
#endif

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s:%d: %s: ", __func__, __LINE__, #cond);                     \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static volatile char *page;
static sigjmp_buf env;
static volatile int got_sig, got_code, handled;
static void *volatile got_addr;

static char *map_page(int prot)
{
	void *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("FAIL mmap: %s\n", strerror(errno));
		exit(1);
	}
	return p;
}

static bool sig_blocked(int sig)
{
	sigset_t cur;

	sigprocmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, sig);
}

/* ---- longjmp ------------------------------------------------------------- */

static void segv_jump(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_sig = sig;
	got_code = si->si_code;
	got_addr = si->si_addr;
	siglongjmp(env, 1);
}

static void mkdirty_style(int sig)
{
	got_sig = sig;
	siglongjmp(env, 1);
}

static void case_longjmp(void)
{
	struct sigaction sa = { .sa_sigaction = segv_jump, .sa_flags = SA_SIGINFO };
	char *hole;

	page = map_page(PROT_READ | PROT_WRITE);
	page[0] = 0x5a;
	mprotect((void *)page, 4096, PROT_READ);
	sigaction(SIGSEGV, &sa, NULL);
	if (!sigsetjmp(env, 1)) {
		page[1] = 7;
		CHECK(0, "the store to a read-only page did not fault");
	}
	CHECK(got_sig == SIGSEGV, "signal %d", got_sig);
	CHECK(got_code == SEGV_ACCERR, "si_code %d", got_code);
	CHECK(got_addr == page + 1, "si_addr %p, page %p", got_addr, (void *)page);
	CHECK(page[0] == 0x5a && page[1] == 0, "page now %#x %#x", page[0], page[1]);
	CHECK(!sig_blocked(SIGSEGV), "SIGSEGV still blocked after siglongjmp");

	hole = map_page(PROT_READ);
	munmap(hole, 4096);
	got_sig = 0;
	if (!sigsetjmp(env, 1)) {
		(void)*(volatile char *)(hole + 8);
		CHECK(0, "the load from an unmapped page did not fault");
	}
	CHECK(got_sig == SIGSEGV && got_code == SEGV_MAPERR, "signal %d si_code %d", got_sig,
	      got_code);
	CHECK(got_addr == hole + 8, "si_addr %p, wanted %p", got_addr, (void *)(hole + 8));

	signal(SIGSEGV, mkdirty_style); /* glibc's signal(): what mkdirty.c installs */
	got_sig = 0;
	if (!sigsetjmp(env, 1))
		page[2] = 9;
	CHECK(got_sig == SIGSEGV && page[2] == 0, "signal() handler: %d, page %#x", got_sig,
	      page[2]);
	CHECK(!sig_blocked(SIGSEGV), "SIGSEGV still blocked after the second siglongjmp");
}

/* ---- resume -------------------------------------------------------------- */

/* Values the code holds in registers across the faulting store, and what
 * the handler writes into the frame for two of them. */
#define NREGS 12
static const uint64_t pattern[NREGS] = {
	0x1111111111111111, 0x2222222222222222, 0x3333333333333333, 0x4444444444444444,
	0x5555555555555555, 0x6666666666666666, 0x7777777777777777, 0x8888888888888888,
	0x9999999999999999, 0xaaaaaaaaaaaaaaaa, 0xbbbbbbbbbbbbbbbb, 0xcccccccccccccccc,
};
#define FRAME_GPR_NEW 0x0123456789abcdefull
#define FRAME_VEC_NEW 0xfedcba9876543210ull
static volatile int frame_saw_gpr, frame_saw_vec;

#if defined(__x86_64__)
/* out[0..4]: rbx r12 r13 r14(*) r15; [5..8]: r8-r11; [9]: xmm0; [10]: xmm8(*);
 * [11]: xmm15. (*) rewritten in the frame by the handler. */
static void store_holding_regs(volatile char *p, uint64_t *out)
{
	__asm__ volatile("mov 0(%[i]), %%rbx\n\t"
			 "mov 8(%[i]), %%r12\n\t"
			 "mov 16(%[i]), %%r13\n\t"
			 "mov 24(%[i]), %%r14\n\t"
			 "mov 32(%[i]), %%r15\n\t"
			 "mov 40(%[i]), %%r8\n\t"
			 "mov 48(%[i]), %%r9\n\t"
			 "mov 56(%[i]), %%r10\n\t"
			 "mov 64(%[i]), %%r11\n\t"
			 "movq 72(%[i]), %%xmm0\n\t"
			 "movq 80(%[i]), %%xmm8\n\t"
			 "movq 88(%[i]), %%xmm15\n\t"
			 "movb $0x77, (%[p])\n\t"
			 "mov %%rbx, 0(%[o])\n\t"
			 "mov %%r12, 8(%[o])\n\t"
			 "mov %%r13, 16(%[o])\n\t"
			 "mov %%r14, 24(%[o])\n\t"
			 "mov %%r15, 32(%[o])\n\t"
			 "mov %%r8, 40(%[o])\n\t"
			 "mov %%r9, 48(%[o])\n\t"
			 "mov %%r10, 56(%[o])\n\t"
			 "mov %%r11, 64(%[o])\n\t"
			 "movq %%xmm0, 72(%[o])\n\t"
			 "movq %%xmm8, 80(%[o])\n\t"
			 "movq %%xmm15, 88(%[o])\n\t"
			 :
			 : [p] "r"(p), [i] "r"(pattern), [o] "r"(out)
			 : "rbx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "xmm0",
			   "xmm8", "xmm15", "memory");
}

#define REWRITTEN_GPR 3
#define REWRITTEN_VEC 10

/* Check the saved state in the frame, rewrite r14 and xmm8 there, and
 * clobber the live caller-saved registers (rt_sigreturn must undo it). */
static void frame_check_and_edit(ucontext_t *uc)
{
	mcontext_t *mc = &uc->uc_mcontext;
	uint64_t x8;

	frame_saw_gpr = (uint64_t)mc->gregs[REG_RBX] == pattern[0] &&
			(uint64_t)mc->gregs[REG_R11] == pattern[8];
	memcpy(&x8, &mc->fpregs->_xmm[8], 8);
	frame_saw_vec = x8 == pattern[10];
	mc->gregs[REG_R14] = (greg_t)FRAME_GPR_NEW;
	x8 = FRAME_VEC_NEW;
	memcpy(&mc->fpregs->_xmm[8], &x8, 8);
	__asm__ volatile(
		"xorps %%xmm0, %%xmm0\n\txorps %%xmm8, %%xmm8\n\txorps %%xmm15, %%xmm15\n\t"
		"xor %%r8d, %%r8d\n\txor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\t"
		"xor %%r11d, %%r11d"
		:
		:
		: "xmm0", "xmm8", "xmm15", "r8", "r9", "r10", "r11");
}
#elif defined(__aarch64__)
/* out[0..4]: x19 x20 x21(*) x27 x28; [5..8]: x9 x10 x11 x15; [9]: d0;
 * [10]: v16(*) low half; [11]: v31 low half. (*) rewritten by the handler. */
static void store_holding_regs(volatile char *p, uint64_t *out)
{
	__asm__ volatile("ldp x19, x20, [%[i], #0]\n\t"
			 "ldp x21, x27, [%[i], #16]\n\t"
			 "ldp x28, x9, [%[i], #32]\n\t"
			 "ldp x10, x11, [%[i], #48]\n\t"
			 "ldr x15, [%[i], #64]\n\t"
			 "ldr d0, [%[i], #72]\n\t"
			 "ldr d16, [%[i], #80]\n\t"
			 "ldr d31, [%[i], #88]\n\t"
			 "mov w17, #0x77\n\t"
			 "strb w17, [%[p]]\n\t"
			 "stp x19, x20, [%[o], #0]\n\t"
			 "stp x21, x27, [%[o], #16]\n\t"
			 "stp x28, x9, [%[o], #32]\n\t"
			 "stp x10, x11, [%[o], #48]\n\t"
			 "str x15, [%[o], #64]\n\t"
			 "str d0, [%[o], #72]\n\t"
			 "str d16, [%[o], #80]\n\t"
			 "str d31, [%[o], #88]\n\t"
			 :
			 : [p] "r"(p), [i] "r"(pattern), [o] "r"(out)
			 : "x9", "x10", "x11", "x15", "x17", "x19", "x20", "x21", "x27", "x28",
			   "v0", "v16", "v31", "memory");
}

#define REWRITTEN_GPR 2
#define REWRITTEN_VEC 10

static struct fpsimd_context *frame_fpsimd(ucontext_t *uc)
{
	struct _aarch64_ctx *h = (struct _aarch64_ctx *)(void *)uc->uc_mcontext.__reserved;

	return h->magic == FPSIMD_MAGIC ? (struct fpsimd_context *)h : NULL;
}

static void frame_check_and_edit(ucontext_t *uc)
{
	struct fpsimd_context *fp = frame_fpsimd(uc);
	uint64_t *r = (uint64_t *)uc->uc_mcontext.regs;
	uint64_t v16 = 0;

	if (fp)
		memcpy(&v16, &fp->vregs[16], 8);
	frame_saw_gpr = r[19] == pattern[0] && r[15] == pattern[8];
	frame_saw_vec = fp && v16 == pattern[10];
	r[21] = FRAME_GPR_NEW;
	v16 = FRAME_VEC_NEW;
	if (fp)
		memcpy(&fp->vregs[16], &v16, 8);
	__asm__ volatile("movi v0.16b, #0\n\tmovi v16.16b, #0\n\tmovi v31.16b, #0\n\t"
			 "mov x9, xzr\n\tmov x10, xzr\n\tmov x11, xzr\n\tmov x15, xzr"
			 :
			 :
			 : "v0", "v16", "v31", "x9", "x10", "x11", "x15");
}
#endif

static void segv_unprotect(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	handled++;
	got_addr = si->si_addr;
	frame_check_and_edit(uc);
	mprotect((void *)page, 4096, PROT_READ | PROT_WRITE);
}

static void case_resume(void)
{
	struct sigaction sa = { .sa_sigaction = segv_unprotect, .sa_flags = SA_SIGINFO };
	volatile double vd = 2.5;
	uint64_t out[NREGS] = { 0 };
	double d;

	page = map_page(PROT_READ);
	sigaction(SIGSEGV, &sa, NULL);
	d = vd * 3.0;
	store_holding_regs(page + 5, out);
	CHECK(handled == 1, "the handler ran %d times", handled);
	CHECK(got_addr == page + 5, "si_addr %p", got_addr);
	CHECK(page[5] == 0x77, "the resumed store wrote %#x", page[5]);
	CHECK(frame_saw_gpr, "the frame's saved general registers");
	CHECK(frame_saw_vec, "the frame's saved FP/SIMD registers");
	for (int i = 0; i < NREGS; i++) {
		uint64_t want = i == REWRITTEN_GPR   ? FRAME_GPR_NEW
				: i == REWRITTEN_VEC ? FRAME_VEC_NEW
						     : pattern[i];

		CHECK(out[i] == want, "register %d: %#llx, wanted %#llx", i,
		      (unsigned long long)out[i], (unsigned long long)want);
	}
	page[6] = 1; /* no fault now */
	mprotect((void *)page, 4096, PROT_READ);
	page[7] = 2; /* faults, handler, resumes */
	CHECK(handled == 2 && page[7] == 2, "second resume: handled %d, page %#x", handled,
	      page[7]);
	CHECK(d == 7.5, "the volatile double's product %f", d);
}

/* ---- kill ---------------------------------------------------------------- */

static volatile int usr1_count, usr1_code, usr1_pid, usr1_masked_ok;

static void usr1_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	(void)sig;
	usr1_count++;
	usr1_code = si->si_code;
	usr1_pid = si->si_pid;
	usr1_masked_ok = sig_blocked(SIGUSR1) && sig_blocked(SIGUSR2) && !sig_blocked(SIGTERM);
}

static volatile int usr2_count;

static void usr2_handler(int sig)
{
	(void)sig;
	usr2_count++;
}

static void case_kill(void)
{
	struct sigaction sa = { .sa_sigaction = usr1_handler, .sa_flags = SA_SIGINFO }, old;
	sigset_t set, pend;

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaction(SIGUSR1, &sa, NULL);
	CHECK(kill(getpid(), SIGUSR1) == 0, "kill: %s", strerror(errno));
	CHECK(usr1_count == 1, "after kill: %d deliveries", usr1_count);
	CHECK(usr1_code == SI_USER && usr1_pid == getpid(), "si_code %d si_pid %d", usr1_code,
	      usr1_pid);
	CHECK(usr1_masked_ok, "in the handler: SIGUSR1 and sa_mask blocked, nothing else");
	CHECK(!sig_blocked(SIGUSR1) && !sig_blocked(SIGUSR2), "mask after the handler");

	raise(SIGUSR1); /* glibc: tgkill with every signal blocked, then unblock */
	CHECK(usr1_count == 2 && usr1_code == SI_TKILL, "raise: %d deliveries, si_code %d",
	      usr1_count, usr1_code);

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR1);
	kill(0, SIGUSR1); /* pending once */
	CHECK(usr1_count == 2, "blocked, yet delivered (%d)", usr1_count);
	sigpending(&pend);
	CHECK(sigismember(&pend, SIGUSR1), "sigpending lacks SIGUSR1");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	CHECK(usr1_count == 3, "after the unblock: %d deliveries (want 3)", usr1_count);
	sigpending(&pend);
	CHECK(!sigismember(&pend, SIGUSR1), "still pending after delivery");

	signal(SIGUSR2, SIG_IGN);
	kill(getpid(), SIGUSR2);
	signal(SIGCHLD, SIG_DFL);
	kill(getpid(), SIGCHLD);
	kill(getpid(), 0);

	sa = (struct sigaction){ .sa_handler = usr2_handler, .sa_flags = SA_RESETHAND };
	sigaction(SIGUSR2, &sa, NULL);
	kill(getpid(), SIGUSR2);
	sigaction(SIGUSR2, NULL, &old);
	CHECK(usr2_count == 1 && old.sa_handler == SIG_DFL, "SA_RESETHAND: %d, handler %p",
	      usr2_count, (void *)old.sa_handler);

	errno = 0;
	CHECK(kill(12345, SIGUSR1) == -1 && errno == ESRCH, "kill(12345): errno %d", errno);
	errno = 0;
	CHECK(kill(getpid(), 99) == -1 && errno == EINVAL, "kill(sig 99): errno %d", errno);
	errno = 0;
	CHECK(sigaction(SIGKILL, &sa, NULL) == -1 && errno == EINVAL, "sigaction(SIGKILL)");
}

/* ---- altstack ------------------------------------------------------------ */

static char *alt_base;
static volatile int alt_on, alt_flags, alt_eperm;

static void alt_handler(int sig)
{
	stack_t now, ss = { .ss_size = 65536 };
	char local;

	(void)sig;
	alt_on = &local >= alt_base && &local < alt_base + 65536;
	sigaltstack(NULL, &now);
	alt_flags = now.ss_flags;
	ss.ss_sp = alt_base;
	alt_eperm = sigaltstack(&ss, NULL) == -1 && errno == EPERM;
}

static void case_altstack(void)
{
	stack_t ss = { .ss_size = 65536 }, old;
	struct sigaction sa = { .sa_handler = alt_handler, .sa_flags = SA_ONSTACK };

	alt_base = malloc(65536);
	ss.ss_sp = alt_base;
	sigaltstack(NULL, &old);
	CHECK(old.ss_flags == SS_DISABLE, "before: flags %d", old.ss_flags);
	ss.ss_size = 1024;
	errno = 0;
	CHECK(sigaltstack(&ss, NULL) == -1 && errno == ENOMEM, "1 KiB stack: errno %d", errno);
	ss.ss_size = 65536;
	CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack: %s", strerror(errno));
	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);
	CHECK(alt_on, "the SA_ONSTACK handler ran off the alternate stack");
	CHECK(alt_flags == SS_ONSTACK, "flags inside: %d", alt_flags);
	CHECK(alt_eperm, "changing the stack while on it");
	sigaltstack(NULL, &old);
	CHECK(old.ss_flags == 0 && old.ss_sp == alt_base && old.ss_size == 65536,
	      "after: flags %d sp %p size %zu", old.ss_flags, old.ss_sp, old.ss_size);

	sa.sa_flags = 0;
	sigaction(SIGUSR1, &sa, NULL);
	alt_on = 1;
	kill(getpid(), SIGUSR1);
	CHECK(!alt_on, "a handler without SA_ONSTACK ran on the alternate stack");
}

/* ---- traps --------------------------------------------------------------- */

static volatile int trap_sig, trap_code, trap_ctx_ok;
static void *volatile trap_addr;

#if defined(__x86_64__)
/* ud2 and idiv %ecx are 2 bytes: step over them; int3 already has. The
 * frame's trapno says which vector it was. */
static void trap_step(ucontext_t *uc, int sig)
{
	greg_t *g = uc->uc_mcontext.gregs;

	trap_ctx_ok = g[REG_TRAPNO] == (sig == SIGILL ? 6 : sig == SIGFPE ? 0 : 3);
	if (sig != SIGTRAP)
		g[REG_RIP] += 2;
}

static void *raise_ill(void)
{
	void *at;

	__asm__ volatile("lea 1f(%%rip), %0\n1:\tud2" : "=r"(at));
	return at;
}

static void *raise_trap(void)
{
	__asm__ volatile("int3");
	return NULL; /* int3's si_addr: 0, si_code SI_KERNEL (Linux) */
}

static void *raise_fpe(void)
{
	void *at;

	__asm__ volatile("lea 1f(%%rip), %0\n\txor %%ecx, %%ecx\n\tmov $1, %%eax\n\tcltd\n"
			 "1:\tidivl %%ecx"
			 : "=&r"(at)
			 :
			 : "eax", "ecx", "edx");
	return at;
}
#define ILL_CODE ILL_ILLOPN
#define TRAP_CODE SI_KERNEL
#elif defined(__aarch64__)
/* Step over udf and brk; an ESR record must follow the FP/SIMD one. */
static void trap_step(ucontext_t *uc, int sig)
{
	struct _aarch64_ctx *h = (struct _aarch64_ctx *)(void *)uc->uc_mcontext.__reserved;

	(void)sig;
	h = (struct _aarch64_ctx *)(void *)((char *)h + h->size);
	trap_ctx_ok = h->magic == ESR_MAGIC && h->size == sizeof(struct esr_context);
	uc->uc_mcontext.pc += 4;
}

static void *raise_ill(void)
{
	void *at;

	__asm__ volatile("adr %0, 1f\n1:\tudf #0" : "=r"(at));
	return at;
}

static void *raise_trap(void)
{
	void *at;

	__asm__ volatile("adr %0, 1f\n1:\tbrk #7" : "=r"(at));
	return at;
}
#define ILL_CODE ILL_ILLOPC
#define TRAP_CODE TRAP_BRKPT
#endif

static void trap_handler(int sig, siginfo_t *si, void *uc)
{
	trap_sig = sig;
	trap_code = si->si_code;
	trap_addr = si->si_addr;
	trap_step(uc, sig);
}

/* @raise's exception reaches the handler as @sig, si_code @code, si_addr
 * the instruction's address; the handler steps over it and returns. */
static void trap_check(const char *what, void *(*raise)(void), int sig, int code)
{
	void *at;

	trap_sig = trap_code = trap_ctx_ok = 0;
	at = raise();
	CHECK(trap_sig == sig && trap_code == code, "%s: signal %d si_code %d", what, trap_sig,
	      trap_code);
	CHECK(trap_addr == at, "%s: si_addr %p, wanted %p", what, trap_addr, at);
	CHECK(trap_ctx_ok, "%s: the frame's trapno or ESR record", what);
}

static void case_traps(void)
{
	struct sigaction sa = { .sa_sigaction = trap_handler, .sa_flags = SA_SIGINFO };

	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	trap_check("undefined instruction", raise_ill, SIGILL, ILL_CODE);
	trap_check("breakpoint", raise_trap, SIGTRAP, TRAP_CODE);
#if defined(__x86_64__)
	trap_check("divide by zero", raise_fpe, SIGFPE, FPE_INTDIV);
#endif
}

/* ---- badframe ------------------------------------------------------------ */

/* A stack for a forged frame: rt_sigreturn reads it, the SIGSEGV handler
 * then runs below it and leaves by siglongjmp. */
static uint64_t forged[2048] __attribute__((aligned(64)));
#define FORGED_AT 1024 /* the frame's word in forged[] */
static unsigned long after_call;
static volatile unsigned long segv_pc;

#if defined(__x86_64__)
/* uc_mcontext.rip non-canonical: IRETQ could not take it. */
static void forge_frame(void)
{
	ucontext_t *uc = (ucontext_t *)(void *)&forged[FORGED_AT + 1]; /* after pretcode */

	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)0x8000000000001000ull;
	uc->uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&forged[FORGED_AT];
}

/* The SIGSEGV comes from the system call, so the PC in the handler's frame
 * is the instruction after it (saved in after_call). */
static void sigreturn_forged(void)
{
	__asm__ volatile("lea 1f(%%rip), %%rax\n\tmov %%rax, %1\n\t"
			 "mov %0, %%rsp\n\tmov $15, %%eax\n\tsyscall\n1:"
			 :
			 : "r"(&forged[FORGED_AT + 1]), "m"(after_call)
			 : "rax", "rcx", "r11", "memory");
}

static unsigned long frame_pc(ucontext_t *uc)
{
	return (unsigned long)uc->uc_mcontext.gregs[REG_RIP];
}
#elif defined(__aarch64__)
/* An FP/SIMD record of the wrong size. */
static void forge_frame(void)
{
	ucontext_t *uc = (ucontext_t *)(void *)&forged[FORGED_AT + 16]; /* after siginfo */
	struct _aarch64_ctx *h = (struct _aarch64_ctx *)(void *)uc->uc_mcontext.__reserved;

	h->magic = FPSIMD_MAGIC;
	h->size = 16;
}

static void sigreturn_forged(void)
{
	__asm__ volatile("adr x8, 1f\n\tstr x8, %1\n\t"
			 "mov sp, %0\n\tmov x8, #139\n\tsvc #0\n1:"
			 :
			 : "r"(&forged[FORGED_AT]), "m"(after_call)
			 : "x8", "memory");
}

static unsigned long frame_pc(ucontext_t *uc)
{
	return (unsigned long)uc->uc_mcontext.pc;
}
#endif

static void segv_pc_jump(int sig, siginfo_t *si, void *uc)
{
	segv_pc = frame_pc(uc);
	segv_jump(sig, si, uc);
}

/* Refused by the kernel, the frame gives a SIGSEGV at the system call; a
 * frame taken would fault later, elsewhere. */
static void case_badframe(void)
{
	struct sigaction sa = { .sa_sigaction = segv_pc_jump, .sa_flags = SA_SIGINFO };

	forge_frame();
	sigaction(SIGSEGV, &sa, NULL);
	got_sig = 0;
	if (!sigsetjmp(env, 1)) {
		sigreturn_forged();
		CHECK(0, "rt_sigreturn took the forged frame");
	}
	CHECK(got_sig == SIGSEGV && got_code == SI_KERNEL && got_addr == NULL,
	      "signal %d si_code %d si_addr %p", got_sig, got_code, got_addr);
	CHECK(segv_pc == after_call, "the SIGSEGV's pc %#lx, the system call's %#lx", segv_pc,
	      after_call);
}

/* ---- ending ones ----------------------------------------------------------- */

static void case_dfl(void)
{
	printf("sigtest dfl: sending SIGUSR1 with SIG_DFL\n");
	fflush(stdout);
	kill(getpid(), SIGUSR1);
	printf("FAIL: SIGUSR1 with SIG_DFL did not end the process\n");
	failures++;
}

static void case_blocked(void)
{
	struct sigaction sa = { .sa_sigaction = segv_jump, .sa_flags = SA_SIGINFO };
	sigset_t set;

	page = map_page(PROT_READ);
	sigaction(SIGSEGV, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGSEGV);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("sigtest blocked: storing with SIGSEGV blocked\n");
	fflush(stdout);
	if (!sigsetjmp(env, 1))
		page[0] = 1;
	printf("FAIL: the handler of a blocked SIGSEGV ran\n");
	failures++;
}

static const struct {
	const char *name;
	void (*run)(void);
} cases[] = {
	{ "longjmp", case_longjmp },   { "resume", case_resume },   { "kill", case_kill },
	{ "altstack", case_altstack }, { "traps", case_traps },	    { "dfl", case_dfl },
	{ "badframe", case_badframe }, { "blocked", case_blocked },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc < 2 || strcmp(argv[1], cases[i].name))
			continue;
		cases[i].run();
		printf("sigtest %s: %s\n", cases[i].name, failures ? "FAILED" : "ok");
		return failures ? 1 : 0;
	}
	printf("usage: sigtest longjmp|resume|kill|altstack|traps|badframe|dfl|blocked\n");
	return 2;
}
