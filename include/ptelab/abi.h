/*
 * ptelab/abi.h - the contract between the ptelab VMM and its guest kernel.
 *
 * Shared, unchanged, by vmm/ (hosted C) and the guest (freestanding C and
 * assembly). Anything one side relies on about the other is written here
 * and nowhere else. Bump PTELAB_ABI_VERSION on any incompatible change.
 */
#ifndef PTELAB_ABI_H
#define PTELAB_ABI_H

#define PTELAB_ABI_VERSION 2

/* x86_64 I/O ports. The same ports work under ptelab's KVM backend and under
 * QEMU (where PTELAB_PORT_EXIT is an isa-debug-exit device and
 * PTELAB_PORT_STATUS an isa-debugcon writing to a file). The guest writes its
 * status to PTELAB_PORT_STATUS, then to PTELAB_PORT_EXIT: QEMU's exit code
 * (v << 1) | 1 keeps only 7 bits of v, the status byte keeps all 8. */
#define PTELAB_PORT_SERIAL 0x3f8 /* 16550 COM1: THR at +0, LSR at +5 */
#define PTELAB_PORT_EXIT 0xf4	 /* outb(status): the guest is finished */
#define PTELAB_PORT_STATUS 0xe9	 /* outb(status) just before the exit port */

/* --cpus 1..PTELAB_MAX_CPUS: the VMM's vCPUs and the guest's NR_CPUS. */
#define PTELAB_MAX_CPUS 8

/* Guest exit statuses; they are also ptelab's own exit statuses. */
#define PTELAB_EXIT_OK 0	/* everything asked for ran and passed */
#define PTELAB_EXIT_FAIL 1	/* a test or check failed */
#define PTELAB_EXIT_USAGE 2	/* bad command line or input */
#define PTELAB_EXIT_CRASH 3	/* panic, unhandled exception, triple fault */
#define PTELAB_EXIT_NOBACKEND 4 /* VMM only: no usable backend */
#define PTELAB_EXIT_TIMEOUT 124 /* VMM only: --timeout expired */

/*
 * x86_64 guest-physical layout set up by ptelab's KVM backend (QEMU's PVH
 * loader uses its own low-memory layout, which the guest learns from
 * hvm_start_info and never assumes). Everything below PTELAB_BOOT_END is
 * the VMM's; ELF segments must lie at or above it, inside guest RAM.
 */
#define PTELAB_BOOT_START_INFO 0x6000 /* struct hvm_start_info */
#define PTELAB_BOOT_MODLIST 0x6800    /* hvm_modlist_entry[2]: FDT, initramfs */
#define PTELAB_BOOT_MEMMAP 0x7000     /* hvm_memmap_table_entry[] */
#define PTELAB_BOOT_MEMMAP_MAX 64
#define PTELAB_X86_TRAMPOLINE 0x8000 /* the guest's SMP trampoline page: keep free */
#define PTELAB_BOOT_FDT 0x10000	     /* flattened device tree */
#define PTELAB_BOOT_FDT_MAX 0x10000
#define PTELAB_BOOT_END 0x100000 /* first byte ELF segments may use */

/*
 * arm64 guest-physical layout of ptelab's KVM backend. RAM starts at
 * 0x40000000 and the PL011 sits where QEMU -M virt has them, so the guest's
 * load address and early console are the same under both; x0 at entry is
 * the FDT's address (QEMU's ELF loader passes 0 and leaves its tree at the
 * base of RAM, which the guest then uses).
 */
#define PTELAB_ARM64_GICD 0x08000000 /* vGICv3 distributor, 64 KiB (as QEMU virt) */
#define PTELAB_ARM64_GICD_SIZE 0x10000
#define PTELAB_ARM64_GICR 0x080a0000 /* redistributors, 128 KiB per vCPU */
#define PTELAB_ARM64_GICR_STRIDE 0x20000
#define PTELAB_ARM64_UART 0x09000000 /* PL011: DR at +0x00, FR at +0x18 */
#define PTELAB_ARM64_UART_SIZE 0x1000
#define PTELAB_ARM64_EXIT 0x090f0000 /* the exit device, see below */
#define PTELAB_ARM64_EXIT_SIZE 0x1000
#define PTELAB_ARM64_FDT 0x40000000 /* the base of RAM; x0 at entry */
#define PTELAB_ARM64_FDT_MAX 0x10000

/*
 * The arm64 exit device (ptelab's KVM backend only): a 32-bit write of the
 * guest's status (0..255) to its register at offset 0 ends the guest. The
 * tree describes it as /ptelab-exit@<address> (compatible "ptelab,exit",
 * reg); a guest that finds no such node is on QEMU (see below).
 */
#define PTELAB_FDT_EXIT_NODE "ptelab-exit"
#define PTELAB_FDT_EXIT_COMPAT "ptelab,exit"

/*
 * The arm64 exit on QEMU, which has no exit device: the guest writes the
 * line PTELAB_EXIT_LINE "<status>" '\n' (decimal, 0..255) at the start of a
 * console line as the last thing it prints, then calls PSCI SYSTEM_OFF,
 * which makes QEMU exit 0. ptelab takes the status from the last such line
 * and does not show it; QEMU exiting 0 without one is a crash. The status
 * travels on the console because ptelab gives QEMU no channel from the
 * guest to the host beyond it (no semihosting, whose calls run host
 * commands and open host files): docs/isolation.md.
 */
#define PTELAB_EXIT_LINE "ptelab-exit-status "

/*
 * A trace=on record (mm/trace.h): the line PTELAB_TRACE_LINE "<JSON
 * object>" '\n' at the start of a console line. ptelab writes the object
 * to --results (in order with the RESULT lines) and --trace-html, and does
 * not show the line; the human trace line printed with it stays.
 */
#define PTELAB_TRACE_LINE "TRACE "

/* PVH (Xen ELF note type 18) boot ABI, as QEMU and Xen define it. */
#define PVH_ELFNOTE_PHYS32_ENTRY 18
#define PVH_START_MAGIC 0x336ec578u
#define PVH_MEMMAP_TYPE_RAM 1
#define PVH_MEMMAP_TYPE_RESERVED 2

#ifndef __ASSEMBLER__
#include <stdint.h>

struct hvm_start_info {
	uint32_t magic;	  /* PVH_START_MAGIC */
	uint32_t version; /* 1: memmap fields are valid */
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr; /* struct hvm_modlist_entry[nr_modules] */
	uint64_t cmdline_paddr; /* NUL-terminated, 0 if none */
	uint64_t rsdp_paddr;
	uint64_t memmap_paddr; /* struct hvm_memmap_table_entry[] */
	uint32_t memmap_entries;
	uint32_t reserved;
};

struct hvm_modlist_entry {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;
	uint64_t reserved;
};

struct hvm_memmap_table_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};
#endif

/*
 * Device-tree properties ptelab adds beyond the standard ones:
 *   /cpus/timebase-frequency  the TSC (x86_64) frequency in Hz, 64 bits
 *   /chosen/ptelab,abi        PTELAB_ABI_VERSION
 *   /chosen/ptelab,argv       run=exec's argv[1..]: NUL-terminated strings,
 *                             at most PTELAB_ARGV_MAX bytes in all
 *   /chosen/linux,initrd-start, linux,initrd-end  the initramfs (cpio newc)
 *                             as Linux has them (32 or 64 bits), where the
 *                             VMM knows its address (arm64)
 */
#define PTELAB_FDT_ABI_PROP "ptelab,abi"
#define PTELAB_FDT_ARGV_PROP "ptelab,argv"
#define PTELAB_ARGV_MAX 2048

/*
 * The initramfs on x86_64 (PVH): ptelab's KVM backend passes it as PVH
 * module 1 (module 0 is the FDT). QEMU's PVH loader takes one module
 * (-initrd), so there the FDT is padded to a multiple of
 * PTELAB_INITRAMFS_ALIGN and the archive follows it in module 0: a module
 * 0 longer than the padded FDT carries the initramfs in its tail.
 */
#define PTELAB_INITRAMFS_ALIGN 4096
#define PTELAB_INITRAMFS_MAX (512u << 20) /* the VMM refuses a larger one */

/*
 * arm64 under QEMU: the guest reads QEMU's own tree, which has no room for
 * ptelab's /chosen properties, and QEMU loads no -initrd beside an ELF
 * kernel. So ptelab writes a boot record with QEMU's generic loader
 * (-device loader) into the page right below the kernel's load address
 * (free RAM, zero on any other boot) and the archive where the record
 * says: the top of the highest RAM run with room, as the KVM backends
 * place it. The guest checks the magic before anything is allocated.
 */
#define PTELAB_ARM64_BOOTREC_PA 0x401ff000ull
#define PTELAB_ARM64_BOOTREC_MAGIC 0x63657262616c6570ull /* "pelabrec" */
#define PTELAB_ARM64_BOOTREC_VERSION 1

#ifndef __ASSEMBLER__
struct ptelab_arm64_bootrec {
	uint64_t magic;		    /* PTELAB_ARM64_BOOTREC_MAGIC */
	uint32_t version;	    /* PTELAB_ARM64_BOOTREC_VERSION */
	uint32_t argv_len;	    /* bytes of argv in use */
	uint64_t initramfs_pa;	    /* 0 without an initramfs */
	uint64_t initramfs_size;    /* bytes */
	char argv[PTELAB_ARGV_MAX]; /* as /chosen/ptelab,argv */
};
#endif

#endif
