/*
 * test_exec.c - the pure halves of exec (kernel/exec_stack.c) and of the
 * initramfs (kernel/initramfs.c): the initial stack's layout word by word
 * as glibc's startup reads it, and the newc reader on archives built here
 * (good, cut short, bad magic, two concatenated).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "initramfs.h"
#include "test.h"

#define ST_TOP 0x7ffffffff000ul
#define ST_SIZE 4096

static unsigned long word_at(const uint8_t *buf, unsigned long addr)
{
	unsigned long v;

	memcpy(&v, buf + (addr - (ST_TOP - ST_SIZE)), sizeof(v));
	return v;
}

static const char *str_at(const uint8_t *buf, unsigned long addr)
{
	return (const char *)buf + (addr - (ST_TOP - ST_SIZE));
}

/* Find auxv entry @type in the vector at @at; 0 if absent. */
static unsigned long aux_get(const uint8_t *buf, unsigned long at, unsigned long type)
{
	for (;; at += 16) {
		unsigned long t = word_at(buf, at);

		if (t == type)
			return word_at(buf, at + 8);
		if (t == AT_NULL)
			return 0;
	}
}

/* argc, argv[], NULL, envp[], NULL, auxv ending in AT_NULL, at a 16-byte
 * aligned sp; every pointer lands on its string; AT_RANDOM on 16 bytes. */
TEST(stack_layout)
{
	static uint8_t buf[ST_SIZE];
	char *argv[] = { "/bin/prog", "arg one", NULL }, *envp[] = { "HOME=/", NULL };
	uint8_t rnd[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct exec_stack_args a = { .argc = 2,
				     .envc = 1,
				     .argv = argv,
				     .envp = envp,
				     .execfn = "/bin/prog",
				     .platform = "x86_64",
				     .random = rnd,
				     .nr_auxv = 2,
				     .auxv = { { AT_PAGESZ, 4096 }, { AT_ENTRY, 0x401000 } } };
	long sp = exec_stack_build(buf, sizeof(buf), ST_TOP, &a);
	unsigned long at, r;

	CHECK(sp > 0 && (sp & 15) == 0);
	CHECK(sp >= (long)(ST_TOP - ST_SIZE) && sp < (long)ST_TOP);
	if (sp <= 0)
		return;
	at = (unsigned long)sp;
	CHECK_EQ(word_at(buf, at), 2);
	CHECK(!strcmp(str_at(buf, word_at(buf, at + 8)), "/bin/prog"));
	CHECK(!strcmp(str_at(buf, word_at(buf, at + 16)), "arg one"));
	CHECK_EQ(word_at(buf, at + 24), 0);
	CHECK(!strcmp(str_at(buf, word_at(buf, at + 32)), "HOME=/"));
	CHECK_EQ(word_at(buf, at + 40), 0);
	at += 48;
	CHECK_EQ(aux_get(buf, at, AT_PAGESZ), 4096);
	CHECK_EQ(aux_get(buf, at, AT_ENTRY), 0x401000);
	r = aux_get(buf, at, AT_RANDOM);
	CHECK(r && !memcmp(str_at(buf, r), rnd, 16));
	CHECK(!strcmp(str_at(buf, aux_get(buf, at, AT_EXECFN)), "/bin/prog"));
	CHECK(!strcmp(str_at(buf, aux_get(buf, at, AT_PLATFORM)), "x86_64"));
}

/* Arguments that do not fit are refused, not written past the buffer. */
TEST(stack_too_small)
{
	static uint8_t buf[64];
	char *argv[] = { "/a/rather/long/program/name/that/does/not/fit", NULL };
	uint8_t rnd[16] = { 0 };
	struct exec_stack_args a = { .argc = 1, .argv = argv, .execfn = argv[0], .random = rnd };

	CHECK_EQ(exec_stack_build(buf, sizeof(buf), ST_TOP, &a), -E2BIG);
}

/* Append one newc member to @buf at *@len. */
static void newc_add(uint8_t *buf, size_t *len, const char *name, unsigned mode, const char *body)
{
	size_t nlen = strlen(name) + 1, blen = strlen(body);
	char hdr[111];

	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", 7u,
		 mode, 0u, 0u, 1u, 0u, (unsigned)blen, 0u, 0u, 0u, 0u, (unsigned)nlen, 0u);
	memcpy(buf + *len, hdr, 110);
	memcpy(buf + *len + 110, name, nlen);
	*len = (*len + 110 + nlen + 3) & ~(size_t)3;
	memcpy(buf + *len, body, blen);
	*len = (*len + blen + 3) & ~(size_t)3;
}

static size_t newc_sample(uint8_t *buf, const char *body)
{
	size_t len = 0;

	memset(buf, 0, 1024);
	newc_add(buf, &len, "bin", 040755, "");
	newc_add(buf, &len, "bin/prog", 0100755, body);
	newc_add(buf, &len, "TRAILER!!!", 0, "");
	return len;
}

/* Members, names in every spelling, bodies pointing into the archive. */
TEST(initramfs_members)
{
	static uint8_t buf[1024];
	size_t len = newc_sample(buf, "hello");
	char err[120];
	const struct ifile *f;

	CHECK_EQ(initramfs_parse(buf, len, err, sizeof(err)), 2);
	f = initramfs_lookup("/bin/prog");
	CHECK(f && f->size == 5 && !memcmp(f->data, "hello", 5) && (f->mode & 0170000) == 0100000);
	CHECK(initramfs_lookup("bin/prog") == f && initramfs_lookup("./bin//prog") == f);
	CHECK(initramfs_lookup("/bin") && (initramfs_lookup("/bin")->mode & 0170000) == 040000);
	CHECK(initramfs_lookup("/bin/none") == NULL);
}

/* A body cut short, or a header that is not newc, is refused with a reason. */
TEST(initramfs_refuses_bad_archives)
{
	static uint8_t buf[1024];
	size_t len = newc_sample(buf, "hello");
	char err[120];

	CHECK_EQ(initramfs_parse(buf, 240, err, sizeof(err)), -1);
	CHECK(strstr(err, "past the end") != NULL);
	buf[0] = 'X';
	CHECK_EQ(initramfs_parse(buf, len, err, sizeof(err)), -1);
	CHECK(strstr(err, "not a cpio newc header") != NULL);
}

/* Two archives back to back with zero padding between: both are read, and
 * the later member of a name wins (as Linux's unpacker overwrites). */
TEST(initramfs_concatenated)
{
	static uint8_t buf[2048];
	size_t len = newc_sample(buf, "first");
	char err[120];
	const struct ifile *f;

	len += 12; /* padding */
	len += newc_sample(buf + len, "second");
	CHECK_EQ(initramfs_parse(buf, len, err, sizeof(err)), 4);
	f = initramfs_lookup("/bin/prog");
	CHECK(f && f->size == 6 && !memcmp(f->data, "second", 6));
}

TEST_SUITE(exec, stack_layout, stack_too_small, initramfs_members, initramfs_refuses_bad_archives,
	   initramfs_concatenated);
