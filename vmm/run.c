/*
 * run.c - the ptelab command: parse the command line, pick a backend, lay
 * out the machine, check the guest image, boot it, report.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptelab/abi.h"
#include "vmm_config.h"
#include "vmm_console.h"
#include "vmm_elf.h"
#include "vmm_fdt.h"
#include "vmm_hostrun.h"
#include "vmm_initramfs.h"
#include "vmm_kvm.h"
#include "vmm_layout.h"
#include "vmm_qemu.h"
#include "vmm_trace_html.h"
#include "vmm_run.h"
#include "vmm_tsc.h"
#include "vmm_util.h"

#define X(v) ((unsigned long long)(v))

/* The console is large (a line buffer); one per process. */
static struct vmm_console console;

/*
 * pick_backend - KVM or QEMU for @cfg. auto means KVM when it is usable
 * and no --accel was given; a guest of another arch than the host's runs on
 * QEMU TCG only (KVM runs guests of the host's arch).
 * Return: VMM_BACKEND_KVM or VMM_BACKEND_QEMU, or -(exit status) (reported).
 */
static int pick_backend(const struct vmm_config *cfg)
{
	char why[256];

	if (cfg->backend == VMM_BACKEND_HOST)
		return VMM_BACKEND_HOST;
	if (cfg->arch != vmm_kvm_guest_arch) {
		if (cfg->backend == VMM_BACKEND_KVM || cfg->accel == VMM_ACCEL_KVM) {
			vmm_msg("%s: %s guests run on QEMU TCG only (the host is %s)",
				cfg->backend == VMM_BACKEND_KVM ? "--backend kvm" : "--accel kvm",
				vmm_arch_name(cfg->arch), vmm_arch_name(vmm_kvm_guest_arch));
			return -PTELAB_EXIT_USAGE;
		}
		return VMM_BACKEND_QEMU;
	}
	if (cfg->backend == VMM_BACKEND_QEMU ||
	    (cfg->backend == VMM_BACKEND_AUTO && cfg->accel_set))
		return VMM_BACKEND_QEMU;
	if (vmm_kvm_usable(why, sizeof(why)))
		return VMM_BACKEND_KVM;
	if (cfg->backend == VMM_BACKEND_KVM) {
		vmm_msg("--backend kvm: %s", why);
		return -PTELAB_EXIT_NOBACKEND;
	}
	if (cfg->verbose)
		vmm_msg("KVM is not usable (%s); using QEMU TCG", why);
	return VMM_BACKEND_QEMU;
}

static enum vmm_layout layout_of(const struct vmm_config *cfg, int backend)
{
	if (cfg->arch == VMM_ARCH_ARM64)
		return VMM_LAYOUT_VIRT;
	return backend == VMM_BACKEND_KVM ? VMM_LAYOUT_FLAT : VMM_LAYOUT_PC;
}

/* --dtb-out with ptelab's own tree (x86_64, or any KVM guest): write the
 * tree the guest would get and stop. */
static int write_dtb(const struct vmm_config *cfg, struct vmm_machine *m, int backend)
{
	static char blob[PTELAB_BOOT_FDT_MAX];
	int size;

	m->timebase_hz =
		backend == VMM_BACKEND_KVM ? vmm_kvm_probe_timebase_hz() : vmm_host_counter_hz();
	size = vmm_fdt_build(m, blob, sizeof(blob));
	if (size < 0) {
		vmm_msg("the device tree does not fit in %zu bytes", sizeof(blob));
		return PTELAB_EXIT_USAGE;
	}
	if (vmm_fdt_write_file(cfg->dtb_out, blob, (size_t)size)) {
		vmm_msg("--dtb-out: %s: %s", cfg->dtb_out, strerror(errno));
		return PTELAB_EXIT_USAGE;
	}
	return PTELAB_EXIT_OK;
}

/*
 * load_image - read cfg->kernel and validate it against @m's RAM.
 * Return: 0 with *@elf (malloc'ed) and @img, or -1 (reported).
 */
static int load_image(const struct vmm_config *cfg, const struct vmm_machine *m, void **elf,
		      struct vmm_elf_image *img)
{
	struct vmm_elf_limits lim = { cfg->arch, m->ram, m->nr_ram,
				      cfg->arch == VMM_ARCH_ARM64 ? VMM_ARM64_LOAD_MIN
								  : PTELAB_BOOT_END };
	char err[200];
	size_t len;

	if (vmm_read_file(cfg->kernel, VMM_ELF_MAX_SIZE, elf, &len, err, sizeof(err))) {
		vmm_msg("%s: %s", cfg->kernel, err);
		return -1;
	}
	if (vmm_elf_check(*elf, len, &lim, img, err, sizeof(err))) {
		vmm_msg("%s: %s", cfg->kernel, err);
		free(*elf);
		return -1;
	}
	if (cfg->verbose) {
		for (int i = 0; i < img->nr_loads; i++)
			vmm_msg("layout: guest segment [0x%llx, 0x%llx) file 0x%llx bytes%s%s%s",
				X(img->load[i].paddr), X(img->load[i].paddr + img->load[i].memsz),
				X(img->load[i].filesz), img->load[i].flags & 4 ? " r" : "",
				img->load[i].flags & 2 ? " w" : "",
				img->load[i].flags & 1 ? " x" : "");
		vmm_msg("layout: guest entry 0x%llx", X(img->entry));
	}
	return 0;
}

static void print_timing(const struct vmm_timing *t)
{
	uint64_t total = vmm_now_us() - t->start_us;

	if (t->have_kvm)
		vmm_msg("timing: vm_create=%lluus load=%lluus first_exit=%lluus run=%lluus "
			"total=%lluus",
			X(t->vm_create_us), X(t->load_us), X(t->first_exit_us), X(t->run_us),
			X(total));
	else
		vmm_msg("timing: load=%lluus run=%lluus total=%lluus", X(t->load_us), X(t->run_us),
			X(total));
}

/* --mem-needed: print the --mem the guest words need. Return: the exit status. */
static int print_mem_needed(struct vmm_config *cfg)
{
	char err[256], size[24];
	uint64_t need;

	if (vmm_guest_mem_needed(cfg, &need, err, sizeof(err))) {
		vmm_msg("%s", err);
		return PTELAB_EXIT_USAGE;
	}
	printf("%s\n", vmm_fmt_size(need, size, sizeof(size)));
	return PTELAB_EXIT_OK;
}

/* Parse argv into @cfg. Return: -1 to go on, else the exit status. */
static int parse_command_line(int argc, char **argv, struct vmm_config *cfg)
{
	char err[256], self[PATH_MAX];
	int r = vmm_args_parse(argc, argv, cfg, err, sizeof(err));

	if (r == 1) {
		vmm_print_usage();
		return PTELAB_EXIT_OK;
	}
	if (r == 2) {
		printf("ptelab %s\n", vmm_version);
		return PTELAB_EXIT_OK;
	}
	/* Without --arch, the guest of the host's arch: KVM can run it. */
	if (r == 0 && !cfg->arch_set)
		cfg->arch = vmm_kvm_guest_arch;
	if (r == 0 && cfg->mem_needed)
		return print_mem_needed(cfg);
	if (r == 0)
		r = vmm_guest_args_check(cfg, err, sizeof(err));
	if (r < 0) {
		/* One line, so scripts can show the whole reason. */
		vmm_msg("%s%s", err, r == -2 ? " (try 'ptelab --help')" : "");
		return PTELAB_EXIT_USAGE;
	}
	if (vmm_config_default_kernel(cfg, vmm_self_exe(self, sizeof(self)) ? argv[0] : self)) {
		vmm_msg("the default kernel path is too long; give --kernel");
		return PTELAB_EXIT_USAGE;
	}
	return -1;
}

/* --trace-html: the page for @t to cfg->trace_html. Return: 0, or -1
 * (reported). */
static int write_trace_html(const struct vmm_config *cfg, const struct vmm_trace_records *t)
{
	struct vmm_trace_page page = { cfg->bootargs, vmm_arch_name(cfg->arch), cfg->cpus };
	unsigned long dropped = 0;
	FILE *f = fopen(cfg->trace_html, "we");
	int r;

	if (!f) {
		vmm_msg("--trace-html: %s: %s", cfg->trace_html, strerror(errno));
		return -1;
	}
	r = vmm_trace_html_write(f, &page, t, &dropped);
	if (fclose(f))
		r = -1;
	if (r)
		vmm_msg("--trace-html: %s: write error", cfg->trace_html);
	else
		vmm_msg("--trace-html: %s: %zu trace records; open it in a browser",
			cfg->trace_html, t->nr - dropped);
	return r;
}

/* Boot @m on @backend with output through the console. */
static int boot(const struct vmm_config *cfg, struct vmm_machine *m, int backend,
		struct vmm_timing *t)
{
	static struct vmm_trace_records records;
	struct vmm_elf_image img;
	void *elf = NULL;
	int status;

	if (backend == VMM_BACKEND_KVM && load_image(cfg, m, &elf, &img))
		return PTELAB_EXIT_USAGE;
	if (backend == VMM_BACKEND_QEMU) {
		/* QEMU loads the image itself; check it the same way first. */
		if (load_image(cfg, m, &elf, &img))
			return PTELAB_EXIT_USAGE;
		free(elf);
		elf = NULL;
	}
	console.raw = cfg->raw;
	if (vmm_console_init(&console, 1, cfg->results)) {
		vmm_msg("--results: %s: %s", cfg->results, strerror(errno));
		free(elf);
		return PTELAB_EXIT_USAGE;
	}
	if (cfg->csv && vmm_console_csv_open(&console, cfg->csv)) {
		vmm_msg("--csv: %s: %s", cfg->csv, strerror(errno));
		vmm_console_close(&console);
		free(elf);
		return PTELAB_EXIT_USAGE;
	}
	console.trace = cfg->trace_html ? &records : NULL;
	if (backend == VMM_BACKEND_HOST)
		status = vmm_host_boot(cfg, &console, t);
	else if (backend == VMM_BACKEND_KVM)
		status = vmm_kvm_boot(m, &img, elf, &console, cfg->timeout, cfg->verbose, t);
	else
		status = vmm_qemu_boot(cfg, m, &console, t);
	if (vmm_console_close(&console)) {
		vmm_msg("--results or --csv: write error");
		if (status == PTELAB_EXIT_OK)
			status = PTELAB_EXIT_USAGE;
	}
	if (cfg->trace_html && write_trace_html(cfg, &records) && status == PTELAB_EXIT_OK)
		status = PTELAB_EXIT_USAGE;
	vmm_trace_records_free(&records);
	free(elf);
	return status;
}

/* What depends on the backend (vmm_config_settle()). Return: 0, or -1
 * (reported). */
static int settle(struct vmm_config *cfg, int backend)
{
	char err[256];

	if (!vmm_config_settle(cfg, backend, err, sizeof(err)))
		return 0;
	vmm_msg("%s", err);
	return -1;
}

/* --initramfs and the program's arguments into @m, checked before boot.
 * Return: 0, or -1 (reported). The archive lives until ptelab exits. */
static int load_initramfs(const struct vmm_config *cfg, struct vmm_machine *m, int backend)
{
	char err[512];
	uint8_t *buf;
	size_t len;

	m->exec_argv = cfg->exec_argv;
	m->exec_argv_len = cfg->exec_argv_len;
	if (!cfg->initramfs)
		return 0;
	if (backend == VMM_BACKEND_HOST) {
		vmm_msg("--initramfs: --backend host runs no user programs");
		return -1;
	}
	if (vmm_initramfs_load(cfg->initramfs, &buf, &len, err, sizeof(err))) {
		vmm_msg("%s", err);
		return -1;
	}
	/* The KVM backend places it in one RAM run, leaving that run 3/4 free. */
	if (len > cfg->mem / cfg->nodes / 4) {
		vmm_msg("--initramfs: %zu bytes: more than a quarter of a node's memory (--mem "
			"%llu, "
			"--nodes %d)",
			len, X(cfg->mem), cfg->nodes);
		free(buf);
		return -1;
	}
	m->initramfs = buf;
	m->initramfs_size = len;
	return 0;
}

int vmm_main(int argc, char **argv)
{
	struct vmm_timing t = { .start_us = vmm_now_us() };
	static struct vmm_config cfg;
	static struct vmm_machine m;
	int backend, status = parse_command_line(argc, argv, &cfg);

	if (status >= 0)
		return status;
	signal(SIGPIPE, SIG_IGN); /* a closed stdout must not kill us mid-run */
	backend = pick_backend(&cfg);
	if (backend < 0)
		return -backend;
	if (settle(&cfg, backend))
		return PTELAB_EXIT_USAGE;
	if (cfg.trace_html && backend == VMM_BACKEND_HOST) {
		vmm_msg("--trace-html: --backend host has no trace built in (use kvm or qemu)");
		return PTELAB_EXIT_USAGE;
	}
	if (vmm_machine_init(&m, layout_of(&cfg, backend), cfg.mem, cfg.nodes, cfg.cpus,
			     cfg.bootargs)) {
		vmm_msg("cannot lay out %llu bytes over %d nodes", X(cfg.mem), cfg.nodes);
		return PTELAB_EXIT_USAGE;
	}
	if (load_initramfs(&cfg, &m, backend))
		return PTELAB_EXIT_USAGE;
	if (cfg.dtb_out && (cfg.arch == VMM_ARCH_X86_64 || backend == VMM_BACKEND_KVM))
		status = write_dtb(&cfg, &m, backend);
	else
		status = boot(&cfg, &m, backend, &t);
	if (cfg.timing)
		print_timing(&t);
	return status;
}
