/*
 * vmm_elf.h - the guest ELF image: a pure validator over untrusted bytes,
 * and a loader that copies the validated segments into guest RAM.
 */
#ifndef VMM_ELF_H
#define VMM_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "vmm_guestmem.h"
#include "vmm_layout.h"

#define VMM_ELF_MAX_LOADS 16
#define VMM_ELF_MAX_SIZE (256ULL << 20) /* larger files are refused unread */

/* What the image must fit. */
struct vmm_elf_limits {
	enum vmm_arch arch;	     /* selects e_machine and the entry rule */
	const struct vmm_range *ram; /* contiguous RAM runs */
	int nr_ram;
	uint64_t min_paddr; /* nothing may load below (boot structures, DTB) */
};

struct vmm_elf_load {
	uint64_t offset, filesz; /* in the file */
	uint64_t paddr, memsz;	 /* in guest RAM */
	uint64_t vaddr;
	uint32_t flags; /* PF_X, PF_W, PF_R */
};

struct vmm_elf_image {
	uint64_t entry; /* physical: the PVH entry on x86_64, e_entry on arm64 */
	int nr_loads;
	struct vmm_elf_load load[VMM_ELF_MAX_LOADS]; /* PT_LOAD with p_memsz > 0 */
};

/*
 * vmm_elf_check - validate @len bytes at @buf as a guest image for @lim.
 * Never reads outside [buf, buf+len), whatever the bytes say.
 * Return: 0 with @img filled, or -1 with one line saying what is wrong in
 * @err (no trailing newline, no file name).
 */
int vmm_elf_check(const void *buf, size_t len, const struct vmm_elf_limits *lim,
		  struct vmm_elf_image *img, char *err, size_t errlen);

/*
 * vmm_elf_load - copy each segment of @img (checked against the same @buf
 * and len) to guest RAM and zero its tail up to p_memsz.
 * Return: 0, or -1 with @err set when a segment is not in @mem.
 */
int vmm_elf_load(const struct vmm_elf_image *img, const void *buf, struct vmm_guest_mem *mem,
		 char *err, size_t errlen);

/*
 * vmm_read_file - read all of @path into a new malloc'ed buffer.
 * Return: 0 with *@buf and *@len set, or -1 with @err set ("<why>": no such
 * file, not a regular file, larger than @max, read error).
 */
int vmm_read_file(const char *path, size_t max, void **buf, size_t *len, char *err, size_t errlen);

#endif
