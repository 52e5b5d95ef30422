/*
 * mkelf.c - write guest images for tests/vmm/run.sh.
 *
 *   mkelf defects OUTDIR [X86_64_ELF|- [ARM64_ELF|-]]
 *	One file OUTDIR/<name>.elf per defect of tests/host/elf_build.c, each
 *	a valid image with one thing broken. The valid image is the given real
 *	guest kernel of the defect's arch (checked with the VMM's own
 *	validator first) or, for "-" or none, the synthetic one. Prints one
 *	line per defect: NAME<TAB>BASE<TAB>RUN<TAB>SOURCE<TAB>MESSAGE, where
 *	BASE is the arch of the image it breaks, RUN the --arch to run it
 *	with, SOURCE "real" or "synthetic" and MESSAGE a substring of
 *	ptelab's one-line refusal; SOURCE is "n/a" and MESSAGE the reason
 *	when a real image has no place for the defect (no file is written).
 *
 *   mkelf guests OUTDIR
 *	Tiny bootable guests (hand-assembled; they need no guest build) that
 *	exercise the VMM's exit paths: OUTDIR/<arch>-<what>.elf, one name a
 *	line on stdout.
 *
 * Exit status: 0, or 1 with a message on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/elf_build.h"
#include "ptelab/abi.h"
#include "vmm_elf.h"

/* Room past a real image for defects that never grow it. */
#define MAX_IMAGE (64u << 20)

static int write_file(const char *dir, const char *name, const void *p, size_t len)
{
	char path[4096];
	int fd;
	ssize_t n = 0;

	snprintf(path, sizeof(path), "%s/%s.elf", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		n = len ? write(fd, p, len) : 0;
	if (fd < 0 || n != (ssize_t)len || close(fd)) {
		fprintf(stderr, "mkelf: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A real base image of @arch, read from @path and valid for ptelab. */
struct base {
	uint8_t *b;
	size_t len;
};

static int read_base(const char *path, enum vmm_arch arch, struct base *out)
{
	struct vmm_machine m;
	struct vmm_elf_limits lim;
	struct vmm_elf_image img;
	char err[256];
	void *buf;

	out->b = NULL;
	if (!path || strcmp(path, "-") == 0)
		return 0;
	if (vmm_read_file(path, MAX_IMAGE, &buf, &out->len, err, sizeof(err)))
		goto err_msg;
	vmm_machine_init(&m, arch == VMM_ARCH_ARM64 ? VMM_LAYOUT_VIRT : VMM_LAYOUT_FLAT,
			 ELFB_RAM_SIZE, 2, 1, "run=hello");
	lim = (struct vmm_elf_limits){ arch, m.ram, m.nr_ram,
				       arch == VMM_ARCH_ARM64 ? VMM_ARM64_LOAD_MIN
							      : PTELAB_BOOT_END };
	if (vmm_elf_check(buf, out->len, &lim, &img, err, sizeof(err))) {
		free(buf);
		goto err_msg;
	}
	out->b = buf;
	return 0;

err_msg:
	fprintf(stderr, "mkelf: %s is not a valid %s guest: %s\n", path, vmm_arch_name(arch), err);
	return -1;
}

/*
 * The synthetic guests. x86_64 code runs at the PVH entry: 32-bit
 * protected mode, paging off. arm64 code runs at EL1 with the MMU off
 * and exits with the status line and PSCI SYSTEM_OFF on QEMU, through
 * the exit device on ptelab's KVM machine (arm64-kvm-*).
 */
#define X86_EXIT(n) 0xb0, (n), 0xe6, 0xf4 /* mov al, n; out 0xf4, al */
#define X86_HALT 0xf4, 0xeb, 0xfd	  /* 1: hlt; jmp 1b */

static const uint8_t x86_exit0[] = { X86_EXIT(0), X86_HALT };
static const uint8_t x86_exit7[] = { X86_EXIT(7), X86_HALT };
/* Two lines with one rep outsb (KVM passes the VMM many bytes per exit): "hi" and
 * a RESULT line. */
static const uint8_t x86_hello[] = {
	0x66, 0xba, 0xf8, 0x03,	      /* mov dx, 0x3f8 */
	0xbe, 0x18, 0x00, 0x10, 0x00, /* mov esi, msg (0x100018) */
	0xb9, 18,   0x00, 0x00, 0x00, /* mov ecx, 18 */
	0xfc, 0xf3, 0x6e,	      /* cld; rep outsb */
	0xb0, 0x00, 0xe6, 0xf4,	      /* mov al, 0; out 0xf4, al */
	0xf4, 0xeb, 0xfd,	      /* 1: hlt; jmp 1b */
	'h',  'i',  '\n', 'R',	'E',  'S', 'U', 'L', 'T',
	' ',  '{',  '"',  'n',	'"',  ':', '1', '}', '\n',
};
/* cli; hlt with interrupts off: only the timeout ends it */
static const uint8_t x86_halt[] = { 0xfa, X86_HALT };
/* cli; 1: jmp 1b */
static const uint8_t x86_spin[] = { 0xfa, 0xeb, 0xfe };
/* An IDT of limit 0, then #UD: #UD -> #GP -> #DF -> triple fault. */
static const uint8_t x86_triple[] = {
	0x0f, 0x01, 0x1d, 0x10, 0x00, 0x10, 0x00, /* lidt [0x100010] */
	0x0f, 0x0b,				  /* ud2 */
	0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, /* hlt (padding) */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	  /* at 0x100010: limit 0, base 0 */
};
/* A store where there is no RAM and no device (not 0xfee00000: the
 * in-kernel LAPIC answers there, nor the IOAPIC at 0xfec00000). */
static const uint8_t x86_mmio[] = {
	0xc7, 0x05, 0x00, 0x00, 0xd0, 0xfe, 0x01, 0x00, 0x00, 0x00, /* mov [0xfed00000], 1 */
	0xf4, 0xeb, 0xfd,					    /* 1: hlt; jmp 1b */
};
/* Enable SSE, move 5 through xmm0 and exit with it: can this backend run
 * the guest's SSE code (newlib's printf needs it)? */
static const uint8_t x86_sse[] = {
	0x0f, 0x20, 0xe0,	      /* mov eax, cr4 */
	0x0d, 0x00, 0x06, 0x00, 0x00, /* or eax, OSFXSR | OSXMMEXCPT */
	0x0f, 0x22, 0xe0,	      /* mov cr4, eax */
	0x0f, 0x20, 0xc0,	      /* mov eax, cr0 */
	0x25, 0xf3, 0xff, 0xff, 0xff, /* and eax, ~(EM | TS) */
	0x83, 0xc8, 0x22,	      /* or eax, MP | NE */
	0x0f, 0x22, 0xc0,	      /* mov cr0, eax */
	0xb8, 0x05, 0x00, 0x00, 0x00, /* mov eax, 5 */
	0x66, 0x0f, 0x6e, 0xc0,	      /* movd xmm0, eax */
	0x66, 0x0f, 0x7e, 0xc3,	      /* movd ebx, xmm0 */
	0x88, 0xd8, 0xe6, 0xf4,	      /* mov al, bl; out 0xf4, al */
	0xf4, 0xeb, 0xfd,	      /* 1: hlt; jmp 1b */
};
/* An exit status that is not a byte. */
static const uint8_t x86_bigexit[] = {
	0x66, 0xb8, 0x34, 0x12, /* mov ax, 0x1234 */
	0x66, 0xe7, 0xf4,	/* out 0xf4, ax */
	0xf4, 0xeb, 0xfd,	/* 1: hlt; jmp 1b */
};

/* arm64 words (the host is little-endian, like the guest). On QEMU a
 * guest exits by printing the status line (ptelab/abi.h) on the PL011
 * and calling PSCI SYSTEM_OFF through HVC. */
#define A64_PUTS_AND_POWER_OFF                                                                     \
	0x10000140,	    /* adr x0, .+40 (the string after this code) */                        \
		0xd2a12001, /* mov x1, #0x09000000 (PL011 DR) */                                   \
		0x38401402, /* 1: ldrb w2, [x0], #1 */                                             \
		0x34000062, /* cbz w2, 2f */                                                       \
		0xb9000022, /* str w2, [x1] */                                                     \
		0x17fffffd, /* b 1b */                                                             \
		0x52800100, /* 2: mov w0, #0x8 */                                                  \
		0x72b08000, /* movk w0, #0x8400, lsl #16 (PSCI SYSTEM_OFF) */                      \
		0xd4000002, /* hvc #0 */                                                           \
		0x14000000  /* b . */
static const uint32_t a64_exit0[] = {
	A64_PUTS_AND_POWER_OFF, /* "ptelab-exit-status 0\n" */
	0x6c657470,
	0x652d6261,
	0x2d746978,
	0x74617473,
	0x30207375,
	0x0000000a,
};
static const uint32_t a64_exit7[] = {
	A64_PUTS_AND_POWER_OFF, /* "hi\nptelab-exit-status 7\n" */
	0x700a6968,
	0x616c6574,
	0x78652d62,
	0x732d7469,
	0x75746174,
	0x0a372073,
	0x00000000,
};
/* PSCI SYSTEM_OFF without a status line first: a crash, not a pass. */
static const uint32_t a64_poweroff[] = {
	0x52800100, /* mov w0, #0x8 */
	0x72b08000, /* movk w0, #0x8400, lsl #16 */
	0xd4000002, /* hvc #0 */
	0x14000000, /* b . */
};
/* Hostile: semihosting SYS_SYSTEM("touch ptelab-hostile-system"), then
 * SYS_OPEN("ptelab-hostile-open", "w"), then SYS_EXIT(0). With
 * semihosting on, QEMU runs the command on the host, creates the file and
 * exits 0; ptelab gives QEMU no semihosting, so the first HLT is an
 * undefined instruction and the guest never exits. */
static const uint32_t a64_semihost[] = {
	0x100001c1,					       /* adr x1, blk */
	0x10000362,					       /* adr x2, cmd */
	0xf9000022,					       /* str x2, [x1] */
	0x52800240,					       /* mov w0, #0x12 (SYS_SYSTEM) */
	0xd45e0000,					       /* hlt #0xf000 */
	0x100001a1,					       /* adr x1, blk2 */
	0x100003a2,					       /* adr x2, name */
	0xf9000022,					       /* str x2, [x1] */
	0x52800020,					       /* mov w0, #0x1 (SYS_OPEN) */
	0xd45e0000,					       /* hlt #0xf000 */
	0x100001c1,					       /* adr x1, eblk */
	0x52800300,					       /* mov w0, #0x18 (SYS_EXIT) */
	0xd45e0000,					       /* hlt #0xf000 */
	0x14000000,					       /* b . */
	0,	    0,		27,	    0,		       /* blk: {cmd, 27} */
	0,	    0,		4,	    0,		19, 0, /* blk2: {name, mode "w", 19} */
	0x00020026, 0,		0,	    0,		/* eblk: {ADP_Stopped_ApplicationExit, 0} */
	0x63756f74, 0x74702068, 0x62616c65, 0x736f682d, /* cmd: "touch ptelab-hostile-system" */
	0x656c6974, 0x7379732d, 0x006d6574, 0x6c657470, /* name: "ptelab-hostile-open" */
	0x682d6261, 0x6974736f, 0x6f2d656c, 0x006e6570,
};
static const uint32_t a64_spin[] = { 0x14000000 }; /* b . */
/* For ptelab's arm64 KVM machine: its exit device
 * and PL011 of ptelab/abi.h, and a store where there is no device. */
static const uint32_t a64_kvm_exit7[] = {
	0xd2a121e1, /* mov x1, #0x090f0000 (the exit device) */
	0x528000e0, /* mov w0, #7 */
	0xb9000020, /* str w0, [x1] */
	0x14000000, /* b . */
};
static const uint32_t a64_kvm_hello[] = {
	0xd2a12001, /* mov x1, #0x09000000 (PL011 DR) */
	0x52800d00, /* mov w0, #'h' */
	0xb9000020, /* str w0, [x1] */
	0x52800d20, /* mov w0, #'i' */
	0xb9000020, /* str w0, [x1] */
	0x52800140, /* mov w0, #'\n' */
	0xb9000020, /* str w0, [x1] */
	0xd2a121e2, /* mov x2, #0x090f0000 */
	0xb900005f, /* str wzr, [x2] */
	0x14000000, /* b . */
};
static const uint32_t a64_kvm_bigexit[] = {
	0xd2a121e1, /* mov x1, #0x090f0000 */
	0x52824680, /* mov w0, #0x1234 */
	0xb9000020, /* str w0, [x1] */
	0x14000000, /* b . */
};
static const uint32_t a64_kvm_mmio[] = {
	0xd2a14001, /* mov x1, #0x0a000000 */
	0x52800020, /* mov w0, #1 */
	0xb9000020, /* str w0, [x1] */
	0x14000000, /* b . */
};

static const struct guest {
	const char *name;
	enum vmm_arch arch;
	const void *code;
	size_t len;
} guests[] = {
	{ "x86_64-exit0", VMM_ARCH_X86_64, x86_exit0, sizeof(x86_exit0) },
	{ "x86_64-exit7", VMM_ARCH_X86_64, x86_exit7, sizeof(x86_exit7) },
	{ "x86_64-hello", VMM_ARCH_X86_64, x86_hello, sizeof(x86_hello) },
	{ "x86_64-halt", VMM_ARCH_X86_64, x86_halt, sizeof(x86_halt) },
	{ "x86_64-spin", VMM_ARCH_X86_64, x86_spin, sizeof(x86_spin) },
	{ "x86_64-triple", VMM_ARCH_X86_64, x86_triple, sizeof(x86_triple) },
	{ "x86_64-mmio", VMM_ARCH_X86_64, x86_mmio, sizeof(x86_mmio) },
	{ "x86_64-bigexit", VMM_ARCH_X86_64, x86_bigexit, sizeof(x86_bigexit) },
	{ "x86_64-sse", VMM_ARCH_X86_64, x86_sse, sizeof(x86_sse) },
	{ "arm64-exit0", VMM_ARCH_ARM64, a64_exit0, sizeof(a64_exit0) },
	{ "arm64-exit7", VMM_ARCH_ARM64, a64_exit7, sizeof(a64_exit7) },
	{ "arm64-spin", VMM_ARCH_ARM64, a64_spin, sizeof(a64_spin) },
	{ "arm64-poweroff", VMM_ARCH_ARM64, a64_poweroff, sizeof(a64_poweroff) },
	{ "arm64-semihost", VMM_ARCH_ARM64, a64_semihost, sizeof(a64_semihost) },
	{ "arm64-kvm-exit7", VMM_ARCH_ARM64, a64_kvm_exit7, sizeof(a64_kvm_exit7) },
	{ "arm64-kvm-hello", VMM_ARCH_ARM64, a64_kvm_hello, sizeof(a64_kvm_hello) },
	{ "arm64-kvm-bigexit", VMM_ARCH_ARM64, a64_kvm_bigexit, sizeof(a64_kvm_bigexit) },
	{ "arm64-kvm-mmio", VMM_ARCH_ARM64, a64_kvm_mmio, sizeof(a64_kvm_mmio) },
};

/* The valid synthetic image defects start from: it exits 0 if it ever ran. */
static void synthetic(struct elfb_image *img, enum vmm_arch arch)
{
	if (arch == VMM_ARCH_ARM64)
		elfb_init(img, arch, a64_exit0, sizeof(a64_exit0));
	else
		elfb_init(img, arch, x86_exit0, sizeof(x86_exit0));
}

static int defects(const char *dir, const struct base *real)
{
	static struct elfb_image syn;

	for (int i = 0; i < elfb_nr_defects; i++) {
		const struct elfb_defect *d = &elfb_defects[i];
		const struct base *r = &real[d->base];
		size_t len = r->b ? r->len : sizeof(syn);
		uint8_t *b = malloc(len);

		if (!b)
			return -1;
		if (r->b)
			memcpy(b, r->b, len);
		else {
			synthetic(&syn, d->base);
			memcpy(b, &syn, len);
		}
		if (d->apply(b, &len, d->base)) {
			printf("%s\t%s\t%s\tn/a\tthe real %s image has no place for this defect\n",
			       d->name, vmm_arch_name(d->base), vmm_arch_name(d->run),
			       vmm_arch_name(d->base));
		} else {
			if (write_file(dir, d->name, b, len)) {
				free(b);
				return -1;
			}
			printf("%s\t%s\t%s\t%s\t%s\n", d->name, vmm_arch_name(d->base),
			       vmm_arch_name(d->run), r->b ? "real" : "synthetic", d->msg);
		}
		free(b);
	}
	return 0;
}

static int write_guests(const char *dir)
{
	static struct elfb_image img;

	for (size_t i = 0; i < sizeof(guests) / sizeof(guests[0]); i++) {
		elfb_init(&img, guests[i].arch, guests[i].code, guests[i].len);
		if (write_file(dir, guests[i].name, &img, sizeof(img)))
			return -1;
		printf("%s\n", guests[i].name);
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: mkelf defects OUTDIR [X86_64_ELF|- [ARM64_ELF|-]]\n"
			"       mkelf guests OUTDIR\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct base real[2] = { { NULL, 0 }, { NULL, 0 } };
	int r;

	if (argc >= 3 && strcmp(argv[1], "guests") == 0 && argc == 3)
		return write_guests(argv[2]) ? 1 : 0;
	if (argc < 3 || argc > 5 || strcmp(argv[1], "defects") != 0)
		return usage();
	if (read_base(argc > 3 ? argv[3] : NULL, VMM_ARCH_X86_64, &real[VMM_ARCH_X86_64]) ||
	    read_base(argc > 4 ? argv[4] : NULL, VMM_ARCH_ARM64, &real[VMM_ARCH_ARM64]))
		return 1;
	r = defects(argv[2], real);
	free(real[0].b);
	free(real[1].b);
	return r ? 1 : 0;
}
