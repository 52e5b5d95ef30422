/*
 * qemu.c - run the guest under QEMU: its command line, the child process,
 * its output, the timeout, and QEMU's exit status mapped back to the guest's.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ptelab/abi.h"
#include "vmm_fdt.h"
#include "vmm_kvm.h" /* --accel kvm: is /dev/kvm usable? */
#include "vmm_qemu.h"
#include "vmm_tsc.h"
#include "vmm_util.h"

#define KILL_GRACE_MS 1000 /* from SIGTERM to SIGKILL */

const char *vmm_qemu_binary(enum vmm_arch arch)
{
	return arch == VMM_ARCH_ARM64 ? "qemu-system-aarch64" : "qemu-system-x86_64";
}

const char *vmm_qemu_package(enum vmm_arch arch)
{
	return arch == VMM_ARCH_ARM64 ? "qemu-system-arm" : "qemu-system-x86";
}

/* Append one printf-formatted argument to @a; -1 when it is full. */
static int arg(struct vmm_qemu_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int arg(struct vmm_qemu_argv *a, const char *fmt, ...)
{
	size_t room = sizeof(a->buf) - a->used;
	va_list ap;
	int n;

	if (a->argc == VMM_QEMU_MAX_ARGS)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(a->buf + a->used, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		return -1;
	a->argv[a->argc++] = a->buf + a->used;
	a->argv[a->argc] = NULL;
	a->used += (size_t)n + 1;
	return 0;
}

/* Append an argument or give up: the command line did not fit. */
#define ARG(...)                                                                                   \
	do {                                                                                       \
		if (arg(a, __VA_ARGS__))                                                           \
			return -1;                                                                 \
	} while (0)

/* RAM, cpus and NUMA: the same for both machines. */
static int numa_args(struct vmm_qemu_argv *a, const struct vmm_machine *m)
{
	ARG("-m");
	ARG("%lluM", (unsigned long long)(m->ram_size >> 20));
	/* One cpu per socket, so -numa cpu can place each by socket-id. */
	ARG("-smp");
	ARG("%d,sockets=%d,cores=1,threads=1", m->nr_cpus, m->nr_cpus);
	for (int i = 0; i < m->nr_nodes; i++) {
		ARG("-object");
		ARG("memory-backend-ram,id=m%d,size=%llu", i, (unsigned long long)m->node[i].size);
		ARG("-numa");
		ARG("node,nodeid=%d,memdev=m%d", m->node[i].id, i);
	}
	for (int i = 0; i < m->nr_cpus; i++) {
		ARG("-numa");
		ARG("cpu,node-id=%d,socket-id=%d", m->node[m->cpu_node[i]].id, i);
	}
	/* Explicit distances, so QEMU's own arm64 tree has a distance-map
	 * too; QEMU mirrors each to the reverse direction. */
	for (int i = 0; i < m->nr_nodes; i++)
		for (int j = i + 1; j < m->nr_nodes; j++) {
			ARG("-numa");
			ARG("dist,src=%d,dst=%d,val=%d", m->node[i].id, m->node[j].id,
			    m->distance[i][j]);
		}
	return 0;
}

/* Copy @s into @out (@size bytes) with each ',' doubled, as QEMU's option
 * syntax needs inside a value. Return: @out (cut short if it is too long). */
static const char *qemu_escape(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = s; *p && n + 2 < size; p++) {
		out[n++] = *p;
		if (*p == ',')
			out[n++] = ',';
	}
	out[n] = 0;
	return out;
}

/* x86_64's boot data and exit devices: the FDT in @dir as -initrd
 * (QEMU's PVH loader makes it module 0), isa-debug-exit, and a debugcon
 * whose chardev, the inherited status pipe, receives the exact status byte
 * (isa-debug-exit's own code, (v << 1) | 1, loses v's top bit). */
static int x86_boot_args(struct vmm_qemu_argv *a, const char *dir)
{
	ARG("-initrd");
	ARG("%s/" VMM_QEMU_FDT_FILE, dir);
	ARG("-device");
	ARG("isa-debug-exit,iobase=0x%x,iosize=0x04", PTELAB_PORT_EXIT);
	ARG("-chardev");
	ARG("file,id=ptelab-status,path=/dev/fd/%d", VMM_QEMU_STATUS_FD);
	ARG("-device");
	ARG("isa-debugcon,iobase=0x%x,chardev=ptelab-status", PTELAB_PORT_STATUS);
	return 0;
}

/* One QEMU generic loader: @dir/@file's bytes at guest physical @pa. */
static int arm64_loader_arg(struct vmm_qemu_argv *a, const char *dir, const char *file, uint64_t pa)
{
	char path[PATH_MAX], esc[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	ARG("-device");
	ARG("loader,file=%s,addr=%#llx,force-raw=on", qemu_escape(path, esc, sizeof(esc)),
	    (unsigned long long)pa);
	return 0;
}

/* arm64's boot data: the command line, and the boot record and the
 * initramfs QEMU's own tree and -initrd cannot carry (ptelab/abi.h). */
static int arm64_boot_args(struct vmm_qemu_argv *a, const struct vmm_machine *m, const char *dir)
{
	ARG("-append");
	ARG("%s", m->bootargs);
	if (!m->initramfs && !m->exec_argv_len)
		return 0;
	if (!dir || arm64_loader_arg(a, dir, VMM_QEMU_BOOTREC_FILE, PTELAB_ARM64_BOOTREC_PA))
		return -1;
	if (!m->initramfs)
		return 0;
	return arm64_loader_arg(a, dir, VMM_QEMU_INITRAMFS_FILE, vmm_arm64_initramfs_pa(m));
}

/* The options after the machine's: devices, console, kernel, boot data. */
static int boot_args(struct vmm_qemu_argv *a, const struct vmm_config *cfg,
		     const struct vmm_machine *m, const char *dir)
{
	ARG("-nodefaults");
	ARG("-sandbox");
	ARG("on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny");
	ARG("-no-reboot");
	ARG("-display");
	ARG("none");
	ARG("-serial");
	ARG("stdio");
	ARG("-monitor");
	ARG("none");
	ARG("-kernel");
	ARG("%s", cfg->kernel);
	if (cfg->arch == VMM_ARCH_X86_64)
		return x86_boot_args(a, dir);
	return arm64_boot_args(a, m, dir);
}

int vmm_qemu_build_argv(const struct vmm_config *cfg, const struct vmm_machine *m, const char *dir,
			const char *dumpdtb, struct vmm_qemu_argv *a)
{
	/* arm64: a GICv3, whose SGIs wake the guest's secondary CPUs. */
	const char *machine = cfg->arch == VMM_ARCH_X86_64 ? "pc" : "virt,gic-version=3";
	char esc[PATH_MAX * 2];

	a->argc = 0;
	a->used = 0;
	ARG("%s", vmm_qemu_binary(cfg->arch));
	ARG("-M");
	if (dumpdtb)
		ARG("%s,dumpdtb=%s", machine, qemu_escape(dumpdtb, esc, sizeof(esc)));
	else
		ARG("%s", machine);
	ARG("-accel");
	ARG("%s", cfg->accel == VMM_ACCEL_KVM ? "kvm" : "tcg");
	if (cfg->accel == VMM_ACCEL_ICOUNT) {
		ARG("-icount");
		ARG("shift=0,sleep=off");
	}
	ARG("-cpu");
	ARG("max");
	if (numa_args(a, m) || boot_args(a, cfg, m, dir))
		return -1;
	return 0;
}

/* A running QEMU: its pid and the read ends of its stdout, stderr and
 * (x86_64) status pipe. */
struct qemu_child {
	pid_t pid;
	int out_fd, err_fd, status_fd; /* -1 once closed (or no status pipe) */
	int status_byte;	       /* the last byte on the status pipe, or -1 */
	bool error_seen;	       /* QEMU printed an error (not a warning) on stderr */
	bool quiet;		       /* we are killing it: stop forwarding its stderr */
	char err_line[512];
	size_t err_len;
};

/* The signal that asked ptelab to stop (SIGINT, SIGTERM, SIGHUP), or 0. */
static volatile sig_atomic_t qemu_stop_signal;
static const int qemu_stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void qemu_on_stop_signal(int sig)
{
	qemu_stop_signal = sig;
}

static void qemu_set_stop_action(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(qemu_stop_signals) / sizeof(int); i++)
		sigaction(qemu_stop_signals[i], &sa, NULL);
}

/*
 * qemu_catch_signals - block the stop signals and route them to
 * qemu_on_stop_signal(), saving the old mask in @old; while blocked they
 * are delivered only inside ppoll(), so none is lost between a check and
 * a wait. The handler stays until qemu_default_signals(): a second signal
 * during the kill grace or the cleanup is only noted, so the temporary
 * directory is still removed.
 */
static void qemu_catch_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(qemu_stop_signals) / sizeof(int); i++)
		sigaddset(&set, qemu_stop_signals[i]);
	qemu_stop_signal = 0;
	sigprocmask(SIG_BLOCK, &set, old);
	qemu_set_stop_action(qemu_on_stop_signal);
}

/* The stop signals' default actions again (the run's files are gone). */
static void qemu_default_signals(void)
{
	qemu_set_stop_action(SIG_DFL);
}

/* In the child: stdin from /dev/null, stdout, stderr and fd
 * VMM_QEMU_STATUS_FD from the pipes' write ends (@status[1] may be -1).
 * Every other descriptor of ptelab's is close-on-exec. */
static int child_fds(const int out[2], const int err[2], const int status[2])
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC), s = status[1];

	/* Above the descriptors dup2() sets next, so none overwrites it. */
	if (s >= 0 && (s = fcntl(s, F_DUPFD_CLOEXEC, VMM_QEMU_STATUS_FD + 1)) < 0)
		return -1;
	if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
		return -1;
	return s >= 0 && dup2(s, VMM_QEMU_STATUS_FD) < 0 ? -1 : 0;
}

/*
 * qemu_spawn - start @argv with stdin from /dev/null and stdout/stderr on
 * new pipes, and with @status_pipe a third pipe on fd VMM_QEMU_STATUS_FD;
 * the child dies with ptelab (PR_SET_PDEATHSIG) and starts with the signal
 * mask and actions ptelab had before qemu_catch_signals().
 * Return: 0, or -1 (reported) with nothing left open.
 */
static int qemu_spawn(char *const argv[], const sigset_t *mask, bool status_pipe,
		      struct qemu_child *c)
{
	int out[2], err[2], status[2] = { -1, -1 };

	if (pipe2(out, O_CLOEXEC))
		goto err_msg;
	if (pipe2(err, O_CLOEXEC))
		goto err_close_out;
	if (status_pipe && pipe2(status, O_CLOEXEC))
		goto err_close_err;
	c->pid = fork();
	if (c->pid < 0)
		goto err_close_status;
	if (c->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (size_t i = 0; i < sizeof(qemu_stop_signals) / sizeof(int); i++)
			signal(qemu_stop_signals[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, mask, NULL);
		if (child_fds(out, err, status))
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "ptelab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	if (status[1] >= 0)
		close(status[1]);
	c->out_fd = out[0];
	c->err_fd = err[0];
	c->status_fd = status[0];
	return 0;

err_close_status:
	if (status[0] >= 0) {
		close(status[0]);
		close(status[1]);
	}
err_close_err:
	close(err[0]);
	close(err[1]);
err_close_out:
	close(out[0]);
	close(out[1]);
err_msg:
	vmm_msg("cannot start %s: %s", argv[0], strerror(errno));
	return -1;
}

/* One complete line QEMU wrote on stderr: pass it on, note real errors. */
static void qemu_err_line(struct qemu_child *c, const char *line, size_t n)
{
	if (!c->quiet && write(2, line, n) < 0)
		c->quiet = true;
	if (!strstr(line, "warning:") && !strstr(line, "info:") && !c->quiet)
		c->error_seen = true;
}

/* Move what is readable on @fd to the console (stdout) or stderr, or
 * keep its last byte (the status pipe).
 * Return: 1 while the pipe is open, 0 at EOF. */
static int qemu_drain(struct qemu_child *c, int fd, struct vmm_console *con)
{
	char buf[16384];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (fd == c->status_fd) {
		if (n > 0)
			c->status_byte = (unsigned char)buf[n - 1];
		return n > 0;
	}
	if (fd == c->out_fd) {
		vmm_console_put(con, buf, (size_t)n);
		return n > 0;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (c->err_len < sizeof(c->err_line) - 1)
			c->err_line[c->err_len++] = buf[i];
		if (buf[i] == '\n' || c->err_len == sizeof(c->err_line) - 1) {
			c->err_line[c->err_len] = 0;
			qemu_err_line(c, c->err_line, c->err_len);
			c->err_len = 0;
		}
	}
	return n > 0;
}

static void qemu_close_pipes(struct qemu_child *c)
{
	if (c->out_fd >= 0)
		close(c->out_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	if (c->status_fd >= 0)
		close(c->status_fd);
	c->out_fd = c->err_fd = c->status_fd = -1;
}

/* Wait up to @ms for @p, with the stop signals unblocked (@mask) meanwhile.
 * Return: ppoll's result; -1 with EINTR when a stop signal came. */
static int qemu_wait(struct pollfd p[3], uint64_t ms, const sigset_t *mask)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000),
			       .tv_nsec = (long)(ms % 1000) * 1000000 };

	return ppoll(p, 3, &ts, mask);
}

enum qemu_pump_end { PUMP_EXITED, PUMP_TIMEOUT, PUMP_SIGNAL };

/*
 * qemu_pump - forward QEMU's output until all its pipes close and it
 * exits, until @deadline (vmm_now_us() time), or until a stop signal.
 * Return: PUMP_EXITED with *@wstatus set, PUMP_TIMEOUT or PUMP_SIGNAL (QEMU
 * may still be running).
 */
static enum qemu_pump_end qemu_pump(struct qemu_child *c, struct vmm_console *con,
				    uint64_t deadline, const sigset_t *mask, int *wstatus)
{
	struct pollfd p[3] = { { .fd = c->out_fd, .events = POLLIN },
			       { .fd = c->err_fd, .events = POLLIN },
			       { .fd = c->status_fd, .events = POLLIN } };
	int *fds[3] = { &c->out_fd, &c->err_fd, &c->status_fd };

	for (;;) {
		uint64_t now = vmm_now_us(), ms = (deadline - now + 999) / 1000;
		int r;

		if (qemu_stop_signal)
			return PUMP_SIGNAL;
		if (now >= deadline)
			return PUMP_TIMEOUT;
		if (p[0].fd < 0 && p[1].fd < 0 && p[2].fd < 0) {
			if (waitpid(c->pid, wstatus, WNOHANG) == c->pid)
				return PUMP_EXITED;
			ms = ms < 5 ? ms : 5; /* pipes closed: QEMU is exiting */
		}
		r = qemu_wait(p, ms, mask);
		if (r < 0 && errno != EINTR)
			return PUMP_SIGNAL; /* cannot happen with valid fds */
		for (int i = 0; r > 0 && i < 3; i++) {
			if (p[i].fd < 0 || !p[i].revents || qemu_drain(c, p[i].fd, con))
				continue;
			close(p[i].fd);
			*fds[i] = -1;
			p[i].fd = -1;
		}
	}
}

/* Stop QEMU: SIGTERM, then SIGKILL after KILL_GRACE_MS; reap it. */
static void qemu_kill(struct qemu_child *c)
{
	c->quiet = true;
	qemu_close_pipes(c);
	kill(c->pid, SIGTERM);
	for (int ms = 0; ms < KILL_GRACE_MS; ms += 5) {
		if (waitpid(c->pid, NULL, WNOHANG) == c->pid)
			return;
		usleep(5000);
	}
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
}

int vmm_qemu_status(int code, int status_byte)
{
	if (!(code & 1))
		return -1;
	/* isa-debug-exit's code carries the status' low 7 bits: the status
	 * byte must agree with it, else it is not this exit's. */
	if (status_byte >= 0 && ((((unsigned)status_byte << 1) | 1) & 0xff) == (unsigned)code)
		return status_byte;
	return code == 127 ? -1 : code >> 1; /* 127: also "cannot run" */
}

/* arm64's status: QEMU exits 0 when the guest calls PSCI SYSTEM_OFF, and
 * the guest's last status line (ptelab/abi.h) says with which status.
 * With --dtb-out QEMU exits 0 once it has dumped the tree, before the
 * guest runs. Return: the status, or PTELAB_EXIT_CRASH (reported). */
static int arm64_status(const struct vmm_config *cfg, int code, const struct vmm_console *con)
{
	const char *bin = vmm_qemu_binary(cfg->arch);

	if (code == 0 && cfg->dtb_out)
		return 0;
	if (code == 0 && con->exit_status >= 0)
		return vmm_guest_status(con->exit_status);
	if (code == 0)
		vmm_msg("guest crashed: it powered the machine off without an exit status line");
	else
		vmm_msg("guest crashed: %s exited with status %d", bin, code);
	return PTELAB_EXIT_CRASH;
}

/*
 * qemu_status - ptelab's exit status for QEMU's wait status @ws. x86_64:
 * see vmm_qemu_status(); 0 means the guest reset the machine (with
 * -no-reboot QEMU then exits). arm64: see arm64_status(). Exit 1 after an
 * error line from QEMU is QEMU's own failure.
 */
static int qemu_status(const struct vmm_config *cfg, const struct qemu_child *c, int ws,
		       const struct vmm_console *con)
{
	const char *bin = vmm_qemu_binary(cfg->arch);
	int code, status;

	if (WIFSIGNALED(ws)) {
		vmm_msg("%s was killed by signal %d", bin, WTERMSIG(ws));
		return PTELAB_EXIT_CRASH;
	}
	code = WEXITSTATUS(ws);
	status = cfg->arch == VMM_ARCH_X86_64 ? vmm_qemu_status(code, c->status_byte) : -1;
	if (status >= 0 && !c->error_seen)
		return vmm_guest_status(status);
	/* 127 from the child means exec failed; it printed why, as QEMU
	 * does when it exits 1 on bad options. */
	if ((code == 127 || code == 1) && c->error_seen) {
		vmm_msg("%s failed (exit status %d; its message is above)", bin, code);
		return PTELAB_EXIT_NOBACKEND;
	}
	if (cfg->arch == VMM_ARCH_ARM64)
		return arm64_status(cfg, code, con);
	if (code == 0)
		vmm_msg("guest crashed: it reset the machine (a triple fault?) without writing "
			"an exit status");
	else
		vmm_msg("guest crashed: %s exited with status %d", bin, code);
	return PTELAB_EXIT_CRASH;
}

/* Run @argv to completion, timeout or stop signal.
 * Return: the ptelab exit status. */
static int qemu_run(const struct vmm_config *cfg, char *const argv[], struct vmm_console *con)
{
	struct qemu_child c = { .out_fd = -1, .err_fd = -1, .status_fd = -1, .status_byte = -1 };
	uint64_t deadline = vmm_now_us() + (uint64_t)cfg->timeout * 1000000u;
	enum qemu_pump_end end;
	sigset_t old;
	int ws = 0;

	qemu_catch_signals(&old);
	if (qemu_spawn(argv, &old, cfg->arch == VMM_ARCH_X86_64, &c)) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return PTELAB_EXIT_NOBACKEND;
	}
	end = qemu_pump(&c, con, deadline, &old, &ws);
	if (end != PUMP_EXITED)
		qemu_kill(&c);
	sigprocmask(SIG_SETMASK, &old, NULL); /* still caught: see qemu_catch_signals() */
	qemu_close_pipes(&c);
	vmm_console_flush(con);
	if (end == PUMP_TIMEOUT) {
		vmm_msg("guest timed out after %d s", cfg->timeout);
		return PTELAB_EXIT_TIMEOUT;
	}
	if (end == PUMP_SIGNAL) {
		vmm_msg("stopped by %s", strsignal(qemu_stop_signal));
		return 128 + qemu_stop_signal;
	}
	c.err_line[c.err_len] = 0;
	if (c.err_len)
		qemu_err_line(&c, c.err_line, c.err_len);
	return qemu_status(cfg, &c, ws, con);
}

/* A private directory for a run's files: the FDT QEMU passes as -initrd
 * (x86_64), the tree QEMU dumps for --dtb-out (arm64). dir[0] is 0 when
 * there is none. */
struct qemu_tmp {
	char dir[PATH_MAX - 16];
	char fdt[PATH_MAX];
	char dump[PATH_MAX];
	char bootrec[PATH_MAX]; /* arm64 with an initramfs or program arguments */
	char initramfs[PATH_MAX];
};

/* Make @tmp's directory. Return: 0, or -1 (reported). */
static int qemu_make_tmpdir(struct qemu_tmp *tmp)
{
	const char *base = getenv("TMPDIR");

	if (snprintf(tmp->dir, sizeof(tmp->dir), "%s/ptelab.XXXXXX",
		     base && *base ? base : "/tmp") >= (int)sizeof(tmp->dir) ||
	    !mkdtemp(tmp->dir)) {
		vmm_msg("cannot make a temporary directory %s: %s", tmp->dir, strerror(errno));
		tmp->dir[0] = 0;
		return -1;
	}
	snprintf(tmp->fdt, sizeof(tmp->fdt), "%s/" VMM_QEMU_FDT_FILE, tmp->dir);
	snprintf(tmp->dump, sizeof(tmp->dump), "%s/dumped.dtb", tmp->dir);
	snprintf(tmp->bootrec, sizeof(tmp->bootrec), "%s/" VMM_QEMU_BOOTREC_FILE, tmp->dir);
	snprintf(tmp->initramfs, sizeof(tmp->initramfs), "%s/" VMM_QEMU_INITRAMFS_FILE, tmp->dir);
	return 0;
}

/*
 * qemu_copy_dump - copy the tree QEMU dumped (dumpdtb) into the user's
 * --dtb-out file by writing into it: QEMU itself replaces its target by a
 * rename, which would turn a device such as /dev/null into a plain file.
 * Return: 0, or -1 (reported).
 */
static int qemu_copy_dump(const struct qemu_tmp *tmp, const char *to)
{
	static char blob[8 << 20]; /* QEMU's virt tree is 1 MiB, padding included */
	FILE *f = fopen(tmp->dump, "rb");
	size_t n = f ? fread(blob, 1, sizeof(blob), f) : 0;

	if (f)
		fclose(f);
	if (!n || n == sizeof(blob)) {
		vmm_msg("--dtb-out: QEMU dumped no usable tree (%s)", tmp->dump);
		return -1;
	}
	if (vmm_fdt_write_file(to, blob, n)) {
		vmm_msg("--dtb-out: %s: %s", to, strerror(errno));
		return -1;
	}
	return 0;
}

/* Append @m's initramfs to the FDT file @path, after zeroes up to the
 * next PTELAB_INITRAMFS_ALIGN boundary (ptelab/abi.h: QEMU's PVH loader
 * takes one module). Return: 0, or -1 with errno set. */
static int qemu_append_initramfs(const char *path, const struct vmm_machine *m, size_t fdt_size)
{
	static const char zero[PTELAB_INITRAMFS_ALIGN];
	size_t pad = (PTELAB_INITRAMFS_ALIGN - fdt_size % PTELAB_INITRAMFS_ALIGN) %
		     PTELAB_INITRAMFS_ALIGN;
	FILE *f;
	int ok;

	if (!m->initramfs)
		return 0;
	f = fopen(path, "ab");
	if (!f)
		return -1;
	ok = fwrite(zero, 1, pad, f) == pad &&
	     fwrite(m->initramfs, 1, m->initramfs_size, f) == m->initramfs_size;
	return fclose(f) || !ok ? -1 : 0;
}

/*
 * qemu_write_fdt - build @m's device tree (its timebase measured first)
 * into a new temporary directory.
 * Return: 0, or -1 (reported) with nothing left behind.
 */
static int qemu_write_fdt(struct vmm_machine *m, enum vmm_accel accel, struct qemu_tmp *tmp)
{
	static char blob[PTELAB_BOOT_FDT_MAX];
	int size;

	/* Under -icount QEMU's TSC is its virtual clock in nanoseconds. */
	m->timebase_hz = accel == VMM_ACCEL_ICOUNT ? 1000000000ull : vmm_host_counter_hz();
	size = vmm_fdt_build(m, blob, sizeof(blob));
	if (size < 0) {
		vmm_msg("the device tree does not fit in %zu bytes", sizeof(blob));
		return -1;
	}
	if (qemu_make_tmpdir(tmp))
		return -1;
	if (vmm_fdt_write_file(tmp->fdt, blob, (size_t)size) ||
	    qemu_append_initramfs(tmp->fdt, m, (size_t)size)) {
		vmm_msg("cannot write %s: %s", tmp->fdt, strerror(errno));
		goto err_rmdir;
	}
	return 0;

err_rmdir:
	unlink(tmp->fdt);
	rmdir(tmp->dir);
	tmp->dir[0] = 0;
	return -1;
}

/* Remove @tmp's files, or with @keep say where they are. */
static void qemu_remove_tmp(struct qemu_tmp *tmp, bool keep)
{
	if (!tmp->dir[0])
		return;
	if (keep) {
		vmm_msg("kept %s (the device tree the QEMU command uses)", tmp->dir);
		return;
	}
	unlink(tmp->fdt);
	unlink(tmp->dump);
	unlink(tmp->bootrec);
	unlink(tmp->initramfs);
	rmdir(tmp->dir);
	tmp->dir[0] = 0;
}

/* Write @buf (@len bytes) to the new file @path. Return: 0, or -1 with errno. */
static int write_new_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(buf, 1, len, f) == len;
	return fclose(f) || !ok ? -1 : 0;
}

/*
 * qemu_write_arm64_boot - an arm64 run's boot record and initramfs files
 * (ptelab/abi.h) in a new temporary directory @tmp, when @m has either an
 * initramfs or program arguments (else nothing). The record is laid out
 * as the little-endian guest reads it, which is this host's order too
 * (ptelab's hosts are x86_64 and arm64).
 * Return: 0, or -1 (reported) with nothing left behind.
 */
static int qemu_write_arm64_boot(const struct vmm_machine *m, struct qemu_tmp *tmp)
{
	static struct ptelab_arm64_bootrec rec;
	uint64_t pa = m->initramfs ? vmm_arm64_initramfs_pa(m) : 0;

	if (!m->initramfs && !m->exec_argv_len)
		return 0;
	if (m->initramfs && !pa) {
		vmm_msg("--initramfs: %zu bytes do not fit in a quarter of one RAM run",
			m->initramfs_size);
		return -1;
	}
	rec = (struct ptelab_arm64_bootrec){ .magic = PTELAB_ARM64_BOOTREC_MAGIC,
					     .version = PTELAB_ARM64_BOOTREC_VERSION,
					     .argv_len = (uint32_t)m->exec_argv_len,
					     .initramfs_pa = pa,
					     .initramfs_size = m->initramfs_size };
	memcpy(rec.argv, m->exec_argv, m->exec_argv_len);
	if (!tmp->dir[0] && qemu_make_tmpdir(tmp))
		return -1;
	if (write_new_file(tmp->bootrec, &rec, sizeof(rec)) ||
	    (m->initramfs && write_new_file(tmp->initramfs, m->initramfs, m->initramfs_size))) {
		vmm_msg("cannot write %s: %s", tmp->dir, strerror(errno));
		qemu_remove_tmp(tmp, false);
		return -1;
	}
	return 0;
}

/* Print @a shell-quoted, so it can be pasted to run QEMU by hand, and
 * where the files it reads live. */
/* Append " N>DIR/status" to the printed command @line (@size bytes), so
 * that it runs as pasted and leaves the status byte where ptelab's own
 * runs used to. Return: 0, or -1 when it does not fit. */
static int status_redirect(char *line, size_t size, const struct qemu_tmp *tmp)
{
	char path[PATH_MAX + 8];
	size_t n = strlen(line);

	snprintf(path, sizeof(path), "%s/status", tmp->dir);
	if (n + 4 >= size)
		return -1;
	snprintf(line + n, size - n, " %d>", VMM_QEMU_STATUS_FD);
	return vmm_shell_quote(line, size, path);
}

static void qemu_print_argv(const struct vmm_qemu_argv *a, const struct qemu_tmp *tmp, bool keep)
{
	static char line[VMM_QEMU_ARGS_BYTES * 2];

	size_t n;

	line[0] = 0;
	for (int i = 0; i < a->argc; i++) {
		n = strlen(line);
		if (i && n + 1 < sizeof(line)) {
			line[n++] = ' ';
			line[n] = 0;
		}
		if (vmm_shell_quote(line, sizeof(line), a->argv[i]))
			break;
	}
	if (strstr(line, "/dev/fd/") && tmp->dir[0] && status_redirect(line, sizeof(line), tmp))
		line[0] = 0;
	fprintf(stderr, "ptelab: %s\n", line);
	if (strstr(line, "/dev/fd/"))
		vmm_msg("the guest's status byte goes to fd %d, here the file %s/status",
			VMM_QEMU_STATUS_FD, tmp->dir);
	if (tmp->dir[0] && !keep)
		vmm_msg("that command reads %s, which ptelab removes when it exits; add --keep "
			"to keep it",
			tmp->dir);
}

/* Can the QEMU backend run at all? Return: 0, or an exit status (reported). */
static int qemu_available(const struct vmm_config *cfg)
{
	char why[256];

	if (!vmm_in_path(vmm_qemu_binary(cfg->arch))) {
		vmm_msg("%s not found in $PATH; install the Debian package %s",
			vmm_qemu_binary(cfg->arch), vmm_qemu_package(cfg->arch));
		return PTELAB_EXIT_NOBACKEND;
	}
	if (cfg->accel == VMM_ACCEL_KVM && !vmm_kvm_usable(why, sizeof(why))) {
		vmm_msg("--accel kvm: %s", why);
		return PTELAB_EXIT_NOBACKEND;
	}
	return 0;
}

int vmm_qemu_boot(const struct vmm_config *cfg, struct vmm_machine *m, struct vmm_console *con,
		  struct vmm_timing *t)
{
	static struct vmm_qemu_argv a;
	struct qemu_tmp tmp = { "", "", "", "", "" };
	bool dump = cfg->arch == VMM_ARCH_ARM64 && cfg->dtb_out;
	uint64_t t0 = vmm_now_us();
	int status = qemu_available(cfg);

	if (status)
		return status;
	if (cfg->arch == VMM_ARCH_X86_64 && qemu_write_fdt(m, cfg->accel, &tmp))
		return PTELAB_EXIT_NOBACKEND;
	if (dump && qemu_make_tmpdir(&tmp))
		return PTELAB_EXIT_NOBACKEND;
	if (cfg->arch == VMM_ARCH_ARM64 && qemu_write_arm64_boot(m, &tmp))
		return PTELAB_EXIT_NOBACKEND;
	if (vmm_qemu_build_argv(cfg, m, tmp.dir, dump ? tmp.dump : NULL, &a)) {
		vmm_msg("the QEMU command line is too long");
		qemu_remove_tmp(&tmp, false);
		return PTELAB_EXIT_USAGE;
	}
	if (cfg->verbose)
		qemu_print_argv(&a, &tmp, cfg->keep);
	t->load_us = vmm_now_us() - t0;
	t0 = vmm_now_us();
	status = qemu_run(cfg, a.argv, con);
	t->run_us = vmm_now_us() - t0;
	if (dump && status == 0 && qemu_copy_dump(&tmp, cfg->dtb_out))
		status = PTELAB_EXIT_USAGE;
	qemu_remove_tmp(&tmp, cfg->keep);
	qemu_default_signals();
	return status;
}
