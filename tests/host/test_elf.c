/*
 * test_elf.c - the VMM's guest-image validator and loader (vmm/elf.c) on a
 * minimal image built in memory (elf_build.c), on every defect of the
 * defect table, and on thousands of seeded random corruptions.
 *
 * Every image is checked from a malloc'ed buffer of exactly its length, so
 * AddressSanitizer catches any read past the end.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_build.h"
#include "ptelab/abi.h"
#include "test.h"
#include "vmm_elf.h"

static struct elfb_image img;
static struct vmm_elf_image out;
static char err[256];

/* x86_64: mov al, 0; out 0xf4, al; hlt. arm64: b . */
static const uint8_t x86_code[] = { 0xb0, 0x00, 0xe6, 0xf4, 0xf4 };
static const uint8_t arm64_code[] = { 0x00, 0x00, 0x00, 0x14 };

static void make(enum vmm_arch arch)
{
	if (arch == VMM_ARCH_ARM64)
		elfb_init(&img, arch, arm64_code, sizeof(arm64_code));
	else
		elfb_init(&img, arch, x86_code, sizeof(x86_code));
}

/* The limits ptelab uses for --mem 1G --nodes 2 on @arch. */
static struct vmm_elf_limits limits(enum vmm_arch arch)
{
	static struct vmm_machine m[2];
	struct vmm_machine *mp = &m[arch == VMM_ARCH_ARM64];

	vmm_machine_init(mp, arch == VMM_ARCH_ARM64 ? VMM_LAYOUT_VIRT : VMM_LAYOUT_FLAT,
			 ELFB_RAM_SIZE, 2, 1, "run=hello");
	return (struct vmm_elf_limits){ arch, mp->ram, mp->nr_ram,
					arch == VMM_ARCH_ARM64 ? VMM_ARM64_LOAD_MIN
							       : PTELAB_BOOT_END };
}

/* vmm_elf_check() on a copy of @len bytes at @p, in a buffer of that size. */
static int check_bytes(const void *p, size_t len, enum vmm_arch arch)
{
	struct vmm_elf_limits lim = limits(arch);
	void *copy = malloc(len ? len : 1);
	int r;

	memcpy(copy, p, len);
	err[0] = 0;
	r = vmm_elf_check(copy, len, &lim, &out, err, sizeof(err));
	free(copy);
	return r;
}

static int check_img(enum vmm_arch arch)
{
	return check_bytes(&img, sizeof(img), arch);
}

/* A refusal is one non-empty line. */
static int one_line(const char *s)
{
	return s[0] && !strchr(s, '\n');
}

/* The minimal x86_64 image is accepted as built: two loads, PVH entry. */
TEST(valid_x86_image_accepted)
{
	make(VMM_ARCH_X86_64);
	CHECK_EQ(check_img(VMM_ARCH_X86_64), 0);
	CHECK_EQ(out.entry, ELFB_X86_TEXT);
	CHECK_EQ(out.nr_loads, 2);
	CHECK_EQ(out.load[0].paddr, ELFB_X86_TEXT);
	CHECK_EQ(out.load[0].offset, offsetof(struct elfb_image, text));
	CHECK_EQ(out.load[0].filesz, ELFB_TEXT_MAX);
	CHECK_EQ(out.load[0].flags, PF_R | PF_X);
	CHECK_EQ(out.load[1].paddr, ELFB_X86_DATA);
	CHECK_EQ(out.load[1].filesz, ELFB_DATA_SIZE);
	CHECK_EQ(out.load[1].memsz, ELFB_DATA_SIZE + ELFB_BSS);
}

/* arm64 needs no PVH note; its entry is e_entry. */
TEST(valid_arm64_image_accepted)
{
	make(VMM_ARCH_ARM64);
	CHECK_EQ(check_img(VMM_ARCH_ARM64), 0);
	CHECK_EQ(out.entry, ELFB_ARM64_TEXT);
	CHECK_EQ(out.nr_loads, 2);
	CHECK_EQ(out.load[1].paddr, ELFB_ARM64_DATA);
}

/* On x86_64 the PVH note gives the (physical) entry and e_entry is ignored. */
TEST(x86_entry_comes_from_the_pvh_note)
{
	make(VMM_ARCH_X86_64);
	img.note[4] = (uint32_t)ELFB_X86_TEXT + 0x20;
	img.eh.e_entry = 0xffffffff80000000ULL;
	CHECK_EQ(check_img(VMM_ARCH_X86_64), 0);
	CHECK_EQ(out.entry, ELFB_X86_TEXT + 0x20);
}

/* An arm64 e_entry may be virtual: it maps through the segment's p_vaddr. */
TEST(arm64_virtual_entry_translated)
{
	make(VMM_ARCH_ARM64);
	img.ph[ELFB_TEXT].p_vaddr = 0xffff000000000000ULL + ELFB_ARM64_TEXT;
	img.eh.e_entry = img.ph[ELFB_TEXT].p_vaddr + 0x40;
	CHECK_EQ(check_img(VMM_ARCH_ARM64), 0);
	CHECK_EQ(out.entry, ELFB_ARM64_TEXT + 0x40);
}

/* An entry in the zero-filled tail of the executable segment is refused:
 * it would run zeros. */
TEST(entry_in_text_bss_refused)
{
	make(VMM_ARCH_X86_64);
	img.ph[ELFB_TEXT].p_memsz = 2 * ELFB_TEXT_MAX;
	img.note[4] = (uint32_t)ELFB_X86_TEXT + ELFB_TEXT_MAX;
	CHECK_EQ(check_img(VMM_ARCH_X86_64), -1);
	CHECK_HAS(err, "PVH entry 0x100100 is not inside an executable loaded segment");
}

/* Every defect of the table, applied to the minimal image, is refused with
 * its one-line message; the table's cases are the ones the VMM test runner
 * also feeds the real ptelab. */
TEST(every_defect_refused_with_its_message)
{
	char detail[400];

	for (int i = 0; i < elfb_nr_defects; i++) {
		const struct elfb_defect *d = &elfb_defects[i];
		size_t len = sizeof(img);
		int applied, r;

		make(d->base);
		applied = d->apply((uint8_t *)&img, &len, d->base);
		r = applied ? 0 : check_bytes(&img, len, d->run);
		test_checks++;
		if (applied == 0 && r == -1 && one_line(err) && strstr(err, d->msg))
			continue;
		snprintf(detail, sizeof(detail),
			 "%s: applied %d, check %d, message '%s', want '%s'", d->name, applied, r,
			 err, d->msg);
		test_check_failed(__FILE__, __LINE__, "defect refused", detail);
	}
	CHECK(elfb_nr_defects >= 30);
}

/* Headers are copied out, never cast in place: a misaligned image works. */
TEST(misaligned_buffer_accepted)
{
	uint8_t *buf = malloc(sizeof(img) + 1);
	struct vmm_elf_limits lim = limits(VMM_ARCH_X86_64);

	make(VMM_ARCH_X86_64);
	memcpy(buf + 1, &img, sizeof(img));
	CHECK_EQ(vmm_elf_check(buf + 1, sizeof(img), &lim, &out, err, sizeof(err)), 0);
	CHECK_EQ(out.entry, ELFB_X86_TEXT);
	free(buf);
}

/* PT_LOAD with p_memsz 0 loads nothing, so it may say anything about where. */
TEST(empty_load_ignored)
{
	make(VMM_ARCH_ARM64);
	img.ph[ELFB_NOTE] = img.ph[ELFB_DATA];
	img.ph[ELFB_NOTE].p_paddr = 0;
	img.ph[ELFB_NOTE].p_filesz = img.ph[ELFB_NOTE].p_memsz = 0;
	CHECK_EQ(check_img(VMM_ARCH_ARM64), 0);
	CHECK_EQ(out.nr_loads, 2);
}

/*
 * An image of @nr_loads 16-byte executable loads (one page apart, all
 * backed by the same text bytes) plus the PVH note, in @buf.
 * Return: its length.
 */
static size_t many_loads(uint8_t *buf, int nr_loads)
{
	size_t phoff = sizeof(Elf64_Ehdr),
	       note = phoff + (size_t)(nr_loads + 1) * sizeof(Elf64_Phdr);
	size_t text = note + sizeof(img.note);
	Elf64_Ehdr eh;

	make(VMM_ARCH_X86_64);
	eh = img.eh;
	eh.e_phnum = (uint16_t)(nr_loads + 1);
	memcpy(buf, &eh, sizeof(eh));
	for (int i = 0; i <= nr_loads; i++) {
		Elf64_Phdr ph = img.ph[i < nr_loads ? ELFB_TEXT : ELFB_NOTE];

		ph.p_offset = i < nr_loads ? text : note;
		if (i < nr_loads) {
			ph.p_paddr = ph.p_vaddr = ELFB_X86_TEXT + (uint64_t)i * 0x1000;
			ph.p_filesz = ph.p_memsz = 16;
		}
		memcpy(buf + phoff + (size_t)i * sizeof(ph), &ph, sizeof(ph));
	}
	memcpy(buf + note, img.note, sizeof(img.note));
	memcpy(buf + text, x86_code, sizeof(x86_code));
	return text + 16;
}

/* The validator records at most VMM_ELF_MAX_LOADS loads and says so. */
TEST(too_many_loads_refused)
{
	uint8_t buf[2048];
	size_t len = many_loads(buf, VMM_ELF_MAX_LOADS);

	CHECK_EQ(check_bytes(buf, len, VMM_ARCH_X86_64), 0);
	CHECK_EQ(out.nr_loads, VMM_ELF_MAX_LOADS);
	len = many_loads(buf, VMM_ELF_MAX_LOADS + 1);
	CHECK_EQ(check_bytes(buf, len, VMM_ARCH_X86_64), -1);
	CHECK_HAS(err, "more than 16 loadable segments");
}

/* A note segment with notes of 4 and 8-byte values: the PVH one is found
 * after another; an 8-byte value must fit in 32 bits. */
TEST(pvh_note_among_others)
{
	uint8_t buf[1024];
	uint32_t notes[] = { 4,
			     8,
			     3,
			     0x00554e47 /* "GNU" */,
			     1,
			     2, /* a GNU note */
			     4,
			     8,
			     PVH_ELFNOTE_PHYS32_ENTRY,
			     0x006e6558 /* "Xen" */,
			     (uint32_t)ELFB_X86_TEXT + 4,
			     0 };
	size_t off = sizeof(img);

	make(VMM_ARCH_X86_64);
	memcpy(buf + off, notes, sizeof(notes));
	img.ph[ELFB_NOTE].p_offset = off;
	img.ph[ELFB_NOTE].p_filesz = sizeof(notes);
	memcpy(buf, &img, sizeof(img));
	CHECK_EQ(check_bytes(buf, off + sizeof(notes), VMM_ARCH_X86_64), 0);
	CHECK_EQ(out.entry, ELFB_X86_TEXT + 4);
	notes[11] = 1;
	memcpy(buf + off, notes, sizeof(notes));
	CHECK_EQ(check_bytes(buf, off + sizeof(notes), VMM_ARCH_X86_64), -1);
	CHECK_HAS(err, "PVH entry 0x100100004 is not a 32-bit address");
	notes[7] = 0xfffffffdu; /* descsz: the note would run far past the end */
	memcpy(buf + off, notes, sizeof(notes));
	CHECK_EQ(check_bytes(buf, off + sizeof(notes), VMM_ARCH_X86_64), -1);
	CHECK_HAS(err, "runs past the segment");
	/* The segment ends inside the second note's value (the file goes on). */
	notes[7] = 8;
	notes[11] = 0;
	memcpy(buf + off, notes, sizeof(notes));
	img.ph[ELFB_NOTE].p_filesz = sizeof(notes) - 4;
	memcpy(buf, &img, sizeof(img));
	CHECK_EQ(check_bytes(buf, off + sizeof(notes), VMM_ARCH_X86_64), -1);
	CHECK_HAS(err, "note segment 2: note at 0x238 runs past the segment");
}

/* --- fuzzing ----------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic for a given seed. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Corrupt @b (@len bytes): 1-4 random bytes, mostly in the headers, or
 * a truncation. Return: the new length. */
static size_t mutate(uint8_t *b, size_t len)
{
	int n = 1 + (int)(rng() % 4);

	if (rng() % 5 == 0)
		return (size_t)(rng() % len);
	for (int i = 0; i < n; i++) {
		size_t pos = rng() % 4 ? rng() % offsetof(struct elfb_image, text) : rng() % len;

		if (rng() % 2)
			b[pos] ^= (uint8_t)(1u << (rng() % 8));
		else
			b[pos] = (uint8_t)rng();
	}
	return len;
}

/*
 * accepted_is_sound - what an accepted image promises: 1..MAX loads, each
 * with its file data inside the file, filesz <= memsz, in RAM at or above
 * the limit, no two overlapping, and the entry in an executable load's
 * file data. Return: NULL, or what is broken.
 */
static const char *accepted_is_sound(const struct vmm_elf_image *im, size_t len,
				     const struct vmm_elf_limits *lim)
{
	int in_x = 0;

	if (im->nr_loads < 1 || im->nr_loads > VMM_ELF_MAX_LOADS)
		return "load count";
	for (int i = 0; i < im->nr_loads; i++) {
		const struct vmm_elf_load *l = &im->load[i];

		if (l->offset > len || l->filesz > len - l->offset || l->filesz > l->memsz)
			return "file data";
		if (l->paddr < lim->min_paddr || !l->memsz ||
		    !vmm_ranges_contain(lim->ram, lim->nr_ram, l->paddr, l->memsz))
			return "placement";
		for (int j = 0; j < i; j++)
			if (l->paddr < im->load[j].paddr + im->load[j].memsz &&
			    im->load[j].paddr < l->paddr + l->memsz)
				return "overlap";
		if ((l->flags & PF_X) && im->entry >= l->paddr && im->entry - l->paddr < l->filesz)
			in_x = 1;
	}
	return in_x ? NULL : "entry";
}

/* Map RAM for @arch's 1G machine (untouched pages cost nothing). */
static int map_ram(struct vmm_guest_mem *mem, enum vmm_arch arch)
{
	struct vmm_elf_limits lim = limits(arch);

	return vmm_guest_mem_map(mem, lim.ram, lim.nr_ram);
}

/*
 * fuzz - @iters seeded corruptions of @arch's minimal image through the
 * validator; every accepted one must be sound and load into mapped RAM.
 * Counts go to @acc and @ref; Return: the number of broken promises.
 */
static int fuzz(enum vmm_arch arch, uint64_t seed, int iters, int *acc, int *ref)
{
	struct vmm_elf_limits lim = limits(arch);
	struct vmm_guest_mem mem;
	int broken = 0;

	rng_state = seed;
	if (map_ram(&mem, arch))
		return -1;
	for (int it = 0; it < iters; it++) {
		uint8_t *b = malloc(sizeof(img));
		size_t len;
		const char *why = NULL;

		make(arch);
		memcpy(b, &img, sizeof(img));
		len = mutate(b, sizeof(img));
		err[0] = 0;
		if (vmm_elf_check(b, len, &lim, &out, err, sizeof(err)) == 0) {
			(*acc)++;
			why = accepted_is_sound(&out, len, &lim);
			if (!why && vmm_elf_load(&out, b, &mem, err, sizeof(err)))
				why = "load failed";
		} else {
			(*ref)++;
			if (!one_line(err))
				why = "refusal is not one line";
		}
		if (why && broken++ < 5)
			printf("    fuzz %s seed %llu iteration %d: %s (%s)\n", vmm_arch_name(arch),
			       (unsigned long long)seed, it, why, err);
		free(b);
	}
	vmm_guest_mem_unmap(&mem);
	return broken;
}

/* Thousands of random byte changes and truncations never crash the
 * validator (ASan is watching), every refusal is one line, and every image
 * it accepts keeps its promises and loads. */
TEST(fuzz_random_corruptions)
{
	int acc = 0, ref = 0;

	CHECK_EQ(fuzz(VMM_ARCH_X86_64, 0x5eed0001, 4000, &acc, &ref), 0);
	CHECK_EQ(fuzz(VMM_ARCH_ARM64, 0x5eed0002, 2000, &acc, &ref), 0);
	CHECK_EQ(acc + ref, 6000);
	CHECK(acc > 100); /* the fuzzer also reaches the loader */
	CHECK(ref > 1000);
	printf("    fuzz: %d accepted, %d refused\n", acc, ref);
}

/* --- loading ----------------------------------------------------------------- */

/* Segments land at p_paddr with their file bytes, the bss tail zeroed. */
TEST(load_copies_segments)
{
	struct vmm_guest_mem mem;
	const uint8_t *text, *data;

	make(VMM_ARCH_X86_64);
	CHECK_EQ(check_img(VMM_ARCH_X86_64), 0);
	CHECK_EQ(map_ram(&mem, VMM_ARCH_X86_64), 0);
	CHECK_EQ(vmm_elf_load(&out, &img, &mem, err, sizeof(err)), 0);
	text = vmm_gpa(&mem, ELFB_X86_TEXT, ELFB_TEXT_MAX);
	data = vmm_gpa(&mem, ELFB_X86_DATA, ELFB_DATA_SIZE + ELFB_BSS);
	CHECK(text && data);
	if (text && data) {
		CHECK(memcmp(text, img.text, ELFB_TEXT_MAX) == 0);
		CHECK(memcmp(data, img.data, ELFB_DATA_SIZE) == 0);
		CHECK_EQ(data[ELFB_DATA_SIZE], 0);
		CHECK_EQ(data[ELFB_DATA_SIZE + ELFB_BSS - 1], 0);
	}
	vmm_guest_mem_unmap(&mem);
}

/* The loader re-checks every segment through the translator. */
TEST(load_refuses_segment_outside_mem)
{
	struct vmm_guest_mem mem;
	struct vmm_range small = { 0, ELFB_X86_DATA };

	make(VMM_ARCH_X86_64);
	CHECK_EQ(check_img(VMM_ARCH_X86_64), 0);
	CHECK_EQ(vmm_guest_mem_map(&mem, &small, 1), 0);
	CHECK_EQ(vmm_elf_load(&out, &img, &mem, err, sizeof(err)), -1);
	CHECK_HAS(err, "segment [0x200000, +0x1020) is not in guest RAM");
	vmm_guest_mem_unmap(&mem);
}

/* --- reading the file --------------------------------------------------------- */

static void write_tmp(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, p, n) != (ssize_t)n)
			perror(path);
		close(fd);
	}
}

/* vmm_read_file reads a whole regular file and refuses everything else
 * with a reason. */
TEST(read_file_cases)
{
	char dir[] = "/tmp/ptelab-elf.XXXXXX", path[64], want[64];
	void *buf = NULL;
	size_t len = 0;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/img", dir);
	make(VMM_ARCH_X86_64);
	write_tmp(path, &img, sizeof(img));
	CHECK_EQ(vmm_read_file(path, 1 << 20, &buf, &len, err, sizeof(err)), 0);
	CHECK_EQ(len, sizeof(img));
	CHECK(buf && memcmp(buf, &img, sizeof(img)) == 0);
	free(buf);
	CHECK_EQ(vmm_read_file(path, sizeof(img) - 1, &buf, &len, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "larger than the limit of %zu bytes", sizeof(img) - 1);
	CHECK_HAS(err, want);
	CHECK_EQ(vmm_read_file(dir, 1 << 20, &buf, &len, err, sizeof(err)), -1);
	CHECK_HAS(err, "not a regular file");
	unlink(path);
	CHECK_EQ(vmm_read_file(path, 1 << 20, &buf, &len, err, sizeof(err)), -1);
	CHECK_HAS(err, "cannot open: No such file or directory");
	write_tmp(path, "", 0);
	CHECK_EQ(vmm_read_file(path, 1 << 20, &buf, &len, err, sizeof(err)), 0);
	CHECK_EQ(len, 0);
	free(buf);
	unlink(path);
	rmdir(dir);
}

TEST_SUITE(elf, valid_x86_image_accepted, valid_arm64_image_accepted,
	   x86_entry_comes_from_the_pvh_note, arm64_virtual_entry_translated,
	   entry_in_text_bss_refused, every_defect_refused_with_its_message,
	   misaligned_buffer_accepted, empty_load_ignored, too_many_loads_refused,
	   pvh_note_among_others, fuzz_random_corruptions, load_copies_segments,
	   load_refuses_segment_outside_mem, read_file_cases)
