/*
 * elf_build.c - the minimal guest image and the defect table of elf_build.h.
 *
 * The defects edit raw bytes through the helpers below, which check every
 * offset against the length, so they work on the real guest kernel as on
 * the synthetic image (and refuse, rather than crash, on anything else).
 */
#include <stddef.h>
#include <string.h>

#include "elf_build.h"
#include "ptelab/abi.h"

_Static_assert(offsetof(struct elfb_image, ph) == sizeof(Elf64_Ehdr), "no padding");
_Static_assert(offsetof(struct elfb_image, text) % 16 == 0, "text is aligned");
_Static_assert(sizeof(struct elfb_image) == offsetof(struct elfb_image, data) + ELFB_DATA_SIZE,
	       "no tail padding");

static Elf64_Phdr phdr(uint32_t type, uint32_t flags, uint64_t off, uint64_t paddr, uint64_t filesz,
		       uint64_t memsz)
{
	return (Elf64_Phdr){ .p_type = type,
			     .p_flags = flags,
			     .p_offset = off,
			     .p_vaddr = paddr,
			     .p_paddr = paddr,
			     .p_filesz = filesz,
			     .p_memsz = memsz,
			     .p_align = type == PT_NOTE ? 4 : 16 };
}

void elfb_init(struct elfb_image *img, enum vmm_arch arch, const void *code, size_t len)
{
	uint64_t text = arch == VMM_ARCH_ARM64 ? ELFB_ARM64_TEXT : ELFB_X86_TEXT;
	uint64_t data = arch == VMM_ARCH_ARM64 ? ELFB_ARM64_DATA : ELFB_X86_DATA;
	Elf64_Ehdr *eh = &img->eh;

	memset(img, 0, sizeof(*img));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = arch == VMM_ARCH_ARM64 ? EM_AARCH64 : EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = text;
	eh->e_phoff = offsetof(struct elfb_image, ph);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = ELFB_PHNUM;
	img->ph[ELFB_TEXT] = phdr(PT_LOAD, PF_R | PF_X, offsetof(struct elfb_image, text), text,
				  ELFB_TEXT_MAX, ELFB_TEXT_MAX);
	img->ph[ELFB_DATA] = phdr(PT_LOAD, PF_R | PF_W, offsetof(struct elfb_image, data), data,
				  ELFB_DATA_SIZE, ELFB_DATA_SIZE + ELFB_BSS);
	img->ph[ELFB_NOTE] = phdr(arch == VMM_ARCH_ARM64 ? PT_NULL : PT_NOTE, PF_R,
				  offsetof(struct elfb_image, note), 0, sizeof(img->note), 0);
	img->note[0] = 4;
	img->note[1] = 4;
	img->note[2] = PVH_ELFNOTE_PHYS32_ENTRY;
	memcpy(&img->note[3], "Xen", 4);
	img->note[4] = (uint32_t)text;
	if (len > ELFB_TEXT_MAX)
		len = ELFB_TEXT_MAX;
	if (len)
		memcpy(img->text, code, len);
	memset(img->data, 0xda, sizeof(img->data));
}

/* --- checked access to a raw image ----------------------------------------- */

static int get_eh(const uint8_t *b, size_t len, Elf64_Ehdr *eh)
{
	if (len < sizeof(*eh))
		return -1;
	memcpy(eh, b, sizeof(*eh));
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > len)
		return -1;
	return (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= len - eh->e_phoff ? 0 : -1;
}

static void put_eh(uint8_t *b, const Elf64_Ehdr *eh)
{
	memcpy(b, eh, sizeof(*eh));
}

/* Program header @i; its file offset, or 0 when there is none. */
static size_t get_ph(const uint8_t *b, size_t len, int i, Elf64_Phdr *ph)
{
	Elf64_Ehdr eh;
	size_t off;

	if (get_eh(b, len, &eh) || i < 0 || i >= eh.e_phnum)
		return 0;
	off = eh.e_phoff + (size_t)i * sizeof(*ph);
	memcpy(ph, b + off, sizeof(*ph));
	return off;
}

/* Index of the @n-th PT_LOAD with p_memsz > 0 (from 0), or -1. */
static int nth_load(const uint8_t *b, size_t len, int n, Elf64_Phdr *ph)
{
	for (int i = 0; get_ph(b, len, i, ph); i++)
		if (ph->p_type == PT_LOAD && ph->p_memsz && n-- == 0)
			return i;
	return -1;
}

/* The @n-th load's header in *@ph. Return: its file offset, 0 if none. */
static size_t load_hdr(const uint8_t *b, size_t len, int n, Elf64_Phdr *ph)
{
	int i = nth_load(b, len, n, ph);

	return i < 0 ? 0 : get_ph(b, len, i, ph);
}

static void put_ph(uint8_t *b, size_t off, const Elf64_Phdr *ph)
{
	memcpy(b + off, ph, sizeof(*ph));
}

/*
 * pvh_note - find the PVH entry note: its program header index in *@seg
 * and the file offset of its note header (namesz, descsz, type, name...).
 * Return: the offset, or 0 when the image has none.
 */
static size_t pvh_note(const uint8_t *b, size_t len, int *seg)
{
	Elf64_Phdr ph;

	for (int i = 0; get_ph(b, len, i, &ph); i++) {
		uint64_t pos = ph.p_offset, end = ph.p_offset + ph.p_filesz;

		if (ph.p_type != PT_NOTE || ph.p_offset > len || ph.p_filesz > len - ph.p_offset)
			continue;
		while (end - pos >= 16) {
			uint32_t nd[3];
			uint64_t next;

			memcpy(nd, b + pos, sizeof(nd));
			next = 12 + (((uint64_t)nd[0] + 3) & ~3ULL) +
			       (((uint64_t)nd[1] + 3) & ~3ULL);
			if (next > end - pos)
				break;
			if (nd[0] == 4 && nd[2] == PVH_ELFNOTE_PHYS32_ENTRY &&
			    memcmp(b + pos + 12, "Xen", 4) == 0 && nd[1] >= 4) {
				*seg = i;
				return pos;
			}
			pos += next;
		}
	}
	return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Set the entry point: the PVH note's value on x86_64, e_entry on arm64. */
static int set_entry(uint8_t *b, size_t len, enum vmm_arch arch, uint64_t entry)
{
	Elf64_Ehdr eh;
	int seg;
	size_t note = pvh_note(b, len, &seg);

	if (arch == VMM_ARCH_ARM64) {
		if (get_eh(b, len, &eh))
			return -1;
		eh.e_entry = entry;
		put_eh(b, &eh);
		return 0;
	}
	if (!note)
		return -1;
	put32(b + note + 16, (uint32_t)entry);
	return 0;
}

/* --- the defects --------------------------------------------------------------- */

static int d_not_elf(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)len, (void)arch;
	memcpy(b, "\177ELV", 4);
	return 0;
}

static int d_empty(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)b, (void)arch;
	*len = 0;
	return 0;
}

static int d_short_header(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)b, (void)arch;
	*len = 40;
	return 0;
}

#define EDIT_EH(edit)                                                                              \
	do {                                                                                       \
		Elf64_Ehdr eh;                                                                     \
		if (get_eh(b, *len, &eh))                                                          \
			return -1;                                                                 \
		edit;                                                                              \
		put_eh(b, &eh);                                                                    \
	} while (0)

static int d_class32(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)arch;
	EDIT_EH(eh.e_ident[EI_CLASS] = ELFCLASS32);
	return 0;
}

static int d_big_endian(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)arch;
	EDIT_EH(eh.e_ident[EI_DATA] = ELFDATA2MSB);
	return 0;
}

static int d_wrong_machine(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	EDIT_EH(eh.e_machine = arch == VMM_ARCH_ARM64 ? EM_X86_64 : EM_AARCH64);
	return 0;
}

static int d_keep(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)b, (void)len, (void)arch;
	return 0;
}

static int d_not_exec(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)arch;
	EDIT_EH(eh.e_type = ET_DYN);
	return 0;
}

static int d_phentsize(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)arch;
	EDIT_EH(eh.e_phentsize = 32);
	return 0;
}

static int d_no_phdrs(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)arch;
	EDIT_EH(eh.e_phnum = 0);
	return 0;
}

static int d_short_phdrs(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	Elf64_Ehdr eh;

	(void)arch;
	if (get_eh(b, *len, &eh))
		return -1;
	*len = eh.e_phoff + (size_t)eh.e_phnum * sizeof(Elf64_Phdr) - 1;
	return 0;
}

static int d_phoff_overflow(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	(void)arch;
	EDIT_EH(eh.e_phoff = UINT64_MAX - 8);
	return 0;
}

/* Cut the file one byte before the end of the segment data that ends last. */
static int d_short_segment(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t end = 0;

	(void)arch;
	for (int n = 0; nth_load(b, *len, n, &ph) >= 0; n++)
		if (ph.p_filesz && ph.p_offset + ph.p_filesz > end)
			end = ph.p_offset + ph.p_filesz;
	if (get_eh(b, *len, &eh) || end <= eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(ph))
		return -1;
	*len = end - 1;
	return 0;
}

/* Change the @n-th load's header with @edit; -1 when the image has none
 * or @edit finds no place for the defect. */
static int edit_load(uint8_t *b, size_t len, int n, enum vmm_arch arch,
		     int (*edit)(Elf64_Phdr *ph, enum vmm_arch arch))
{
	Elf64_Phdr ph;
	size_t off = load_hdr(b, len, n, &ph);

	if (!off || edit(&ph, arch))
		return -1;
	put_ph(b, off, &ph);
	return 0;
}

static int e_offset_overflow(Elf64_Phdr *ph, enum vmm_arch arch)
{
	(void)arch;
	ph->p_offset = UINT64_MAX - 16;
	return ph->p_filesz ? 0 : -1;
}

static int e_filesz_gt_memsz(Elf64_Phdr *ph, enum vmm_arch arch)
{
	(void)arch;
	ph->p_filesz = ph->p_memsz + 1;
	return 0;
}

static int e_outside_ram(Elf64_Phdr *ph, enum vmm_arch arch)
{
	(void)arch;
	ph->p_paddr = 256ULL << 30;
	return 0;
}

static int e_past_ram_end(Elf64_Phdr *ph, enum vmm_arch arch)
{
	ph->p_paddr = ELFB_RAM_BASE(arch) + ELFB_RAM_SIZE - 8;
	return ph->p_memsz > 8 ? 0 : -1;
}

static int e_over_boot(Elf64_Phdr *ph, enum vmm_arch arch)
{
	(void)arch;
	ph->p_paddr = PTELAB_BOOT_FDT;
	return 0;
}

static int e_at_zero(Elf64_Phdr *ph, enum vmm_arch arch)
{
	(void)arch;
	ph->p_paddr = 0;
	return 0;
}

static int e_over_dtb(Elf64_Phdr *ph, enum vmm_arch arch)
{
	(void)arch;
	ph->p_paddr = ELFB_RAM_BASE(VMM_ARCH_ARM64);
	return 0;
}

static int e_wraps(Elf64_Phdr *ph, enum vmm_arch arch)
{
	(void)arch;
	ph->p_paddr = 0 - ph->p_memsz / 2;
	return ph->p_memsz >= 2 ? 0 : -1;
}

#define LOAD0_DEFECT(what)                                                                         \
	static int d_##what(uint8_t *b, size_t *len, enum vmm_arch arch)                           \
	{                                                                                          \
		return edit_load(b, *len, 0, arch, e_##what);                                      \
	}
LOAD0_DEFECT(offset_overflow)
LOAD0_DEFECT(filesz_gt_memsz)
LOAD0_DEFECT(outside_ram)
LOAD0_DEFECT(past_ram_end)
LOAD0_DEFECT(over_boot)
LOAD0_DEFECT(at_zero)
LOAD0_DEFECT(over_dtb)
LOAD0_DEFECT(wraps)

/* The second load starts in the middle of the first. */
static int d_overlap(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	Elf64_Phdr first, ph;
	size_t off = load_hdr(b, *len, 1, &ph);

	(void)arch;
	if (!off || !load_hdr(b, *len, 0, &first))
		return -1;
	ph.p_paddr = first.p_paddr + first.p_memsz / 2;
	put_ph(b, off, &ph);
	return 0;
}

static int d_no_load(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	Elf64_Phdr ph;
	size_t off;

	(void)arch;
	for (int i = 0; (off = get_ph(b, *len, i, &ph)); i++) {
		if (ph.p_type != PT_LOAD)
			continue;
		ph.p_type = PT_NULL;
		put_ph(b, off, &ph);
	}
	return 0;
}

/* Just past the end of every load, page aligned. */
static uint64_t past_loads(const uint8_t *b, size_t len)
{
	Elf64_Phdr ph;
	uint64_t end = 0;

	for (int n = 0; nth_load(b, len, n, &ph) >= 0; n++)
		if (ph.p_paddr + ph.p_memsz > end)
			end = ph.p_paddr + ph.p_memsz;
	return ((end + 0xfff) & ~0xfffULL) + 0x1000;
}

static int d_entry_outside(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	return set_entry(b, *len, arch, past_loads(b, *len));
}

static int d_entry_in_data(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	Elf64_Phdr ph;

	for (int n = 0; nth_load(b, *len, n, &ph) >= 0; n++)
		if (!(ph.p_flags & PF_X) && ph.p_filesz)
			return set_entry(b, *len, arch, ph.p_paddr);
	return -1;
}

static int d_no_pvh_note(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	int seg;
	size_t note = pvh_note(b, *len, &seg);

	(void)arch;
	if (!note)
		return -1;
	put32(b + note + 8, PVH_ELFNOTE_PHYS32_ENTRY + 1);
	return 0;
}

static int d_no_note_segment(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	Elf64_Phdr ph;
	int seg;
	size_t off;

	(void)arch;
	if (!pvh_note(b, *len, &seg))
		return -1;
	off = get_ph(b, *len, seg, &ph);
	ph.p_type = PT_NULL;
	put_ph(b, off, &ph);
	return 0;
}

static int d_pvh_desc_size(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	int seg;
	size_t note = pvh_note(b, *len, &seg);

	(void)arch;
	if (!note)
		return -1;
	put32(b + note + 4, 2);
	return 0;
}

static int d_note_past_segment(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	int seg;
	size_t note = pvh_note(b, *len, &seg);

	(void)arch;
	if (!note)
		return -1;
	put32(b + note, 0x10000);
	return 0;
}

static int d_note_truncated(uint8_t *b, size_t *len, enum vmm_arch arch)
{
	Elf64_Phdr ph;
	int seg;
	size_t off;

	(void)arch;
	if (!pvh_note(b, *len, &seg))
		return -1;
	off = get_ph(b, *len, seg, &ph);
	ph.p_offset = *len;
	put_ph(b, off, &ph);
	return 0;
}

#define X86 VMM_ARCH_X86_64
#define ARM VMM_ARCH_ARM64

const struct elfb_defect elfb_defects[] = {
	{ "not-elf", X86, X86, "not an ELF file", d_not_elf },
	{ "empty", X86, X86, "not an ELF file", d_empty },
	{ "short-header", X86, X86, "truncated ELF header", d_short_header },
	{ "class32", X86, X86, "not a 64-bit ELF", d_class32 },
	{ "big-endian", X86, X86, "not a little-endian ELF", d_big_endian },
	{ "wrong-machine", X86, X86, "wrong machine 183, want 62", d_wrong_machine },
	{ "not-exec", X86, X86, "not an executable", d_not_exec },
	{ "phentsize", X86, X86, "program header size 32", d_phentsize },
	{ "no-phdrs", X86, X86, "no usable program headers", d_no_phdrs },
	{ "short-phdrs", X86, X86, "truncated program headers", d_short_phdrs },
	{ "phoff-overflow", X86, X86, "truncated program headers", d_phoff_overflow },
	{ "short-segment", X86, X86, "truncated (file data", d_short_segment },
	{ "offset-overflow", X86, X86, "truncated (file data", d_offset_overflow },
	{ "filesz-gt-memsz", X86, X86, "> p_memsz", d_filesz_gt_memsz },
	{ "outside-ram", X86, X86, "outside guest RAM", d_outside_ram },
	{ "past-ram-end", X86, X86, "outside guest RAM", d_past_ram_end },
	{ "over-boot", X86, X86, "below 0x100000 (the VMM's boot structures", d_over_boot },
	{ "at-zero", X86, X86, "at 0x0 is below 0x100000", d_at_zero },
	{ "wraps", X86, X86, "wraps around", d_wraps },
	{ "overlap", X86, X86, "overlap at", d_overlap },
	{ "no-load", X86, X86, "no loadable (PT_LOAD) segments", d_no_load },
	{ "entry-outside", X86, X86, "is not inside an executable loaded segment",
	  d_entry_outside },
	{ "entry-in-data", X86, X86, "is not inside an executable loaded segment",
	  d_entry_in_data },
	{ "no-pvh-note", X86, X86, "no PVH entry note", d_no_pvh_note },
	{ "no-note-segment", X86, X86, "no PVH entry note", d_no_note_segment },
	{ "pvh-desc-size", X86, X86, "PVH entry note has a 2-byte value", d_pvh_desc_size },
	{ "note-past-segment", X86, X86, "runs past the segment", d_note_past_segment },
	{ "note-truncated", X86, X86, "note segment", d_note_truncated },
	{ "x86-for-arm64", X86, ARM, "wrong machine 62, want 183", d_keep },
	{ "arm64-for-x86", ARM, X86, "wrong machine 183, want 62", d_keep },
	{ "arm64-over-dtb", ARM, ARM, "(QEMU's DTB is there)", d_over_dtb },
	{ "arm64-outside-ram", ARM, ARM, "outside guest RAM", d_outside_ram },
	{ "arm64-past-ram-end", ARM, ARM, "outside guest RAM", d_past_ram_end },
	{ "arm64-entry-outside", ARM, ARM, "e_entry 0x", d_entry_outside },
	{ "arm64-overlap", ARM, ARM, "overlap at", d_overlap },
};

const int elfb_nr_defects = sizeof(elfb_defects) / sizeof(elfb_defects[0]);
