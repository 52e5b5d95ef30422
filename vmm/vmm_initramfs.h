/*
 * vmm_initramfs.h - --initramfs: a directory packed into a cpio newc
 * archive, or a ready archive read and checked, before anything boots.
 */
#ifndef VMM_INITRAMFS_H
#define VMM_INITRAMFS_H

#include <stddef.h>
#include <stdint.h>

/*
 * vmm_initramfs_load - the archive @path names, in a malloc'd buffer.
 * A directory is packed (its regular files and directories, symbolic
 * links followed, names sorted, owner root, times 0); a file must be a
 * well-formed newc archive ending in its trailer (every header hex, every
 * name and body inside the file). At most PTELAB_INITRAMFS_MAX bytes.
 * Return: 0 with *@buf and *@len set, or -1 with a one-line reason in @err.
 */
int vmm_initramfs_load(const char *path, uint8_t **buf, size_t *len, char *err, size_t errlen);

/* Check the newc archive [@buf, @buf + @len). Return: 0, or -1 with @err. */
int vmm_initramfs_check(const uint8_t *buf, size_t len, char *err, size_t errlen);

#endif
