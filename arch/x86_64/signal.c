/*
 * signal.c (x86_64) - Linux's 64-bit rt_sigframe (kernel/user_arch.h:
 * arch_signal_frame(), arch_signal_return()).
 *
 * Below the user stack (less the 128-byte red zone) or at the top of the
 * alternate stack, from high to low addresses:
 *
 *   fxsave image (512 bytes, 64-byte aligned; sigcontext.fpstate points here)
 *   struct rt_sigframe: pretcode (sa_restorer), ucontext, siginfo
 *   <- RSP at the handler's first instruction; RSP + 8 is 16-byte aligned
 *
 * The image is fxsave's, not XSAVE's: uc_flags has no UC_FP_XSTATE and
 * the image's software-reserved bytes carry no FP_XSTATE_MAGIC1, so
 * glibc and the restorer treat it as legacy FP state. The handler runs
 * with the FPU as a new program has it, as on Linux.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "kernel.h"
#include "ksignal.h"
#include "mm.h"
#include "process.h"
#include "user_arch.h"

#include <asm/mmu.h>

#define MSR_FS_BASE 0xc0000100
#define USER_CS (0x20 | 3) /* the selectors IRETQ/SYSRET load (user.c) */
#define USER_SS (0x18 | 3)
#define REDZONE 128
#define FX_SIZE 512
#define FX_SW_RESERVED 464 /* fxsave bytes 464..511: software's (XSAVE's magic) */
#define FX_MXCSR 24
#define FX_MXCSR_MASK 28
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4
/* The RFLAGS bits rt_sigreturn takes from the frame (Linux's FIX_EFLAGS). */
#define X86_EFLAGS_CF 0x1ul
#define X86_EFLAGS_PF 0x4ul
#define X86_EFLAGS_AF 0x10ul
#define X86_EFLAGS_ZF 0x40ul
#define X86_EFLAGS_SF 0x80ul
#define X86_EFLAGS_TF 0x100ul
#define X86_EFLAGS_IF 0x200ul
#define X86_EFLAGS_DF 0x400ul
#define X86_EFLAGS_OF 0x800ul
#define X86_EFLAGS_RF 0x10000ul
#define X86_EFLAGS_AC 0x40000ul
#define FIX_EFLAGS                                                                                 \
	(X86_EFLAGS_AC | X86_EFLAGS_OF | X86_EFLAGS_DF | X86_EFLAGS_TF | X86_EFLAGS_SF |           \
	 X86_EFLAGS_ZF | X86_EFLAGS_AF | X86_EFLAGS_PF | X86_EFLAGS_CF | X86_EFLAGS_RF)
#define EFLAGS_FIXED_ONE 0x2ul

/* uapi <asm/sigcontext.h>: struct sigcontext (64-bit), glibc's mcontext_t. */
struct x86_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate; /* the fxsave image's address; 0: the FPU's initial state */
	uint64_t reserved1[8];
};

struct x86_ucontext {
	uint64_t flags, link;
	struct linux_stack stack;
	struct x86_sigcontext mc;
	uint64_t sigmask;
};

struct x86_rt_sigframe {
	uint64_t pretcode; /* the handler's return address */
	struct x86_ucontext uc;
	struct linux_siginfo info;
};

_Static_assert(sizeof(struct x86_sigcontext) == 256, "x86 struct sigcontext");
_Static_assert(offsetof(struct x86_ucontext, mc) == 40, "uc_mcontext");
_Static_assert(offsetof(struct x86_ucontext, sigmask) == 296, "uc_sigmask");
_Static_assert(offsetof(struct x86_rt_sigframe, info) == 312, "rt_sigframe.info");
_Static_assert(sizeof(struct linux_siginfo) == 128, "siginfo_t");
_Static_assert(sizeof(struct linux_stack) == 24, "stack_t");

unsigned long arch_user_sp(const struct user_regs *r)
{
	return r->rsp;
}

unsigned long arch_user_pc(const struct user_regs *r)
{
	return r->rip;
}

unsigned long arch_signal_sp(const struct user_regs *r)
{
	return r->rsp - REDZONE;
}

/* SA_RESTORER is required: glibc's __restore_rt is the return address. */
const void *arch_sigtramp(unsigned long *len)
{
	*len = 0;
	return NULL;
}

/* Would IRETQ or SYSRET take @a (bits 63:47 all equal)? */
static bool canonical(uint64_t a)
{
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

static void sigcontext_save(struct x86_sigcontext *sc, const struct user_regs *r,
			    const struct signal_frame_args *a, unsigned long fx_at)
{
	*sc = (struct x86_sigcontext){
		.r8 = r->r8,
		.r9 = r->r9,
		.r10 = r->r10,
		.r11 = r->r11,
		.r12 = r->r12,
		.r13 = r->r13,
		.r14 = r->r14,
		.r15 = r->r15,
		.rdi = r->rdi,
		.rsi = r->rsi,
		.rbp = r->rbp,
		.rbx = r->rbx,
		.rdx = r->rdx,
		.rax = r->rax,
		.rcx = r->rcx,
		.rsp = r->rsp,
		.rip = r->rip,
		.eflags = r->rflags,
		.cs = USER_CS,
		.ss = USER_SS,
		.oldmask = a->mask,
		.fpstate = fx_at,
	};
	if (a->fault) {
		sc->err = r->err;
		sc->trapno = r->trapno;
		sc->cr2 = r->cr2;
	}
}

int arch_signal_frame(struct user_regs *r, const struct signal_frame_args *a)
{
	unsigned long fx_at = (a->sp - FX_SIZE) & ~63ul;
	unsigned long at = ((fx_at - sizeof(struct x86_rt_sigframe)) & ~15ul) - 8;
	struct x86_rt_sigframe f;
	uint8_t fx[FX_SIZE];

	if (!a->restorer || !canonical(a->handler) || a->sp > MM_USER_END)
		return -EFAULT;
	memset(&f, 0, sizeof(f));
	f.pretcode = a->restorer;
	f.uc.flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	f.uc.stack = *a->stack;
	sigcontext_save(&f.uc.mc, r, a, fx_at);
	f.uc.sigmask = a->mask;
	if (a->siginfo)
		f.info = *a->info;
	memcpy(fx, r->fxsave, FX_SIZE);
	memset(fx + FX_SW_RESERVED, 0, FX_SIZE - FX_SW_RESERVED);
	if (copy_to_user(fx_at, fx, FX_SIZE) || copy_to_user(at, &f, sizeof(f)))
		return -EFAULT;
	r->rdi = (uint64_t)a->sig;
	r->rsi = at + offsetof(struct x86_rt_sigframe, info);
	r->rdx = at + offsetof(struct x86_rt_sigframe, uc);
	r->rax = 0;
	r->rsp = at;
	r->rip = a->handler;
	r->rflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_RF | X86_EFLAGS_TF);
	x86_fxsave_init(r->fxsave);
	return 0;
}

/* The MXCSR bits this CPU accepts (fxrstor of any other faults in the
 * kernel): the CPU's MXCSR_MASK, 0xffbf when it reports none. */
static uint32_t mxcsr_mask(void)
{
	static uint32_t mask;
	uint8_t img[FX_SIZE] __attribute__((aligned(16)));

	if (!mask) {
		__asm__ volatile("fxsave %0" : "=m"(img));
		memcpy(&mask, img + FX_MXCSR_MASK, sizeof(mask));
		if (!mask)
			mask = 0xffbf;
	}
	return mask;
}

/* The user's fxsave image at @at (0: the initial state) into @fx. */
static int fpstate_load(uint8_t *fx, unsigned long at)
{
	uint32_t mxcsr;

	if (!at) {
		x86_fxsave_init(fx);
		return 0;
	}
	if (copy_from_user(fx, at, FX_SIZE))
		return -EFAULT;
	memcpy(&mxcsr, fx + FX_MXCSR, sizeof(mxcsr));
	mxcsr &= mxcsr_mask();
	memcpy(fx + FX_MXCSR, &mxcsr, sizeof(mxcsr));
	return 0;
}

static void sigcontext_restore(struct user_regs *r, const struct x86_sigcontext *sc)
{
	r->r8 = sc->r8;
	r->r9 = sc->r9;
	r->r10 = sc->r10;
	r->r11 = sc->r11;
	r->r12 = sc->r12;
	r->r13 = sc->r13;
	r->r14 = sc->r14;
	r->r15 = sc->r15;
	r->rdi = sc->rdi;
	r->rsi = sc->rsi;
	r->rbp = sc->rbp;
	r->rbx = sc->rbx;
	r->rdx = sc->rdx;
	r->rax = sc->rax;
	r->rcx = sc->rcx;
	r->rsp = sc->rsp;
	r->rip = sc->rip;
	r->rflags = (r->rflags & ~FIX_EFLAGS) | (sc->eflags & FIX_EFLAGS) | X86_EFLAGS_IF |
		    EFLAGS_FIXED_ONE;
}

/*
 * The restorer's `mov $15, %eax; syscall` runs with RSP just above
 * pretcode (the handler's ret popped it). A non-canonical RIP or RSP is
 * refused here: IRETQ would fault in the kernel, where Linux's faults in
 * user mode (a SIGSEGV either way). The FS base is the MSR's, copied
 * into @r first, whatever the frame: the SYSCALL entry does not save it,
 * the frame holds none, and rt_sigreturn leaves (a refused frame too)
 * by arch_return_to_user(), which loads the one in @r.
 */
int arch_signal_return(struct user_regs *r, uint64_t *mask, struct linux_stack *stack)
{
	struct x86_rt_sigframe f;
	uint8_t fx[FX_SIZE];

	r->fs_base = rdmsr(MSR_FS_BASE);
	if (copy_from_user(&f, r->rsp - sizeof(f.pretcode), sizeof(f)))
		return -EFAULT;
	if (!canonical(f.uc.mc.rip) || !canonical(f.uc.mc.rsp))
		return -EFAULT;
	if (fpstate_load(fx, f.uc.mc.fpstate))
		return -EFAULT;
	sigcontext_restore(r, &f.uc.mc);
	memcpy(r->fxsave, fx, FX_SIZE);
	*mask = f.uc.sigmask;
	*stack = f.uc.stack;
	return 0;
}
