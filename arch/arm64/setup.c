/*
 * setup.c (arm64) - from boot.S to kmain(): find QEMU's device tree, fill
 * boot_info, and the hooks that describe the machine (name, counter, how
 * it booted).
 *
 * QEMU -M virt loads an ELF kernel without the Linux boot protocol: x0 is
 * 0 and the DTB is at the start of RAM (VIRT_DTB_PBASE); a loader that
 * passes the DTB in x0 (the Linux protocol, ptelab's KVM backend) is
 * honoured too. The tree also says how to exit: ptelab's KVM machine has
 * an exit device (ptelab/abi.h), QEMU's has none (semihosting then).
 */
#include <stdio.h>

#include "dt.h"
#include "kernel.h"
#include "machine.h"
#include "percpu.h"
#include "ptelab/abi.h"

#include <asm/mmu.h>
#include <asm/psci.h>
#include <asm/traps.h>

const char arch_name[] = "arm64";

static struct boot_info bi;
static uint64_t boot_x0;

uint64_t arch_counter(void)
{
	isb(); /* do not let the read move before earlier instructions */
	return read_sysreg(cntvct_el0);
}

/* CNTFRQ_EL0 as the firmware (QEMU) set it; bits 63:32 are RES0. */
uint64_t arch_counter_freq(void)
{
	return read_sysreg(cntfrq_el0) & 0xffffffffu;
}

/* The DTB from x0 or at VIRT_DTB_PBASE; reserved by its header's size.
 * Without a valid one bi.fdt stays NULL and kmain() reports it. */
static void find_fdt(uint64_t x0)
{
	uint64_t pa = x0 ? x0 : VIRT_DTB_PBASE;
	uint32_t size;

	/* RAM starts at VIRT_DTB_PBASE on -M virt; below it are devices. */
	if (pa < VIRT_DTB_PBASE || pa >= BOOT_MAP_SIZE || (pa & 7)) {
		console_printf("guest: arm64: x0 %#llx is not a DTB address in RAM\n",
			       (unsigned long long)pa);
		return;
	}
	size = dt_total_size(phys_to_virt(pa));
	if (!size || pa + size > BOOT_MAP_SIZE) {
		console_printf("guest: arm64: no FDT at %#llx (%s)\n", (unsigned long long)pa,
			       x0 ? "from x0" : "where QEMU puts it");
		return;
	}
	bi.fdt = phys_to_virt(pa);
	bi.fdt_phys = pa;
	boot_reserve(pa, size, x0 ? "device tree (x0)" : "device tree (QEMU)");
}

/* The tree as read before kmain() (which parses it again and reports its
 * errors): only the ways out and the initramfs matter here. */
static struct machine early;

/*
 * find_exit_device - set arm64_exit_pa and the PSCI conduit from the tree,
 * before anything can exit.
 */
static void find_exit_device(void)
{
	char err[8];

	if (bi.fdt &&
	    machine_from_fdt(bi.fdt, dt_total_size(bi.fdt), &early, err, sizeof(err)) == 0)
		arm64_exit_pa = early.exit_mmio;
	arm64_psci_set_conduit(bi.current_el, early.psci_method);
}

/*
 * find_fdt_initrd - the initramfs the tree's /chosen/linux,initrd-* name
 * (ptelab's KVM backend), reserved before anything is allocated. A boot
 * record (QEMU) already set one: that one stands.
 */
static void find_fdt_initrd(void)
{
	if (bi.initramfs_size || early.initrd_end <= early.initrd_start)
		return;
	bi.initramfs_phys = early.initrd_start;
	bi.initramfs_size = early.initrd_end - early.initrd_start;
	boot_reserve(bi.initramfs_phys, bi.initramfs_size, "initramfs (FDT /chosen)");
}

/*
 * find_boot_record - ptelab's record below the kernel (QEMU's loader put
 * it there, ptelab/abi.h): the initramfs and run=exec's arguments, which
 * QEMU's own tree cannot carry. Reserved before anything is allocated.
 * An argv that does not end in a NUL is ignored, as in the tree.
 */
static void find_boot_record(void)
{
	const struct ptelab_arm64_bootrec *r = phys_to_virt(PTELAB_ARM64_BOOTREC_PA);

	if (r->magic != PTELAB_ARM64_BOOTREC_MAGIC)
		return;
	boot_reserve(PTELAB_ARM64_BOOTREC_PA, sizeof(*r), "boot record (QEMU loader)");
	if (r->version != PTELAB_ARM64_BOOTREC_VERSION) {
		console_printf("guest: arm64: boot record version %u, expected %u: ignored\n",
			       r->version, PTELAB_ARM64_BOOTREC_VERSION);
		return;
	}
	if (r->initramfs_size) {
		bi.initramfs_phys = r->initramfs_pa;
		bi.initramfs_size = r->initramfs_size;
		boot_reserve(r->initramfs_pa, r->initramfs_size, "initramfs (QEMU loader)");
	}
	if (r->argv_len && r->argv_len <= sizeof(r->argv) && !r->argv[r->argv_len - 1]) {
		bi.exec_argv = r->argv;
		bi.exec_argv_len = r->argv_len;
	}
}

extern uint64_t arm64_boot_stack[], arm64_boot_stack_top[];

void arm64_start(uint64_t x0, uint64_t entry_el, uint64_t entry_counter);
void arm64_start(uint64_t x0, uint64_t entry_el, uint64_t entry_counter)
{
	struct percpu *pc = &percpu_area[0]; /* boot.S set TPIDR_EL1 to it */

	pc->self = pc;
	pc->stack = arm64_boot_stack;
	pc->stack_size = (unsigned long)((char *)arm64_boot_stack_top - (char *)arm64_boot_stack);
	arm64_stack_init(pc);
	boot_x0 = x0;
	bi.current_el = (int)entry_el;
	bi.entry_counter = entry_counter;
	boot_info = &bi;
	find_fdt(x0);
	find_boot_record();
	find_exit_device();
	find_fdt_initrd();
	bi.boot_path = arm64_exit_pa ? "ptelab-kvm" : "qemu-virt";
	kmain(&bi);
}

void arch_describe_boot(void)
{
	uint64_t hz = arch_counter_freq();

	printf("boot: %s, entered at EL%d%s, kernel at EL1 on SP_EL0\n", bi.boot_path,
	       bi.current_el, bi.current_el == 2 ? " (dropped to EL1)" : "");
	printf("boot: FDT at %#llx (%s), %u bytes; exit through %s\n",
	       (unsigned long long)bi.fdt_phys, boot_x0 ? "from x0" : "QEMU's, x0 was 0",
	       dt_total_size(bi.fdt),
	       arm64_exit_pa ? "ptelab's exit device" : "a status line and PSCI SYSTEM_OFF");
	printf("boot: counter CNTVCT_EL0 at %llu.%03llu MHz (CNTFRQ_EL0), MIDR_EL1 %#llx\n",
	       (unsigned long long)(hz / 1000000), (unsigned long long)(hz / 1000 % 1000),
	       (unsigned long long)read_sysreg(midr_el1));
}
