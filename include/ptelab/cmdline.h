/*
 * ptelab/cmdline.h - the guest command line (/chosen/bootargs): its
 * grammar, published by the guest (guest/cmdline/ implements it) so that
 * ptelab checks every word with the guest's own rules before it boots.
 * With ptelab/abi.h the only guest header the VMM may include.
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

#define CMDLINE_MAX_WORDS 32
#define CMDLINE_KEY_MAX 32
#define CMDLINE_VAL_MAX 256
#define CMDLINE_MAX_RUN 32

struct cmdline_word {
	char key[CMDLINE_KEY_MAX];
	char val[CMDLINE_VAL_MAX];
};

struct run_item {
	char name[CMDLINE_KEY_MAX];
	char arg[CMDLINE_KEY_MAX]; /* "" when the command has no :ARG */
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

/* cmdline_check_keys - every key must be in the NULL-terminated @known.
 * Return: 0, or -1 naming the first unknown key in @err. */
int cmdline_check_keys(const struct cmdline *cl, const char *const *known, char *err,
		       size_t errlen);

/* Parse a decimal unsigned number that fits in an int; -1 if it is not one. */
int cmdline_uint(const char *s);

/*
 * cmdline_check - every word of @cl is a known key with a value of the
 * right form for a guest of @arch ("x86_64", "arm64", "host-x86_64", ...):
 * numbers in range, known folio sizes, caps, on/off, choices; contpte= on
 * arm64 only. Command names are the guest's to check (run=list).
 * Return: 0, or -1 with a one-line reason in @err.
 */
int cmdline_check(const struct cmdline *cl, const char *arch, char *err, size_t errlen);

/*
 * A cap value: "max" (CMDLINE_CAP_MAX, which is mm's CAP_MAX) or a number
 * 1..CMDLINE_CAP_LIMIT. cmdline_cap_value() parses one into *@out.
 * Return: 0, or -1 with "KEY=VALUE: ..." in @err.
 */
#define CMDLINE_CAP_MAX 0xffffffffu
#define CMDLINE_CAP_LIMIT 1048576u
int cmdline_cap_value(const char *key, const char *v, unsigned *out, char *err, size_t errlen);

/* At most this many values in caps= (a benchmark's variants). */
#define CMDLINE_CAPS_MAX 16

/*
 * cmdline_caps_list - parse caps=LIST into @out (at most @max distinct
 * values, CMDLINE_CAP_MAX for "max").
 * Return: the number of values, or -1 with a one-line reason in @err.
 */
int cmdline_caps_list(const char *list, unsigned *out, int max, char *err, size_t errlen);

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

/*
 * folios_check - every label of the comma-separated @list is a folio size.
 * Return: 0, or -1 with a one-line reason naming the first bad label.
 */
int folios_check(const char *list, char *err, size_t errlen);

/*
 * The batching caps, one X(key, help) each: the command-line key, which is
 * also the field of struct batch_caps (mm/knobs.h), and its line of help.
 * The one list of them: the checker and the help text (cmdline_check.c),
 * the knob parser and the RESULT "caps" object (knobs.c) expand it.
 */
#define CMDLINE_CAP_KEYS(X)                                                                        \
	X(zap, "cap of the batched zap (munmap, exit): N or max")                                  \
	X(mprotect, "cap of the batched mprotect: N or max")                                       \
	X(mremap, "PTEs of one folio mremap moves as one run: N or max")                           \
	X(fork, "cap of fork's batched PTE copy: N or max")                                        \
	X(gup_grab, "cap of GUP's batched folio grab: N or max")                                   \
	X(migrate, "cap of migration's queueing (a folio's PTEs skipped as one run): N or max")    \
	X(migrate_unmap, "PTEs migration unmaps and remaps as one run: N or max")                  \
	X(migrate_flush, "folios sharing one migration TLB flush (1: none deferred): N or max")    \
	X(madvise, "MADV_FREE entries cleared of young and dirty as one run: N or max")            \
	X(numa_hint, "PTEs of one folio NUMA hinting marks or restores as one run: N or max")

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

/* Does benchmark @name ("migrate", "move_pages": they move the whole set
 * to another node) need room for size= on every node? */
bool cmdline_bench_every_node(const char *name);

/* Do the benchmarks that @cl's run= list runs need room on every node
 * (run=bench runs them all)? */
bool cmdline_run_every_node(const struct cmdline *cl);

/*
 * cmdline_check_machine - what @cl asks of the machine against the one it
 * gets: @nodes NUMA nodes and @cpus CPUs. cpus=K needs K CPUs, active=N
 * N + 1, run=numa_maps two nodes. ptelab checks it before it boots (from
 * --nodes and --cpus) and the guest again from its device tree, with the
 * same words. Return: 0, or -1 with a one-line reason naming the ptelab
 * option in @err.
 */
int cmdline_check_machine(const struct cmdline *cl, unsigned nodes, unsigned cpus, char *err,
			  size_t errlen);

/* cpus= of the benchmarks that run on several CPUs: at most this (the
 * guest's NR_CPUS; ptelab --cpus has the same limit). */
#define CMDLINE_CPUS_MAX 8

/* The gup_op= choices, comma-separated (bench_gup.c's order), and the
 * one taken when the key is absent. */
#define CMDLINE_GUP_OPS "get,pin,longterm,get-fast,pin-fast"
#define CMDLINE_GUP_OP_DEFAULT "longterm"
/* The gup_keep= choices (what bench gup keeps of its pins) and default. */
#define CMDLINE_GUP_KEEPS "pages,ranges"
#define CMDLINE_GUP_KEEP_DEFAULT "pages"

/* The advice= choices of bench madvise (a comma-separated list of them)
 * and the list taken when the key is absent. */
#define CMDLINE_MADV_ADVICES "free,dontneed,populate"
#define CMDLINE_MADV_ADVICE_DEFAULT "free"

/* Print every key the user may give, one line each, to @out. */
void cmdline_print_keys(FILE *out);

#endif
