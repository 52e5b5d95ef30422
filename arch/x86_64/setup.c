/*
 * setup.c (x86_64) - from the PVH entry to kmain(): read hvm_start_info,
 * describe what the boot protocol owns, and the simple arch hooks (serial
 * console, exit port, TSC, deliberate fault, hang).
 */
#include <stdio.h>

#include "dt.h"
#include "kernel.h"
#include "ptelab/abi.h"
#include "percpu.h"

#include <asm/io.h>
#include <asm/traps.h>

#define UART_FCR (PTELAB_PORT_SERIAL + 2)
#define UART_LSR (PTELAB_PORT_SERIAL + 5)
#define LSR_THRE 0x20
#define UART_FIFO 16

const char arch_name[] = "x86_64";
extern uint64_t boot_tsc;

static struct boot_info bi;
static const struct hvm_start_info *start_info;

/* Bytes go out 16 at a time (the 16550 FIFO) once the transmitter is
 * empty: one I/O exit per chunk under KVM, no lost bytes under QEMU. */
void arch_console_write(const char *buf, size_t len)
{
	while (len) {
		size_t n = len < UART_FIFO ? len : UART_FIFO;

		while (!(inb(UART_LSR) & LSR_THRE))
			;
		outsb(PTELAB_PORT_SERIAL, buf, n);
		buf += n;
		len -= n;
	}
}

void arch_exit(int status)
{
	outb(PTELAB_PORT_STATUS, (uint8_t)status);
	for (;;)
		outb(PTELAB_PORT_EXIT, (uint8_t)status);
}

uint64_t arch_counter(void)
{
	return rdtsc();
}

/* The FDT carries the TSC rate; the arch has no reliable other source. */
uint64_t arch_counter_freq(void)
{
	return 0;
}

void arch_hang(void)
{
	__asm__ volatile("cli");
	for (;;)
		__asm__ volatile("hlt");
}

void arch_deliberate_fault(void)
{
	/* Canonical, in the user half, never mapped by the kernel. */
	volatile uint64_t *p = (volatile uint64_t *)0x00007ffffffff000ul;

	(void)*p;
	panic("arch_deliberate_fault: the load from %p did not fault", (void *)p);
}

/* The initramfs: module 1 (ptelab's KVM backend), or module 0's tail
 * after the padded FDT (QEMU): ptelab/abi.h. */
static void find_initramfs(const struct hvm_modlist_entry *mod, uint32_t nr)
{
	uint64_t fdt_end;

	if (nr >= 2 && mod[1].size) {
		bi.initramfs_phys = mod[1].paddr;
		bi.initramfs_size = mod[1].size;
		boot_reserve(mod[1].paddr, mod[1].size, "initramfs (PVH module 1)");
		return;
	}
	fdt_end = (dt_be32((const uint8_t *)bi.fdt + 4) + PTELAB_INITRAMFS_ALIGN - 1) &
		  ~(uint64_t)(PTELAB_INITRAMFS_ALIGN - 1);
	if (mod[0].size > fdt_end) {
		bi.initramfs_phys = mod[0].paddr + fdt_end;
		bi.initramfs_size = mod[0].size - fdt_end;
	}
}

/* Module 0 is the FDT (ptelab puts it there; QEMU makes -initrd module 0). */
static void read_start_info(uint32_t phys)
{
	const struct hvm_modlist_entry *mod;

	start_info = phys_to_virt(phys);
	if (start_info->magic != PVH_START_MAGIC) {
		printf("guest: no PVH start info at %#x (magic %#x)\n", phys, start_info->magic);
		arch_exit(PTELAB_EXIT_CRASH);
	}
	/* [0, 1 MiB) - firmware, and QEMU's PVH structures - is reserved by
	 * mm_init() itself; the heap starts above the kernel image. */
	if (start_info->nr_modules < 1)
		return;
	mod = phys_to_virt(start_info->modlist_paddr);
	bi.fdt = phys_to_virt(mod->paddr);
	bi.fdt_phys = mod->paddr;
	boot_reserve(mod->paddr, mod->size, "device tree (PVH module 0)");
	find_initramfs(mod, start_info->nr_modules);
}

void arch_describe_boot(void)
{
	const struct hvm_memmap_table_entry *e = phys_to_virt(start_info->memmap_paddr);

	printf("boot: PVH, start info version %u, %u module(s), FDT at %#llx\n",
	       start_info->version, start_info->nr_modules, (unsigned long long)bi.fdt_phys);
	for (uint32_t i = 0; start_info->version >= 1 && i < start_info->memmap_entries; i++)
		printf("boot: e820 [%#014llx, %#014llx) %s\n", (unsigned long long)e[i].addr,
		       (unsigned long long)(e[i].addr + e[i].size),
		       e[i].type == PVH_MEMMAP_TYPE_RAM ? "ram" : "reserved");
}

void x86_start(uint32_t start_info_phys);
void x86_start(uint32_t start_info_phys)
{
	percpu_area[0].self = &percpu_area[0]; /* before anything asks for its CPU */
	arch_percpu_set(&percpu_area[0]);
	outb(UART_FCR, 0x07); /* enable and clear the FIFOs */
	traps_init();
	bi.boot_path = "pvh";
	bi.entry_counter = boot_tsc;
	boot_info = &bi;
	read_start_info(start_info_phys);
	kmain(&bi);
}
