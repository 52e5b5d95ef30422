/*
 * elf.c - validate and load the guest's ELF image.
 *
 * The validator treats the file as hostile: every offset and size is
 * checked for overflow and against the file length before it is used, and
 * headers are copied out (never cast in place) so alignment cannot bite.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptelab/abi.h"
#include "vmm_elf.h"

/* Headers are read with memcpy in host order; ELF here is little-endian. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the ELF reader needs a LE host");

#define X(v) ((unsigned long long)(v))

struct elf_ctx {
	const uint8_t *b;
	size_t len;
	const struct vmm_elf_limits *lim;
	Elf64_Ehdr eh;
	struct vmm_elf_image *img;
	int phdr_of[VMM_ELF_MAX_LOADS]; /* program header index of each load */
	char *err;
	size_t errlen;
};

static int fail(struct elf_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct elf_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Is [off, off+size) inside the file? Overflow-safe. */
static int in_file(const struct elf_ctx *c, uint64_t off, uint64_t size)
{
	return off <= c->len && size <= c->len - off;
}

static int check_header(struct elf_ctx *c)
{
	const unsigned char *id = c->b;
	uint16_t want = c->lim->arch == VMM_ARCH_ARM64 ? EM_AARCH64 : EM_X86_64;

	if (c->len < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0)
		return fail(c, "not an ELF file (no \\177ELF magic)");
	if (c->len < EI_NIDENT)
		return fail(c, "truncated ELF header (%zu of %zu bytes)", c->len, sizeof(c->eh));
	if (id[EI_CLASS] != ELFCLASS64)
		return fail(c, "not a 64-bit ELF (EI_CLASS %u, want %u)", id[EI_CLASS], ELFCLASS64);
	if (id[EI_DATA] != ELFDATA2LSB)
		return fail(c, "not a little-endian ELF (EI_DATA %u, want %u)", id[EI_DATA],
			    ELFDATA2LSB);
	if (c->len < sizeof(c->eh))
		return fail(c, "truncated ELF header (%zu of %zu bytes)", c->len, sizeof(c->eh));
	memcpy(&c->eh, c->b, sizeof(c->eh));
	if (c->eh.e_machine != want)
		return fail(c, "wrong machine %u, want %u (%s) for --arch %s", c->eh.e_machine,
			    want, want == EM_X86_64 ? "EM_X86_64" : "EM_AARCH64",
			    vmm_arch_name(c->lim->arch));
	if (c->eh.e_type != ET_EXEC)
		return fail(c, "not an executable (e_type %u, want ET_EXEC)", c->eh.e_type);
	if (c->eh.e_phentsize != sizeof(Elf64_Phdr))
		return fail(c, "program header size %u, want %zu", c->eh.e_phentsize,
			    sizeof(Elf64_Phdr));
	if (c->eh.e_phnum == 0 || c->eh.e_phnum == PN_XNUM)
		return fail(c, "no usable program headers (e_phnum %u)", c->eh.e_phnum);
	if (!in_file(c, c->eh.e_phoff, (uint64_t)c->eh.e_phnum * sizeof(Elf64_Phdr)))
		return fail(c,
			    "truncated program headers (%u at offset 0x%llx, file has %zu bytes)",
			    c->eh.e_phnum, X(c->eh.e_phoff), c->len);
	return 0;
}

static void get_phdr(const struct elf_ctx *c, int i, Elf64_Phdr *ph)
{
	memcpy(ph, c->b + c->eh.e_phoff + (uint64_t)i * sizeof(*ph), sizeof(*ph));
}

/* The one-line reason nothing may load below lim->min_paddr. */
static const char *below_why(const struct elf_ctx *c)
{
	return c->lim->arch == VMM_ARCH_ARM64 ? "QEMU's DTB is there"
					      : "the VMM's boot structures are there";
}

/* Check one PT_LOAD header @ph (program header @i) and record it. */
static int add_load(struct elf_ctx *c, int i, const Elf64_Phdr *ph)
{
	struct vmm_elf_image *img = c->img;

	if (ph->p_filesz > ph->p_memsz)
		return fail(c, "segment %d: p_filesz 0x%llx > p_memsz 0x%llx", i, X(ph->p_filesz),
			    X(ph->p_memsz));
	if (!in_file(c, ph->p_offset, ph->p_filesz))
		return fail(c,
			    "segment %d: truncated (file data [0x%llx, +0x%llx) past the end "
			    "of the file at 0x%zx)",
			    i, X(ph->p_offset), X(ph->p_filesz), c->len);
	if (ph->p_memsz == 0)
		return 0;
	if (ph->p_paddr + ph->p_memsz < ph->p_paddr)
		return fail(c, "segment %d: [0x%llx, +0x%llx) wraps around", i, X(ph->p_paddr),
			    X(ph->p_memsz));
	if (ph->p_paddr < c->lim->min_paddr)
		return fail(c, "segment %d at 0x%llx is below 0x%llx (%s)", i, X(ph->p_paddr),
			    X(c->lim->min_paddr), below_why(c));
	if (!vmm_ranges_contain(c->lim->ram, c->lim->nr_ram, ph->p_paddr, ph->p_memsz))
		return fail(c, "segment %d [0x%llx, 0x%llx) is outside guest RAM", i,
			    X(ph->p_paddr), X(ph->p_paddr + ph->p_memsz));
	for (int j = 0; j < img->nr_loads; j++) {
		const struct vmm_elf_load *o = &img->load[j];

		if (ph->p_paddr < o->paddr + o->memsz && o->paddr < ph->p_paddr + ph->p_memsz)
			return fail(c, "segments %d and %d overlap at 0x%llx", c->phdr_of[j], i,
				    X(ph->p_paddr > o->paddr ? ph->p_paddr : o->paddr));
	}
	if (img->nr_loads == VMM_ELF_MAX_LOADS)
		return fail(c, "more than %d loadable segments", VMM_ELF_MAX_LOADS);
	c->phdr_of[img->nr_loads] = i;
	img->load[img->nr_loads++] =
		(struct vmm_elf_load){ ph->p_offset, ph->p_filesz, ph->p_paddr,
				       ph->p_memsz,  ph->p_vaddr,  ph->p_flags };
	return 0;
}

static int check_loads(struct elf_ctx *c)
{
	Elf64_Phdr ph;

	for (int i = 0; i < c->eh.e_phnum; i++) {
		get_phdr(c, i, &ph);
		if (ph.p_type == PT_LOAD && add_load(c, i, &ph))
			return -1;
	}
	if (c->img->nr_loads == 0)
		return fail(c, "no loadable (PT_LOAD) segments");
	return 0;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * pvh_in_notes - look through the notes in file bytes [off, off+size) for
 * the PVH entry (name "Xen", type PVH_ELFNOTE_PHYS32_ENTRY).
 * Return: 1 with *@entry set, 0 when it is not there, -1 (with the error
 * set) on a malformed note or a bad PVH value. [off, off+size) is in the file.
 */
static int pvh_in_notes(struct elf_ctx *c, int seg, uint64_t off, uint64_t size, uint64_t *entry)
{
	uint64_t pos = 0;

	while (size - pos >= 12) {
		const uint8_t *n = c->b + off + pos;
		uint64_t namesz = get32(n), descsz = get32(n + 4), type = get32(n + 8);
		uint64_t desc = 12 + ((namesz + 3) & ~3ULL), next = desc + ((descsz + 3) & ~3ULL);

		if (next > size - pos)
			return fail(c, "note segment %d: note at 0x%llx runs past the segment", seg,
				    X(off + pos));
		if (namesz == 4 && memcmp(n + 12, "Xen", 4) == 0 &&
		    type == PVH_ELFNOTE_PHYS32_ENTRY) {
			if (descsz != 4 && descsz != 8)
				return fail(c, "PVH entry note has a %llu-byte value, want 4 or 8",
					    X(descsz));
			*entry = get32(n + desc);
			if (descsz == 8 && get32(n + desc + 4))
				return fail(c, "PVH entry 0x%x%08x is not a 32-bit address",
					    get32(n + desc + 4), get32(n + desc));
			return 1;
		}
		pos += next;
	}
	return 0;
}

/* Find the x86_64 PVH entry point in the PT_NOTE segments. */
static int find_pvh_entry(struct elf_ctx *c, uint64_t *entry)
{
	Elf64_Phdr ph;

	for (int i = 0; i < c->eh.e_phnum; i++) {
		int r;

		get_phdr(c, i, &ph);
		if (ph.p_type != PT_NOTE)
			continue;
		if (!in_file(c, ph.p_offset, ph.p_filesz))
			return fail(c, "note segment %d: truncated (data past the end of the file)",
				    i);
		r = pvh_in_notes(c, i, ph.p_offset, ph.p_filesz, entry);
		if (r)
			return r < 0 ? -1 : 0;
	}
	return fail(c,
		    "no PVH entry note (PT_NOTE \"Xen\" type %d); the x86_64 guest must "
		    "have one",
		    PVH_ELFNOTE_PHYS32_ENTRY);
}

/*
 * entry_to_phys - the physical address of @addr when it lies in the file
 * data of an executable load, taken as physical (@virt 0) or virtual.
 * Return: 1 with *@phys set, 0 when no executable load holds it.
 */
static int entry_to_phys(const struct vmm_elf_image *img, uint64_t addr, int virt, uint64_t *phys)
{
	for (int i = 0; i < img->nr_loads; i++) {
		const struct vmm_elf_load *l = &img->load[i];
		uint64_t base = virt ? l->vaddr : l->paddr;

		if (!(l->flags & PF_X) || addr < base || addr - base >= l->filesz)
			continue;
		*phys = l->paddr + (addr - base);
		return 1;
	}
	return 0;
}

static int check_entry(struct elf_ctx *c)
{
	uint64_t entry = c->eh.e_entry;
	const char *what = "e_entry";

	if (c->lim->arch == VMM_ARCH_X86_64) {
		if (find_pvh_entry(c, &entry))
			return -1;
		what = "PVH entry";
	}
	if (entry_to_phys(c->img, entry, 0, &c->img->entry))
		return 0;
	if (c->lim->arch == VMM_ARCH_ARM64 && entry_to_phys(c->img, entry, 1, &c->img->entry))
		return 0;
	return fail(c, "%s 0x%llx is not inside an executable loaded segment", what, X(entry));
}

int vmm_elf_check(const void *buf, size_t len, const struct vmm_elf_limits *lim,
		  struct vmm_elf_image *img, char *err, size_t errlen)
{
	struct elf_ctx c = {
		.b = buf, .len = len, .lim = lim, .img = img, .err = err, .errlen = errlen
	};

	memset(img, 0, sizeof(*img));
	if (check_header(&c) || check_loads(&c) || check_entry(&c))
		return -1;
	return 0;
}

int vmm_elf_load(const struct vmm_elf_image *img, const void *buf, struct vmm_guest_mem *mem,
		 char *err, size_t errlen)
{
	for (int i = 0; i < img->nr_loads; i++) {
		const struct vmm_elf_load *l = &img->load[i];
		void *dst = vmm_gpa(mem, l->paddr, l->memsz);

		if (!dst) {
			snprintf(err, errlen, "segment [0x%llx, +0x%llx) is not in guest RAM",
				 X(l->paddr), X(l->memsz));
			return -1;
		}
		/* The RAM is freshly mapped, so the tail past p_filesz is zero. */
		memcpy(dst, (const uint8_t *)buf + l->offset, l->filesz);
	}
	return 0;
}

int vmm_read_file(const char *path, size_t max, void **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t got = 0;
	uint8_t *p;
	/* O_NONBLOCK: opening a FIFO does not wait for a writer, so the
	 * regular-file check below refuses it (no effect on regular files). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		goto err_close;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(err, errlen, "larger than the limit of %zu bytes", max);
		goto err_close;
	}
	p = malloc((size_t)st.st_size + 1);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		goto err_close;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, (size_t)st.st_size - got);

		if (n <= 0) {
			snprintf(err, errlen, "read error: %s", n ? strerror(errno) : "short file");
			goto err_free;
		}
		got += (size_t)n;
	}
	close(fd);
	*buf = p;
	*len = got;
	return 0;

err_free:
	free(p);
err_close:
	close(fd);
	return -1;
}
