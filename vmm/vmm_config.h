/*
 * vmm_config.h - what the ptelab command line asks for, and its parser.
 *
 * Parsing is pure (no I/O, no exit) so the host tests can drive it; the
 * caller prints the error and exits with PTELAB_EXIT_USAGE.
 */
#ifndef VMM_CONFIG_H
#define VMM_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptelab/abi.h"
#include "ptelab/cmdline.h"

#define VMM_MAX_NODES 8
#define VMM_MAX_CPUS PTELAB_MAX_CPUS
#define VMM_MEM_MAX (64ULL << 30)   /* total guest RAM */
#define VMM_NODE_MIN (16ULL << 20)  /* each node's share, at least */
#define VMM_NODE_ALIGN (2ULL << 20) /* each node's share, a multiple of */
#define VMM_TIMEOUT_MAX 86400
#define VMM_BOOTARGS_MAX 1024 /* with the NUL; the guest's MACHINE_BOOTARGS_MAX */

enum vmm_arch { VMM_ARCH_X86_64, VMM_ARCH_ARM64 };
/* HOST runs the guest's mm commands natively (build/ptelab-host-<arch>). */
enum vmm_backend { VMM_BACKEND_AUTO, VMM_BACKEND_KVM, VMM_BACKEND_QEMU, VMM_BACKEND_HOST };
/* ICOUNT is TCG with -icount shift=0: guest time advances 1 ns per guest
 * instruction, so timings are exact, reproducible instruction counts. */
enum vmm_accel { VMM_ACCEL_TCG, VMM_ACCEL_KVM, VMM_ACCEL_ICOUNT };

struct vmm_config {
	enum vmm_backend backend;
	enum vmm_arch arch;
	enum vmm_accel accel;
	bool accel_set; /* --accel given: auto then means QEMU */
	bool arch_set;	/* --arch given; else the caller picks the host's arch */
	uint64_t mem;
	int nodes, cpus, timeout;
	bool timeout_set;      /* --timeout given (else run=bench raises the default) */
	char kernel[PATH_MAX]; /* "" until vmm_config_default_kernel() */
	const char *results;   /* NULL: none */
	const char *dtb_out;   /* NULL: boot the guest */
	const char *csv;       /* NULL: none */
	bool verbose, timing, help, version, quiet;
	bool keep;	 /* keep the QEMU run's temporary files (see --verbose) */
	bool raw;	 /* --raw: guest control characters reach stdout unfiltered */
	bool mem_needed; /* --mem-needed: print what size= needs and exit */
	char bootargs[VMM_BOOTARGS_MAX];
	/* bootargs as words, parsed once by vmm_guest_args_check() or
	 * vmm_guest_mem_needed(); without the ptelab.* words settle adds. */
	struct cmdline guest_words;
	const char *initramfs;		 /* --initramfs: NULL none */
	const char *trace_html;		 /* --trace-html: NULL none (adds trace=on) */
	char exec_argv[PTELAB_ARGV_MAX]; /* after a second "--": NUL-separated */
	size_t exec_argv_len;
};

/* Name of @arch as the command line spells it ("x86_64", "arm64"). */
const char *vmm_arch_name(enum vmm_arch arch);
const char *vmm_backend_name(enum vmm_backend backend);

/* Why vmm_parse_size() refused a word, for callers that word it their own way. */
enum vmm_size_error {
	VMM_SIZE_OK = 0,
	VMM_SIZE_SYNTAX = -1,	/* not digits with an optional K, M or G */
	VMM_SIZE_OVERFLOW = -2, /* a size, but more than 64 bits hold */
};

/*
 * vmm_parse_size - parse "<digits>[K|M|G]" (either case; no suffix means
 * bytes) into *@out.
 * Return: VMM_SIZE_OK, or VMM_SIZE_SYNTAX / VMM_SIZE_OVERFLOW with a
 * reason in @err. Limits are the caller's business.
 */
enum vmm_size_error vmm_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);

/*
 * vmm_args_parse - fill @cfg from argv[1..argc-1] (argv[0] is skipped).
 * Options may come anywhere before "--" (guest words never start with '-');
 * every other word, and every word after "--", is a guest argument. Those
 * are joined with single spaces into cfg->bootargs ("run=hello" when there
 * are none).
 * Return: 0; 1 when --help was given, 2 for --version; -1 on a bad value and -2 on a bad
 * option (unknown, missing or unexpected value), each with the complete
 * message line (without "ptelab: ") in @err.
 */
int vmm_args_parse(int argc, char *const argv[], struct vmm_config *cfg, char *err, size_t errlen);

/*
 * vmm_config_default_kernel - set cfg->kernel, when --kernel was not given,
 * to <directory of @self_exe>/<arch>/guest.elf, or guest-trace.elf when
 * the guest words say trace=on. Context: after vmm_guest_args_check() has
 * parsed cfg->guest_words.
 * Return: 0, or -1 when the path does not fit.
 */
int vmm_config_default_kernel(struct vmm_config *cfg, const char *self_exe);

/* The --help text: vmm_usage_text, the guest commands and benchmarks,
 * vmm_usage_keys, the guest keys, vmm_usage_tail. */
extern const char vmm_usage_text[], vmm_usage_keys[], vmm_usage_tail[];

/* ptelab's version: git describe at build time. */
extern const char vmm_version[];

/*
 * vmm_guest_args_check - parse the guest words of @cfg into
 * cfg->guest_words and check them as the guest will read them: known
 * keys, values of the right form (for cfg->arch), each read by a command
 * of run=; run= items that name commands, with the arguments their rows
 * allow, none needing a machine on --backend host, run=exec with
 * --initramfs; the machine (--nodes, --cpus) they need, and for run=bench
 * a size= that fits in --mem. Nothing boots for a bad word.
 * Return: 0, or -1 with a one-line reason in @err.
 */
int vmm_guest_args_check(struct vmm_config *cfg, char *err, size_t errlen);

/*
 * vmm_guest_mem_needed - parse @cfg's guest words into cfg->guest_words
 * and give the least --mem in bytes for their benchmarks and size= on
 * cfg->nodes (cmdline_bench_mem()).
 * Return: 0, or -1 with a one-line reason in @err (a bad word, no
 * benchmark or no size=).
 */
int vmm_guest_mem_needed(struct vmm_config *cfg, uint64_t *need, char *err, size_t errlen);

/* Does the guest command line run a benchmark? Context: after
 * vmm_guest_args_check() has parsed cfg->guest_words. */
bool vmm_guest_runs_bench(const struct vmm_config *cfg);

/*
 * vmm_config_settle - what depends on the chosen @backend: run=bench
 * defaults to the exact clock (icount) on QEMU unless --accel was given and
 * to a 3600 s timeout unless --timeout was; then the guest learns its
 * clock, backend and ptelab's version (ptelab.* words) and --quiet.
 * Return: 0, or -1 with @err set when the words no longer fit.
 */
int vmm_config_settle(struct vmm_config *cfg, int backend, char *err, size_t errlen);

/* The clock a run on @backend with @cfg measures: "icount", "host",
 * "kvm" or "tcg". */
const char *vmm_clock_name(const struct vmm_config *cfg, int backend);

/* Print --help (with the guest keys) to stdout. */
void vmm_print_usage(void);

#endif
