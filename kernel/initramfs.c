/*
 * initramfs.c - the cpio "newc" reader behind the user programs' files.
 *
 * A newc member is a 110-byte header of ASCII hex fields ("070701", ino,
 * mode, uid, gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor,
 * rdevminor, namesize, check), the name (namesize bytes with its NUL),
 * padding to 4 bytes, the body, padding to 4 bytes. "TRAILER!!!" ends an
 * archive. Everything is bounds-checked against the buffer: the archive
 * comes from the user of the VMM.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "initramfs.h"
#include "ptelab/newc.h"

#define NEWC_FIELDS 13 /* after the magic */
enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_SIZE, F_NAMESIZE = 11 };

static struct ifile *files;
static int nr_files;

/* Write @path in normal form ("/a/b": one leading slash, no "." parts, no
 * doubled or trailing slashes) into @out. Return: 0, or -1 when too long. */
static int normalise(const char *path, char *out, size_t size)
{
	size_t o = 0;

	while (*path) {
		size_t n;

		while (*path == '/')
			path++;
		n = strcspn(path, "/");
		if (n && !(n == 1 && path[0] == '.')) {
			if (o + 1 + n >= size)
				return -1;
			out[o++] = '/';
			memcpy(out + o, path, n);
			o += n;
		}
		path += n;
	}
	if (!o)
		out[o++] = '/';
	out[o] = 0;
	return 0;
}

static int add_file(const char *name, uint32_t mode, const uint8_t *data, uint32_t size,
		    uint32_t ino)
{
	struct ifile *f, *grown = realloc(files, (size_t)(nr_files + 1) * sizeof(*files));

	if (!grown)
		return -1;
	files = grown;
	f = &files[nr_files];
	if (normalise(name, f->name, sizeof(f->name)))
		return -1;
	f->mode = mode;
	f->data = data;
	f->size = size;
	f->ino = ino ? ino : (uint64_t)nr_files + 2;
	nr_files++;
	return 0;
}

/* One member at @p (at most @left bytes). Return: bytes it takes, 0 at the
 * trailer, -1 with @err set. */
static long parse_member(const uint8_t *p, size_t left, char *err, size_t errlen)
{
	uint32_t v[NEWC_FIELDS];
	size_t name_end, body_end;
	const char *name = (const char *)p + NEWC_HDR;

	if (left < NEWC_HDR)
		return snprintf(err, errlen, "cpio header cut short (%zu bytes left)", left), -1;
	if (memcmp(p, "070701", 6))
		return snprintf(err, errlen, "not a cpio newc header (magic '%.6s')", p), -1;
	for (int i = 0; i < NEWC_FIELDS; i++)
		if (newc_hex8((const char *)p + 6 + 8 * i, &v[i]))
			return snprintf(err, errlen, "cpio header field %d is not hex", i), -1;
	name_end = newc_pad4(NEWC_HDR + v[F_NAMESIZE]);
	body_end = name_end + newc_pad4(v[F_SIZE]);
	if (!v[F_NAMESIZE] || NEWC_HDR + (size_t)v[F_NAMESIZE] > left || name[v[F_NAMESIZE] - 1])
		return snprintf(err, errlen, "cpio name past the end of the archive"), -1;
	if (!strcmp(name, "TRAILER!!!"))
		return 0;
	/* The body starts after the name's padding. */
	if (name_end > left || v[F_SIZE] > left - name_end)
		return snprintf(err, errlen, "cpio member '%.40s' past the end of the archive",
				name),
		       -1;
	if (add_file(name, v[F_MODE], p + name_end, v[F_SIZE], v[F_INO]))
		return snprintf(err, errlen, "cpio member '%.40s': no memory or name too long",
				name),
		       -1;
	return (long)(body_end < left ? body_end : left);
}

int initramfs_parse(const void *buf, size_t len, char *err, size_t errlen)
{
	const uint8_t *p = buf;
	size_t off = 0;

	free(files);
	files = NULL;
	nr_files = 0;
	while (off < len) {
		long n;

		if (p[off] == 0) { /* padding between concatenated archives */
			off++;
			continue;
		}
		n = parse_member(p + off, len - off, err, errlen);
		if (n < 0)
			return -1;
		/* The trailer's own size: header and name, padded. */
		off += n ? (size_t)n : newc_pad4(NEWC_HDR + sizeof("TRAILER!!!"));
	}
	return nr_files;
}

const struct ifile *initramfs_lookup(const char *path)
{
	char norm[IFILE_NAME_MAX];

	if (normalise(path, norm, sizeof(norm)))
		return NULL;
	for (int i = nr_files - 1; i >= 0; i--) /* a later archive wins */
		if (!strcmp(files[i].name, norm))
			return &files[i];
	return NULL;
}

int initramfs_count(void)
{
	return nr_files;
}

const struct ifile *initramfs_file(int i)
{
	return &files[i];
}
