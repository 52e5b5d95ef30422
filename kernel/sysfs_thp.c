/*
 * sysfs_thp.c - /sys/kernel/mm/transparent_hugepage/, as Linux's
 * mm/huge_memory.c lays it out, for the programs that read and set it
 * (Linux's selftests save, change and restore it through thp_settings.c):
 *
 *   enabled                      always / madvise / never: the top-level
 *                                mode (mm/thp_policy.h: it decides the
 *                                folio orders of user faults)
 *   hugepages-<N>kB/enabled      always / inherit / madvise / never, per
 *                                order from 16 kB to 2048 kB
 *   hpage_pmd_size               2097152 (read-only)
 *   use_zero_page                0: there is no zero page (1 is -EINVAL)
 *   defrag, shmem_enabled,       kept and shown as written; nothing in
 *   khugepaged/<knob>            ptelab uses them (no compaction, shmem
 *                                or khugepaged)
 *
 * A write takes one word (a trailing newline allowed, as sysfs_streq) or
 * a decimal number; anything else is -EINVAL and changes nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "page.h"
#include "process.h"
#include "procfs.h"
#include "thp_policy.h"

#define THP "sys/kernel/mm/transparent_hugepage/"
#define WORD_MAX 32

enum sysfs_thp_file { F_MODE, F_PMD_SIZE, F_ZERO_PAGE, F_CHOICE, F_NUMBER };

/* A file of words, the current one shown in brackets. */
struct choice {
	const char *words[7];
	int cur;
};

static struct choice defrag = { { "always", "defer", "defer+madvise", "madvise", "never" }, 3 };
static struct choice shmem = { { "always", "within_size", "advise", "never", "deny", "force" }, 3 };

/* khugepaged's knobs in the order of files[] below, Linux's defaults. */
static unsigned long khuge[] = { 1, 60000, 10000, 511, 64, 256, 4096 };

static int file_text(struct process *p, const struct proc_entry *e, struct proc_text *t);
static long file_write(struct process *p, const struct proc_entry *e, unsigned long buf, size_t len,
		       uint64_t pos);

/* arg: the file's kind << 8 | its index (an order, a knob, a choice). */
#define FILE_ARG(kind, i) ((kind) << 8 | (i))
#define RO(name, kind, i)                                                                          \
	{                                                                                          \
		THP name, .text = file_text, .arg = FILE_ARG(kind, i)                              \
	}
#define RW(name, kind, i)                                                                          \
	{                                                                                          \
		THP name, .text = file_text, .write = file_write, .arg = FILE_ARG(kind, i)         \
	}
#define ORDER(kb, o) RW("hugepages-" #kb "kB/enabled", F_MODE, o)

static const struct proc_entry files[] = {
	RW("enabled", F_MODE, 0),
	RO("hpage_pmd_size", F_PMD_SIZE, 0),
	RW("use_zero_page", F_ZERO_PAGE, 0),
	RW("defrag", F_CHOICE, 0),
	RW("shmem_enabled", F_CHOICE, 1),
	ORDER(16, 2),
	ORDER(32, 3),
	ORDER(64, 4),
	ORDER(128, 5),
	ORDER(256, 6),
	ORDER(512, 7),
	ORDER(1024, 8),
	ORDER(2048, 9),
	RW("khugepaged/defrag", F_NUMBER, 0),
	RW("khugepaged/alloc_sleep_millisecs", F_NUMBER, 1),
	RW("khugepaged/scan_sleep_millisecs", F_NUMBER, 2),
	RW("khugepaged/max_ptes_none", F_NUMBER, 3),
	RW("khugepaged/max_ptes_swap", F_NUMBER, 4),
	RW("khugepaged/max_ptes_shared", F_NUMBER, 5),
	RW("khugepaged/pages_to_scan", F_NUMBER, 6),
};
_Static_assert(PAGE_SIZE == 4096 && PMD_ORDER == 9, "the hugepages-<N>kB names assume 4 KiB pages");

static struct choice *choice_of(int i)
{
	return i ? &shmem : &defrag;
}

/* The mode words as a file shows them: the top level has no "inherit". */
static const char *const mode_words[] = { "always", "inherit", "madvise", "never" };
static const enum thp_mode mode_of_word[] = { THP_ALWAYS, THP_INHERIT, THP_MADVISE, THP_NEVER };

static void mode_text(unsigned order, struct proc_text *t)
{
	enum thp_mode cur = thp_get_mode(order);

	for (int w = 0; w < 4; w++) {
		if (!order && mode_of_word[w] == THP_INHERIT)
			continue;
		proc_printf(t, mode_of_word[w] == cur ? "[%s]%s" : "%s%s", mode_words[w],
			    w == 3 ? "\n" : " ");
	}
}

static void choice_text(const struct choice *c, struct proc_text *t)
{
	for (int w = 0; c->words[w]; w++)
		proc_printf(t, w == c->cur ? "%s[%s]" : "%s%s", w ? " " : "", c->words[w]);
	proc_printf(t, "\n");
}

static int file_text(struct process *p, const struct proc_entry *e, struct proc_text *t)
{
	int i = e->arg & 0xff;

	(void)p;
	switch (e->arg >> 8) {
	case F_MODE:
		mode_text((unsigned)i, t);
		break;
	case F_PMD_SIZE:
		proc_printf(t, "%lu\n", (unsigned long)PAGE_SIZE << PMD_ORDER);
		break;
	case F_ZERO_PAGE:
		proc_printf(t, "0\n");
		break;
	case F_CHOICE:
		choice_text(choice_of(i), t);
		break;
	default:
		proc_printf(t, "%lu\n", khuge[i]);
	}
	return 0;
}

/* The index of @word in @words (NULL-ended), or -1. */
static int word_index(const char *const *words, const char *word)
{
	for (int w = 0; words[w]; w++)
		if (!strcmp(words[w], word))
			return w;
	return -1;
}

static long store(const struct proc_entry *e, const char *word)
{
	static const char *const modes[] = { "always", "inherit", "madvise", "never", NULL };
	int i = e->arg & 0xff, w;
	char *end;
	unsigned long v;

	switch (e->arg >> 8) {
	case F_ZERO_PAGE:
		return strcmp(word, "0") ? -EINVAL : 0;
	case F_MODE:
		w = word_index(modes, word);
		return w < 0 ? -EINVAL : thp_set_mode((unsigned)i, mode_of_word[w]);
	case F_CHOICE:
		w = word_index(choice_of(i)->words, word);
		if (w < 0)
			return -EINVAL;
		choice_of(i)->cur = w;
		return 0;
	default:
		v = strtoul(word, &end, 10);
		if (!*word || *end || word[0] == '-')
			return -EINVAL;
		khuge[i] = v;
		return 0;
	}
}

static long file_write(struct process *p, const struct proc_entry *e, unsigned long buf, size_t len,
		       uint64_t pos)
{
	char word[WORD_MAX];
	long err;

	(void)p;
	if (pos)
		return -EINVAL;
	if (!len || len >= sizeof(word))
		return -EINVAL;
	if (copy_from_user(word, buf, len))
		return -EFAULT;
	word[len] = 0;
	if (word[len - 1] == '\n')
		word[len - 1] = 0;
	err = store(e, word);
	return err ? err : (long)len;
}

const struct sys_table sysfs_thp_table = { files, sizeof(files) / sizeof(files[0]) };
