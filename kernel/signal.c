/*
 * signal.c - signals of a user process: raising them (an exception the
 * kernel does not resolve, kill/tkill/tgkill to itself), delivering them
 * (a handler's frame, the default action, SIG_IGN), rt_sigreturn, the
 * mask, sigaltstack and the arm64 sigreturn trampoline page.
 *
 * Generic code decides what happens (Linux's rules: a synchronous fault
 * that is blocked or ignored kills, the handler runs with sa_mask and
 * the signal itself blocked, SA_RESETHAND, SA_ONSTACK); the arch writes
 * and reads the frame (kernel/user_arch.h). A signal is delivered only
 * on the way back to user mode: at the end of a system call
 * (signal_deliver_pending()) or of the exception that raised it
 * (user_fault_signal()). The process is the only one on its CPU and has
 * one thread, so nothing here takes a lock: only the process itself
 * reads or changes its struct process.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "scheduler.h"
#include "ksignal.h"
#include "syscall.h"

static const char *const signal_names[] = {
	[SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",	[SIGQUIT] = "SIGQUIT",
	[SIGILL] = "SIGILL",   [SIGTRAP] = "SIGTRAP",	[SIGABRT] = "SIGABRT",
	[SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",	[SIGKILL] = "SIGKILL",
	[SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV",	[SIGUSR2] = "SIGUSR2",
	[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM",	[SIGTERM] = "SIGTERM",
	[SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT",	[SIGSTOP] = "SIGSTOP",
	[SIGTSTP] = "SIGTSTP", [SIGTTIN] = "SIGTTIN",	[SIGTTOU] = "SIGTTOU",
	[SIGURG] = "SIGURG",   [SIGWINCH] = "SIGWINCH",
};

const char *signal_name(int sig)
{
	if (sig > 0 && sig < (int)(sizeof(signal_names) / sizeof(signal_names[0])) &&
	    signal_names[sig])
		return signal_names[sig];
	return "signal";
}

void user_fault_fatal(int sig, unsigned long addr, unsigned long pc)
{
	printf("exec: pid %d killed by signal %d (%s) at address %#lx, pc %#lx\n",
	       current_process ? current_process->pid : 0, sig, signal_name(sig), addr, pc);
	process_exit_signal(sig);
}

/* The default action of a signal that terminates, raised by kill. */
__attribute__((noreturn)) static void signal_fatal(int sig)
{
	printf("exec: pid %d killed by signal %d (%s)\n", current_process->pid, sig,
	       signal_name(sig));
	process_exit_signal(sig);
}

/* Ignored by default. The stop signals are too: there is no job control
 * (no parent to continue a stopped process). */
static bool default_ignored(int sig)
{
	switch (sig) {
	case SIGCHLD:
	case SIGURG:
	case SIGWINCH:
	case SIGCONT:
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
		return true;
	}
	return false;
}

/* The actions are the process's: every thread of it sees the same. */
static struct linux_sigaction *action(struct process *p, int sig)
{
	p = process_group(p);
	_Static_assert(sizeof(struct linux_sigaction) == sizeof(p->sigaction[0]),
		       "struct linux_sigaction");
	return (struct linux_sigaction *)(void *)p->sigaction[sig - 1];
}

/* Is @sp on @p's alternate stack (Linux's on_sig_stack())? */
static bool on_altstack(const struct process *p, unsigned long sp)
{
	const struct linux_stack *s = &p->sig.altstack;

	return s->size && sp > s->sp && sp - s->sp <= s->size;
}

/* The alternate stack as sigaltstack() and uc_stack report it to code
 * running with stack pointer @sp. */
static struct linux_stack altstack_report(const struct process *p, unsigned long sp)
{
	struct linux_stack s = p->sig.altstack;

	if (!s.size)
		s.flags = SS_DISABLE;
	else
		s.flags =
			(s.flags & (int32_t)SS_AUTODISARM) | (on_altstack(p, sp) ? SS_ONSTACK : 0);
	return s;
}

/*
 * Set the alternate stack from @ss for code running at @sp, as Linux's
 * do_sigaltstack(). Return: 0, -EPERM while on it, -EINVAL for unknown
 * flags, -ENOMEM below ARCH_MINSIGSTKSZ.
 */
static int altstack_set(struct process *p, const struct linux_stack *ss, unsigned long sp)
{
	int mode = ss->flags & ~(int32_t)SS_AUTODISARM;

	if (on_altstack(p, sp))
		return -EPERM;
	if (mode != 0 && mode != SS_DISABLE && mode != SS_ONSTACK)
		return -EINVAL;
	if (mode == SS_DISABLE) {
		memset(&p->sig.altstack, 0, sizeof(p->sig.altstack));
		return 0;
	}
	if (ss->size < ARCH_MINSIGSTKSZ)
		return -ENOMEM;
	p->sig.altstack = (struct linux_stack){ .sp = ss->sp,
						.flags = ss->flags & (int32_t)SS_AUTODISARM,
						.size = ss->size };
	return 0;
}

/* The handler's return address: its own restorer, else the trampoline
 * page (arm64), else none (x86_64 refuses the frame). */
static unsigned long restorer_of(const struct linux_sigaction *act)
{
	unsigned long len;

	if (act->flags & SA_RESTORER)
		return act->restorer;
	return arch_sigtramp(&len) ? SIGNAL_TRAMPOLINE_ADDR : 0;
}

/*
 * Build the frame for @info's signal on @r and do what entering the
 * handler does to the process: block sa_mask and the signal (unless
 * SA_NODEFER), SA_RESETHAND, SS_AUTODISARM.
 * Return: 0, or -EFAULT with @r and the process unchanged.
 */
static int signal_setup(struct process *p, struct user_regs *r, const struct linux_siginfo *info,
			bool fault)
{
	struct linux_sigaction *act = action(p, info->signo);
	unsigned long usp = arch_user_sp(r);
	struct linux_stack uc_stack = altstack_report(p, usp);
	bool alt = (act->flags & SA_ONSTACK) && p->sig.altstack.size && !on_altstack(p, usp);
	struct signal_frame_args a = {
		.sig = info->signo,
		.siginfo = !!(act->flags & SA_SIGINFO),
		.fault = fault,
		.handler = act->handler,
		.restorer = restorer_of(act),
		.sp = alt ? p->sig.altstack.sp + p->sig.altstack.size : arch_signal_sp(r),
		.mask = p->sigmask,
		.info = info,
		.stack = &uc_stack,
	};

	if (arch_signal_frame(r, &a))
		return -EFAULT;
	p->sigmask |= act->mask | (act->flags & SA_NODEFER ? 0 : SIGMASK(info->signo));
	p->sigmask &= ~SIG_UNBLOCKABLE;
	if (act->flags & SA_RESETHAND)
		act->handler = SIG_DFL;
	if (alt && (p->sig.altstack.flags & (int32_t)SS_AUTODISARM))
		memset(&p->sig.altstack, 0, sizeof(p->sig.altstack));
	return 0;
}

int user_segv_code(unsigned long addr)
{
	struct mm *mm = current_process->mm;
	bool mapped;

	if (addr >= MM_USER_END)
		return SEGV_MAPERR;
	read_lock(&mm->mmap_lock);
	mapped = find_vma(mm, addr) != NULL;
	read_unlock(&mm->mmap_lock);
	return mapped ? SEGV_ACCERR : SEGV_MAPERR;
}

void user_fault_signal(struct user_regs *r, int sig, int code, unsigned long addr)
{
	struct process *p = current_process;
	struct linux_siginfo info = { .signo = sig, .code = code, .addr = addr };
	unsigned long handler = action(p, sig)->handler;

	/* Linux's force_sig_fault(): blocked or ignored, it kills. */
	if ((p->sigmask & SIGMASK(sig)) || handler == SIG_DFL || handler == SIG_IGN)
		user_fault_fatal(sig, addr, arch_user_pc(r));
	if (signal_setup(p, r, &info, true))
		user_fault_fatal(SIGSEGV, arch_user_sp(r), arch_user_pc(r));
}

void signal_send(int sig, const struct linux_siginfo *info)
{
	signal_send_to(current_process, sig, info);
}

void signal_send_to(struct process *p, int sig, const struct linux_siginfo *info)
{
	if (p->sig.pending & SIGMASK(sig))
		return;
	p->sig.info[sig - 1] = *info;
	p->sig.info[sig - 1].signo = sig;
	p->sig.pending |= SIGMASK(sig);
}

void signal_deliver_pending(struct user_regs *r)
{
	struct process *p = current_process;
	uint64_t ready;

	while ((ready = p->sig.pending & ~p->sigmask)) {
		int sig = __builtin_ctzll(ready) + 1;
		struct linux_siginfo info = p->sig.info[sig - 1];
		unsigned long handler = action(p, sig)->handler;

		p->sig.pending &= ~SIGMASK(sig);
		if (handler == SIG_IGN || (handler == SIG_DFL && default_ignored(sig)))
			continue;
		if (handler == SIG_DFL)
			signal_fatal(sig);
		if (signal_setup(p, r, &info, false))
			user_fault_fatal(SIGSEGV, arch_user_sp(r), arch_user_pc(r));
	}
}

int signal_map_trampoline(struct mm *mm)
{
	unsigned long len;
	const void *code = arch_sigtramp(&len);
	uint8_t buf[64];
	long r;

	if (!code)
		return 0;
	if (len > sizeof(buf))
		panic("signal_map_trampoline: %lu bytes of code, room for %zu", len, sizeof(buf));
	memcpy(buf, code, len);
	r = mm_mmap(mm, SIGNAL_TRAMPOLINE_ADDR, PAGE_SIZE, VM_READ | VM_WRITE, MAP_FIXED_ADDR, 1);
	if (r < 0)
		return (int)r;
	r = mm_access(mm, SIGNAL_TRAMPOLINE_ADDR, buf, len, true);
	if (!r)
		r = mm_mprotect(mm, SIGNAL_TRAMPOLINE_ADDR, PAGE_SIZE, VM_READ | VM_EXEC);
	return (int)r;
}

/* ---- the system calls ---------------------------------------------------- */

long sys_rt_sigaction(struct user_regs *r, const long *a)
{
	struct process *p = current_process;
	struct linux_sigaction act;
	int sig = (int)a[0];

	(void)r;
	if (sig < 1 || sig > SIG_NR || a[3] != 8)
		return -EINVAL;
	if (a[1] && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	if (a[1] && copy_from_user(&act, (unsigned long)a[1], sizeof(act)))
		return -EFAULT;
	if (a[2] && copy_to_user((unsigned long)a[2], action(p, sig), sizeof(act)))
		return -EFAULT;
	if (!a[1])
		return 0;
	act.mask &= ~SIG_UNBLOCKABLE;
	*action(p, sig) = act;
	/* Linux discards a pending signal whose action becomes "ignore". */
	if (act.handler == SIG_IGN || (act.handler == SIG_DFL && default_ignored(sig)))
		p->sig.pending &= ~SIGMASK(sig);
	return 0;
}

#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

/* A signal this unblocks is delivered on the way out (syscall_entry()). */
long sys_rt_sigprocmask(struct user_regs *r, const long *a)
{
	struct process *p = current_process;
	uint64_t set, old = p->sigmask;

	(void)r;
	if (a[3] != 8)
		return -EINVAL;
	if (a[1]) {
		if (copy_from_user(&set, (unsigned long)a[1], sizeof(set)))
			return -EFAULT;
		if ((int)a[0] == SIG_BLOCK)
			p->sigmask |= set;
		else if ((int)a[0] == SIG_UNBLOCK)
			p->sigmask &= ~set;
		else if ((int)a[0] == SIG_SETMASK)
			p->sigmask = set;
		else
			return -EINVAL;
		p->sigmask &= ~SIG_UNBLOCKABLE;
	}
	if (a[2] && copy_to_user((unsigned long)a[2], &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_rt_sigpending(struct user_regs *r, const long *a)
{
	(void)r;
	if (a[1] != 8)
		return -EINVAL;
	return copy_to_user((unsigned long)a[0], &current_process->sig.pending, 8) ? -EFAULT : 0;
}

/*
 * Every register comes back from the frame, so the return to user mode
 * is arch_return_to_user() (x86_64: IRETQ, not SYSRET, which loses RCX
 * and R11), and the return value is not stored: RAX/x0 is the frame's.
 * A frame the arch refuses is a SIGSEGV, as on Linux.
 */
long sys_rt_sigreturn(struct user_regs *r, const long *a)
{
	struct process *p = current_process;
	struct linux_stack ss;
	uint64_t mask;

	(void)a;
	if (arch_signal_return(r, &mask, &ss)) {
		user_fault_signal(r, SIGSEGV, SI_KERNEL, 0);
	} else {
		p->sigmask = mask & ~SIG_UNBLOCKABLE;
		altstack_set(p, &ss, arch_user_sp(r)); /* errors ignored, as Linux */
	}
	signal_deliver_pending(r);
	arch_return_to_user(r);
}

long sys_sigaltstack(struct user_regs *r, const long *a)
{
	struct process *p = current_process;
	unsigned long sp = arch_user_sp(r);
	struct linux_stack old = altstack_report(p, sp), ss;
	int err;

	if (a[0]) {
		if (copy_from_user(&ss, (unsigned long)a[0], sizeof(ss)))
			return -EFAULT;
		err = altstack_set(p, &ss, sp);
		if (err)
			return err;
	}
	if (a[1] && copy_to_user((unsigned long)a[1], &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/* Raise @sig from the process to its task @t; 0 checks permission only.
 * A task blocked in the kernel is woken to see it (its sleep may end
 * with -EINTR: a futex wait). */
static long send_to(struct process *t, int sig, int code)
{
	struct linux_siginfo info = { .code = code };

	if (sig < 0 || sig > SIG_NR)
		return -EINVAL;
	info.kill.pid = process_group(current_process)->pid;
	if (!sig)
		return 0;
	signal_send_to(t, sig, &info);
	if (t->state == PROC_BLOCKED)
		sched_wakeup(t->wait_chan);
	return 0;
}

/* The live process (thread group) of task @pid, or NULL: kill() with a
 * thread's id reaches its process, as on Linux. */
static struct process *live_process(int pid)
{
	struct process *t = pid > 0 ? process_find(pid) : NULL;

	if (!t || t->state == PROC_ZOMBIE)
		return NULL;
	t = process_group(t);
	return t->state == PROC_ZOMBIE ? NULL : t;
}

/* pid: the process itself or 0 (its group: itself; the calling thread
 * takes it), or another live process by its pid (a parent ends the
 * children it forked, as the kselftest harness's tests do); any other
 * is a process that does not exist (-1, "all but the caller", has none). */
long sys_kill(struct user_regs *r, const long *a)
{
	int pid = (int)a[0];
	struct process *t;

	(void)r;
	if (pid == process_group(current_process)->pid || pid == 0)
		return send_to(current_process, (int)a[1], SI_USER);
	t = live_process(pid);
	if (!t)
		return (int)a[1] < 0 || (int)a[1] > SIG_NR ? -EINVAL : -ESRCH;
	return send_to(t, (int)a[1], SI_USER);
}

/* Task @tid of the caller's process (and of process @tgid, unless it is
 * 0), not exited; NULL when there is none. */
static struct process *own_task(int tgid, int tid)
{
	struct process *t = process_find(tid);

	if (!t || t->state == PROC_ZOMBIE || process_group(t) != process_group(current_process) ||
	    (tgid && process_group(t)->pid != tgid))
		return NULL;
	return t;
}

long sys_tkill(struct user_regs *r, const long *a)
{
	struct process *t;

	(void)r;
	if ((int)a[0] <= 0)
		return -EINVAL;
	t = own_task(0, (int)a[0]);
	return t ? send_to(t, (int)a[1], SI_TKILL) : -ESRCH;
}

long sys_tgkill(struct user_regs *r, const long *a)
{
	struct process *t;

	(void)r;
	if ((int)a[0] <= 0 || (int)a[1] <= 0)
		return -EINVAL;
	t = own_task((int)a[0], (int)a[1]);
	return t ? send_to(t, (int)a[2], SI_TKILL) : -ESRCH;
}
