/*
 * newc.h - the cpio "newc" format the initramfs travels in, as both
 * sides read it: ptelab packs and checks an archive (vmm/initramfs.c),
 * the guest parses it (kernel/initramfs.c). A header is "070701" and
 * thirteen 8-digit hex fields; the name follows it and the body follows
 * the name, each padded to 4 bytes.
 */
#ifndef PTELAB_NEWC_H
#define PTELAB_NEWC_H

#include <stddef.h>
#include <stdint.h>

#define NEWC_HDR 110 /* bytes of a header: magic and 13 fields */

/* Parse the 8 hex digits at @s into *@out. Return: 0, or -1 on a non-digit. */
static inline int newc_hex8(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 8; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	*out = v;
	return 0;
}

/* @n rounded up to the format's 4-byte alignment. */
static inline size_t newc_pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

#endif
