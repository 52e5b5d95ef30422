/*
 * elf_build.h - guest images for testing the VMM's ELF validator: a
 * minimal valid image built in memory, and a table of defects, each one
 * field (or the length) of a valid image changed.
 *
 * Shared by the host tests (tests/host/test_elf.c), which run every defect
 * through vmm_elf_check(), and the defect writer (tests/vmm/mkelf.c), which
 * writes each one to a file for tests/vmm/run.sh to feed the real ptelab.
 * The defects work on any valid ELF64 image, so mkelf can also derive them
 * from the real guest kernel.
 */
#ifndef ELF_BUILD_H
#define ELF_BUILD_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm_config.h"

enum { ELFB_TEXT, ELFB_DATA, ELFB_NOTE, ELFB_PHNUM };

#define ELFB_TEXT_MAX 256
#define ELFB_DATA_SIZE 32
#define ELFB_BSS 0x1000 /* the data segment's p_memsz - p_filesz */

/* Where the segments go: the first byte each arch lets an image use. */
#define ELFB_X86_TEXT 0x100000ULL /* PTELAB_BOOT_END */
#define ELFB_X86_DATA 0x200000ULL
#define ELFB_ARM64_TEXT 0x40200000ULL /* VMM_ARM64_LOAD_MIN */
#define ELFB_ARM64_DATA 0x40300000ULL

/* The RAM the defects assume: ptelab's default --mem 1G, which starts at
 * 0 on x86_64 (KVM and QEMU pc) and at 1 GiB on arm64 (QEMU virt). */
#define ELFB_RAM_SIZE (1ULL << 30)
#define ELFB_RAM_BASE(arch) ((arch) == VMM_ARCH_ARM64 ? 0x40000000ULL : 0)

/*
 * The image is one struct with no padding: its bytes are the file, and a
 * field is corrupted by plain assignment (img.ph[ELFB_TEXT].p_paddr = ...).
 * ELF64 header, 3 program headers (text RX, data RW + bss, PT_NOTE), the
 * PVH note ("Xen", type 18, 4-byte entry), the text, the data.
 */
struct elfb_image {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[ELFB_PHNUM];
	uint32_t note[5]; /* namesz, descsz, type, "Xen\0", PVH entry */
	uint8_t pad[4];
	uint8_t text[ELFB_TEXT_MAX];
	uint8_t data[ELFB_DATA_SIZE];
};

/*
 * elfb_init - a valid image for @arch whose text is @code (@len bytes, at
 * most ELFB_TEXT_MAX; the rest of the text is zero) and whose entry is the
 * first byte of the text (vaddr == paddr). On arm64 the note's program
 * header is PT_NULL: arm64 images need no PVH note.
 */
void elfb_init(struct elfb_image *img, enum vmm_arch arch, const void *code, size_t len);

/* One way to break a valid image, and what ptelab must then say. */
struct elfb_defect {
	const char *name;   /* a file-name stem: "outside-ram" */
	enum vmm_arch base; /* the arch of the valid image it breaks */
	enum vmm_arch run;  /* the --arch ptelab checks it for */
	const char *msg;    /* a substring of the one-line refusal */
	/* Break the image in @b (*@len bytes, room for at least that many);
	 * may shorten *@len. Return: 0, or -1 when this image has no place
	 * for the defect (e.g. it has only one PT_LOAD). */
	int (*apply)(uint8_t *b, size_t *len, enum vmm_arch arch);
};

extern const struct elfb_defect elfb_defects[];
extern const int elfb_nr_defects;

#endif
