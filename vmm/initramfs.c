/*
 * initramfs.c - the cpio newc archive behind --initramfs.
 *
 * newc: per member a 110-byte header ("070701" and 13 fields of 8 hex
 * digits: ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
 * devminor, rdevmajor, rdevminor, namesize, check), the name with its
 * NUL, padding to 4, the body, padding to 4; "TRAILER!!!" last.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ptelab/abi.h"
#include "ptelab/newc.h"
#include "vmm_initramfs.h"

#define MAX_DEPTH 16

struct packer {
	uint8_t *buf;
	size_t len, cap;
	uint32_t ino;
	char *err;
	size_t errlen;
};

static int grow(struct packer *p, size_t more)
{
	size_t cap = p->cap ? p->cap : 1 << 16;
	uint8_t *b;

	if (p->len + more > PTELAB_INITRAMFS_MAX)
		return snprintf(p->err, p->errlen, "--initramfs: more than %u MiB",
				PTELAB_INITRAMFS_MAX >> 20),
		       -1;
	while (cap < p->len + more)
		cap *= 2;
	if (cap == p->cap)
		return 0;
	b = realloc(p->buf, cap);
	if (!b)
		return snprintf(p->err, p->errlen, "--initramfs: out of memory"), -1;
	memset(b + p->len, 0, cap - p->len);
	p->buf = b;
	p->cap = cap;
	return 0;
}

/* One member: header, @name, @size bytes of @body (NULL: zeroes). */
static int emit(struct packer *p, const char *name, uint32_t mode, const void *body, size_t size)
{
	size_t nlen = strlen(name) + 1, hdr_name = newc_pad4(NEWC_HDR + nlen);
	char hdr[NEWC_HDR + 1];

	if (grow(p, hdr_name + newc_pad4(size)))
		return -1;
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 p->ino++, mode, 0, 0, 1, 0, (unsigned)size, 0, 0, 0, 0, (unsigned)nlen, 0);
	memcpy(p->buf + p->len, hdr, NEWC_HDR);
	memcpy(p->buf + p->len + NEWC_HDR, name, nlen);
	p->len += hdr_name;
	if (size && body)
		memcpy(p->buf + p->len, body, size);
	p->len += newc_pad4(size);
	return 0;
}

static int read_file(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen)
{
	FILE *f;
	struct stat st;
	uint8_t *b = NULL;

	errno = 0;
	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st))
		goto err_open;
	if (st.st_size > (off_t)PTELAB_INITRAMFS_MAX) {
		snprintf(err, errlen, "--initramfs: %s: more than %u MiB", path,
			 PTELAB_INITRAMFS_MAX >> 20);
		goto err_close;
	}
	b = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!b || fread(b, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		goto err_open;
	fclose(f);
	*out = b;
	*len = (size_t)st.st_size;
	return 0;
err_open:
	snprintf(err, errlen, "--initramfs: %s: %s", path, strerror(errno ? errno : EIO));
err_close:
	free(b);
	if (f)
		fclose(f);
	return -1;
}

static int pack_dir(struct packer *p, const char *dir, const char *rel, int depth);

/* The member for @path (archive name @rel), and its children if a directory. */
static int pack_entry(struct packer *p, const char *path, const char *rel, int depth)
{
	struct stat st;
	uint8_t *body;
	size_t size;
	int r;

	if (stat(path, &st))
		return snprintf(p->err, p->errlen, "--initramfs: %s: %s", path, strerror(errno)),
		       -1;
	if (S_ISDIR(st.st_mode))
		return emit(p, rel, (uint32_t)st.st_mode, NULL, 0)
			       ? -1
			       : pack_dir(p, path, rel, depth + 1);
	if (!S_ISREG(st.st_mode))
		return snprintf(p->err, p->errlen, "--initramfs: %s: not a file or directory",
				path),
		       -1;
	if (read_file(path, &body, &size, p->err, p->errlen))
		return -1;
	r = emit(p, rel, (uint32_t)st.st_mode, body, size);
	free(body);
	return r;
}

static int pack_dir(struct packer *p, const char *dir, const char *rel, int depth)
{
	struct dirent **ents;
	int n, r = 0;

	if (depth > MAX_DEPTH)
		return snprintf(p->err, p->errlen, "--initramfs: %s: nested too deep", dir), -1;
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return snprintf(p->err, p->errlen, "--initramfs: %s: %s", dir, strerror(errno)), -1;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char path[4096], child[4096];

		if (!r && strcmp(name, ".") && strcmp(name, "..")) {
			r = -1;
			if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
			    snprintf(child, sizeof(child), "%s%s%s", rel, *rel ? "/" : "", name) >=
				    (int)sizeof(child))
				snprintf(p->err, p->errlen, "--initramfs: a path is too long");
			else
				r = pack_entry(p, path, child, depth);
		}
		free(ents[i]);
	}
	free(ents);
	return r;
}

int vmm_initramfs_check(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	size_t off = 0;

	while (off < len) {
		uint32_t v[13];
		size_t name_end;

		if (len - off < NEWC_HDR)
			return snprintf(err, errlen,
					"cpio archive cut short at byte %zu (truncated?)", off),
			       -1;
		if (memcmp(buf + off, "070701", 6))
			return snprintf(err, errlen,
					"not a cpio newc archive (bad header at byte %zu)", off),
			       -1;
		for (int i = 0; i < 13; i++)
			if (newc_hex8((const char *)buf + off + 6 + 8 * i, &v[i]))
				return snprintf(err, errlen,
						"cpio header at byte %zu: field %d not hex", off,
						i),
				       -1;
		name_end = off + NEWC_HDR + v[11];
		if (!v[11] || name_end > len || buf[name_end - 1])
			return snprintf(err, errlen, "cpio name at byte %zu runs past the end",
					off),
			       -1;
		if (!strcmp((const char *)buf + off + NEWC_HDR, "TRAILER!!!"))
			return 0;
		if (newc_pad4(name_end) > len || (size_t)v[6] > len - newc_pad4(name_end))
			return snprintf(err, errlen, "cpio member '%.40s' runs past the end",
					(const char *)buf + off + NEWC_HDR),
			       -1;
		off = newc_pad4(name_end) + newc_pad4(v[6]);
	}
	return snprintf(err, errlen, "cpio archive without its TRAILER!!! (truncated?)"), -1;
}

int vmm_initramfs_load(const char *path, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
	struct packer p = { .ino = 2, .err = err, .errlen = errlen };
	struct stat st;
	char why[200];

	if (stat(path, &st))
		return snprintf(err, errlen, "--initramfs: %s: %s", path, strerror(errno)), -1;
	if (!S_ISDIR(st.st_mode)) {
		if (read_file(path, buf, len, err, errlen))
			return -1;
		if (vmm_initramfs_check(*buf, *len, why, sizeof(why))) {
			snprintf(err, errlen, "--initramfs: %s: %s", path, why);
			free(*buf);
			return -1;
		}
		return 0;
	}
	if (pack_dir(&p, path, "", 0) || emit(&p, "TRAILER!!!", 0, NULL, 0)) {
		free(p.buf);
		return -1;
	}
	*buf = p.buf;
	*len = p.len;
	return 0;
}
