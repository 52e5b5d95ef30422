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
#include <unistd.h>

#include "ptelab_abi.h"
#include "vmm_fdt.h"
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

/* The options after the machine's: devices, console, kernel, boot data. */
static int boot_args(struct vmm_qemu_argv *a, const struct vmm_config *cfg,
		     const struct vmm_machine *m, const char *initrd)
{
	ARG("-nodefaults");
	ARG("-no-reboot");
	ARG("-display");
	ARG("none");
	ARG("-serial");
	ARG("stdio");
	ARG("-monitor");
	ARG("none");
	ARG("-kernel");
	ARG("%s", cfg->kernel);
	if (cfg->arch == VMM_ARCH_X86_64) {
		ARG("-initrd");
		ARG("%s", initrd);
		ARG("-device");
		ARG("isa-debug-exit,iobase=0x%x,iosize=0x04", PTELAB_PORT_EXIT);
	} else {
		ARG("-semihosting-config");
		ARG("enable=on,target=native");
		ARG("-append");
		ARG("%s", m->bootargs);
	}
	return 0;
}

int vmm_qemu_build_argv(const struct vmm_config *cfg, const struct vmm_machine *m,
			const char *initrd, const char *dumpdtb, struct vmm_qemu_argv *a)
{
	const char *machine = cfg->arch == VMM_ARCH_X86_64 ? "pc" : "virt";

	a->argc = 0;
	a->used = 0;
	ARG("%s", vmm_qemu_binary(cfg->arch));
	ARG("-M");
	if (dumpdtb) {
		char path[PATH_MAX * 2];
		size_t n = 0;

		/* QEMU's option syntax writes a ',' in a value as ",,". */
		for (const char *p = dumpdtb; *p && n + 2 < sizeof(path); p++) {
			path[n++] = *p;
			if (*p == ',')
				path[n++] = ',';
		}
		path[n] = 0;
		ARG("%s,dumpdtb=%s", machine, path);
	} else
		ARG("%s", machine);
	ARG("-accel");
	ARG("%s", cfg->accel == VMM_ACCEL_KVM ? "kvm" : "tcg");
	if (cfg->accel == VMM_ACCEL_ICOUNT) {
		ARG("-icount");
		ARG("shift=0,sleep=off");
	}
	ARG("-cpu");
	ARG("max");
	if (numa_args(a, m) || boot_args(a, cfg, m, initrd))
		return -1;
	return 0;
}

/* A running QEMU: its pid and the read ends of its stdout and stderr. */
struct qemu_child {
	pid_t pid;
	int out_fd, err_fd;
	bool error_seen; /* QEMU printed an error (not a warning) on stderr */
	bool quiet;	 /* we are killing it: stop forwarding its stderr */
	char err_line[512];
	size_t err_len;
};

/*
 * qemu_spawn - start @argv with stdin from /dev/null and stdout/stderr on
 * new pipes; the child dies with ptelab (PR_SET_PDEATHSIG).
 * Return: 0, or -1 (reported) with nothing left open.
 */
static int qemu_spawn(char *const argv[], struct qemu_child *c)
{
	int out[2], err[2];

	if (pipe2(out, O_CLOEXEC))
		goto err_msg;
	if (pipe2(err, O_CLOEXEC))
		goto err_close_out;
	c->pid = fork();
	if (c->pid < 0)
		goto err_close_err;
	if (c->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "ptelab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	c->out_fd = out[0];
	c->err_fd = err[0];
	return 0;

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

/* Move what is readable on @fd to the console (stdout) or stderr.
 * Return: 1 while the pipe is open, 0 at EOF. */
static int qemu_drain(struct qemu_child *c, int fd, struct vmm_console *con)
{
	char buf[16384];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
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
	c->out_fd = c->err_fd = -1;
}

/*
 * qemu_pump - forward QEMU's output until both its pipes close and it
 * exits, or until @deadline (vmm_now_us() time).
 * Return: 0 with *@wstatus set, or 1 on timeout (QEMU still running).
 */
static int qemu_pump(struct qemu_child *c, struct vmm_console *con, uint64_t deadline, int *wstatus)
{
	struct pollfd p[2] = { { .fd = c->out_fd, .events = POLLIN },
			       { .fd = c->err_fd, .events = POLLIN } };

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		uint64_t now = vmm_now_us(), ms = (deadline - now + 999) / 1000;
		int r;

		if (now >= deadline)
			return 1;
		r = poll(p, 2, ms < 1000000 ? (int)ms : 1000000);
		if (r < 0 && errno != EINTR)
			break;
		for (int i = 0; r > 0 && i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents || qemu_drain(c, p[i].fd, con))
				continue;
			close(p[i].fd);
			*(i ? &c->err_fd : &c->out_fd) = -1;
			p[i].fd = -1;
		}
	}
	while (waitpid(c->pid, wstatus, WNOHANG) == 0) {
		if (vmm_now_us() >= deadline)
			return 1;
		usleep(5000);
	}
	return 0;
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

/*
 * qemu_status - ptelab's exit status for QEMU's wait status @ws.
 * x86_64: isa-debug-exit makes QEMU exit (v << 1) | 1, so odd means the
 * guest's v; 0 means the guest reset the machine (with -no-reboot QEMU
 * then exits). arm64: semihosting SYS_EXIT passes the guest's status.
 * Exit 1 after an error line from QEMU is QEMU's own failure.
 */
static int qemu_status(const struct vmm_config *cfg, const struct qemu_child *c, int ws)
{
	const char *bin = vmm_qemu_binary(cfg->arch);
	int code;

	if (WIFSIGNALED(ws)) {
		vmm_msg("%s was killed by signal %d", bin, WTERMSIG(ws));
		return PTELAB_EXIT_CRASH;
	}
	code = WEXITSTATUS(ws);
	if (code == 127 || (code == 1 && c->error_seen)) {
		vmm_msg("%s failed (exit status %d; its message is above)", bin, code);
		return PTELAB_EXIT_NOBACKEND;
	}
	if (cfg->arch == VMM_ARCH_ARM64 || cfg->dtb_out)
		return code;
	if (code & 1)
		return code >> 1;
	if (code == 0)
		vmm_msg("guest crashed: it reset the machine (a triple fault?) without writing "
			"an exit status");
	else
		vmm_msg("guest crashed: %s exited with status %d", bin, code);
	return PTELAB_EXIT_CRASH;
}

/* Run @argv to completion or timeout. Return: the ptelab exit status. */
static int qemu_run(const struct vmm_config *cfg, char *const argv[], struct vmm_console *con)
{
	struct qemu_child c = { .out_fd = -1, .err_fd = -1 };
	uint64_t deadline = vmm_now_us() + (uint64_t)cfg->timeout * 1000000u;
	int ws = 0;

	if (qemu_spawn(argv, &c))
		return PTELAB_EXIT_NOBACKEND;
	if (qemu_pump(&c, con, deadline, &ws)) {
		qemu_kill(&c);
		vmm_console_flush(con);
		vmm_msg("guest timed out after %d s", cfg->timeout);
		return PTELAB_EXIT_TIMEOUT;
	}
	qemu_close_pipes(&c);
	vmm_console_flush(con);
	c.err_line[c.err_len] = 0;
	if (c.err_len)
		qemu_err_line(&c, c.err_line, c.err_len);
	return qemu_status(cfg, &c, ws);
}

/* A private directory for the FDT QEMU passes as -initrd. */
struct qemu_tmp {
	char dir[PATH_MAX - 16];
	char fdt[PATH_MAX];
};

/*
 * qemu_write_fdt - build @m's device tree (its timebase measured first)
 * into a new temporary directory.
 * Return: 0, or -1 (reported) with nothing left behind.
 */
static int qemu_write_fdt(struct vmm_machine *m, enum vmm_accel accel, struct qemu_tmp *tmp)
{
	const char *base = getenv("TMPDIR");
	static char blob[PTELAB_BOOT_FDT_MAX];
	int size;

	/* Under -icount QEMU's TSC is its virtual clock in nanoseconds. */
	m->timebase_hz = accel == VMM_ACCEL_ICOUNT ? 1000000000ull : vmm_host_tsc_hz();
	size = vmm_fdt_build(m, blob, sizeof(blob));
	if (size < 0) {
		vmm_msg("the device tree does not fit in %zu bytes", sizeof(blob));
		return -1;
	}
	if (snprintf(tmp->dir, sizeof(tmp->dir), "%s/ptelab.XXXXXX",
		     base && *base ? base : "/tmp") >= (int)sizeof(tmp->dir) ||
	    !mkdtemp(tmp->dir)) {
		vmm_msg("cannot make a temporary directory %s: %s", tmp->dir, strerror(errno));
		return -1;
	}
	snprintf(tmp->fdt, sizeof(tmp->fdt), "%s/guest.dtb", tmp->dir);
	if (vmm_fdt_write_file(tmp->fdt, blob, (size_t)size)) {
		vmm_msg("cannot write %s: %s", tmp->fdt, strerror(errno));
		goto err_rmdir;
	}
	return 0;

err_rmdir:
	unlink(tmp->fdt);
	rmdir(tmp->dir);
	return -1;
}

static void qemu_remove_tmp(struct qemu_tmp *tmp)
{
	if (!tmp->dir[0])
		return;
	unlink(tmp->fdt);
	rmdir(tmp->dir);
	tmp->dir[0] = 0;
}

/* Print @a shell-quoted, so it can be pasted to run QEMU by hand. */
static void qemu_print_argv(const struct vmm_qemu_argv *a)
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
	fprintf(stderr, "ptelab: %s\n", line);
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
	struct qemu_tmp tmp = { "", "" };
	uint64_t t0 = vmm_now_us();
	int status = qemu_available(cfg);

	if (status)
		return status;
	if (cfg->arch == VMM_ARCH_X86_64 && qemu_write_fdt(m, cfg->accel, &tmp))
		return PTELAB_EXIT_NOBACKEND;
	if (vmm_qemu_build_argv(cfg, m, tmp.fdt, cfg->arch == VMM_ARCH_ARM64 ? cfg->dtb_out : NULL,
				&a)) {
		vmm_msg("the QEMU command line is too long");
		qemu_remove_tmp(&tmp);
		return PTELAB_EXIT_USAGE;
	}
	if (cfg->verbose)
		qemu_print_argv(&a);
	t->load_us = vmm_now_us() - t0;
	t0 = vmm_now_us();
	status = qemu_run(cfg, a.argv, con);
	t->run_us = vmm_now_us() - t0;
	qemu_remove_tmp(&tmp);
	return status;
}
