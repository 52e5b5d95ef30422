/*
 * test_args.c - the ptelab command line (vmm/args.c): sizes, every option,
 * the limits each bad value must name, guest words, --help.
 */
#include "host/args_line.h"
#include "test.h"
#include "vmm_config.h"
#include "vmm_util.h"

static struct vmm_config cfg;
static char err[256];

int args_parse_line(const char *line, struct vmm_config *c, char *e, size_t elen)
{
	static char copy[2048];
	char *argv[64] = { "ptelab" };
	int argc = 1;

	snprintf(copy, sizeof(copy), "%s", line);
	for (char *w = strtok(copy, " "); w && argc < 63; w = strtok(NULL, " "))
		argv[argc++] = w;
	e[0] = 0;
	return vmm_args_parse(argc, argv, c, e, elen);
}

static int parse(const char *line)
{
	return args_parse_line(line, &cfg, err, sizeof(err));
}

static int size_of(const char *s, uint64_t *v)
{
	err[0] = 0;
	return vmm_parse_size(s, v, err, sizeof(err));
}

/* --- vmm_parse_size --------------------------------------------------------- */

/* Digits with an optional K/M/G (either case) multiply exactly. */
TEST(size_suffixes)
{
	uint64_t v = 0;

	CHECK_EQ(size_of("0", &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(size_of("4096", &v), 0);
	CHECK_EQ(v, 4096);
	CHECK_EQ(size_of("4k", &v), 0);
	CHECK_EQ(v, 4096);
	CHECK_EQ(size_of("4K", &v), 0);
	CHECK_EQ(v, 4096);
	CHECK_EQ(size_of("768m", &v), 0);
	CHECK_EQ(v, 768ULL << 20);
	CHECK_EQ(size_of("3G", &v), 0);
	CHECK_EQ(v, 3ULL << 30);
	CHECK_EQ(size_of("007M", &v), 0);
	CHECK_EQ(v, 7ULL << 20);
}

/* The largest values that fit are accepted; one more is an overflow. */
TEST(size_overflow)
{
	uint64_t v = 0;

	CHECK_EQ(size_of("18446744073709551615", &v), 0);
	CHECK_EQ(v, UINT64_MAX);
	CHECK_EQ(size_of("18446744073709551616", &v), VMM_SIZE_OVERFLOW);
	CHECK_HAS(err, "'18446744073709551616' does not fit in 64 bits");
	CHECK_EQ(size_of("99999999999999999999999", &v), VMM_SIZE_OVERFLOW);
	CHECK_HAS(err, "does not fit in 64 bits");
	CHECK_EQ(size_of("17179869183G", &v), 0); /* 2^34 - 1 GiB */
	CHECK_EQ(v, 17179869183ULL << 30);
	CHECK_EQ(size_of("17179869184G", &v), VMM_SIZE_OVERFLOW); /* 2^64 */
	CHECK_HAS(err, "does not fit in 64 bits");
	CHECK_EQ(size_of("18014398509481984K", &v), VMM_SIZE_OVERFLOW);
	CHECK_HAS(err, "does not fit in 64 bits");
}

/* Anything but digits and one suffix is junk, named in the message. */
TEST(size_junk)
{
	static const char *const junk[] = { "",	   "K",	 "M",	 "12KB", " 1M",	 "1M ",
					    "-1",  "+1", "1.5G", "1T",	 "0x10", "1MK",
					    "1 G", "G1", "1e9",	 "12\n" };
	uint64_t v = 0;

	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		char want[64];

		snprintf(want, sizeof(want), "'%s' is not a size", junk[i]);
		CHECK_EQ(size_of(junk[i], &v), VMM_SIZE_SYNTAX);
		CHECK_HAS(err, want);
	}
}

/* --- vmm_args_parse ------------------------------------------------------------ */

/* No arguments: the documented defaults and the hello command. */
TEST(defaults)
{
	CHECK_EQ(parse(""), 0);
	CHECK_EQ(cfg.backend, VMM_BACKEND_AUTO);
	CHECK_EQ(cfg.arch, VMM_ARCH_X86_64);
	CHECK_EQ(cfg.accel, VMM_ACCEL_TCG);
	CHECK_EQ(cfg.accel_set, 0);
	CHECK_EQ(cfg.mem, 1ULL << 30);
	CHECK_EQ(cfg.nodes, 2);
	CHECK_EQ(cfg.cpus, 1);
	CHECK_EQ(cfg.timeout, 120);
	CHECK_STR(cfg.kernel, "");
	CHECK(cfg.results == NULL);
	CHECK(cfg.dtb_out == NULL);
	CHECK(!cfg.verbose && !cfg.timing && !cfg.help);
	CHECK_STR(cfg.bootargs, "run=hello");
}

/* Every option with a value, as "--opt value". */
TEST(every_option_separate_value)
{
	CHECK_EQ(parse("--backend qemu --arch arm64 --accel kvm --mem 768M --nodes 3 --cpus 4 "
		       "--timeout 5 --kernel /k/guest.elf --results r.json --dtb-out t.dtb "
		       "--verbose --timing run=selftest"),
		 0);
	CHECK_EQ(cfg.backend, VMM_BACKEND_QEMU);
	CHECK_EQ(cfg.arch, VMM_ARCH_ARM64);
	CHECK_EQ(cfg.accel, VMM_ACCEL_KVM);
	CHECK_EQ(cfg.accel_set, 1);
	CHECK_EQ(cfg.mem, 768ULL << 20);
	CHECK_EQ(cfg.nodes, 3);
	CHECK_EQ(cfg.cpus, 4);
	CHECK_EQ(cfg.timeout, 5);
	CHECK_STR(cfg.kernel, "/k/guest.elf");
	CHECK_STR(cfg.results, "r.json");
	CHECK_STR(cfg.dtb_out, "t.dtb");
	CHECK(cfg.verbose && cfg.timing);
	CHECK_STR(cfg.bootargs, "run=selftest");
}

/* The same as "--opt=value"; the last of a repeated option wins. */
TEST(every_option_equals_value)
{
	CHECK_EQ(parse("--backend=kvm --arch=x86_64 --accel=tcg --mem=2G --nodes=8 --cpus=8 "
		       "--timeout=86400 --kernel=k --results=r --dtb-out=d --backend=auto"),
		 0);
	CHECK_EQ(cfg.backend, VMM_BACKEND_AUTO);
	CHECK_EQ(cfg.arch, VMM_ARCH_X86_64);
	CHECK_EQ(cfg.accel, VMM_ACCEL_TCG);
	CHECK_EQ(cfg.accel_set, 1);
	CHECK_EQ(cfg.mem, 2ULL << 30);
	CHECK_EQ(cfg.nodes, 8);
	CHECK_EQ(cfg.cpus, 8);
	CHECK_EQ(cfg.timeout, 86400);
	CHECK_STR(cfg.kernel, "k");
	CHECK_STR(cfg.results, "r");
	CHECK_STR(cfg.dtb_out, "d");
	CHECK_EQ(parse("--backend kvm"), 0);
	CHECK_EQ(cfg.backend, VMM_BACKEND_KVM);
}

/* The extremes of each limit are accepted. */
TEST(limits_accepted_at_the_edges)
{
	CHECK_EQ(parse("--mem 64G --nodes 8"), 0);
	CHECK_EQ(cfg.mem, 64ULL << 30);
	CHECK_EQ(parse("--mem 16M --nodes 1"), 0);
	CHECK_EQ(parse("--mem 128M --nodes 8 --cpus 1 --timeout 1"), 0);
	CHECK_EQ(parse("--mem 48M --nodes 3"), 0); /* 16M each */
}

/* parse_fails - @line is refused with status @want and a one-line
 * message containing @msg. */
static void parse_fails(const char *line, int want, const char *msg)
{
	CHECK_EQ(parse(line), want);
	CHECK_HAS(err, msg);
	CHECK(!strchr(err, '\n'));
}

/* --mem: each bad value names the limit it breaks. */
TEST(bad_mem_names_the_limit)
{
	parse_fails("--mem 0", -1,
		    "--mem: 0 over 2 nodes is 0 per node (limit: at least 16M per "
		    "node)");
	parse_fails("--mem 3M", -1,
		    "--mem: 3M over 2 nodes is 1536K per node (limit: at least 16M");
	parse_fails("--mem 3M --nodes 1", -1, "(limit: at least 16M per node)");
	parse_fails("--mem 1T", -1,
		    "--mem: '1T' is not a size (limit: digits with an optional K, "
		    "M or G suffix, at most 64G)");
	parse_fails("--mem 65G", -1, "--mem: 65G is too large (limit 64G)");
	parse_fails("--mem 99999999999999999999G", -1, "is too large (limit 64G)");
	parse_fails("--mem 17179869184G", -1, "is too large (limit 64G)");
	parse_fails("--mem 100M --nodes 3", -1,
		    "--mem: 100M does not split over 3 nodes in whole 2M units (limit: each "
		    "node's share a multiple of 2M)");
	parse_fails("--mem 33M --nodes 1", -1, "multiple of 2M");
	parse_fails("--mem=", -1, "--mem: '' is not a size");
}

/* --nodes, --cpus, --timeout: out of range or not a number, with the range. */
TEST(bad_numbers_name_the_limit)
{
	parse_fails("--nodes 0", -1, "--nodes: '0' is out of range (limit 1..8)");
	parse_fails("--nodes 9", -1, "--nodes: '9' is out of range (limit 1..8)");
	parse_fails("--nodes -1", -1, "--nodes: '-1' is not a number (limit 1..8)");
	parse_fails("--nodes two", -1, "--nodes: 'two' is not a number (limit 1..8)");
	parse_fails("--nodes 99999999999999999999999", -1, "is out of range (limit 1..8)");
	parse_fails("--cpus 0", -1, "--cpus: '0' is out of range (limit 1..8)");
	parse_fails("--cpus 9", -1, "--cpus: '9' is out of range (limit 1..8)");
	parse_fails("--cpus 1.5", -1, "--cpus: '1.5' is not a number (limit 1..8)");
	parse_fails("--timeout 0", -1, "--timeout: '0' is out of range (limit 1..86400)");
	parse_fails("--timeout 86401", -1, "--timeout: '86401' is out of range (limit 1..86400)");
	parse_fails("--timeout 2s", -1, "--timeout: '2s' is not a number (limit 1..86400)");
	parse_fails("--timeout=", -1, "--timeout: '' is not a number (limit 1..86400)");
}

/* Choices list what is allowed. */
TEST(bad_choices_list_the_choices)
{
	parse_fails("--backend foo", -1, "--backend: 'foo' is not one of auto, kvm, qemu");
	parse_fails("--backend KVM", -1, "--backend: 'KVM' is not one of auto, kvm, qemu");
	parse_fails("--arch foo", -1, "--arch: 'foo' is not one of x86_64, arm64");
	parse_fails("--arch aarch64", -1, "--arch: 'aarch64' is not one of x86_64, arm64");
	parse_fails("--accel hvf", -1, "--accel: 'hvf' is not one of tcg, kvm");
	parse_fails("--kernel=", -1, "--kernel: the path is empty or too long");
}

/* Unknown options, missing and unexpected values are usage errors (-2). */
TEST(bad_options)
{
	parse_fails("--foo", -2, "unknown option '--foo'");
	parse_fails("--foo=bar", -2, "unknown option '--foo'");
	parse_fails("-m 1G", -2, "unknown option '-m'");
	parse_fails("-", -2, "unknown option '-'");
	parse_fails("--Mem 1G", -2, "unknown option '--Mem'");
	parse_fails("--mem", -2, "option '--mem' needs a value");
	parse_fails("run=hello --kernel", -2, "option '--kernel' needs a value");
	parse_fails("--verbose=1", -2, "option '--verbose' takes no value");
	parse_fails("--help=yes", -2, "option '--help' takes no value");
}

/* --help wins over the checks made once every option is read (--mem
 * against --nodes), not over values and options refused while reading. */
TEST(help)
{
	CHECK_EQ(parse("--help"), 1);
	CHECK(cfg.help);
	CHECK_EQ(parse("--mem 0 --help"), 1);
	CHECK_EQ(parse("--help --nodes 9"), -1);
	CHECK_EQ(parse("--help --bogus"), -2);
	CHECK_HAS(vmm_usage_text, "usage: ptelab");
	CHECK_HAS(vmm_usage_text, "--dtb-out FILE");
	CHECK_HAS(vmm_usage_tail, "124 timeout");
}

/* Guest words are joined with single spaces in order; after "--" even
 * words that start with '-' are guest words. */
TEST(guest_words)
{
	char *argv[] = {
		"ptelab", "run=hello,exit:3", "", "--nodes", "1", "fork=16", "--", "--mem", "-x",
		NULL
	};

	CHECK_EQ(vmm_args_parse(9, argv, &cfg, err, sizeof(err)), 0);
	CHECK_EQ(cfg.nodes, 1);
	CHECK_EQ(cfg.mem, 1ULL << 30);
	CHECK_STR(cfg.bootargs, "run=hello,exit:3 fork=16 --mem -x");
	CHECK_EQ(parse("--"), 0);
	CHECK_STR(cfg.bootargs, "run=hello");
}

/* Words after a second "--" are run=exec's argv[1..], NUL-separated,
 * even "--" itself; without one there are none; --initramfs is kept. */
TEST(exec_argv_after_second_dashes)
{
	CHECK_EQ(parse("--initramfs dir -- run=exec:/bin/hello -- a -- -b"), 0);
	CHECK_STR(cfg.bootargs, "run=exec:/bin/hello");
	CHECK_STR(cfg.initramfs, "dir");
	CHECK_EQ(cfg.exec_argv_len, 8);
	CHECK(!memcmp(cfg.exec_argv, "a\0--\0-b\0", 8));
	CHECK_EQ(parse("run=exec:/bin/hello"), 0);
	CHECK_EQ(cfg.exec_argv_len, 0);
	CHECK(cfg.initramfs == NULL);
}

/* The command line fits the guest's buffer or is refused with the limit. */
TEST(guest_words_limit)
{
	static char line[1100];
	size_t n = VMM_BOOTARGS_MAX - 1;

	memset(line, 'w', n);
	line[n] = 0;
	CHECK_EQ(parse(line), 0);
	CHECK_EQ(strlen(cfg.bootargs), n);
	line[n - 2] = ' '; /* two words: "www...w w" is still n bytes */
	CHECK_EQ(parse(line), 0);
	CHECK_EQ(strlen(cfg.bootargs), n);
	line[n] = 'w';
	line[n + 1] = 0;
	parse_fails(line, -1, "guest arguments: too long (limit 1023 bytes)");
}

/* The default kernel sits next to the ptelab binary, per arch. */
TEST(default_kernel_path)
{
	char longpath[PATH_MAX + 8];

	CHECK_EQ(parse(""), 0);
	CHECK_EQ(vmm_config_default_kernel(&cfg, "/opt/p/build/ptelab"), 0);
	CHECK_STR(cfg.kernel, "/opt/p/build/x86_64/guest.elf");
	CHECK_EQ(parse("--arch arm64"), 0);
	CHECK_EQ(vmm_config_default_kernel(&cfg, "/ptelab"), 0);
	CHECK_STR(cfg.kernel, "/arm64/guest.elf");
	CHECK_EQ(parse(""), 0);
	CHECK_EQ(vmm_config_default_kernel(&cfg, "ptelab"), 0);
	CHECK_STR(cfg.kernel, "./x86_64/guest.elf");
	CHECK_EQ(parse("--kernel mine.elf"), 0);
	CHECK_EQ(vmm_config_default_kernel(&cfg, "/opt/p/build/ptelab"), 0);
	CHECK_STR(cfg.kernel, "mine.elf");
	CHECK_EQ(parse(""), 0);
	memset(longpath, 'd', sizeof(longpath) - 1);
	longpath[0] = '/';
	memcpy(longpath + sizeof(longpath) - 8, "/ptelab", 8); /* a very long directory */
	CHECK_EQ(vmm_config_default_kernel(&cfg, longpath), -1);
	/* trace=on, read from the words ptelab parsed once, picks the trace image. */
	CHECK_EQ(parse("run=hello trace=on"), 0);
	CHECK_EQ(vmm_guest_args_check(&cfg, err, sizeof(err)), 0);
	CHECK_EQ(vmm_config_default_kernel(&cfg, "/opt/p/build/ptelab"), 0);
	CHECK_STR(cfg.kernel, "/opt/p/build/x86_64/guest-trace.elf");
}

/* --trace-html traces the run: trace=on joins the guest words (once), so
 * the trace image boots; trace=off cannot go with it. */
TEST(trace_html_adds_trace_on)
{
	CHECK_EQ(parse("--trace-html t.html run=ptdump:munmap zap=4"), 0);
	CHECK_STR(cfg.trace_html, "t.html");
	CHECK_STR(cfg.bootargs, "run=ptdump:munmap zap=4 trace=on");
	CHECK_EQ(vmm_guest_args_check(&cfg, err, sizeof(err)), 0);
	CHECK_EQ(vmm_config_default_kernel(&cfg, "/opt/p/build/ptelab"), 0);
	CHECK_STR(cfg.kernel, "/opt/p/build/x86_64/guest-trace.elf");
	CHECK_EQ(parse("--trace-html=t.html"), 0);
	CHECK_STR(cfg.bootargs, "run=hello trace=on");
	CHECK_EQ(parse("--trace-html t.html -- run=hello trace=on"), 0);
	CHECK_STR(cfg.bootargs, "run=hello trace=on");
	CHECK_EQ(parse("run=hello --trace-html t.html"), 0);
	CHECK_STR(cfg.bootargs, "run=hello trace=on");
	parse_fails("--trace-html t.html run=hello trace=off", -1,
		    "--trace-html: the page needs trace=on, not 'trace=off'");
	parse_fails("--trace-html= run=hello", -1, "--trace-html: the path is empty");
	parse_fails("--trace-html", -2, "option '--trace-html' needs a value");
	CHECK_EQ(parse("run=hello"), 0);
	CHECK(cfg.trace_html == NULL);
	CHECK_STR(cfg.bootargs, "run=hello");
}

/* What an accepted command line promises the rest of ptelab. Return:
 * NULL, or the broken promise. */
static const char *accepted_is_sane(const struct vmm_config *c)
{
	uint64_t share = c->mem / (uint64_t)c->nodes;

	if (c->nodes < 1 || c->nodes > VMM_MAX_NODES || c->cpus < 1 || c->cpus > VMM_MAX_CPUS)
		return "nodes or cpus";
	if (c->timeout < 1 || c->timeout > VMM_TIMEOUT_MAX)
		return "timeout";
	if (c->mem > VMM_MEM_MAX || share < VMM_NODE_MIN || share % VMM_NODE_ALIGN ||
	    share * (uint64_t)c->nodes != c->mem)
		return "mem";
	if (!c->bootargs[0] || strlen(c->bootargs) >= VMM_BOOTARGS_MAX)
		return "bootargs";
	return NULL;
}

/* Seeded random command lines from a vocabulary of options, values and
 * junk: the parser never crashes (ASan), every refusal is one line, and
 * every accepted line is within every limit. */
TEST(fuzz_random_command_lines)
{
	static char longword[600];
	static const char *const vocab[] = {
		"--mem",
		"--nodes",
		"--cpus",
		"--timeout",
		"--backend",
		"--arch",
		"--accel",
		"--kernel",
		"--results",
		"--dtb-out",
		"--verbose",
		"--timing",
		"--help",
		"--",
		"-",
		"--mem=",
		"--nodes=3",
		"--bogus",
		"0",
		"1",
		"3",
		"8",
		"9",
		"16M",
		"3M",
		"48M",
		"1G",
		"64G",
		"65G",
		"1T",
		"kvm",
		"qemu",
		"auto",
		"arm64",
		"x86_64",
		"tcg",
		"",
		"run=hello",
		"x=1",
		"-1",
		"99999999999999999999",
		longword,
	};
	const int nv = sizeof(vocab) / sizeof(vocab[0]);
	uint64_t seed = 0xa125;
	int counts[4] = { 0 }, bad = 0;

	memset(longword, 'w', sizeof(longword) - 1);
	for (int it = 0; it < 5000; it++) {
		char *argv[9] = { "ptelab" };
		int argc = 1 + (int)(seed % 8), r;
		const char *why = NULL;

		for (int i = 1; i < argc; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			argv[i] = (char *)vocab[(seed >> 33) % (uint64_t)nv];
		}
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		err[0] = 0;
		r = vmm_args_parse(argc, argv, &cfg, err, sizeof(err));
		if (r < -2 || r > 1)
			why = "return value";
		else if (r < 0 && (!err[0] || strchr(err, '\n')))
			why = "refusal is not one line";
		else if (r == 0)
			why = accepted_is_sane(&cfg);
		if (r >= -2 && r <= 1)
			counts[r + 2]++;
		if (why && bad++ < 5)
			printf("    fuzz iteration %d: %s (%s)\n", it, why, err);
	}
	CHECK_EQ(bad, 0);
	CHECK(counts[0] > 100 && counts[1] > 100 && counts[2] > 100 && counts[3] > 100);
}

TEST_SUITE(args, size_suffixes, size_overflow, size_junk, defaults, every_option_separate_value,
	   every_option_equals_value, limits_accepted_at_the_edges, bad_mem_names_the_limit,
	   bad_numbers_name_the_limit, bad_choices_list_the_choices, bad_options, help, guest_words,
	   guest_words_limit, exec_argv_after_second_dashes, default_kernel_path,
	   trace_html_adds_trace_on, fuzz_random_command_lines)
