/*
 * guestargs.c - ptelab's view of the guest command line: parsed once and
 * checked before anything boots, with the grammar and rules the guest
 * builds too (cmdline/), and completed with what only ptelab knows (the
 * clock, its version).
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/cmdline.h"
#include "vmm_config.h"
#include "vmm_util.h"

/* cfg->bootargs into cfg->guest_words, checked with the guest's rules:
 * its keys and its commands, on the backend asked for (without the
 * machine's and the size= check). Return: 0, or -1 with @err set. */
static int parse_words(struct vmm_config *cfg, char *err, size_t errlen)
{
	struct cmdline *cl = &cfg->guest_words;
	char why[CMDLINE_ERR_MAX];

	if (cmdline_parse(cfg->bootargs, cl, why, sizeof(why)) ||
	    cmdline_check(cl, vmm_arch_name(cfg->arch), why, sizeof(why)) ||
	    cmdline_check_run(cl, cfg->backend == VMM_BACKEND_HOST, why, sizeof(why))) {
		snprintf(err, errlen, "guest command line: %s", why);
		return -1;
	}
	for (int i = 0; i < cl->nr_words; i++)
		if (!strncmp(cl->word[i].key, "ptelab.", 7)) {
			snprintf(err, errlen, "guest command line: %s= is ptelab's to set",
				 cl->word[i].key);
			return -1;
		}
	return 0;
}

bool vmm_guest_runs_bench(const struct vmm_config *cfg)
{
	return cmdline_runs_bench(&cfg->guest_words);
}

/* size= against --mem (cmdline_bench_mem()'s rule). */
static int check_bench_size(const struct vmm_config *cfg, char *err, size_t errlen)
{
	const struct cmdline *cl = &cfg->guest_words;
	const char *s = cmdline_get(cl, "size");
	uint64_t need;
	char have[24], want[24];

	if (!s)
		return 0;
	need = cmdline_bench_mem(cmdline_num(cl, CMDLINE_KEY_size), (unsigned)cfg->nodes,
				 cmdline_run_every_node(cl));
	if (need <= cfg->mem)
		return 0;
	vmm_fmt_size(cfg->mem, have, sizeof(have));
	vmm_fmt_size(need, want, sizeof(want));
	snprintf(err, errlen, "size=%s needs --mem %s or more (have %s)%s", s, want, have,
		 cmdline_run_every_node(cl) ? ": bench:migrate needs it on every node" : "");
	return -1;
}

int vmm_guest_mem_needed(struct vmm_config *cfg, uint64_t *need, char *err, size_t errlen)
{
	const struct cmdline *cl = &cfg->guest_words;

	if (parse_words(cfg, err, errlen))
		return -1;
	if (!cmdline_runs_bench(cl) || !cmdline_get(cl, "size")) {
		snprintf(err, errlen,
			 "--mem-needed: give a benchmark (run=bench...) and its size=");
		return -1;
	}
	*need = cmdline_bench_mem(cmdline_num(cl, CMDLINE_KEY_size), (unsigned)cfg->nodes,
				  cmdline_run_every_node(cl));
	return 0;
}

/* run=exec runs a program of the initramfs, which only --initramfs
 * gives the guest (the guest's own words for it). */
static int check_initramfs(const struct vmm_config *cfg, char *err, size_t errlen)
{
	const struct cmdline *cl = &cfg->guest_words;

	if (cfg->initramfs)
		return 0;
	for (int i = 0; i < cl->nr_run; i++)
		if (!strcmp(cl->run[i].name, "exec"))
			return snprintf(err, errlen,
					"exec: no initramfs (give ptelab --initramfs DIR|FILE)"),
			       -1;
	return 0;
}

int vmm_guest_args_check(struct vmm_config *cfg, char *err, size_t errlen)
{
	char why[CMDLINE_ERR_MAX];

	if (parse_words(cfg, err, errlen) || check_initramfs(cfg, err, errlen))
		return -1;
	if (cmdline_check_machine(&cfg->guest_words, (unsigned)cfg->nodes, (unsigned)cfg->cpus, why,
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
		     vmm_clock_name(cfg, backend), vmm_backend_name((enum vmm_backend)backend),
		     vmm_version, cfg->quiet ? " ptelab.quiet=on" : "",
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
	cmdline_print_cmds(stdout);
	cmdline_print_benches(stdout);
	fputs(vmm_usage_keys, stdout);
	cmdline_print_keys(stdout);
	fputs(vmm_usage_tail, stdout);
}
