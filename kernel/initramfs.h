/*
 * initramfs.h - the read-only file table the user programs see, read from
 * the cpio "newc" archive the VMM loads beside the kernel.
 */
#ifndef KERNEL_INITRAMFS_H
#define KERNEL_INITRAMFS_H

#include <stddef.h>
#include <stdint.h>

#define IFILE_NAME_MAX 256

/* One archive member. @data points into the archive itself (no copy). */
struct ifile {
	char name[IFILE_NAME_MAX]; /* absolute, normalised: "/bin/hello", "/" */
	unsigned mode;		   /* S_IFREG or S_IFDIR | permissions, from the archive */
	const uint8_t *data;
	uint64_t size;
	uint64_t ino;
};

/*
 * initramfs_parse - read the newc archive(s) [@buf, @buf + @len) into a
 * fresh table (concatenated archives are read one after the other, as
 * Linux does; zero padding between them is skipped). The members keep
 * pointing into @buf, which must outlive the table.
 * Return: the number of members, or -1 with a one-line reason in @err
 * (bad magic, a field not hex, a name or body past the end).
 */
int initramfs_parse(const void *buf, size_t len, char *err, size_t errlen);

/* The member named @path ("/bin/hello", "bin/hello" and "./bin//hello"
 * are the same), or NULL. */
const struct ifile *initramfs_lookup(const char *path);

/* Number of members, and member @i (0 <= @i < count). */
int initramfs_count(void);
const struct ifile *initramfs_file(int i);

#endif
