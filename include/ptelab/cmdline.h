/*
 * ptelab/cmdline.h - the guest command line (/chosen/bootargs): its
 * grammar, which ptelab and the guest both build (cmdline/ implements it,
 * ptelab/cmdline_keys.h lists its keys), so that ptelab checks every word
 * with the guest's own rules before it boots. With ptelab/abi.h the only
 * header of the guest's side the VMM may include.
 *
 * Words are separated by spaces; each is key=value (or a bare key, whose
 * value is ""). The run= value is a comma-separated list of commands, each
 * NAME or NAME:ARG. Plain C, no guest or mm types: the host runner tests it.
 */
#ifndef PTELAB_CMDLINE_H
#define PTELAB_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ptelab/cmdline_cmds.h"
#include "ptelab/cmdline_keys.h"

#define CMDLINE_MAX_WORDS 32
#define CMDLINE_KEY_MAX 32
#define CMDLINE_VAL_MAX 256
#define CMDLINE_MAX_RUN 32
/* Room for every one-line reason the checks give (the longest names every
 * benchmark): the guest, the host backend and ptelab each hold one. */
#define CMDLINE_ERR_MAX 224

struct cmdline_word {
	char key[CMDLINE_KEY_MAX];
	char val[CMDLINE_VAL_MAX];
};

struct run_item {
	char name[CMDLINE_KEY_MAX];
	char arg[CMDLINE_VAL_MAX]; /* "" when the command has no :ARG */
	int has_arg;
};

struct cmdline {
	int nr_words;
	struct cmdline_word word[CMDLINE_MAX_WORDS];
	int nr_run;
	struct run_item run[CMDLINE_MAX_RUN];
};

/* cmdline_parse - split @args into words and the run list.
 * Return: 0, or -1 with a one-line reason in @err (malformed word, key or
 * value too long, repeated key, empty run item, too many words). */
int cmdline_parse(const char *args, struct cmdline *cl, char *err, size_t errlen);

/* Value of @key, or NULL when the command line does not set it. */
const char *cmdline_get(const struct cmdline *cl, const char *key);

/* Parse a decimal unsigned number that fits in an int; -1 if it is not one. */
int cmdline_uint(const char *s);

/* How a key's value reads (ptelab/cmdline_keys.h says each). */
enum cmdline_kind {
	CMDLINE_RUN,
	CMDLINE_NUM,
	CMDLINE_EVEN,
	CMDLINE_CAP,
	CMDLINE_BATCH,
	CMDLINE_CAPS,
	CMDLINE_SWITCH,
	CMDLINE_ONOFF,
	CMDLINE_CHOICE,
	CMDLINE_CHOICES,
	CMDLINE_FOLIOS,
	CMDLINE_TEXT
};

/* One id per row of CMDLINE_KEYS: CMDLINE_KEY_<id>, its index. */
enum cmdline_key_id {
#define CMDLINE_KEY_ID(id, ...) CMDLINE_KEY_##id,
	CMDLINE_KEYS(CMDLINE_KEY_ID)
#undef CMDLINE_KEY_ID
		NR_CMDLINE_KEYS
};

/* A row of CMDLINE_KEYS (its columns are described there). */
struct cmdline_key {
	const char *name;
	enum cmdline_kind kind;
	unsigned lo, hi;
	const char *what;
	const char *dflt; /* "" when the default is not one value */
	const char *takers, *arch, *help;
};

extern const struct cmdline_key cmdline_keys[NR_CMDLINE_KEYS];

/* The row of key @name; NULL when no row has it. */
const struct cmdline_key *cmdline_key_find(const char *name);

/*
 * The value of key @k in @cl, or the row's default when @cl does not give
 * it. @cl has passed cmdline_check(), so a value given is of the row's
 * kind. cmdline_value(): NULL when there is neither. cmdline_num() (NUM,
 * EVEN): 0 when there is neither. cmdline_on() (ONOFF, SWITCH): is it
 * "on"? cmdline_choice() (CHOICE): the index of the value in the row's
 * words, -1 when there is neither.
 */
const char *cmdline_value(const struct cmdline *cl, enum cmdline_key_id k);
unsigned cmdline_num(const struct cmdline *cl, enum cmdline_key_id k);
bool cmdline_on(const struct cmdline *cl, enum cmdline_key_id k);
int cmdline_choice(const struct cmdline *cl, enum cmdline_key_id k);

/*
 * cmdline_check - every word of @cl is a key of CMDLINE_KEYS with a value
 * of its row's kind, on a guest of @arch ("x86_64", "arm64",
 * "host-x86_64", ...) that the row allows, and read by a command of the
 * run= list (when there is one). Command names are the guest's to check
 * (run=list).
 * Return: 0, or -1 with a one-line reason in @err.
 */
int cmdline_check(const struct cmdline *cl, const char *arch, char *err, size_t errlen);

/* Does a command take an argument (run=NAME:ARG)? */
enum cmdline_arg { CMDLINE_ARG_NONE, CMDLINE_ARG_OPTIONAL, CMDLINE_ARG_REQUIRED };

/* What a command's argument may be (ptelab/cmdline_cmds.h says each). */
enum cmdline_arg_form {
	CMDLINE_FORM_TEXT,
	CMDLINE_FORM_NUM,
	CMDLINE_FORM_WORD,
	CMDLINE_FORM_PATH,
	CMDLINE_FORM_BENCH
};

/* One id per row of CMDLINE_CMDS: CMDLINE_CMD_<id>, its index. */
enum cmdline_cmd_id {
#define CMDLINE_CMD_ID(id, ...) CMDLINE_CMD_##id,
	CMDLINE_CMDS(CMDLINE_CMD_ID)
#undef CMDLINE_CMD_ID
		NR_CMDLINE_CMDS
};

/* A row of CMDLINE_CMDS (its columns are described there). */
struct cmdline_cmd {
	const char *name;
	enum cmdline_arg arg;
	enum cmdline_arg_form form;
	const char *words, *what;
	unsigned lo, hi;
	bool needs_machine;
	const char *help;
};

extern const struct cmdline_cmd cmdline_cmds[NR_CMDLINE_CMDS];

/* The row of command @name; NULL when no row has it. */
const struct cmdline_cmd *cmdline_cmd_find(const char *name);

/* One id per row of CMDLINE_BENCHES: CMDLINE_BENCH_<id>, its index. */
enum cmdline_bench_id {
#define CMDLINE_BENCH_ID(id, ...) CMDLINE_BENCH_##id,
	CMDLINE_BENCHES(CMDLINE_BENCH_ID)
#undef CMDLINE_BENCH_ID
		NR_CMDLINE_BENCHES
};

/* A row of CMDLINE_BENCHES (its columns are described there). */
struct cmdline_bench {
	const char *name, *group, *choice, *cap_key, *companions;
	bool smp, takes_active, every_node;
};

extern const struct cmdline_bench cmdline_benches[NR_CMDLINE_BENCHES];

/* The benchmark named @name, or the first of the group @name; NULL if
 * none. */
const struct cmdline_bench *cmdline_bench_find(const char *name);

/* Does run=bench[:@arg] (@arg NULL: run=bench) run @b under @cl? A bench
 * of a group runs by its own name, and by the group's (or with every
 * bench) when the group's list key (advice=) names its choice. */
bool cmdline_bench_selected(const struct cmdline *cl, const struct cmdline_bench *b,
			    const char *arg);

/* The first of @b's own knobs (its cap_key, batch=, its companions) that
 * @cl gives; NULL when it gives none or @b has no cap. */
const char *cmdline_bench_knob_given(const struct cmdline *cl, const struct cmdline_bench *b);

/*
 * cmdline_check_run - @cl's run= list against CMDLINE_CMDS: there is one,
 * each item names a command, with an argument when it needs one and none
 * when it takes none, of the form its row says; with @host_backend, none
 * needs a booted machine. A benchmark item also against CMDLINE_BENCHES
 * and the keys it reads (cpus=, active=, caps= and the knobs). ptelab
 * checks it before it boots, the guest again before it runs anything,
 * with the same words; what the machine must have is
 * cmdline_check_machine()'s.
 * Return: 0, or -1 with a one-line reason in @err.
 */
int cmdline_check_run(const struct cmdline *cl, bool host_backend, char *err, size_t errlen);

/* cmdline_value_check - @v as a value of the row @r.
 * Return: 0, or -1 with a one-line "NAME=VALUE: ..." reason in @err. */
int cmdline_value_check(const struct cmdline_key *r, const char *v, char *err, size_t errlen);

/* cmdline_onoff - "on" or "off", of key @key, into *@out.
 * Return: 0, or -1 with "KEY=VALUE: want on or off" in @err. */
int cmdline_onoff(const char *key, const char *v, bool *out, char *err, size_t errlen);

/* cmdline_cap_value - a cap ("max", or 1..CMDLINE_CAP_LIMIT) of key @key
 * into *@out. Return: 0, or -1 with "KEY=VALUE: ..." in @err. */
int cmdline_cap_value(const char *key, const char *v, unsigned *out, char *err, size_t errlen);

/*
 * cmdline_caps_list - parse caps=LIST into @out (at most @max distinct
 * values, CMDLINE_CAP_MAX for "max").
 * Return: the number of values, or -1 with a one-line reason in @err.
 */
int cmdline_caps_list(const char *list, unsigned *out, int max, char *err, size_t errlen);

/* The index of [s, s+len) among the comma-separated @words, or -1. */
int cmdline_word_index(const char *words, const char *s, size_t len);

/* A folio size a benchmark runs (folios=), by its label. */
struct folio_size {
	const char *label; /* "4K" ... "2M-pte", "2M-pmd" */
	unsigned order;
	bool pmd; /* mapped by a PMD leaf */
};

extern const struct folio_size folio_sizes[];
extern const int nr_folio_sizes;

/* The folio size labelled @label (exact, case-sensitive); NULL if none. */
const struct folio_size *folio_size_find(const char *label, size_t len);

/* The labels of every folio size, ", "-separated, in @buf of @size.
 * Return: the length the whole text has (snprintf's). */
int folio_sizes_text(char *buf, size_t size);

/*
 * folios_check - every label of the comma-separated @list is a folio size.
 * Return: 0, or -1 with a one-line reason naming the first bad label.
 */
int folios_check(const char *list, char *err, size_t errlen);

/*
 * cmdline_bench_mem - the least guest RAM, in bytes, a benchmark of
 * @size_mb MiB (size=) needs on @nodes nodes: the memory, an eighth more
 * (page tables, a fork's second set of them, the harness's page array) and
 * 64 MiB for the kernel, its heap and the memmap; when @every_node, every
 * node holds all of that, since --mem splits evenly and bench:migrate moves
 * the whole set from node 0 to node 1. Rounded up to what --mem accepts (a
 * multiple of 2 MiB per node). The one rule: ptelab checks size= with it
 * (and prints it for --mem-needed), the guest picks its default size by it.
 */
uint64_t cmdline_bench_mem(unsigned size_mb, unsigned nodes, bool every_node);

/* Does benchmark @name (a row with every_node: bench:migrate and
 * bench:move_pages move the whole set to another node) need room for
 * size= on every node? */
bool cmdline_bench_every_node(const char *name);

/* Do the benchmarks that @cl's run= list runs need room on every node
 * (run=bench runs them all)? */
bool cmdline_run_every_node(const struct cmdline *cl);

/* Does @cl's run= list run a benchmark? */
bool cmdline_runs_bench(const struct cmdline *cl);

/*
 * cmdline_check_machine - what @cl asks of the machine against the one it
 * gets: @nodes NUMA nodes and @cpus CPUs. cpus=K needs K CPUs, active=N
 * N + 1, run=stress:mm 2 (its cpus=, by default all of them); two nodes
 * for run=numa_maps, run=ptdump:migrate and the benchmarks that move
 * memory between nodes (every_node rows, and run=bench, which runs them).
 * ptelab checks it before it boots (from --nodes and --cpus) and the
 * guest again from its device tree, with the same words.
 * Return: 0, or -1 with a one-line reason naming the ptelab option in
 * @err.
 */
int cmdline_check_machine(const struct cmdline *cl, unsigned nodes, unsigned cpus, char *err,
			  size_t errlen);

/* Print every command, one line each: its name and its help. The guest's
 * run=list and ptelab -h both print it. */
void cmdline_print_cmds(FILE *out);

/* Print the names of every benchmark, wrapped under a heading (ptelab
 * -h). */
void cmdline_print_benches(FILE *out);

/* Print every key the user may give (all but ptelab's own), one line
 * each: its name, the commands that read it, what it does, its range and
 * its default. ptelab -h and the guest's run=help both print it. */
void cmdline_print_keys(FILE *out);

#endif
