/*
 * signal.c (arm64) - Linux's arm64 rt_sigframe (kernel/user_arch.h:
 * arch_signal_frame(), arch_signal_return()) and the sigreturn
 * trampoline.
 *
 * Below the user SP (no red zone on arm64) or at the top of the
 * alternate stack, from high to low addresses:
 *
 *   frame record {x29, x30} (16-byte aligned; the handler's x29 points here)
 *   struct rt_sigframe: siginfo, then ucontext, whose sigcontext's
 *   __reserved holds an fpsimd_context (FPSIMD_MAGIC: FPSR, FPCR,
 *   q0-q31), for a fault an esr_context (ESR_MAGIC), and a null record
 *   <- SP at the handler's first instruction (16-byte aligned)
 *
 * No SVE, SME, TPIDR2 or extra_context records: SVE and SME are trapped
 * (docs/user.md). The handler starts with x0 = signal, and with
 * SA_SIGINFO x1 = &siginfo and x2 = &ucontext; x30 is sa_restorer with
 * SA_RESTORER, else the trampoline page kernel/signal.c maps into every
 * process (glibc passes no restorer on arm64; Linux points x30 into its
 * vDSO's sigreturn). The FP/SIMD registers stay the interrupted code's.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "kernel.h"
#include "ksignal.h"
#include "mm.h"
#include "process.h"
#include "user_arch.h"

#define FPSIMD_MAGIC 0x46508001u
#define ESR_MAGIC 0x45535201u
#define RESERVED_SIZE 4096

/* uapi <asm/sigcontext.h> */
struct a64_ctx {
	uint32_t magic, size;
};

struct a64_fpsimd_context {
	struct a64_ctx head;
	uint32_t fpsr, fpcr;
	__uint128_t vregs[32];
};

struct a64_esr_context {
	struct a64_ctx head;
	uint64_t esr;
};

struct a64_sigcontext {
	uint64_t fault_address;
	uint64_t regs[31];
	uint64_t sp, pc, pstate;
	uint8_t reserved[RESERVED_SIZE] __attribute__((aligned(16)));
};

/* uapi <asm/ucontext.h>: the mask has room for glibc's 1024-bit sigset_t. */
struct a64_ucontext {
	uint64_t flags, link;
	struct linux_stack stack;
	uint64_t sigmask;
	uint8_t unused[1024 / 8 - 8];
	struct a64_sigcontext mc;
};

struct a64_rt_sigframe {
	struct linux_siginfo info;
	struct a64_ucontext uc;
};

_Static_assert(sizeof(struct a64_fpsimd_context) == 528, "fpsimd_context");
_Static_assert(offsetof(struct a64_sigcontext, reserved) == 288, "sigcontext.__reserved");
_Static_assert(offsetof(struct a64_ucontext, mc) == 176, "uc_mcontext");
_Static_assert(offsetof(struct a64_rt_sigframe, uc) == 128, "rt_sigframe.uc");
_Static_assert(sizeof(struct a64_rt_sigframe) % 16 == 0, "rt_sigframe size");

/* mov x8, #139 (__NR_rt_sigreturn); svc #0 */
static const uint32_t sigtramp_code[] = { 0xd2801168, 0xd4000001 };

const void *arch_sigtramp(unsigned long *len)
{
	*len = sizeof(sigtramp_code);
	return sigtramp_code;
}

unsigned long arch_user_sp(const struct user_regs *r)
{
	return r->regs.sp;
}

unsigned long arch_user_pc(const struct user_regs *r)
{
	return r->regs.elr;
}

unsigned long arch_signal_sp(const struct user_regs *r)
{
	return r->regs.sp;
}

/* __reserved: the FP/SIMD record, a fault's ESR, the null record (left
 * zero by the caller). */
static void records_save(uint8_t *res, const struct user_regs *r, bool fault)
{
	struct a64_fpsimd_context fp = { .head = { FPSIMD_MAGIC, sizeof(fp) },
					 .fpsr = (uint32_t)r->regs.fpsr,
					 .fpcr = (uint32_t)r->regs.fpcr };
	struct a64_esr_context esr = { .head = { ESR_MAGIC, sizeof(esr) }, .esr = r->regs.esr };

	memcpy(fp.vregs, r->regs.q, sizeof(fp.vregs));
	memcpy(res, &fp, sizeof(fp));
	if (fault)
		memcpy(res + sizeof(fp), &esr, sizeof(esr));
}

static void sigcontext_save(struct a64_sigcontext *sc, const struct user_regs *r, bool fault)
{
	sc->fault_address = fault ? r->regs.far : 0;
	memcpy(sc->regs, r->regs.x, sizeof(sc->regs));
	sc->sp = r->regs.sp;
	sc->pc = r->regs.elr;
	sc->pstate = r->regs.spsr;
	records_save(sc->reserved, r, fault);
}

int arch_signal_frame(struct user_regs *r, const struct signal_frame_args *a)
{
	unsigned long rec_at = (a->sp - 16) & ~15ul;
	unsigned long at = rec_at - sizeof(struct a64_rt_sigframe);
	uint64_t rec[2] = { r->regs.x[29], r->regs.x[30] };
	struct a64_rt_sigframe f; /* 4.6 KiB of the kstack's UR_KSTACK_MIN */

	if (!a->restorer)
		return -EFAULT;
	memset(&f, 0, sizeof(f));
	if (a->siginfo)
		f.info = *a->info;
	f.uc.stack = *a->stack;
	f.uc.sigmask = a->mask;
	sigcontext_save(&f.uc.mc, r, a->fault);
	if (copy_to_user(rec_at, rec, sizeof(rec)) || copy_to_user(at, &f, sizeof(f)))
		return -EFAULT;
	r->regs.x[0] = (uint64_t)a->sig;
	if (a->siginfo) {
		r->regs.x[1] = at + offsetof(struct a64_rt_sigframe, info);
		r->regs.x[2] = at + offsetof(struct a64_rt_sigframe, uc);
	}
	r->regs.sp = at;
	r->regs.x[29] = rec_at;
	r->regs.x[30] = a->restorer;
	r->regs.elr = a->handler;
	return 0;
}

/*
 * Walk __reserved as Linux's parse_user_sigframe(): records of a known
 * magic, sizes multiples of 16 within the area, exactly one FP/SIMD
 * record, a null record last. Return: the FP/SIMD record, or NULL for a
 * frame to refuse.
 */
static const struct a64_fpsimd_context *records_parse(const uint8_t *res)
{
	const struct a64_fpsimd_context *fp = NULL;
	size_t off = 0;
	struct a64_ctx h;

	while (off + sizeof(h) <= RESERVED_SIZE) {
		memcpy(&h, res + off, sizeof(h));
		if (h.magic == 0)
			return h.size == 0 ? fp : NULL;
		if (h.size < sizeof(h) || h.size % 16 || h.size > RESERVED_SIZE - off)
			return NULL;
		if (h.magic == FPSIMD_MAGIC) {
			if (fp || h.size != sizeof(*fp))
				return NULL;
			fp = (const struct a64_fpsimd_context *)(const void *)(res + off);
		} else if (h.magic != ESR_MAGIC) {
			return NULL;
		}
		off += h.size;
	}
	return NULL;
}

/*
 * The trampoline (or sa_restorer) runs with SP at the frame, as the
 * handler got it: an SP that is not 16-byte aligned is a bad frame, as
 * on Linux. PSTATE keeps NZCV only (arch_return_to_user()).
 */
int arch_signal_return(struct user_regs *r, uint64_t *mask, struct linux_stack *stack)
{
	struct a64_rt_sigframe f;
	const struct a64_fpsimd_context *fp;

	if ((r->regs.sp & 15) || copy_from_user(&f, r->regs.sp, sizeof(f)))
		return -EFAULT;
	fp = records_parse(f.uc.mc.reserved);
	if (!fp)
		return -EFAULT;
	memcpy(r->regs.x, f.uc.mc.regs, sizeof(r->regs.x));
	r->regs.sp = f.uc.mc.sp;
	r->regs.elr = f.uc.mc.pc;
	r->regs.spsr = f.uc.mc.pstate;
	r->regs.fpsr = fp->fpsr;
	r->regs.fpcr = fp->fpcr;
	memcpy(r->regs.q, fp->vregs, sizeof(r->regs.q));
	*mask = f.uc.sigmask;
	*stack = f.uc.stack;
	return 0;
}
