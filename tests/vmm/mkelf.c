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
 *	exercise the VMM's exit paths, and the hostile ones of
 *	tests/vmm/hostile.sh: OUTDIR/<arch>-<what>.elf, one name a line on
 *	stdout.
 *
 *   mkelf statuses OUTDIR
 *	One guest per exit status 0..255 and kind (x86_64, arm64 on QEMU,
 *	arm64 on ptelab's KVM machine): OUTDIR/<kind>-status-<N>.elf.
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

/*
 * The hostile guests of tests/vmm/hostile.sh: each tries one thing a
 * guest must not get away with. The words of the looping ones come from
 * tests/vmm/hostile_x86.S (as --32) and tests/vmm/hostile_a64.S
 * (aarch64-linux-gnu-as), objcopy -O binary.
 */
/* deep: a RESULT line of 13,000 levels of {"": (65,009 bytes), then exit 0 */
static const uint8_t x86_deep[] = {
	0x66, 0xba, 0xf8, 0x03, 0xbe, 0x3f, 0x00, 0x10, 0x00, 0xb9, 0x07, 0x00, 0x00, 0x00, 0xfc,
	0xf3, 0x6e, 0xbb, 0xc8, 0x32, 0x00, 0x00, 0xbe, 0x46, 0x00, 0x10, 0x00, 0xb9, 0x04, 0x00,
	0x00, 0x00, 0xf3, 0x6e, 0x4b, 0x75, 0xf1, 0xb0, 0x31, 0xee, 0xbb, 0xc8, 0x32, 0x00, 0x00,
	0xb0, 0x7d, 0xee, 0x4b, 0x75, 0xfc, 0xb0, 0x0a, 0xee, 0xb0, 0x00, 0xe6, 0xe9, 0xe6, 0xf4,
	0xf4, 0xeb, 0xfd, 0x52, 0x45, 0x53, 0x55, 0x4c, 0x54, 0x20, 0x7b, 0x22, 0x22, 0x3a,
};
/* flood: rep outsb of 16 MiB to the status port, for ever */
static const uint8_t x86_flood[] = {
	0x66, 0xba, 0xe9, 0x00, 0xbe, 0x00, 0x00, 0x10, 0x00, 0xb9,
	0x00, 0x00, 0x00, 0x01, 0xfc, 0xf3, 0x6e, 0xeb, 0xed,
};
/* garbage: bytes, words and dwords of 0xff.. out and in at every serial port, 0xab to the status port, then exit 0 */
static const uint8_t x86_garbage[] = {
	0x66, 0xba, 0xf8, 0x03, 0xb8, 0xff, 0xff, 0xff, 0xff, 0xee, 0x66, 0xef, 0xef,
	0xec, 0x66, 0xed, 0xed, 0x66, 0x42, 0x66, 0x81, 0xfa, 0x00, 0x04, 0x75, 0xea,
	0xb0, 0xab, 0xe6, 0xe9, 0xb0, 0x00, 0xe6, 0xe9, 0xe6, 0xf4, 0xf4, 0xeb, 0xfd,
};
/* deep, then the status line 0 and PSCI SYSTEM_OFF */
static const uint32_t a64_deep[] = {
	0xd2a12001, 0x100004e3, 0xd28000e4, 0x94000020, 0xd2865905, 0x70000483, 0xd2800084,
	0x9400001c, 0xf10004a5, 0x54ffff81, 0x52800622, 0xb9000022, 0xd2865905, 0x52800fa2,
	0xb9000022, 0xf10004a5, 0x54ffffc1, 0x52800142, 0xb9000022, 0x10000140, 0xd2a12001,
	0x38401402, 0x34000062, 0xb9000022, 0x17fffffd, 0x52800100, 0x72b08000, 0xd4000002,
	0x14000000, 0x6574700a, 0x2d62616c, 0x74697865, 0x6174732d, 0x20737574, 0x00000a30,
	0x38401462, 0xb9000022, 0xf1000484, 0x54ffffa1, 0xd65f03c0, 0x55534552, 0x7b20544c,
	0x003a2222,
};
/* deep, then exit 0 through the exit device */
static const uint32_t a64_kvm_deep[] = {
	0xd2a12001, 0x10000343, 0xd28000e4, 0x94000013, 0xd2865905, 0x700002e3,
	0xd2800084, 0x9400000f, 0xf10004a5, 0x54ffff81, 0x52800622, 0xb9000022,
	0xd2865905, 0x52800fa2, 0xb9000022, 0xf10004a5, 0x54ffffc1, 0x52800142,
	0xb9000022, 0xd2a121e6, 0xb90000df, 0x14000000, 0x38401462, 0xb9000022,
	0xf1000484, 0x54ffffa1, 0xd65f03c0, 0x55534552, 0x7b20544c, 0x003a2222,
};
/* garbage: 0xffffffff stored to and loaded from every PL011 word, the PL011 set back, then the status line 0 and PSCI SYSTEM_OFF */
static const uint32_t a64_garbage[] = {
	0xd2a12001, 0x12800002, 0xd2800003, 0xb8236822, 0xb8636824, 0x91001063,
	0xf140047f, 0x54ffff81, 0xd2a12001, 0x52806022, 0xb9003022, 0x52800e02,
	0xb9002c22, 0xb900383f, 0x10000140, 0xd2a12001, 0x38401402, 0x34000062,
	0xb9000022, 0x17fffffd, 0x52800100, 0x72b08000, 0xd4000002, 0x14000000,
	0x6574700a, 0x2d62616c, 0x74697865, 0x6174732d, 0x20737574, 0x00000a30,
};
/* garbage at every PL011 word and every exit device word but the status, then exit 0 through the exit device */
static const uint32_t a64_kvm_garbage[] = {
	0xd2a12001, 0x12800002, 0xd2800003, 0xb8236822, 0xb8636824, 0x91001063,
	0xf140047f, 0x54ffff81, 0xd2a121e1, 0xd2800083, 0xb8236822, 0xb8636824,
	0x91001063, 0xf140047f, 0x54ffff81, 0xd2a121e6, 0xb90000df, 0x14000000,
};

/* The injection lines: an escape sequence, two strict RESULT lines whose
 * keys and strings a CSV reader or spreadsheet could misread, and four
 * that are not JSON (a raw CR, a byte that is not UTF-8, text after the
 * object). */
static const char inject_msg[] = "\033[31mred\n"
				 "RESULT {\"a\":\"=1+1\",\"b,c\":\"-x\",\"d\":1}\n"
				 "RESULT {\"a\":\"x\ry\"}\n"
				 "RESULT {\"a\":\"\377\"}\n"
				 "RESULT {\"a\":1} x\n"
				 "RESULT not json\n"
				 "RESULT {\"a\":\"q\\\"\",\"b,c\":\"@z\",\"d\":-2}\n";

/* x86_64: write @len bytes of @msg to the serial port, then exit @status
 * (the status port, then the exit port). Return: the code's length. */
static size_t x86_puts_exit(uint8_t *code, const char *msg, size_t len, int status)
{
	static const uint8_t head[] = {
		0x66, 0xba, 0xf8, 0x03,	   /* mov dx, 0x3f8 */
		0xbe, 0,    0,	  0,	0, /* mov esi, msg */
		0xb9, 0,    0,	  0,	0, /* mov ecx, len */
		0xfc, 0xf3, 0x6e,	   /* cld; rep outsb */
		0xb0, 0,    0xe6, 0xe9,	   /* mov al, status; out 0xe9, al */
		0xe6, 0xf4,		   /* out 0xf4, al */
		0xf4, 0xeb, 0xfd,	   /* 1: hlt; jmp 1b */
	};
	uint32_t at = (uint32_t)(ELFB_X86_TEXT + sizeof(head)), n = (uint32_t)len;

	memcpy(code, head, sizeof(head));
	memcpy(code + 5, &at, 4);
	memcpy(code + 10, &n, 4);
	code[18] = (uint8_t)status;
	memcpy(code + sizeof(head), msg, len);
	return sizeof(head) + len;
}

/* arm64: write @msg on the PL011, then exit @status: on QEMU with the
 * status line and PSCI SYSTEM_OFF, with @kvm through ptelab's exit
 * device. Return: the code's length. */
static size_t a64_puts_exit(uint8_t *code, const char *msg, int status, bool kvm)
{
	static const uint32_t qemu[] = { A64_PUTS_AND_POWER_OFF };
	uint32_t words[10] = {
		0x10000140,			    /* adr x0, .+40 (the string after this code) */
		0xd2a12001,			    /* mov x1, #0x09000000 (PL011 DR) */
		0x38401402,			    /* 1: ldrb w2, [x0], #1 */
		0x34000062,			    /* cbz w2, 2f */
		0xb9000022,			    /* str w2, [x1] */
		0x17fffffd,			    /* b 1b */
		0xd2a121e1,			    /* 2: mov x1, #0x090f0000 (the exit device) */
		0x52800000 | (uint32_t)status << 5, /* mov w0, #status */
		0xb9000020,			    /* str w0, [x1] */
		0x14000000,			    /* b . */
	};
	size_t n = strlen(msg);

	memcpy(code, kvm ? words : qemu, sizeof(words));
	memcpy(code + sizeof(words), msg, n);
	n += sizeof(words);
	if (!kvm)
		n += (size_t)sprintf((char *)code + n, PTELAB_EXIT_LINE "%d\n", status);
	code[n++] = 0;
	return n;
}

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
	{ "x86_64-deep", VMM_ARCH_X86_64, x86_deep, sizeof(x86_deep) },
	{ "x86_64-flood", VMM_ARCH_X86_64, x86_flood, sizeof(x86_flood) },
	{ "x86_64-garbage", VMM_ARCH_X86_64, x86_garbage, sizeof(x86_garbage) },
	{ "arm64-deep", VMM_ARCH_ARM64, a64_deep, sizeof(a64_deep) },
	{ "arm64-kvm-deep", VMM_ARCH_ARM64, a64_kvm_deep, sizeof(a64_kvm_deep) },
	{ "arm64-garbage", VMM_ARCH_ARM64, a64_garbage, sizeof(a64_garbage) },
	{ "arm64-kvm-garbage", VMM_ARCH_ARM64, a64_kvm_garbage, sizeof(a64_kvm_garbage) },
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

/* Write one guest image of @arch running @code (@len bytes) as @name. */
static int write_guest(const char *dir, const char *name, enum vmm_arch arch, const void *code,
		       size_t len)
{
	static struct elfb_image img;

	elfb_init(&img, arch, code, len);
	if (write_file(dir, name, &img, sizeof(img)))
		return -1;
	printf("%s\n", name);
	return 0;
}

/* The guests of the table, and the injection guests built from
 * inject_msg (x86_64-inject, arm64-inject, arm64-kvm-inject). */
static int write_guests(const char *dir)
{
	static uint8_t code[ELFB_TEXT_MAX + 64];
	size_t n;

	for (size_t i = 0; i < sizeof(guests) / sizeof(guests[0]); i++)
		if (write_guest(dir, guests[i].name, guests[i].arch, guests[i].code, guests[i].len))
			return -1;
	n = x86_puts_exit(code, inject_msg, strlen(inject_msg), 0);
	if (n > ELFB_TEXT_MAX || write_guest(dir, "x86_64-inject", VMM_ARCH_X86_64, code, n))
		return -1;
	n = a64_puts_exit(code, inject_msg, 0, false);
	if (n > ELFB_TEXT_MAX || write_guest(dir, "arm64-inject", VMM_ARCH_ARM64, code, n))
		return -1;
	n = a64_puts_exit(code, inject_msg, 0, true);
	return n > ELFB_TEXT_MAX || write_guest(dir, "arm64-kvm-inject", VMM_ARCH_ARM64, code, n);
}

/* One guest per exit status 0..255 and kind: x86_64-status-N,
 * arm64-status-N (QEMU) and arm64-kvm-status-N, each exiting N at once. */
static int write_statuses(const char *dir)
{
	static uint8_t code[ELFB_TEXT_MAX + 64];
	char name[64];

	for (int v = 0; v < 256; v++) {
		size_t n = x86_puts_exit(code, "", 0, v);

		snprintf(name, sizeof(name), "x86_64-status-%d", v);
		if (write_guest(dir, name, VMM_ARCH_X86_64, code, n))
			return -1;
		n = a64_puts_exit(code, "", v, false);
		snprintf(name, sizeof(name), "arm64-status-%d", v);
		if (write_guest(dir, name, VMM_ARCH_ARM64, code, n))
			return -1;
		n = a64_puts_exit(code, "", v, true);
		snprintf(name, sizeof(name), "arm64-kvm-status-%d", v);
		if (write_guest(dir, name, VMM_ARCH_ARM64, code, n))
			return -1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: mkelf defects OUTDIR [X86_64_ELF|- [ARM64_ELF|-]]\n"
			"       mkelf guests OUTDIR\n"
			"       mkelf statuses OUTDIR\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct base real[2] = { { NULL, 0 }, { NULL, 0 } };
	int r;

	if (argc >= 3 && strcmp(argv[1], "guests") == 0 && argc == 3)
		return write_guests(argv[2]) ? 1 : 0;
	if (argc == 3 && strcmp(argv[1], "statuses") == 0)
		return write_statuses(argv[2]) ? 1 : 0;
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
