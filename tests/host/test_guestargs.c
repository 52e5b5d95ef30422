/*
 * test_guestargs.c - ptelab's check of the guest command line before it
 * boots (vmm/guestargs.c with cmdline/), the words it adds
 * for the guest (clock, backend, version), the new options (-h,
 * --version, --csv, --quiet, --backend host) and the CSV of a RESULT line
 * (vmm/csv.c).
 */
#include <stdlib.h>

#include "host/args_line.h"
#include "ptelab/cmdline.h"
#include "test.h"
#include "vmm_config.h"
#include "vmm_csv.h"

static struct vmm_config cfg;
static char err[256];

/* Parse "ptelab @line" and check its guest words. Return: as the check,
 * -9 when the options themselves did not parse (or asked for help). */
static int check(const char *line)
{
	if (args_parse_line(line, &cfg, err, sizeof(err)))
		return -9;
	return vmm_guest_args_check(&cfg, err, sizeof(err));
}

/* Refused with one line containing @msg. */
static void refused(const char *line, const char *msg)
{
	CHECK_EQ(check(line), -1);
	CHECK_HAS(err, msg);
	CHECK(strchr(err, '\n') == NULL);
}

/* Words the guest accepts pass on every arch they apply to. */
TEST(good_words_pass)
{
	CHECK_EQ(check("run=hello"), 0);
	CHECK_EQ(check("--mem 2G run=bench:zap size=64 reps=1 folios=64K caps=1,4,16,max"), 0);
	CHECK_EQ(check("run=bench folios=4K,16K,32K,64K,128K,256K,512K,1M,2M-pte,2M-pmd"), 0);
	CHECK_EQ(check("run=bench:gup gup_op=pin-fast gup_nr=0 gup_write=off gup_touch=on"), 0);
	CHECK_EQ(check("run=bench:gup_put gup_keep=ranges"), 0);
	CHECK_EQ(check("run=ptdump batch=1 zap=max mprotect=3 fork=16 gup_grab=2 migrate=max"), 0);
	CHECK_EQ(check("--arch arm64 run=hello contpte=off gup_walk=on"), 0);
	CHECK_EQ(check("--backend host --arch arm64 run=bench:zap contpte=on"), 0);
	CHECK_EQ(check("--cpus 8 run=bench:fault cpus=8"), 0);
	CHECK_EQ(check("run=bench:madvise advice=free,dontneed,populate madvise=4"), 0);
}

/* Unknown folio names (any case but the listed one), unknown keys, bad
 * values: one line naming the word, as issue 9 saw them pass silently. */
TEST(bad_words_refused)
{
	refused("run=bench:zap folios=3K", "folios=3K: '3K' is not a folio size");
	refused("run=bench:zap folios=64k", "'64k' is not a folio size");
	refused("run=bench:zap folios=4K,,64K", "'' is not a folio size");
	refused("run=bench seed=abc", "unknown option 'seed'");
	refused("run=bench bogus=1", "unknown option 'bogus' (run=help lists the options)");
	refused("run=bench:gup gup_op=foo", "gup_op=foo: want one of get,pin,longterm");
	refused("run=bench:gup gup_nr=-1", "gup_nr=-1: want 0..16777216");
	refused("run=bench:gup gup_write=yes", "gup_write=yes: want on or off");
	refused("run=bench:gup_put gup_keep=folios", "gup_keep=folios: want one of pages,ranges");
	refused("run=bench:madvise advice=free,pageout",
		"advice=free,pageout: want a list of free,dontneed,populate");
	refused("run=bench:madvise advice=free,,populate",
		"advice=free,,populate: want a list of free,dontneed,populate");
	refused("run=bench size=3", "size=3: want an even number of MiB");
	refused("run=bench size=abc", "size=abc");
	refused("run=bench reps=65", "reps=65: want a number 1..64");
	refused("run=bench:fault cpus=0", "cpus=0: want a number 1..8");
	refused("run=bench:fault cpus=9", "cpus=9: want a number 1..8");
	refused("run=bench zap=0", "zap=0: a cap is a number 1..1048576 or 'max'");
	refused("run=bench fork=many", "fork=many");
	refused("run=bench caps=1,2,1", "caps=1,2,1: '1' is given twice");
	refused("run=bench caps=1,,2", "caps=");
	refused("run=bench caps=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "at most 16 values");
	refused("run=hello contpte=off", "contpte exists on arm64 only, not on x86_64");
	refused("--backend host run=bench contpte=on", "contpte exists on arm64 only");
	refused("run=hello ptelab.clock=host", "ptelab.clock= is ptelab's to set");
	refused("run=hello run=list", "'run' given twice");
}

/* A size= that does not fit in --mem names the --mem it needs, rounded
 * to what --mem accepts for the nodes; sizes that fit pass. */
TEST(bench_size_against_mem)
{
	refused("run=bench:zap size=1024", "size=1024 needs --mem 1216M or more (have 1G)");
	refused("--nodes 3 --mem 768M run=bench:zap size=1024", "needs --mem 1218M or more");
	/* bench:migrate (and run=bench, which runs it) needs it on every node. */
	refused("--nodes 3 --mem 768M run=bench size=1024",
		"needs --mem 3648M or more (have 768M): bench:migrate needs it on every node");
	refused("run=bench:zap,bench:migrate size=64 --mem 256M", "needs --mem 272M or more");
	CHECK_EQ(check("--mem 272M run=bench:migrate size=64"), 0);
	CHECK_EQ(check("--mem 1216M run=bench:zap size=1024"), 0);
	CHECK_EQ(check("run=bench:zap size=512"), 0);
}

/* A key that no command of run= reads is refused, naming the commands
 * that do (its row's takers); run=bench runs every benchmark, so it takes
 * every benchmark's keys, and the knobs apply to every command. */
TEST(key_for_another_command_refused)
{
	refused("run=hello size=1024",
		"size=1024: run=hello does not read it (size= is for bench)");
	refused("run=bench:zap gup_nr=5", "gup_nr=5: run=bench:zap does not read it (gup_nr= is "
					  "for bench:gup,bench:gup_put)");
	refused("run=bench:madvise_free advice=free", "advice= is for bench:madvise");
	refused("--cpus 2 run=stress:mm reps=3", "reps=3: run=stress:mm does not read it");
	refused("run=selftest seconds=5", "seconds= is for stress");
	CHECK_EQ(check("run=bench gup_nr=5 advice=free seconds=0"), -1); /* range, not takers */
	CHECK_HAS(err, "seconds=0: want a number 1..86400");
	CHECK_EQ(check("run=bench gup_nr=5 advice=free"), 0);
	CHECK_EQ(check("run=hello,bench:gup_put gup_nr=5 gup_op=pin"), 0);
	CHECK_EQ(check("run=bench:madvise advice=dontneed"), 0);
	CHECK_EQ(check("--cpus 2 run=stress:mm seconds=3 cpus=2"), 0);
	CHECK_EQ(check("run=ptdump zap=1 batch=4 gup_walk=off"), 0);
}

/* Values out of their row's range, at both ends. */
TEST(value_out_of_range_refused)
{
	refused("run=bench:zap active=8", "active=8: want 0..7 other CPUs");
	refused("run=bench:gup gup_nr=16777217", "gup_nr=16777217: want 0..16777216 pages");
	refused("--cpus 2 run=stress:mm seconds=86401", "seconds=86401: want a number 1..86400");
	refused("run=bench reps=0", "reps=0: want a number 1..64");
	refused("run=bench size=65538", "size=65538: want an even number of MiB, 2..65536");
	refused("run=bench:zap zap=1048577", "zap=1048577: a cap is a number 1..1048576 or 'max'");
	CHECK_EQ(check("run=bench:gup gup_nr=16777216 reps=64"), 0);
}

/* ptelab parses the guest words once, into the config it passes on. */
TEST(words_parsed_once_into_config)
{
	CHECK_EQ(check("run=hello,bench:zap zap=4"), 0);
	CHECK_EQ(cfg.guest_words.nr_run, 2);
	CHECK_STR(cfg.guest_words.run[1].arg, "zap");
	CHECK_STR(cmdline_get(&cfg.guest_words, "zap"), "4");
	CHECK(vmm_guest_runs_bench(&cfg));
	CHECK_EQ(check("run=hello"), 0);
	CHECK(!vmm_guest_runs_bench(&cfg));
}

/* After the backend is known: benchmarks default to icount on QEMU and a
 * long timeout; the guest learns the clock, backend and version. */
TEST(settle_clock_and_defaults)
{
	CHECK_EQ(check("run=bench:zap"), 0);
	CHECK_EQ(vmm_config_settle(&cfg, VMM_BACKEND_QEMU, err, sizeof(err)), 0);
	CHECK_EQ(cfg.accel, VMM_ACCEL_ICOUNT);
	CHECK_EQ(cfg.timeout, 3600);
	CHECK_HAS(cfg.bootargs, "run=bench:zap ptelab.clock=icount ptelab.backend=qemu "
				"ptelab.version=");
	CHECK_EQ(check("--accel tcg --timeout 9 --quiet run=bench"), 0);
	CHECK_EQ(vmm_config_settle(&cfg, VMM_BACKEND_QEMU, err, sizeof(err)), 0);
	CHECK_EQ(cfg.accel, VMM_ACCEL_TCG);
	CHECK_EQ(cfg.timeout, 9);
	CHECK_HAS(cfg.bootargs, "ptelab.clock=tcg");
	CHECK_HAS(cfg.bootargs, "ptelab.quiet=on");
	CHECK_EQ(check("run=hello"), 0);
	CHECK_EQ(vmm_config_settle(&cfg, VMM_BACKEND_QEMU, err, sizeof(err)), 0);
	CHECK_EQ(cfg.accel, VMM_ACCEL_TCG);
	CHECK_EQ(cfg.timeout, 120);
	CHECK_EQ(check("--backend host run=bench"), 0);
	CHECK_EQ(vmm_config_settle(&cfg, VMM_BACKEND_HOST, err, sizeof(err)), 0);
	CHECK_HAS(cfg.bootargs, "ptelab.clock=host ptelab.backend=host");
	CHECK_STR(vmm_clock_name(&cfg, VMM_BACKEND_KVM), "kvm");
}

/* The new options, in both spellings, and the version. */
TEST(new_options)
{
	CHECK_EQ(check("-h"), -9);
	CHECK(cfg.help);
	CHECK_EQ(check("--backend=host --csv=r.csv --quiet run=bench"), 0);
	CHECK_EQ(cfg.backend, VMM_BACKEND_HOST);
	CHECK_STR(cfg.csv, "r.csv");
	CHECK(cfg.quiet);
	CHECK_EQ(check("--csv r2.csv run=bench"), 0);
	CHECK_STR(cfg.csv, "r2.csv");
	CHECK(vmm_version[0] != 0);
	CHECK_HAS(vmm_usage_text, "-h, --help");
	CHECK_HAS(vmm_usage_text, "--version");
	/* -h prints the command rows (cmdline_print_cmds()) */
	CHECK_HAS(cmdline_cmds[CMDLINE_CMD_selftest].help, "selftest:list");
	CHECK_HAS(vmm_usage_text, "run=list");
	CHECK_HAS(vmm_usage_keys, "run=help");
	CHECK_HAS(vmm_usage_tail, "PTELAB_ALLOW_PVM");
}

/* Write @json through a fresh CSV writer twice, then @json2 (if any), into
 * @buf (the caller frees it). Return: the third call's status. */
static int csv_of(const char *json, const char *json2, char **buf)
{
	static struct vmm_csv csv;
	size_t len = 0, at;
	int r = 0;

	memset(&csv, 0, sizeof(csv));
	csv.f = open_memstream(buf, &len);
	CHECK(vmm_csv_row(&csv, json, strlen(json), &at) == NULL);
	CHECK(vmm_csv_row(&csv, json, strlen(json), &at) == NULL);
	if (json2)
		r = vmm_csv_row(&csv, json2, strlen(json2), &at) ? -1 : 0;
	fclose(csv.f);
	return r;
}

/* The columns are the first line's members in its order, nested ones as
 * object.member, whatever comes last; one header; null is empty. */
TEST(csv_columns_from_json)
{
	static const char json[] =
		"{\"bench\":\"zap\",\"arch\":\"x86_64\",\"clock\":\"icount\",\"folio\":\"64K\","
		"\"variant\":\"cap=4\",\"cap\":4,\"caps\":{\"zap\":4,\"gup_walk\":\"on\"},"
		"\"counters\":{\"ptl_takes\":32,\"ref_updates\":4130},\"median_us\":2281.4,"
		"\"none\":null}";
	char *buf = NULL;

	CHECK_EQ(csv_of(json, NULL, &buf), 0);
	CHECK_STR(buf, "\"bench\",\"arch\",\"clock\",\"folio\",\"variant\",\"cap\",\"caps.zap\","
		       "\"caps.gup_walk\",\"counters.ptl_takes\",\"counters.ref_updates\","
		       "\"median_us\",\"none\"\n"
		       "zap,x86_64,icount,64K,cap=4,4,4,on,32,4130,2281.4,\n"
		       "zap,x86_64,icount,64K,cap=4,4,4,on,32,4130,2281.4,\n");
	free(buf);
}

/* A later line fills the header's columns by name: reordered members
 * land in their columns, a missing one is empty, an extra one dropped;
 * a comma or quote in a string is CSV-quoted. */
TEST(csv_later_rows_by_name)
{
	char *buf = NULL;

	CHECK_EQ(csv_of("{\"a\":1,\"o\":{\"b\":2},\"c\":\"x\"}",
			"{\"c\":\"y,\\\"z\",\"extra\":5,\"a\":3}", &buf),
		 0);
	CHECK_STR(buf, "\"a\",\"o.b\",\"c\"\n1,2,x\n1,2,x\n3,,\"y,\\\"\"z\"\n");
	free(buf);
}

/* What is not one JSON object gets no row and no header. */
TEST(csv_refuses_non_objects)
{
	static const char *const bad[] = { "",		"[1]",	      "{\"a\":[1]}", "{\"a\":1",
					   "{\"a\" 1}", "{\"a\":1}x", "{a:1}",	     "{\"a\":}" };
	struct vmm_csv csv;
	char *buf = NULL;
	size_t len = 0, at;

	memset(&csv, 0, sizeof(csv));
	csv.f = open_memstream(&buf, &len);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(vmm_csv_row(&csv, bad[i], strlen(bad[i]), &at) != NULL);
	fclose(csv.f);
	CHECK_EQ(len, 0);
	CHECK_EQ(csv.ncols, 0);
	free(buf);
}

/* The rule itself: the memory, an eighth, 64M; on every node for
 * migration; rounded to 2M per node. */
TEST(bench_mem_rule)
{
	CHECK_EQ(cmdline_bench_mem(1024, 2, false), 1216ull << 20);
	CHECK_EQ(cmdline_bench_mem(1024, 3, false), 1218ull << 20);
	CHECK_EQ(cmdline_bench_mem(1024, 2, true), 2432ull << 20);
	CHECK_EQ(cmdline_bench_mem(2, 1, false), 66ull << 20);
	CHECK_EQ(cmdline_bench_mem(2, 8, true), 8 * (66ull << 20));
	CHECK(cmdline_bench_every_node("migrate"));
	CHECK(!cmdline_bench_every_node("zap"));
}

/* --mem-needed prints the rule's answer for the words and --nodes, whatever
 * --mem says; it needs a benchmark and size=. */
TEST(mem_needed)
{
	uint64_t need = 0;

	CHECK_EQ(args_parse_line("--mem-needed --mem 2M --nodes 3 run=bench:migrate size=64", &cfg,
				 err, sizeof(err)),
		 0);
	CHECK(cfg.mem_needed);
	CHECK_EQ(vmm_guest_mem_needed(&cfg, &need, err, sizeof(err)), 0);
	CHECK_EQ(need, 408ull << 20);
	CHECK_EQ(args_parse_line("--mem-needed run=hello", &cfg, err, sizeof(err)), 0);
	CHECK_EQ(vmm_guest_mem_needed(&cfg, &need, err, sizeof(err)), -1);
	CHECK_HAS(err, "give a benchmark (run=bench...) and its size=");
	CHECK_EQ(args_parse_line("--mem-needed run=bench folios=3K size=2", &cfg, err, sizeof(err)),
		 0);
	CHECK_EQ(vmm_guest_mem_needed(&cfg, &need, err, sizeof(err)), -1);
	CHECK_HAS(err, "'3K' is not a folio size");
}

TEST_SUITE(guestargs, good_words_pass, bad_words_refused, bench_size_against_mem,
	   key_for_another_command_refused, value_out_of_range_refused,
	   words_parsed_once_into_config, settle_clock_and_defaults, new_options, bench_mem_rule,
	   mem_needed, csv_columns_from_json, csv_later_rows_by_name, csv_refuses_non_objects)
