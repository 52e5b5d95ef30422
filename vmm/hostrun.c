/*
 * hostrun.c - --backend host (see vmm_hostrun.h): fork, exec the host
 * binary with its stdout on a pipe, pass what it prints to the console
 * until it exits or the timeout expires.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptelab/abi.h"
#include "vmm_hostrun.h"
#include "vmm_util.h"

/* <directory of ptelab>/ptelab-host-<arch> into @buf. Return: 0 or -1. */
static int host_binary(const struct vmm_config *cfg, char *buf, size_t size)
{
	char self[PATH_MAX];
	int n;

	if (vmm_self_exe(self, sizeof(self)))
		return -1;
	*strrchr(self, '/') = 0; /* an absolute path has one */
	n = snprintf(buf, size, "%s/ptelab-host-%s", self, vmm_arch_name(cfg->arch));
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* In the child: stdout to @fd, then the host binary. Never returns. */
static void exec_host(const char *bin, const struct vmm_config *cfg, int fd)
{
	char mem[32], nodes[16];
	char *argv[] = { (char *)bin,		"--mem", mem, "--nodes", nodes, "--",
			 (char *)cfg->bootargs, NULL };

	snprintf(mem, sizeof(mem), "%llu", (unsigned long long)cfg->mem);
	snprintf(nodes, sizeof(nodes), "%d", cfg->nodes);
	if (dup2(fd, 1) < 0)
		_exit(127);
	close(fd);
	execv(bin, argv);
	fprintf(stderr, "ptelab: %s: %s\n", bin, strerror(errno));
	_exit(127);
}

/* Pass the child's output on until EOF or @deadline_us. Return: 0 at EOF,
 * -1 on timeout. */
static int pump(int fd, struct vmm_console *con, uint64_t deadline_us)
{
	char buf[4096];

	for (;;) {
		uint64_t now = vmm_now_us();
		struct pollfd p = { fd, POLLIN, 0 };
		int r;
		ssize_t n;

		if (now >= deadline_us)
			return -1;
		r = poll(&p, 1, (int)((deadline_us - now) / 1000 + 1));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		vmm_console_put(con, buf, (size_t)n);
	}
}

/* The exit status of child @pid, waited for until @deadline_us (a child
 * that closed its stdout may still run); a signal is reported.
 * Return: the status, or -1 at the deadline (the child still runs). */
static int reap(pid_t pid, const char *bin, uint64_t deadline_us)
{
	int ws;
	pid_t r;

	while ((r = waitpid(pid, &ws, WNOHANG)) <= 0) {
		if (r < 0 && errno != EINTR)
			return PTELAB_EXIT_CRASH;
		if (vmm_now_us() >= deadline_us)
			return -1;
		usleep(2000);
	}
	if (WIFEXITED(ws))
		return vmm_guest_status(WEXITSTATUS(ws));
	vmm_msg("%s: killed by signal %d (%s)", bin, WTERMSIG(ws), strsignal(WTERMSIG(ws)));
	return PTELAB_EXIT_CRASH;
}

int vmm_host_boot(const struct vmm_config *cfg, struct vmm_console *con, struct vmm_timing *t)
{
	char bin[PATH_MAX];
	int fds[2], status;
	uint64_t start = vmm_now_us(), deadline;
	pid_t pid;

	if (host_binary(cfg, bin, sizeof(bin)) || access(bin, X_OK)) {
		vmm_msg("--backend host: %s is missing (make %s)", bin, bin);
		return PTELAB_EXIT_NOBACKEND;
	}
	if (pipe(fds))
		return vmm_msg("--backend host: pipe: %s", strerror(errno)), PTELAB_EXIT_NOBACKEND;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		vmm_msg("--backend host: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return PTELAB_EXIT_NOBACKEND;
	}
	if (pid == 0) {
		close(fds[0]);
		exec_host(bin, cfg, fds[1]);
	}
	close(fds[1]);
	deadline = start + (uint64_t)cfg->timeout * 1000000u;
	status = pump(fds[0], con, deadline) ? -1 : reap(pid, bin, deadline);
	if (status < 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		vmm_console_flush(con);
		vmm_msg("--backend host: stopped after the %d s timeout", cfg->timeout);
		status = PTELAB_EXIT_TIMEOUT;
	}
	close(fds[0]);
	t->run_us = vmm_now_us() - start;
	return status;
}
