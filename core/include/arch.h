/*
 * arch.h - the hooks every guest architecture must provide.
 *
 * Declared once here, defined with the same names in arch/<arch>/; the
 * Makefile picks the files. Generic guest code calls nothing else of the
 * architecture. Optional hooks with generic defaults live in mm/ headers.
 */
#ifndef GUEST_ARCH_H
#define GUEST_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include <asm/layout.h> /* PAGE_OFFSET, KERNEL_VBASE, ... per arch */

/* Physical <-> kernel-virtual through the direct map. */
static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(uintptr_t)(pa + PAGE_OFFSET);
}

static inline uint64_t virt_to_phys(const void *va)
{
	uintptr_t v = (uintptr_t)va;

	if (v >= KERNEL_VBASE)
		return v - KERNEL_VBASE + KERNEL_PBASE;
	return v - PAGE_OFFSET;
}

/* A physical range the boot protocol owns (boot info, FDT, modules). */
struct boot_range {
	uint64_t start, size;
	const char *what;
};

#define BOOT_RANGES_MAX 8

/* What the arch boot code found, handed to kmain(). */
struct boot_info {
	const void *fdt; /* kernel-virtual address of the FDT blob, or NULL */
	uint64_t fdt_phys;
	int nr_reserved;
	struct boot_range reserved[BOOT_RANGES_MAX];
	const char *boot_path;	/* e.g. "pvh", "qemu-virt" */
	int current_el;		/* arm64: EL the kernel was entered at; x86: 0 */
	uint64_t entry_counter; /* arch_counter() at the first instruction */
	/* The initramfs (cpio newc) when the boot protocol placed it (x86_64
	 * PVH: ptelab/abi.h); else the FDT's /chosen/linux,initrd-* say. */
	uint64_t initramfs_phys, initramfs_size;
	/* run=exec's argv[1..] when the boot protocol carried it (arm64 QEMU's
	 * boot record, ptelab/abi.h); else /chosen/ptelab,argv. */
	const char *exec_argv;
	uint32_t exec_argv_len;
};

/* Record a physical range as owned by boot (mm_init() reserves every one).
 * Panics when boot_info has no room left. */
void boot_reserve(uint64_t start, uint64_t size, const char *what);

/* Generic entry, called by the arch once the stack, MMU, FP/SIMD and
 * exception vectors are up. Never returns. */
void kmain(struct boot_info *bi) __attribute__((noreturn));

/* Console: write bytes to the boot console (serial). Polled, no locks. */
void arch_console_write(const char *buf, size_t len);

/* Stop the machine with this status (PTELAB_EXIT_*). */
void arch_exit(int status) __attribute__((noreturn));

/* Free-running counter (TSC, CNTVCT_EL0) and its rate when the FDT does
 * not say (0 if the arch cannot tell). */
uint64_t arch_counter(void);
uint64_t arch_counter_freq(void);

/* Name of the architecture ("x86_64", "arm64"). */
extern const char arch_name[];

/* Touch an unmapped kernel address: the exception path must report it
 * and exit with PTELAB_EXIT_CRASH. Used by run=fault. */
void arch_deliberate_fault(void) __attribute__((noreturn));

/* Print how the arch booted (boot path, firmware memory map, entry EL,
 * counter rate): part of run=hello. */
void arch_describe_boot(void);

/* Spin forever with interrupts masked (run=hang, panic's last resort). */
void arch_hang(void) __attribute__((noreturn));

#endif
