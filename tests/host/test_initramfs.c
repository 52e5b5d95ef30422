/*
 * test_initramfs.c - --initramfs (vmm/initramfs.c): a directory packed
 * into newc that the checker accepts, with its files' names and bytes;
 * ready archives refused when cut short, not newc, or without a trailer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "vmm_initramfs.h"

static char dir[64], err[512];

static void make_tree(void)
{
	char p[128];
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/ptelab-ifs.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/bin", dir);
	CHECK_EQ(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/bin/prog", dir);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("program bytes", f);
		fclose(f);
	}
}

static void remove_tree(void)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/bin/prog", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/bin", dir);
	rmdir(p);
	rmdir(dir);
}

static int find(const uint8_t *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(buf + i, s, n))
			return 1;
	return 0;
}

/* A directory becomes a checked archive holding its names and bytes. */
TEST(pack_directory)
{
	uint8_t *buf = NULL;
	size_t len = 0;

	make_tree();
	CHECK_EQ(vmm_initramfs_load(dir, &buf, &len, err, sizeof(err)), 0);
	CHECK(len % 4 == 0 && !memcmp(buf, "070701", 6));
	CHECK(find(buf, len, "bin/prog") && find(buf, len, "program bytes"));
	CHECK(find(buf, len, "TRAILER!!!"));
	CHECK_EQ(vmm_initramfs_check(buf, len, err, sizeof(err)), 0);
	/* every shorter prefix is refused */
	for (size_t cut = 0; buf && cut < len - 124; cut += 4)
		if (vmm_initramfs_check(buf, cut, err, sizeof(err)) == 0) {
			CHECK(!"a cut archive passed");
			break;
		}
	CHECK(strstr(err, "cut short") || strstr(err, "past the end") || strstr(err, "TRAILER"));
	free(buf);
	remove_tree();
}

/* Not newc, or a missing path: refused with the reason. */
TEST(refuses_bad_input)
{
	static const uint8_t junk[200] = "\177ELF";

	CHECK_EQ(vmm_initramfs_check(junk, sizeof(junk), err, sizeof(err)), -1);
	CHECK(strstr(err, "not a cpio newc archive") != NULL);
	CHECK_EQ(vmm_initramfs_check(junk, 0, err, sizeof(err)), -1);
	CHECK(strstr(err, "TRAILER") != NULL);
	{
		uint8_t *buf;
		size_t len;

		CHECK_EQ(vmm_initramfs_load("/nonexistent/ptelab", &buf, &len, err, sizeof(err)),
			 -1);
		CHECK(strstr(err, "No such file") != NULL);
	}
}

TEST_SUITE(initramfs, pack_directory, refuses_bad_input);
