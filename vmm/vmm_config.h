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

#define VMM_MAX_NODES 8
#define VMM_MAX_CPUS 8
#define VMM_MEM_MAX (64ULL << 30)   /* total guest RAM */
#define VMM_NODE_MIN (16ULL << 20)  /* each node's share, at least */
#define VMM_NODE_ALIGN (2ULL << 20) /* each node's share, a multiple of */
#define VMM_TIMEOUT_MAX 86400
#define VMM_BOOTARGS_MAX 1024 /* with the NUL; the guest's MACHINE_BOOTARGS_MAX */

enum vmm_arch { VMM_ARCH_X86_64, VMM_ARCH_ARM64 };
enum vmm_backend { VMM_BACKEND_AUTO, VMM_BACKEND_KVM, VMM_BACKEND_QEMU };
/* ICOUNT is TCG with -icount shift=0: guest time advances 1 ns per guest
 * instruction, so timings are exact, reproducible instruction counts. */
enum vmm_accel { VMM_ACCEL_TCG, VMM_ACCEL_KVM, VMM_ACCEL_ICOUNT };

struct vmm_config {
	enum vmm_backend backend;
	enum vmm_arch arch;
	enum vmm_accel accel;
	bool accel_set; /* --accel given: auto then means QEMU */
	uint64_t mem;
	int nodes, cpus, timeout;
	char kernel[PATH_MAX]; /* "" until vmm_config_default_kernel() */
	const char *results;   /* NULL: none */
	const char *dtb_out;   /* NULL: boot the guest */
	bool verbose, timing, help;
	bool keep; /* keep the QEMU run's temporary files (see --verbose) */
	char bootargs[VMM_BOOTARGS_MAX];
};

/* Name of @arch as the command line spells it ("x86_64", "arm64"). */
const char *vmm_arch_name(enum vmm_arch arch);

/*
 * vmm_parse_size - parse "<digits>[K|M|G]" (either case; no suffix means
 * bytes) into *@out.
 * Return: 0, or -1 with a reason in @err when @s is not such a number or
 * the value does not fit in 64 bits. Limits are the caller's business.
 */
int vmm_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);

/*
 * vmm_args_parse - fill @cfg from argv[1..argc-1] (argv[0] is skipped).
 * Options may come anywhere before "--" (guest words never start with '-');
 * every other word, and every word after "--", is a guest argument. Those
 * are joined with single spaces into cfg->bootargs ("run=hello" when there
 * are none).
 * Return: 0; 1 when --help was given; -1 on a bad value and -2 on a bad
 * option (unknown, missing or unexpected value), each with the complete
 * message line (without "ptelab: ") in @err.
 */
int vmm_args_parse(int argc, char *const argv[], struct vmm_config *cfg, char *err, size_t errlen);

/*
 * vmm_config_default_kernel - set cfg->kernel, when --kernel was not given,
 * to <directory of @self_exe>/<arch>/guest.elf.
 * Return: 0, or -1 when the path does not fit.
 */
int vmm_config_default_kernel(struct vmm_config *cfg, const char *self_exe);

/* The --help text. */
extern const char vmm_usage_text[];

#endif
