/*
 * syscall.c - system-call dispatch by Linux's numbers, and the calls
 * about the process itself (exit, ids, uname, time, limits); futex is
 * futex.c's, threads thread.c's; the signal calls are signal.c's, fork, wait4 and the
 * other calls about the process tree sys_proc.c's. Pending signals are
 * delivered on the way out of every call.
 *
 * The table is built once from arch_syscall_numbers: the arch says which
 * Linux number each SYSCALL_LIST name has, the handlers are generic. A
 * number nobody claims answers -ENOSYS and is counted per number.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "mm.h"
#include "process.h"
#include "scheduler.h"
#include "syscall.h"
#include "thread.h"

typedef long (*syscall_fn)(struct user_regs *r, const long *a);

static syscall_fn table[SYSCALL_MAX_NR];

static const struct {
	size_t offset;
	syscall_fn fn;
	const char *name;
} handlers[] = {
#define SYSCALL_ENTRY(n) { offsetof(struct syscall_numbers, n), sys_##n, #n },
	SYSCALL_LIST(SYSCALL_ENTRY)
#undef SYSCALL_ENTRY
};

/* Fill the table; two names on one number is a broken arch table. */
static void table_init(void)
{
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
		int nr = *(const int *)((const char *)&arch_syscall_numbers + handlers[i].offset) -
			 1;

		if (nr < 0)
			continue;
		if (nr >= SYSCALL_MAX_NR || table[nr])
			panic("syscall table: %s has number %d (out of range or taken)",
			      handlers[i].name, nr);
		table[nr] = handlers[i].fn;
	}
}

/*
 * The kernel's errno values are newlib's, which are Linux's only up to
 * ERANGE (34): the rest are renumbered on the way out. Every errno the
 * handlers and mm/ can return above 34 is in this switch; any other
 * would reach user code with newlib's number, so it is a bug.
 */
static long linux_errno(long ret)
{
	if (ret >= 0 || ret < -4095 || -ret <= ERANGE)
		return ret;
	switch (-ret) {
	case EDEADLK:
		return -35;
	case ENAMETOOLONG:
		return -36;
	case ENOSYS:
		return -38;
	case ENOTSUP:
		return -95;
	case ETIMEDOUT:
		return -110;
	default:
		panic("syscall: errno %ld has no Linux number here", -ret);
	}
}

void syscall_entry(struct user_regs *r)
{
	static int ready;
	long nr = arch_syscall_nr(r), a[6];
	struct process *p = current_process;

	if (!ready) {
		table_init();
		ready = 1;
	}
	for (int i = 0; i < 6; i++)
		a[i] = arch_syscall_arg(r, i);
	if (nr >= 0 && nr < SYSCALL_MAX_NR && table[nr]) {
		arch_syscall_set_return(r, linux_errno(table[nr](r, a)));
	} else {
		p->enosys[nr >= 0 && nr < SYSCALL_MAX_NR ? nr : SYSCALL_MAX_NR]++;
		arch_syscall_set_return(r, linux_errno(-ENOSYS));
	}
	preempt_syscall_return();
	if (p->sig.pending & ~p->sigmask)
		signal_deliver_pending(r);
}

void syscall_print_unknown(const struct process *p)
{
	for (int nr = 0; nr <= SYSCALL_MAX_NR; nr++)
		if (p->enosys[nr])
			printf("exec: unknown system call %s%d: %lu time(s), -ENOSYS\n",
			       nr == SYSCALL_MAX_NR ? ">=" : "", nr, p->enosys[nr]);
}

long sys_exit(struct user_regs *r, const long *a)
{
	(void)r;
	thread_exit((int)a[0]);
}

long sys_exit_group(struct user_regs *r, const long *a)
{
	(void)r;
	process_exit((int)a[0]);
}

#define SYSCALL_CONST(name, value)                                                                 \
	long sys_##name(struct user_regs *r, const long *a)                                        \
	{                                                                                          \
		(void)r;                                                                           \
		(void)a;                                                                           \
		return value;                                                                      \
	}
SYSCALL_CONST(getpid, process_group(current_process)->pid)
SYSCALL_CONST(gettid, current_process->pid)
SYSCALL_CONST(getuid, 0)
SYSCALL_CONST(geteuid, 0)
SYSCALL_CONST(getgid, 0)
SYSCALL_CONST(getegid, 0)
SYSCALL_CONST(set_robust_list, 0)
SYSCALL_CONST(rseq, -ENOSYS)   /* glibc then runs without it */
SYSCALL_CONST(clone3, -ENOSYS) /* glibc then calls clone */

long sys_set_tid_address(struct user_regs *r, const long *a)
{
	(void)r;
	current_process->clear_child_tid = (unsigned long)a[0];
	return current_process->pid;
}

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

/* x86_64's TLS call; the thread pointer itself is the arch's. */
long sys_arch_prctl(struct user_regs *r, const long *a)
{
	if ((int)a[0] == ARCH_SET_FS) {
		if ((unsigned long)a[1] >= MM_USER_END)
			return -EPERM;
		arch_set_tls(r, (unsigned long)a[1]);
		return 0;
	}
	return -EINVAL;
}

struct new_utsname {
	char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
};

long sys_uname(struct user_regs *r, const long *a)
{
	struct new_utsname u = { "Linux", "ptelab", "6.12.0-ptelab", "#1 ptelab", "", "(none)" };
	struct arch_elf_info ai;

	(void)r;
	arch_elf_info(&ai);
	snprintf(u.machine, sizeof(u.machine), "%s", ai.uts_machine);
	return copy_to_user((unsigned long)a[0], &u, sizeof(u));
}

#define RLIMIT_STACK 3
#define RLIM_INFINITY (~0ul)

long sys_prlimit64(struct user_regs *r, const long *a)
{
	unsigned long old[2] = { RLIM_INFINITY, RLIM_INFINITY };

	(void)r;
	if ((int)a[0] && (int)a[0] != current_process->pid)
		return -ESRCH;
	if ((int)a[1] < 0 || (int)a[1] >= 16)
		return -EINVAL;
	if ((int)a[1] == RLIMIT_STACK)
		old[0] = 8ul << 20;
	if (a[3] && copy_to_user((unsigned long)a[3], old, sizeof(old)))
		return -EFAULT;
	return a[2] ? -EPERM : 0; /* limits are fixed */
}

long sys_getrandom(struct user_regs *r, const long *a)
{
	uint8_t buf[256];
	size_t done = 0, len = (size_t)a[1];

	(void)r;
	while (done < len) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);

		user_random_bytes(buf, n);
		if (copy_to_user((unsigned long)a[0] + done, buf, n))
			return done ? (long)done : -EFAULT;
		done += n;
	}
	return (long)done;
}

long sys_clock_gettime(struct user_regs *r, const long *a)
{
	uint64_t ns = time_ns();
	long ts[2] = { (long)(ns / 1000000000u), (long)(ns % 1000000000u) };

	(void)r;
	if ((int)a[0] < 0 || (int)a[0] > 11)
		return -EINVAL;
	return copy_to_user((unsigned long)a[1], ts, sizeof(ts));
}

/* Wait @ts (struct timespec in user memory), letting the other runnable
 * tasks run meanwhile. */
static long sleep_user(unsigned long ts_addr)
{
	long ts[2];
	uint64_t until;

	if (copy_from_user(ts, ts_addr, sizeof(ts)))
		return -EFAULT;
	if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	until = time_ns() + (uint64_t)ts[0] * 1000000000u + (uint64_t)ts[1];
	while (time_ns() < until)
		sched_yield_current();
	return 0;
}

long sys_nanosleep(struct user_regs *r, const long *a)
{
	(void)r;
	return sleep_user((unsigned long)a[0]);
}

long sys_clock_nanosleep(struct user_regs *r, const long *a)
{
	(void)r;
	if ((int)a[1]) /* TIMER_ABSTIME */
		return -EINVAL;
	return sleep_user((unsigned long)a[2]);
}
