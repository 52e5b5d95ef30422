/*
 * kvm.c - the generic half of ptelab's KVM backend: the VM, its memory
 * slots, one vCPU per cpu each run by a thread of its own, and the
 * timeout, which the main thread waits for.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include "ptelab/abi.h"
#include "vmm_kvm.h"
#include "vmm_util.h"

#define KVM_API 12

/* Set by the SIGALRM handler (the main thread's). */
static volatile sig_atomic_t kvm_timed_out;

#define EXIT_NAME(x) [KVM_EXIT_##x] = "KVM_EXIT_" #x
static const char *const exit_names[] = {
	EXIT_NAME(UNKNOWN),
	EXIT_NAME(EXCEPTION),
	EXIT_NAME(IO),
	EXIT_NAME(HYPERCALL),
	EXIT_NAME(DEBUG),
	EXIT_NAME(HLT),
	EXIT_NAME(MMIO),
	EXIT_NAME(IRQ_WINDOW_OPEN),
	EXIT_NAME(SHUTDOWN),
	EXIT_NAME(FAIL_ENTRY),
	EXIT_NAME(INTR),
	EXIT_NAME(SET_TPR),
	EXIT_NAME(TPR_ACCESS),
	EXIT_NAME(NMI),
	EXIT_NAME(INTERNAL_ERROR),
	EXIT_NAME(WATCHDOG),
	EXIT_NAME(EPR),
	EXIT_NAME(SYSTEM_EVENT),
	EXIT_NAME(IOAPIC_EOI),
	EXIT_NAME(HYPERV),
	EXIT_NAME(X86_RDMSR),
	EXIT_NAME(X86_WRMSR),
	EXIT_NAME(DIRTY_RING_FULL),
	EXIT_NAME(AP_RESET_HOLD),
	EXIT_NAME(ARM_NISV),
	EXIT_NAME(X86_BUS_LOCK),
	EXIT_NAME(XEN),
	EXIT_NAME(NOTIFY),
};

const char *vmm_kvm_exit_name(uint32_t reason, char *buf, size_t size)
{
	if (reason < sizeof(exit_names) / sizeof(exit_names[0]) && exit_names[reason])
		return exit_names[reason];
	snprintf(buf, size, "KVM_EXIT_%u", reason);
	return buf;
}

/* Open /dev/kvm and check its API version. Return: the fd, or -1 (@why). */
static int kvm_open(char *why, size_t whylen)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC), v;

	if (fd < 0) {
		snprintf(why, whylen, "/dev/kvm: %s", strerror(errno));
		return -1;
	}
	v = ioctl(fd, KVM_GET_API_VERSION, 0);
	if (v < 0) {
		snprintf(why, whylen, "/dev/kvm: KVM_GET_API_VERSION: %s (is it KVM?)",
			 strerror(errno));
		close(fd);
		return -1;
	}
	if (v != KVM_API) {
		snprintf(why, whylen, "/dev/kvm: API version %d, want %d", v, KVM_API);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * kvm_is_pvm - is /dev/kvm the kvm-pvm module (Pagetable-based Virtual
 * Machine)? Some cloud hosts offer it instead of hardware virtualization.
 * It runs guest ring 3 natively but emulates every ring-0 instruction, one
 * at a time (about 3000x slower), and its emulator has no SSE arithmetic,
 * so the ptelab guest, a ring-0 kernel built with newlib, cannot run on it.
 * PTELAB_ALLOW_PVM=1 in the environment tries it anyway.
 */
static int kvm_is_pvm(void)
{
	const char *allow = getenv("PTELAB_ALLOW_PVM");

	if (allow && strcmp(allow, "1") == 0)
		return 0;
	return access("/sys/module/kvm_pvm", F_OK) == 0;
}

/* /dev/kvm first: where it is missing or not KVM, that is the reason,
 * whatever modules are loaded. */
int vmm_kvm_usable(char *why, size_t whylen)
{
	int fd = kvm_open(why, whylen);

	if (fd < 0)
		return 0;
	close(fd);
	if (kvm_is_pvm()) {
		snprintf(why, whylen,
			 "/dev/kvm is kvm-pvm, which emulates every ring-0 instruction "
			 "(about 3000x slower) and cannot run SSE code at ring 0; "
			 "PTELAB_ALLOW_PVM=1 tries it anyway");
		return 0;
	}
	return 1;
}

/* Undo whatever of kvm_setup() was done; fds are -1 when not open. */
static void kvm_teardown(struct vmm_kvm *k)
{
	for (int i = 0; i < k->nr_vcpus; i++) {
		struct vmm_kvm_vcpu *v = &k->vcpu[i];

		if (v->run)
			munmap(v->run, k->run_size);
		if (v->fd >= 0)
			close(v->fd);
		v->run = NULL;
		v->fd = -1;
	}
	if (k->arch_fd >= 0)
		close(k->arch_fd);
	if (k->vm_fd >= 0)
		close(k->vm_fd);
	if (k->sys_fd >= 0)
		close(k->sys_fd);
	vmm_guest_mem_unmap(&k->mem);
	k->sys_fd = k->vm_fd = k->arch_fd = -1;
	k->nr_vcpus = 0;
}

/* Map guest RAM (one region per contiguous run of @m) into the VM. */
static int kvm_add_memory(struct vmm_kvm *k, const struct vmm_machine *m)
{
	if (vmm_guest_mem_map(&k->mem, m->ram, m->nr_ram)) {
		vmm_msg("cannot map %llu bytes of guest RAM: %s", (unsigned long long)m->ram_size,
			strerror(errno));
		return -1;
	}
	for (int i = 0; i < k->mem.nr; i++) {
		struct kvm_userspace_memory_region r = {
			.slot = (uint32_t)i,
			.guest_phys_addr = k->mem.region[i].gpa,
			.memory_size = k->mem.region[i].size,
			.userspace_addr = (uint64_t)(uintptr_t)k->mem.region[i].host,
		};

		if (ioctl(k->vm_fd, KVM_SET_USER_MEMORY_REGION, &r)) {
			vmm_msg("KVM_SET_USER_MEMORY_REGION slot %d: %s", i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* vCPU @id with its kvm_run mapping and the arch's identity for it. */
static int kvm_add_vcpu(struct vmm_kvm *k, int id)
{
	struct vmm_kvm_vcpu *v = &k->vcpu[id];

	*v = (struct vmm_kvm_vcpu){ .k = k, .id = id, .fd = -1 };
	k->nr_vcpus = id + 1;
	v->fd = ioctl(k->vm_fd, KVM_CREATE_VCPU, id);
	if (v->fd < 0) {
		vmm_msg("KVM_CREATE_VCPU %d: %s", id, strerror(errno));
		return -1;
	}
	v->run = mmap(NULL, k->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED) {
		v->run = NULL;
		vmm_msg("mmap of vCPU %d's kvm_run: %s", id, strerror(errno));
		return -1;
	}
	return vmm_kvm_arch_init_vcpu(v);
}

/*
 * kvm_setup - the VM with @m's RAM (unless @m is NULL) and the arch's VM
 * setup, one vCPU per cpu of @m (one for a probe) with its kvm_run
 * mapping and the arch's identity, then the arch's VM-wide devices.
 * Return: 0, or -1 (reported) with everything undone.
 */
static int kvm_setup(struct vmm_kvm *k, struct vmm_machine *m)
{
	char why[256];
	int size, n = m ? m->nr_cpus : 1;

	memset(k, 0, sizeof(*k));
	k->vm_fd = k->arch_fd = -1;
	k->m = m;
	k->sys_fd = kvm_open(why, sizeof(why));
	if (k->sys_fd < 0) {
		vmm_msg("%s", why);
		return -1;
	}
	k->vm_fd = ioctl(k->sys_fd, KVM_CREATE_VM, 0);
	if (k->vm_fd < 0) {
		vmm_msg("KVM_CREATE_VM: %s", strerror(errno));
		goto err_teardown;
	}
	if ((m && kvm_add_memory(k, m)) || vmm_kvm_arch_init_vm(k))
		goto err_teardown;
	size = ioctl(k->sys_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < (int)sizeof(struct kvm_run)) {
		vmm_msg("KVM_GET_VCPU_MMAP_SIZE: %s", size < 0 ? strerror(errno) : "too small");
		goto err_teardown;
	}
	k->run_size = (size_t)size;
	for (int i = 0; i < n; i++)
		if (kvm_add_vcpu(k, i))
			goto err_teardown;
	if (m && vmm_kvm_arch_finish_vm(k))
		goto err_teardown;
	return 0;

err_teardown:
	kvm_teardown(k);
	return -1;
}

uint64_t vmm_kvm_probe_timebase_hz(void)
{
	struct vmm_kvm k;
	uint64_t hz;
	char why[256];

	if (!vmm_kvm_usable(why, sizeof(why)) || kvm_setup(&k, NULL))
		return 0;
	hz = vmm_kvm_arch_timebase_hz(&k);
	kvm_teardown(&k);
	return hz;
}

/* The main thread's signals: the timeout (SIGALRM) and a vCPU thread
 * saying it stopped (SIGUSR1). vCPU threads take SIGUSR1 only to leave a
 * blocked KVM_RUN (EINTR). */
static void on_signal(int sig)
{
	if (sig == SIGALRM)
		kvm_timed_out = 1;
}

/* Arm a one-shot SIGALRM after @sec seconds (0 disarms). Without
 * SA_RESTART, so a blocked KVM_RUN returns EINTR. */
static int kvm_arm_timeout(int sec)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct itimerval it = { .it_value = { .tv_sec = sec } };

	kvm_timed_out = 0;
	sigemptyset(&sa.sa_mask);
	if (sec && (sigaction(SIGALRM, &sa, NULL) || sigaction(SIGUSR1, &sa, NULL)))
		return -1;
	return setitimer(ITIMER_REAL, &it, NULL);
}

/* An emulation failure with the instruction bytes: print them (the guest
 * used an instruction this KVM cannot emulate). Return: 1 when reported. */
static int kvm_report_emulation_failure(const struct kvm_run *run)
{
	const typeof(run->emulation_failure) *ef = &run->emulation_failure;
	char bytes[3 * sizeof(ef->insn_bytes) + 1] = "";
	unsigned n = ef->insn_size;

	if (run->internal.suberror != KVM_INTERNAL_ERROR_EMULATION || run->internal.ndata < 3 ||
	    !(ef->flags & KVM_INTERNAL_ERROR_EMULATION_FLAG_INSTRUCTION_BYTES))
		return 0;
	if (n > sizeof(ef->insn_bytes))
		n = sizeof(ef->insn_bytes);
	for (unsigned i = 0; i < n; i++)
		snprintf(bytes + 3 * i, sizeof(bytes) - 3 * i, " %02x", ef->insn_bytes[i]);
	vmm_msg("KVM could not emulate the instruction at RIP (bytes:%s)", bytes);
	return 1;
}

/* Report an exit nobody handled: its name, the details KVM gives, registers. */
static void kvm_report_exit(struct vmm_kvm_vcpu *v)
{
	struct kvm_run *run = v->run;
	char buf[32];

	vmm_console_flush(v->k->con);
	vmm_msg("guest crashed: unhandled exit %s on vCPU %d",
		vmm_kvm_exit_name(run->exit_reason, buf, sizeof(buf)), v->id);
	switch (run->exit_reason) {
	case KVM_EXIT_SHUTDOWN:
		vmm_msg("(a triple fault; KVM may already have reset the registers below)");
		break;
	case KVM_EXIT_FAIL_ENTRY:
		vmm_msg("hardware entry failure reason 0x%llx",
			(unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		if (kvm_report_emulation_failure(run))
			break;
		vmm_msg("internal error suberror %u", run->internal.suberror);
		for (uint32_t i = 0; i < run->internal.ndata && i < 16; i++)
			vmm_msg("  data[%u] = 0x%llx", i,
				(unsigned long long)run->internal.data[i]);
		break;
	case KVM_EXIT_MMIO:
		vmm_msg("MMIO %s of %u bytes at 0x%llx (no device there)",
			run->mmio.is_write ? "write" : "read", run->mmio.len,
			(unsigned long long)run->mmio.phys_addr);
		break;
	}
	vmm_kvm_arch_dump(v);
}

/* Stop every vCPU with @status (the first stop wins): each thread sees
 * k->stop, or immediate_exit, or leaves a blocked KVM_RUN by SIGUSR1;
 * the main thread wakes by SIGUSR1 too. Context: k->exit_lock held. */
static void kvm_stop(struct vmm_kvm *k, int status)
{
	if (k->stop)
		return;
	k->status = status;
	k->stop = 1;
	for (int i = 0; i < k->nr_vcpus; i++) {
		k->vcpu[i].run->immediate_exit = 1;
		if (k->vcpu[i].started && !pthread_equal(k->vcpu[i].thread, pthread_self()))
			pthread_kill(k->vcpu[i].thread, SIGUSR1);
	}
	pthread_kill(k->main_thread, SIGUSR1); /* not kill(): a vCPU thread could take it */
}

/* One exit of vCPU @v. Return: 0 to run it again, 1 when it stops. */
static int kvm_exit(struct vmm_kvm_vcpu *v)
{
	struct vmm_kvm *k = v->k;
	int status = PTELAB_EXIT_CRASH, ret = 1;
	enum vmm_kvm_exit what;

	pthread_mutex_lock(&k->exit_lock);
	if (k->stop)
		goto out;
	what = vmm_kvm_arch_handle_exit(v, &status);
	if (what == VMM_KVM_CONTINUE) {
		ret = 0;
		goto out;
	}
	if (what == VMM_KVM_HALTED) {
		k->halted = 1; /* a hang, as under QEMU: it ends at the timeout */
		goto out;
	}
	if (what == VMM_KVM_UNHANDLED)
		kvm_report_exit(v);
	kvm_stop(k, what == VMM_KVM_DONE ? vmm_guest_status(status) : PTELAB_EXIT_CRASH);
out:
	pthread_mutex_unlock(&k->exit_lock);
	return ret;
}

/* A vCPU thread: KVM_RUN until the guest is done, crashes, or the main
 * thread stops everything. */
static void *kvm_vcpu_thread(void *arg)
{
	struct vmm_kvm_vcpu *v = arg;
	struct vmm_kvm *k = v->k;

	while (!k->stop) {
		int r = ioctl(v->fd, KVM_RUN, 0);

		if (v->id == 0 && !k->first_exit_us)
			k->first_exit_us = vmm_now_us() - k->run_start_us;
		if (k->stop)
			break;
		if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
			v->run->immediate_exit = 0;
			continue;
		}
		if (r < 0) {
			pthread_mutex_lock(&k->exit_lock);
			vmm_console_flush(k->con);
			vmm_msg("KVM_RUN on vCPU %d: %s", v->id, strerror(errno));
			vmm_kvm_arch_dump(v);
			kvm_stop(k, PTELAB_EXIT_CRASH);
			pthread_mutex_unlock(&k->exit_lock);
			break;
		}
		if (kvm_exit(v))
			break;
	}
	return NULL;
}

/*
 * kvm_start_vcpus - one thread per vCPU, each with @mask plus SIGALRM
 * blocked (the timeout is the main thread's). Every thread is created
 * under exit_lock, so no vCPU can stop the run (kvm_stop() needs the
 * lock) before all `started` flags are set: a stop then signals every
 * thread that exists, and one still on its way into KVM_RUN sees
 * immediate_exit. `started` is written only here and read under the lock
 * or by this (main) thread. Context: the main thread, exit_lock not held.
 */
static void kvm_start_vcpus(struct vmm_kvm *k, const sigset_t *mask, const sigset_t *block)
{
	sigset_t vcpu_mask = *mask;

	sigaddset(&vcpu_mask, SIGALRM); /* inherited: SIGUSR1 open, SIGALRM not */
	pthread_mutex_lock(&k->exit_lock);
	for (int i = 0; i < k->nr_vcpus && !k->stop; i++) {
		pthread_sigmask(SIG_SETMASK, &vcpu_mask, NULL);
		k->vcpu[i].started =
			!pthread_create(&k->vcpu[i].thread, NULL, kvm_vcpu_thread, &k->vcpu[i]);
		pthread_sigmask(SIG_BLOCK, block, NULL);
		if (!k->vcpu[i].started) {
			vmm_msg("cannot start the thread of vCPU %d", i);
			kvm_stop(k, PTELAB_EXIT_CRASH);
		}
	}
	pthread_mutex_unlock(&k->exit_lock);
}

/*
 * kvm_run_all - start the vCPU threads; the main thread waits (signals
 * blocked but while it sleeps) for a stop or the timeout, then stops and
 * joins them. The vCPU threads block SIGALRM, so the timeout reaches the
 * main thread. Return: the ptelab exit status.
 */
static int kvm_run_all(struct vmm_kvm *k, int timeout, struct vmm_timing *t)
{
	uint64_t start = vmm_now_us();
	sigset_t block, old, wait;

	pthread_mutex_init(&k->exit_lock, NULL);
	k->run_start_us = start;
	k->main_thread = pthread_self();
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigaddset(&block, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	kvm_start_vcpus(k, &old, &block);
	wait = old;
	sigdelset(&wait, SIGALRM);
	sigdelset(&wait, SIGUSR1);
	while (!k->stop && !kvm_timed_out)
		sigsuspend(&wait);
	t->first_exit_us = k->first_exit_us;
	pthread_mutex_lock(&k->exit_lock);
	if (kvm_timed_out && !k->stop) {
		vmm_console_flush(k->con);
		vmm_msg("guest timed out after %d s%s", timeout,
			k->halted ? " (a vCPU had halted with nothing to wake it)" : "");
		kvm_stop(k, PTELAB_EXIT_TIMEOUT);
	}
	pthread_mutex_unlock(&k->exit_lock);
	for (int i = 0; i < k->nr_vcpus; i++)
		if (k->vcpu[i].started)
			pthread_join(k->vcpu[i].thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	t->run_us = vmm_now_us() - start;
	return k->status;
}

/* --verbose: the memory slots and the timebase. */
static void kvm_print_memslots(struct vmm_kvm *k)
{
	for (int i = 0; i < k->mem.nr; i++)
		vmm_msg("layout: memslot %d: GPA [0x%llx, 0x%llx) at host %p", i,
			(unsigned long long)k->mem.region[i].gpa,
			(unsigned long long)(k->mem.region[i].gpa + k->mem.region[i].size),
			k->mem.region[i].host);
	vmm_msg("layout: timebase %llu Hz", (unsigned long long)k->m->timebase_hz);
}

int vmm_kvm_boot(struct vmm_machine *m, const struct vmm_elf_image *img, const void *elf,
		 struct vmm_console *con, int timeout, int verbose, struct vmm_timing *t)
{
	struct vmm_kvm k;
	uint64_t t0 = vmm_now_us();
	char err[160];
	int status;

	t->have_kvm = 1;
	if (kvm_setup(&k, m))
		return PTELAB_EXIT_NOBACKEND;
	k.con = con;
	t->vm_create_us = vmm_now_us() - t0;
	t0 = vmm_now_us();
	m->timebase_hz = vmm_kvm_arch_timebase_hz(&k);
	if (vmm_elf_load(img, elf, &k.mem, err, sizeof(err))) {
		vmm_msg("loading the guest: %s", err);
		goto err_teardown;
	}
	if (vmm_kvm_arch_boot(&k, img))
		goto err_teardown;
	t->load_us = vmm_now_us() - t0;
	if (verbose) {
		vmm_machine_print(m);
		vmm_kvm_arch_print_layout(&k);
		kvm_print_memslots(&k);
	}
	if (kvm_arm_timeout(timeout)) {
		vmm_msg("cannot arm the timeout: %s", strerror(errno));
		goto err_teardown;
	}
	status = kvm_run_all(&k, timeout, t);
	kvm_arm_timeout(0);
	kvm_teardown(&k);
	return status;

err_teardown:
	kvm_teardown(&k);
	return PTELAB_EXIT_NOBACKEND;
}
