/*
 * args.c - the ptelab command line: options, their limits, guest words.
 */
#include <stdio.h>
#include <string.h>

#include "vmm_config.h"
#include "vmm_util.h"

const char vmm_usage_text[] =
	"usage: ptelab [OPTIONS] [GUEST ARGS...] [-- GUEST ARGS...]\n"
	"Boot the ptelab guest kernel on KVM or QEMU, or run its mm commands on the\n"
	"host CPU, and exit with its status. Options take '--opt value' or '--opt=value'.\n"
	"\n"
	"  --backend auto|kvm|qemu|host\n"
	"                           auto: KVM when /dev/kvm is usable, else QEMU (TCG);\n"
	"                           KVM runs guests of the host's arch; host: the guest's\n"
	"                           mm commands (bench, ptdump, ...) run natively on this\n"
	"                           CPU against a simulated MMU, timed in real time\n"
	"  --arch x86_64|arm64      guest architecture (default: the host's); with --backend\n"
	"                           host, the PTE format\n"
	"  --accel tcg|kvm|icount   QEMU accelerator (default tcg, but icount for run=bench\n"
	"                           when KVM is not used); icount is TCG with guest time\n"
	"                           counting instructions (1 ns each): exact, repeatable\n"
	"                           timings; with --backend auto giving --accel selects QEMU\n"
	"  --mem SIZE               guest RAM, K/M/G suffix, plain = bytes (default 1G,\n"
	"                           at most 64G); split evenly over the nodes, each\n"
	"                           share a multiple of 2M and at least 16M\n"
	"  --nodes N                NUMA nodes, 1..8 (default 2)\n"
	"  --cpus N                 CPUs, 1..8 (default 1), cpu i on node i % nodes;\n"
	"                           every backend runs all of them (docs/smp.md)\n"
	"  --timeout SEC            stop the guest after SEC seconds, 1..86400\n"
	"                           (default 120, 3600 with run=bench; exit status 124)\n"
	"  --kernel ELF             guest image (default <ptelab's dir>/<arch>/guest.elf, or\n"
	"                           guest-trace.elf with trace=on)\n"
	"  --results FILE           write the JSON of every 'RESULT ' line to FILE (and\n"
	"                           with trace=on every trace record, in order)\n"
	"  --csv FILE               write every RESULT line as a CSV row to FILE\n"
	"  --quiet                  no benchmark progress lines (tables and RESULTs stay)\n"
	"  --raw                    pass the guest's control characters to stdout as they\n"
	"                           are (default: all but \\n \\t \\r shown as ^X, so a\n"
	"                           guest cannot send the terminal escape sequences)\n"
	"  --dtb-out FILE           write the guest's device tree to FILE and exit\n"
	"  --verbose                print the QEMU command line or the KVM memory layout,\n"
	"                           and the guest's boot map (mm: lines)\n"
	"  --keep                   keep the files the printed QEMU command reads (x86_64)\n"
	"  --timing                 print where the time went at exit\n"
	"  --trace-html FILE        run with trace=on and write FILE: one HTML page (no\n"
	"                           network, opens in any browser) that steps through\n"
	"                           the trace: PTE strip, batches, counters, flushes\n"
	"                           (docs/lab.md)\n"
	"  --initramfs DIR|FILE     the files run=exec:PATH sees: a directory (packed\n"
	"                           into a cpio newc archive by ptelab) or a ready cpio\n"
	"                           newc file; up to 512M. Words after a second '--'\n"
	"                           are the program's arguments (docs/user.md)\n"
	"  --mem-needed             print the least --mem the benchmark's size= needs\n"
	"                           on --nodes (e.g. 1216M) and exit\n"
	"  --version                print ptelab's version (git describe) and exit\n"
	"  -h, --help               this text\n"
	"\n"
	"GUEST ARGS become the guest command line (default: run=hello):\n"
	"run=NAME[:ARG][,NAME...], the commands (run=list prints them too):\n";

/* Between the commands and the keys (vmm_print_usage()). */
const char vmm_usage_keys[] = "keys, as key=value (run=help prints them too):\n";

const char vmm_usage_tail[] =
	"  e.g. ptelab --mem 2G run=bench:zap size=64 folios=64K caps=1,4,16,max\n"
	"       ptelab --initramfs DIR -- run=exec:/bin/hello -- a b\n"
	"\n"
	"Environment: PTELAB_ALLOW_PVM=1 lets the KVM backend run on a kvm-pvm host\n"
	"(refused by default: the real guest does not run there).\n"
	"\n"
	"Exit status: the guest's (0 = all passed), 2 usage or input error, 3 guest\n"
	"crashed, 4 no backend available, 124 timeout, 128+N stopped by signal N.\n";

/* The names of the choices, in enum order: the options' values and the
 * names ptelab prints are these. */
static const char *const backend_names[] = { "auto", "kvm", "qemu", "host", NULL };
static const char *const arch_names[] = { "x86_64", "arm64", NULL };
static const char *const accel_names[] = { "tcg", "kvm", "icount", NULL };

const char *vmm_arch_name(enum vmm_arch arch)
{
	return arch_names[arch];
}

const char *vmm_backend_name(enum vmm_backend backend)
{
	return backend_names[backend];
}

/* Parse a run of decimal digits filling the whole of @s; -1 on overflow or
 * on anything that is not a digit (no sign, no spaces, not empty). */
static int parse_digits(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -2;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

enum vmm_size_error vmm_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	size_t n = strlen(s);
	uint64_t v = 0, mult = 1;
	int r;

	if (n && strchr("kKmMgG", s[n - 1])) {
		char c = s[n - 1] | 0x20;

		mult = c == 'k' ? VMM_KIB : c == 'm' ? VMM_MIB : VMM_GIB;
		n--;
	}
	r = parse_digits(s, n, &v);
	if (r == -1) {
		snprintf(err, errlen, "'%s' is not a size", s);
		return VMM_SIZE_SYNTAX;
	}
	if (r == -2 || v > UINT64_MAX / mult) {
		snprintf(err, errlen, "'%s' does not fit in 64 bits", s);
		return VMM_SIZE_OVERFLOW;
	}
	*out = v * mult;
	return VMM_SIZE_OK;
}

/* Parse @s as an integer in [lo, hi] for option @opt. */
static int parse_int(const char *opt, const char *s, int lo, int hi, int *out, char *err,
		     size_t errlen)
{
	uint64_t v = 0;
	int r = parse_digits(s, strlen(s), &v);

	if (r == -1) {
		snprintf(err, errlen, "%s: '%s' is not a number (limit %d..%d)", opt, s, lo, hi);
		return -1;
	}
	if (r == -2 || v < (uint64_t)lo || v > (uint64_t)hi) {
		snprintf(err, errlen, "%s: '%s' is out of range (limit %d..%d)", opt, s, lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Match @s against the NULL-terminated @names; its index or -1. */
static int parse_choice(const char *opt, const char *s, const char *const names[], char *err,
			size_t errlen)
{
	char list[64] = "";

	for (int i = 0; names[i]; i++) {
		if (strcmp(s, names[i]) == 0)
			return i;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 names[i]);
	}
	snprintf(err, errlen, "%s: '%s' is not one of %s", opt, s, list);
	return -1;
}

static int parse_mem(const char *s, struct vmm_config *cfg, char *err, size_t errlen)
{
	char why[96];

	switch (vmm_parse_size(s, &cfg->mem, why, sizeof(why))) {
	case VMM_SIZE_OK:
		return 0;
	case VMM_SIZE_OVERFLOW:
		snprintf(err, errlen, "--mem: '%s' is too large (limit 64G)", s);
		return -1;
	case VMM_SIZE_SYNTAX:
		break;
	}
	snprintf(err, errlen,
		 "--mem: '%s' is not a size (limit: digits with an optional K, M or G suffix, at "
		 "most 64G)",
		 s);
	return -1;
}

/*
 * check_mem - the limits on --mem that depend on --nodes: at most 64G in
 * all, an even split, each share a multiple of 2M and at least 16M.
 */
static int check_mem(const struct vmm_config *cfg, char *err, size_t errlen)
{
	uint64_t share = cfg->mem / (uint64_t)cfg->nodes;
	char total[24], part[24];

	vmm_fmt_size(cfg->mem, total, sizeof(total));
	vmm_fmt_size(share, part, sizeof(part));
	if (cfg->mem > VMM_MEM_MAX)
		snprintf(err, errlen, "--mem: %s is too large (limit 64G)", total);
	else if (share < VMM_NODE_MIN)
		snprintf(err, errlen,
			 "--mem: %s over %d node%s is %s per node (limit: at least 16M "
			 "per node)",
			 total, cfg->nodes, cfg->nodes > 1 ? "s" : "", part);
	else if (cfg->mem % (uint64_t)cfg->nodes || share % VMM_NODE_ALIGN)
		snprintf(err, errlen,
			 "--mem: %s does not split over %d node%s in whole 2M units "
			 "(limit: each node's share a multiple of 2M)",
			 total, cfg->nodes, cfg->nodes > 1 ? "s" : "");
	else
		return 0;
	return -1;
}

enum opt_id {
	O_BACKEND,
	O_ARCH,
	O_ACCEL,
	O_MEM,
	O_NODES,
	O_CPUS,
	O_TIMEOUT,
	O_KERNEL,
	O_RESULTS,
	O_DTB_OUT,
	O_VERBOSE,
	O_KEEP,
	O_TIMING,
	O_HELP,
	O_CSV,
	O_QUIET,
	O_RAW,
	O_VERSION,
	O_MEM_NEEDED,
	O_INITRAMFS,
	O_TRACE_HTML,
};

static const struct opt {
	const char *name;
	int has_value;
	enum opt_id id;
} opts[] = {
	{ "--backend", 1, O_BACKEND },
	{ "--arch", 1, O_ARCH },
	{ "--accel", 1, O_ACCEL },
	{ "--mem", 1, O_MEM },
	{ "--nodes", 1, O_NODES },
	{ "--cpus", 1, O_CPUS },
	{ "--timeout", 1, O_TIMEOUT },
	{ "--kernel", 1, O_KERNEL },
	{ "--results", 1, O_RESULTS },
	{ "--dtb-out", 1, O_DTB_OUT },
	{ "--verbose", 0, O_VERBOSE },
	{ "--timing", 0, O_TIMING },
	{ "--keep", 0, O_KEEP },
	{ "--help", 0, O_HELP },
	{ "-h", 0, O_HELP },
	{ "--csv", 1, O_CSV },
	{ "--quiet", 0, O_QUIET },
	{ "--raw", 0, O_RAW },
	{ "--version", 0, O_VERSION },
	{ "--mem-needed", 0, O_MEM_NEEDED },
	{ "--initramfs", 1, O_INITRAMFS },
	{ "--trace-html", 1, O_TRACE_HTML },
};

/* Apply one option with its value (NULL for flags) to @cfg. */
static int apply_opt(const struct opt *o, const char *v, struct vmm_config *cfg, char *err,
		     size_t errlen)
{
	int r = 0;

	switch (o->id) {
	case O_BACKEND:
		r = parse_choice(o->name, v, backend_names, err, errlen);
		cfg->backend = (enum vmm_backend)r;
		break;
	case O_ARCH:
		r = parse_choice(o->name, v, arch_names, err, errlen);
		cfg->arch = (enum vmm_arch)r;
		cfg->arch_set = true;
		break;
	case O_ACCEL:
		r = parse_choice(o->name, v, accel_names, err, errlen);
		cfg->accel = (enum vmm_accel)r;
		cfg->accel_set = true;
		break;
	case O_MEM:
		return parse_mem(v, cfg, err, errlen);
	case O_NODES:
		return parse_int(o->name, v, 1, VMM_MAX_NODES, &cfg->nodes, err, errlen);
	case O_CPUS:
		return parse_int(o->name, v, 1, VMM_MAX_CPUS, &cfg->cpus, err, errlen);
	case O_TIMEOUT:
		cfg->timeout_set = true;
		return parse_int(o->name, v, 1, VMM_TIMEOUT_MAX, &cfg->timeout, err, errlen);
	case O_KERNEL:
		if (!*v || snprintf(cfg->kernel, sizeof(cfg->kernel), "%s", v) >=
				   (int)sizeof(cfg->kernel)) {
			snprintf(err, errlen, "--kernel: the path is empty or too long");
			return -1;
		}
		break;
	case O_RESULTS:
		cfg->results = v;
		break;
	case O_DTB_OUT:
		cfg->dtb_out = v;
		break;
	case O_VERBOSE:
		cfg->verbose = true;
		break;
	case O_TIMING:
		cfg->timing = true;
		break;
	case O_KEEP:
		cfg->keep = true;
		break;
	case O_HELP:
		cfg->help = true;
		break;
	case O_CSV:
		cfg->csv = v;
		break;
	case O_QUIET:
		cfg->quiet = true;
		break;
	case O_RAW:
		cfg->raw = true;
		break;
	case O_VERSION:
		cfg->version = true;
		break;
	case O_MEM_NEEDED:
		cfg->mem_needed = true;
		break;
	case O_INITRAMFS:
		if (!*v) {
			snprintf(err, errlen, "--initramfs: the path is empty");
			return -1;
		}
		cfg->initramfs = v;
		break;
	case O_TRACE_HTML:
		if (!*v) {
			snprintf(err, errlen, "--trace-html: the path is empty");
			return -1;
		}
		cfg->trace_html = v;
		break;
	}
	return r < 0 ? -1 : 0;
}

/* Join the non-empty @words with single spaces into cfg->bootargs. */
static int join_bootargs(char *const words[], int n, struct vmm_config *cfg, char *err,
			 size_t errlen)
{
	size_t len = 0;

	cfg->bootargs[0] = 0;
	for (int i = 0; i < n; i++) {
		size_t w = strlen(words[i]);

		if (!w)
			continue;
		if (len + !!len + w >= sizeof(cfg->bootargs)) {
			snprintf(err, errlen, "guest arguments: too long (limit %d bytes)",
				 VMM_BOOTARGS_MAX - 1);
			return -1;
		}
		if (len)
			cfg->bootargs[len++] = ' ';
		memcpy(cfg->bootargs + len, words[i], w + 1);
		len += w;
	}
	if (!len)
		strcpy(cfg->bootargs, "run=hello");
	return 0;
}

static const struct opt *find_opt(const char *word, size_t n)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strlen(opts[i].name) == n && strncmp(word, opts[i].name, n) == 0)
			return &opts[i];
	return NULL;
}

static void config_defaults(struct vmm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = VMM_BACKEND_AUTO;
	cfg->arch = VMM_ARCH_X86_64;
	cfg->accel = VMM_ACCEL_TCG;
	cfg->mem = VMM_GIB;
	cfg->nodes = 2;
	cfg->cpus = 1;
	cfg->timeout = 120;
}

/* Parse the option at argv[*i] (and its value); advance *i past them. */
static int parse_opt(int argc, char *const argv[], int *i, struct vmm_config *cfg, char *err,
		     size_t errlen)
{
	const char *w = argv[*i], *eq = strchr(w, '='), *v = NULL;
	int n = eq ? (int)(eq - w) : (int)strlen(w);
	const struct opt *o = find_opt(w, (size_t)n);

	if (!o) {
		snprintf(err, errlen, "unknown option '%.*s'", n, w);
		return -2;
	}
	if (o->has_value) {
		v = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
		if (!v) {
			snprintf(err, errlen, "option '%s' needs a value", o->name);
			return -2;
		}
	} else if (eq) {
		snprintf(err, errlen, "option '%s' takes no value", o->name);
		return -2;
	}
	return apply_opt(o, v, cfg, err, errlen);
}

/* --trace-html traces the run: add trace=on to the guest words unless
 * they say it; refuse trace=off. */
static int add_trace_on(struct vmm_config *cfg, char *err, size_t errlen)
{
	size_t len = strlen(cfg->bootargs);

	for (const char *w = cfg->bootargs; w; w = strchr(w, ' ')) {
		w += *w == ' ';
		if (strncmp(w, "trace=", 6))
			continue;
		if (strncmp(w, "trace=on", 8) == 0 && (w[8] == ' ' || !w[8]))
			return 0;
		snprintf(err, errlen, "--trace-html: the page needs trace=on, not '%.*s'",
			 (int)strcspn(w, " "), w);
		return -1;
	}
	if (len + strlen(" trace=on") >= sizeof(cfg->bootargs)) {
		snprintf(err, errlen, "guest arguments: too long (limit %d bytes)",
			 VMM_BOOTARGS_MAX - 1);
		return -1;
	}
	strcat(cfg->bootargs, " trace=on");
	return 0;
}

/* The words after a second "--": run=exec's argv[1..], NUL-separated. */
static int join_exec_argv(char *const words[], int n, struct vmm_config *cfg, char *err,
			  size_t errlen)
{
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		size_t w = strlen(words[i]) + 1;

		if (len + w > sizeof(cfg->exec_argv)) {
			snprintf(err, errlen, "program arguments: too long (limit %d bytes)",
				 PTELAB_ARGV_MAX);
			return -1;
		}
		memcpy(cfg->exec_argv + len, words[i], w);
		len += w;
	}
	cfg->exec_argv_len = len;
	return 0;
}

int vmm_args_parse(int argc, char *const argv[], struct vmm_config *cfg, char *err, size_t errlen)
{
	char *words[argc > 0 ? argc : 1];
	int nr_words = 0, opts_done = 0, r;

	config_defaults(cfg);
	for (int i = 1; i < argc; i++) {
		if (opts_done && strcmp(argv[i], "--") == 0) {
			if (join_exec_argv(argv + i + 1, argc - i - 1, cfg, err, errlen))
				return -1;
			break;
		}
		if (opts_done || argv[i][0] != '-')
			words[nr_words++] = argv[i];
		else if (strcmp(argv[i], "--") == 0)
			opts_done = 1;
		else if ((r = parse_opt(argc, argv, &i, cfg, err, errlen)))
			return r;
	}
	if (cfg->help)
		return 1;
	if (cfg->version)
		return 2;
	/* --mem-needed asks what --mem to give: the --mem given does not matter. */
	if ((!cfg->mem_needed && check_mem(cfg, err, errlen)) ||
	    join_bootargs(words, nr_words, cfg, err, errlen) ||
	    (cfg->trace_html && add_trace_on(cfg, err, errlen)))
		return -1;
	return 0;
}

int vmm_config_default_kernel(struct vmm_config *cfg, const char *self_exe)
{
	const char *slash = strrchr(self_exe, '/');
	int dirlen = slash ? (int)(slash - self_exe) : 1;
	const char *dir = slash ? self_exe : ".";
	int n;

	if (cfg->kernel[0])
		return 0;
	n = snprintf(cfg->kernel, sizeof(cfg->kernel), "%.*s/%s/%s", dirlen, dir,
		     vmm_arch_name(cfg->arch),
		     cmdline_on(&cfg->guest_words, CMDLINE_KEY_trace) ? "guest-trace.elf"
								      : "guest.elf");
	return n < (int)sizeof(cfg->kernel) ? 0 : -1;
}
