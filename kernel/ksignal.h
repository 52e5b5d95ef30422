/*
 * ksignal.h - signals of a user process: what is pending, the alternate
 * stack, Linux's numbers and the user-visible layouts both arches share
 * (siginfo_t, stack_t). The arch lays out the rest of the frame
 * (kernel/user_arch.h: arch_signal_frame(), arch_signal_return()).
 *
 * A signal reaches a process from an exception the arch cannot resolve
 * (user_fault_signal()) or from kill, tkill and tgkill to itself; it is
 * delivered on the way back to user mode, after a system call.
 * (Named ksignal.h: the guest builds with -Ikernel, where "signal.h"
 * would shadow the C library's <signal.h>.)
 */
#ifndef KERNEL_KSIGNAL_H
#define KERNEL_KSIGNAL_H

#include <stdint.h>

struct mm;
struct process;
struct user_regs;

/* Linux's numbers, the same on x86_64 and arm64. */
#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGURG 23
#define SIGWINCH 28
#define SIG_NR 64

#define SIG_DFL 0ul
#define SIG_IGN 1ul

#define SA_SIGINFO 0x4ul
#define SA_RESTORER 0x04000000ul
#define SA_ONSTACK 0x08000000ul
#define SA_RESTART 0x10000000ul
#define SA_NODEFER 0x40000000ul
#define SA_RESETHAND 0x80000000ul

#define SS_ONSTACK 1
#define SS_DISABLE 2
#define SS_AUTODISARM (1u << 31)

/* si_code values */
#define SI_USER 0
#define SI_KERNEL 0x80
#define SI_TKILL (-6)
#define ILL_ILLOPC 1
#define ILL_ILLOPN 2
#define FPE_INTDIV 1
#define FPE_FLTUNK 14
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRALN 1
#define BUS_OBJERR 3
#define TRAP_BRKPT 1
#define TRAP_TRACE 2

/* The bit of @sig in a sigset_t word. */
#define SIGMASK(sig) (1ull << ((sig)-1))
#define SIG_UNBLOCKABLE (SIGMASK(SIGKILL) | SIGMASK(SIGSTOP))

/* Linux's siginfo_t, 128 bytes; the fields a fault and a kill fill. */
struct linux_siginfo {
	int32_t signo, errno_, code, pad;
	union {
		uint64_t addr; /* faults: si_addr */
		struct {
			int32_t pid; /* kill: si_pid, si_uid */
			uint32_t uid;
		} kill;
		uint8_t raw[112];
	};
};

/* Linux's stack_t (sigaltstack(), uc_stack). */
struct linux_stack {
	uint64_t sp;
	int32_t flags;
	int32_t pad;
	uint64_t size;
};

/* Linux's struct sigaction as rt_sigaction() passes it (both arches). */
struct linux_sigaction {
	uint64_t handler, flags, restorer, mask;
};

/* A process's signals beyond the mask and the actions (struct process). */
struct signal_state {
	uint64_t pending;		   /* bit SIGMASK(sig): raised, not yet delivered */
	struct linux_siginfo info[SIG_NR]; /* what each pending signal carries */
	struct linux_stack altstack;	   /* sigaltstack(); size 0: none */
};

/*
 * signal_send - raise @sig (1..64) in the current process with @info
 * (signo filled in here). A signal already pending stays pending once
 * (no queue, real-time signals included).
 */
void signal_send(int sig, const struct linux_siginfo *info);
/* The same for process @p (a parent's SIGCHLD); delivered when @p next
 * returns to user mode from a system call. */
void signal_send_to(struct process *p, int sig, const struct linux_siginfo *info);

/*
 * signal_deliver_pending - deliver every pending signal that is not
 * blocked: a handler gets a frame built on @r (so the next return to
 * user mode enters it), an ignored one is dropped, a fatal default ends
 * the process here.
 * Context: on the kstack, about to return to user mode with @r.
 */
void signal_deliver_pending(struct user_regs *r);

/*
 * signal_map_trampoline - map the arch's sigreturn code, if it has one
 * (arch_sigtramp()), read+exec at SIGNAL_TRAMPOLINE_ADDR in @mm.
 * Return: 0 or a negative errno.
 */
int signal_map_trampoline(struct mm *mm);

/* The page above the stack VMA (exec.h's EXEC_STACK_TOP), the last of
 * the user half. */
#define SIGNAL_TRAMPOLINE_ADDR 0x7ffffffff000ul

/* "SIGSEGV", ..., or "signal" for a number without a name here. */
const char *signal_name(int sig);

#endif
