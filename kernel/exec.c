/*
 * exec.c - a static ELF64 executable into a fresh mm: its PT_LOAD
 * segments, the stack, the initial stack's contents (exec_stack.c), and
 * the arch's sigreturn trampoline page (signal.c).
 *
 * The whole image range is mapped writable first and filled through
 * mm_access() (real stores through the MMU, faults resolved by mm/),
 * then each segment gets its own protection; a page two segments share
 * gets both protections, and the gaps between segments are unmapped.
 * The file is untrusted input: every offset and size is checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "initramfs.h"
#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "ksignal.h"
#include "user_arch.h"

#define EI_NIDENT 16
#define ET_EXEC 2
#define PT_LOAD 1
#define PT_INTERP 3
#define PT_PHDR 6
#define PT_GNU_STACK 0x6474e551
#define PF_X 1
#define PF_W 2
#define PF_R 4
#define EXEC_MAX_PHDRS 64

struct elf64_ehdr {
	uint8_t ident[EI_NIDENT];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

/* What the checks found: the loadable segments and where the headers are. */
struct elf_layout {
	const struct elf64_ehdr *eh;
	const struct elf64_phdr *ph;
	unsigned long lo, hi;	  /* page-aligned span of every PT_LOAD */
	unsigned long phdr_vaddr; /* AT_PHDR */
	unsigned stack_flags;	  /* VM_* for the stack */
};

static unsigned long page_down(unsigned long a)
{
	return a & ~(PAGE_SIZE - 1);
}

static unsigned long page_up(unsigned long a)
{
	return (a + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
}

static unsigned segment_vm_flags(const struct elf64_phdr *p)
{
	/* VM_READ whatever the segment says: system calls that read the
	 * image (write(2) of a string in .rodata) go through GUP, which
	 * reads only VMAs with VM_READ. */
	return VM_READ | (p->flags & PF_W ? VM_WRITE : 0) | (p->flags & PF_X ? VM_EXEC : 0);
}

static int check_header(const struct ifile *f, struct elf_layout *l, char *err, size_t errlen)
{
	const struct elf64_ehdr *eh = (const void *)f->data;
	struct arch_elf_info ai;

	arch_elf_info(&ai);
	if (f->size < sizeof(*eh) || memcmp(eh->ident, "\177ELF", 4))
		return snprintf(err, errlen, "not an ELF file (%llu bytes)",
				(unsigned long long)f->size),
		       -ENOEXEC;
	if (eh->ident[4] != 2 || eh->ident[5] != 1 || eh->machine != ai.machine)
		return snprintf(err, errlen, "not a little-endian ELF64 for %s (machine %u)",
				ai.uts_machine, eh->machine),
		       -ENOEXEC;
	if (eh->type != ET_EXEC)
		return snprintf(err, errlen, "ELF type %u: only static ET_EXEC programs run",
				eh->type),
		       -ENOEXEC;
	if (eh->phentsize != sizeof(struct elf64_phdr) || !eh->phnum ||
	    eh->phnum > EXEC_MAX_PHDRS || eh->phoff > f->size ||
	    (uint64_t)eh->phnum * sizeof(struct elf64_phdr) > f->size - eh->phoff || eh->phoff % 8)
		return snprintf(err, errlen, "program headers outside the file (truncated?)"),
		       -ENOEXEC;
	l->eh = eh;
	l->ph = (const void *)(f->data + eh->phoff);
	return 0;
}

static int check_segment(const struct ifile *f, const struct elf64_phdr *p, char *err,
			 size_t errlen)
{
	if (p->offset > f->size || p->filesz > f->size - p->offset)
		return snprintf(err, errlen,
				"segment at %#llx: file bytes past the end (truncated?)",
				(unsigned long long)p->vaddr),
		       -ENOEXEC;
	if (p->filesz > p->memsz || p->vaddr < MM_USER_START ||
	    p->memsz > EXEC_STACK_TOP - EXEC_STACK_SIZE ||
	    p->vaddr > EXEC_STACK_TOP - EXEC_STACK_SIZE - p->memsz ||
	    (p->vaddr - p->offset) % PAGE_SIZE)
		return snprintf(err, errlen,
				"segment at %#llx size %#llx: not placeable in user space",
				(unsigned long long)p->vaddr, (unsigned long long)p->memsz),
		       -ENOEXEC;
	return 0;
}

/* Check every program header; fill the span, AT_PHDR and the stack's
 * protection into @l. */
static int check_layout(const struct ifile *f, struct elf_layout *l, char *err, size_t errlen)
{
	unsigned long prev_end = 0;
	int err_no = check_header(f, l, err, errlen);

	l->lo = ~0ul;
	l->hi = 0;
	l->phdr_vaddr = 0;
	l->stack_flags = VM_READ | VM_WRITE;
	for (int i = 0; !err_no && i < l->eh->phnum; i++) {
		const struct elf64_phdr *p = &l->ph[i];

		if (p->type == PT_INTERP)
			return snprintf(err, errlen,
					"a dynamic executable (PT_INTERP): "
					"only static programs run"),
			       -ENOEXEC;
		if (p->type == PT_GNU_STACK && (p->flags & PF_X))
			l->stack_flags |= VM_EXEC;
		if (p->type == PT_PHDR)
			l->phdr_vaddr = p->vaddr;
		if (p->type != PT_LOAD || !p->memsz)
			continue;
		err_no = check_segment(f, p, err, errlen);
		if (!err_no && p->vaddr < prev_end)
			return snprintf(err, errlen, "PT_LOAD segments overlap or are not sorted"),
			       -ENOEXEC;
		if (!l->phdr_vaddr && p->offset <= l->eh->phoff &&
		    l->eh->phoff < p->offset + p->filesz)
			l->phdr_vaddr = p->vaddr + (l->eh->phoff - p->offset);
		prev_end = p->vaddr + p->memsz;
		l->lo = l->lo < page_down(p->vaddr) ? l->lo : page_down(p->vaddr);
		l->hi = page_up(prev_end);
	}
	if (!err_no && !l->hi)
		return snprintf(err, errlen, "no PT_LOAD segment"), -ENOEXEC;
	if (!err_no && (l->eh->entry < l->lo || l->eh->entry >= l->hi))
		return snprintf(err, errlen, "entry %#llx outside the loaded segments",
				(unsigned long long)l->eh->entry),
		       -ENOEXEC;
	return err_no;
}

/* Give every segment its protection (a shared page both), unmap the gaps. */
static int protect_segments(struct mm *mm, const struct elf_layout *l)
{
	unsigned long prev_end = l->lo;
	unsigned prev_flags = 0;
	int err = 0;

	for (int i = 0; !err && i < l->eh->phnum; i++) {
		const struct elf64_phdr *p = &l->ph[i];
		unsigned long s = page_down(p->vaddr), e = page_up(p->vaddr + p->memsz);
		unsigned flags = segment_vm_flags(p);

		if (p->type != PT_LOAD || !p->memsz)
			continue;
		if (s < prev_end) {
			err = mm_mprotect(mm, s, prev_end - s, flags | prev_flags);
			s = prev_end;
		} else if (s > prev_end) {
			err = mm_munmap(mm, prev_end, s - prev_end);
		}
		if (!err && e > s)
			err = mm_mprotect(mm, s, e - s, flags);
		prev_end = e > prev_end ? e : prev_end;
		prev_flags = flags;
	}
	return err;
}

static int load_segments(struct mm *mm, const struct ifile *f, const struct elf_layout *l)
{
	long r = mm_mmap(mm, l->lo, l->hi - l->lo, VM_READ | VM_WRITE, MAP_FIXED_ADDR, 1);

	if (r < 0)
		return (int)r;
	for (int i = 0; i < l->eh->phnum; i++) {
		const struct elf64_phdr *p = &l->ph[i];
		int err;

		if (p->type != PT_LOAD || !p->filesz)
			continue;
		err = mm_access(mm, p->vaddr, (void *)(f->data + p->offset), p->filesz, true);
		if (err)
			return err;
	}
	return protect_segments(mm, l);
}

static int count(char *const v[])
{
	int n = 0;

	while (v && v[n])
		n++;
	return n;
}

static void fill_auxv(struct exec_stack_args *a, const struct elf_layout *l)
{
	struct arch_elf_info ai;
	const unsigned long aux[][2] = {
		{ AT_PHDR, l->phdr_vaddr },
		{ AT_PHENT, sizeof(struct elf64_phdr) },
		{ AT_PHNUM, l->eh->phnum },
		{ AT_PAGESZ, PAGE_SIZE },
		{ AT_BASE, 0 },
		{ AT_FLAGS, 0 },
		{ AT_ENTRY, l->eh->entry },
		{ AT_UID, 0 },
		{ AT_EUID, 0 },
		{ AT_GID, 0 },
		{ AT_EGID, 0 },
		{ AT_SECURE, 0 },
		{ AT_CLKTCK, 100 },
	};

	arch_elf_info(&ai);
	a->nr_auxv = 0;
	for (size_t i = 0; i < sizeof(aux) / sizeof(aux[0]); i++) {
		a->auxv[a->nr_auxv][0] = aux[i][0];
		a->auxv[a->nr_auxv++][1] = aux[i][1];
	}
	a->auxv[a->nr_auxv][0] = AT_HWCAP;
	a->auxv[a->nr_auxv++][1] = ai.hwcap;
	a->auxv[a->nr_auxv][0] = AT_HWCAP2;
	a->auxv[a->nr_auxv++][1] = ai.hwcap2;
	if (ai.minsigstksz) {
		a->auxv[a->nr_auxv][0] = AT_MINSIGSTKSZ;
		a->auxv[a->nr_auxv++][1] = ai.minsigstksz;
	}
	a->platform = ai.platform;
}

/* Map the stack VMA and write the initial stack at its top. */
static int setup_stack(struct mm *mm, const struct elf_layout *l, const char *execfn,
		       char *const argv[], char *const envp[], unsigned long *sp)
{
	struct exec_stack_args a = { .argc = count(argv),
				     .envc = count(envp),
				     .argv = argv,
				     .envp = envp,
				     .execfn = execfn };
	uint8_t random[16], *buf;
	long r = mm_mmap(mm, EXEC_STACK_TOP - EXEC_STACK_SIZE, EXEC_STACK_SIZE, l->stack_flags,
			 MAP_FIXED_ADDR, 1);

	if (r < 0)
		return (int)r;
	user_random_bytes(random, sizeof(random));
	a.random = random;
	fill_auxv(&a, l);
	buf = malloc(EXEC_ARGS_MAX);
	if (!buf)
		return -ENOMEM;
	r = exec_stack_build(buf, EXEC_ARGS_MAX, EXEC_STACK_TOP, &a);
	if (r >= 0) {
		unsigned long at = (unsigned long)r;

		*sp = at;
		r = mm_access(mm, at, buf + (at - (EXEC_STACK_TOP - EXEC_ARGS_MAX)),
			      EXEC_STACK_TOP - at, true);
	}
	free(buf);
	return r < 0 ? (int)r : 0;
}

int exec_load(struct mm *mm, const struct ifile *file, char *const argv[], char *const envp[],
	      struct exec_start *start, char *err, size_t errlen)
{
	struct elf_layout l;
	int r = check_layout(file, &l, err, errlen);

	if (r)
		return r;
	r = load_segments(mm, file, &l);
	if (r)
		return snprintf(err, errlen, "mapping the segments: error %d", r), r;
	r = setup_stack(mm, &l, file->name, argv, envp, &start->sp);
	if (r)
		return snprintf(err, errlen, "the initial stack: error %d%s", r,
				r == -E2BIG ? " (arguments too long)" : ""),
		       r;
	r = signal_map_trampoline(mm);
	if (r)
		return snprintf(err, errlen, "the sigreturn trampoline: error %d", r), r;
	start->entry = l.eh->entry;
	start->brk = l.hi;
	return 0;
}
