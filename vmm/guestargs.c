/*
 * guestargs.c - ptelab's view of the guest command line: checked before
 * anything boots (with the guest's own parser and rules, guest/cmdline*.c),
 * and completed with what only ptelab knows (the clock, its version).
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/cmdline.h"
#include "vmm_config.h"
#include "vmm_util.h"

/* The guest's parse of cfg->bootargs: one per process, it is large. */
static struct cmdline words;

bool vmm_guest_runs_bench(const struct vmm_config *cfg)
{
	char err[160];

	if (cmdline_parse(cfg->bootargs, &words, err, sizeof(err)))
		return false;
	for (int i = 0; i < words.nr_run; i++)
		if (!strcmp(words.run[i].name, "bench"))
			return true;
	return false;
}

/* The words of cfg->bootargs, parsed into words, with the guest's rules;
 * without the size= check. Return: 0, or -1 with @err set. */
static int check_words(const struct vmm_config *cfg, char *err, size_t errlen)
{
	char why[200];

	if (cmdline_parse(cfg->bootargs, &words, why, sizeof(why)) ||
	    cmdline_check(&words, vmm_arch_name(cfg->arch), why, sizeof(why))) {
		snprintf(err, errlen, "guest command line: %s", why);
		return -1;
	}
	for (int i = 0; i < words.nr_words; i++)
		if (!strncmp(words.word[i].key, "ptelab.", 7)) {
			snprintf(err, errlen, "guest command line: %s= is ptelab's to set",
				 words.word[i].key);
			return -1;
		}
	return 0;
}

/* size= against --mem (cmdline_bench_mem()'s rule). */
static int check_bench_size(const struct vmm_config *cfg, char *err, size_t errlen)
{
	const char *s = cmdline_get(&words, "size");
	uint64_t need;
	char have[24], want[24];

	if (!s)
		return 0;
	need = cmdline_bench_mem((unsigned)cmdline_uint(s), (unsigned)cfg->nodes,
				 cmdline_run_every_node(&words));
	if (need <= cfg->mem)
		return 0;
	vmm_fmt_size(cfg->mem, have, sizeof(have));
	vmm_fmt_size(need, want, sizeof(want));
	snprintf(err, errlen, "size=%s needs --mem %s or more (have %s)%s", s, want, have,
		 cmdline_run_every_node(&words) ? ": bench:migrate needs it on every node" : "");
	return -1;
}

int vmm_guest_mem_needed(const struct vmm_config *cfg, uint64_t *need, char *err, size_t errlen)
{
	const char *s;

	if (check_words(cfg, err, errlen))
		return -1;
	s = cmdline_get(&words, "size");
	if (!vmm_guest_runs_bench(cfg) || !s) {
		snprintf(err, errlen,
			 "--mem-needed: give a benchmark (run=bench...) and its size=");
		return -1;
	}
	*need = cmdline_bench_mem((unsigned)cmdline_uint(s), (unsigned)cfg->nodes,
				  cmdline_run_every_node(&words));
	return 0;
}

int vmm_guest_args_check(const struct vmm_config *cfg, char *err, size_t errlen)
{
	char why[200];

	if (check_words(cfg, err, errlen))
		return -1;
	if (cmdline_check_machine(&words, (unsigned)cfg->nodes, (unsigned)cfg->cpus, why,
				  sizeof(why)))
		return snprintf(err, errlen, "guest command line: %s", why), -1;
	return vmm_guest_runs_bench(cfg) ? check_bench_size(cfg, err, errlen) : 0;
}

const char *vmm_clock_name(const struct vmm_config *cfg, int backend)
{
	if (backend == VMM_BACKEND_HOST)
		return "host";
	if (backend == VMM_BACKEND_KVM || cfg->accel == VMM_ACCEL_KVM)
		return "kvm";
	return cfg->accel == VMM_ACCEL_ICOUNT ? "icount" : "tcg";
}

static const char *backend_name(int backend)
{
	return backend == VMM_BACKEND_HOST ? "host" : backend == VMM_BACKEND_KVM ? "kvm" : "qemu";
}

int vmm_config_settle(struct vmm_config *cfg, int backend, char *err, size_t errlen)
{
	size_t len = strlen(cfg->bootargs);
	int n;

	if (vmm_guest_runs_bench(cfg)) {
		if (backend == VMM_BACKEND_QEMU && !cfg->accel_set)
			cfg->accel = VMM_ACCEL_ICOUNT;
		if (!cfg->timeout_set)
			cfg->timeout = 3600;
	}
	n = snprintf(cfg->bootargs + len, sizeof(cfg->bootargs) - len,
		     " ptelab.clock=%s ptelab.backend=%s ptelab.version=%s%s%s",
		     vmm_clock_name(cfg, backend), backend_name(backend), vmm_version,
		     cfg->quiet ? " ptelab.quiet=on" : "",
		     cfg->verbose ? " ptelab.verbose=on" : "");
	if (n < 0 || (size_t)n >= sizeof(cfg->bootargs) - len) {
		cfg->bootargs[len] = 0;
		snprintf(err, errlen, "guest arguments: too long (limit %d bytes with ptelab's)",
			 VMM_BOOTARGS_MAX - 1);
		return -1;
	}
	return 0;
}

void vmm_print_usage(void)
{
	fputs(vmm_usage_text, stdout);
	cmdline_print_keys(stdout);
	fputs(vmm_usage_tail, stdout);
}
