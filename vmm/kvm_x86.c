/*
 * kvm_x86.c - the x86_64 half of ptelab's KVM backend: CPUID, PVH entry
 * state, hvm_start_info, port I/O (serial and exit port), crash dumps.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "ptelab/abi.h"
#include "vmm_fdt.h"
#include "vmm_kvm.h"
#include "vmm_util.h"

#define X(v) ((unsigned long long)(v))

/* CPUID 0x80000008: 40-bit physical and 48-bit virtual addresses. A small
 * MAXPHYADDR keeps guest-physical addresses well inside any host's; it does
 * not make reserved-bit behaviour host-independent: with EPT or NPT the
 * hardware walks the guest's tables and checks the host's MAXPHYADDR, so
 * PTE bits 40..51 fault only where the host's MAXPHYADDR says so (KVM
 * emulates the guest's value only in some cases, e.g. allow_smaller_maxphyaddr). */
#define CPUID_ADDR_SIZES 0x80000008u
#define GUEST_ADDR_SIZES 0x3028u

#define CPUID_1_ECX_X2APIC (1u << 21)
#define CPUID_1_ECX_HYPERVISOR (1u << 31)
#define CR0_PE (1ULL << 0)
#define CR0_ET (1ULL << 4)
#define CR0_PG (1ULL << 31)
#define EFER_LMA (1ULL << 10)
#define PTE_PRESENT 1ULL
#define PTE_LARGE (1ULL << 7)
#define PTE_ADDR 0x000ffffffffff000ULL

#define SERIAL_LSR (PTELAB_PORT_SERIAL + 5)
#define LSR_THR_EMPTY 0x60 /* THR empty and transmitter idle: always ready */

/*
 * The real-mode TSS (3 pages) and the identity-map page table (1 page)
 * that VMX without unrestricted guest needs to run a guest with paging
 * off; ignored by SVM and by VMX with unrestricted guest (every Intel CPU
 * since Westmere). kvmtool's TSS address, below the 4 GiB boundary.
 */
#define KVM_IDENTITY_MAP_ADDR 0xfffbc000ULL
#define KVM_TSS_ADDR 0xfffbd000ULL
#define KVM_PRIVATE_END 0xfffc0000ULL

const enum vmm_arch vmm_kvm_guest_arch = VMM_ARCH_X86_64;

/* Does any RAM run of @m overlap [start, end)? */
static int ram_overlaps(const struct vmm_machine *m, uint64_t start, uint64_t end)
{
	for (int i = 0; i < m->nr_ram; i++)
		if (m->ram[i].base < end && start < m->ram[i].base + m->ram[i].size)
			return 1;
	return 0;
}

/*
 * vmm_kvm_arch_init_vm - place KVM's private pages where guest RAM is not
 * (they are memslots of their own). A flat RAM of nearly 4 GiB or more
 * covers them: then they are left unset, which only the pre-Westmere
 * hosts above would notice (KVM refuses to enter the vCPU there).
 */
int vmm_kvm_arch_init_vm(struct vmm_kvm *k)
{
	uint64_t id = KVM_IDENTITY_MAP_ADDR;

	if (!k->m)
		return 0;
	/* The in-kernel LAPIC (and the PIC and IOAPIC that come with it):
	 * KVM itself delivers the guest's INIT, STARTUP and fixed IPIs and
	 * keeps the APs waiting for their SIPI; HLT sleeps inside KVM_RUN.
	 * Nothing raises a device interrupt, so no PIT. */
	if (ioctl(k->vm_fd, KVM_CREATE_IRQCHIP, 0)) {
		vmm_msg("KVM_CREATE_IRQCHIP: %s", strerror(errno));
		return -1;
	}
	if (ram_overlaps(k->m, KVM_IDENTITY_MAP_ADDR, KVM_PRIVATE_END))
		return 0;
	if (ioctl(k->vm_fd, KVM_SET_IDENTITY_MAP_ADDR, &id)) {
		vmm_msg("KVM_SET_IDENTITY_MAP_ADDR 0x%llx: %s", X(id), strerror(errno));
		return -1;
	}
	if (ioctl(k->vm_fd, KVM_SET_TSS_ADDR, (unsigned long)KVM_TSS_ADDR)) {
		vmm_msg("KVM_SET_TSS_ADDR 0x%llx: %s", X(KVM_TSS_ADDR), strerror(errno));
		return -1;
	}
	return 0;
}

/* KVM_GET_SUPPORTED_CPUID into a malloc'ed table grown until it fits. */
static struct kvm_cpuid2 *supported_cpuid(int sys_fd)
{
	for (uint32_t n = 64; n <= 4096; n *= 2) {
		struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + n * sizeof(struct kvm_cpuid_entry2));

		if (!c)
			return NULL;
		c->nent = n;
		if (ioctl(sys_fd, KVM_GET_SUPPORTED_CPUID, c) == 0)
			return c;
		free(c);
		if (errno != E2BIG)
			return NULL;
	}
	return NULL;
}

/* The vCPU's APIC ID (= its id, the tree's cpu reg) where CPUID reports
 * it: leaf 1 EBX[31:24], and the x2APIC ID of leaves 0xb and 0x1f. The
 * in-kernel LAPIC emulates x2APIC, so leaf 1 offers it. Leaf 1 also says
 * "hypervisor" (KVM's supported table leaves that bit to the VMM, as
 * QEMU and kvmtool set it): the guest then reads KVM's leaves
 * 0x40000000.. and finds PV unhalt, its lock slow path's kick. */
static void cpuid_set_apic_id(struct kvm_cpuid_entry2 *e, uint32_t id)
{
	if (e->function == 1) {
		e->ebx = (e->ebx & 0x00ffffffu) | id << 24;
		e->ecx |= CPUID_1_ECX_X2APIC | CPUID_1_ECX_HYPERVISOR;
	}
	if (e->function == 0xb || e->function == 0x1f)
		e->edx = id;
}

int vmm_kvm_arch_init_vcpu(struct vmm_kvm_vcpu *v)
{
	struct kvm_cpuid2 *c = supported_cpuid(v->k->sys_fd);

	if (!c) {
		vmm_msg("KVM_GET_SUPPORTED_CPUID: %s", strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; i < c->nent; i++) {
		if (c->entries[i].function == CPUID_ADDR_SIZES)
			c->entries[i].eax = GUEST_ADDR_SIZES;
		cpuid_set_apic_id(&c->entries[i], (uint32_t)v->id);
	}
	if (ioctl(v->fd, KVM_SET_CPUID2, c)) {
		vmm_msg("KVM_SET_CPUID2: %s", strerror(errno));
		free(c);
		return -1;
	}
	free(c);
	return 0;
}

int vmm_kvm_arch_finish_vm(struct vmm_kvm *k)
{
	(void)k;
	return 0;
}

uint64_t vmm_kvm_arch_timebase_hz(struct vmm_kvm *k)
{
	int khz = ioctl(k->vcpu[0].fd, KVM_GET_TSC_KHZ, 0);

	return khz > 0 ? (uint64_t)khz * 1000 : 0;
}

/*
 * boot_memmap - the PVH memory map of @m: [0, PTELAB_BOOT_END) reserved
 * for the VMM, then every RAM run (the first one starting past the
 * reserved part).
 * Return: the number of entries written to @e, or -1 when over @max.
 */
static int boot_memmap(const struct vmm_machine *m, struct hvm_memmap_table_entry *e, int max)
{
	int n = 0;

	if (max < 1)
		return -1;
	e[n++] = (struct hvm_memmap_table_entry){ 0, PTELAB_BOOT_END, PVH_MEMMAP_TYPE_RESERVED, 0 };
	for (int i = 0; i < m->nr_ram; i++) {
		uint64_t base = m->ram[i].base, end = base + m->ram[i].size;

		if (base < PTELAB_BOOT_END)
			base = PTELAB_BOOT_END;
		if (base >= end)
			continue;
		if (n == max)
			return -1;
		e[n++] =
			(struct hvm_memmap_table_entry){ base, end - base, PVH_MEMMAP_TYPE_RAM, 0 };
	}
	return n;
}

/*
 * place_initramfs - copy @m's initramfs to the top of the highest RAM
 * run that holds it with room to spare, as PVH module @mod (ptelab/abi.h).
 * Return: 1 when placed, 0 when there is none, -1 (reported) when it
 * does not fit in a quarter of RAM.
 */
static int place_initramfs(struct vmm_kvm *k, struct hvm_modlist_entry *mod)
{
	const struct vmm_machine *m = k->m;
	uint64_t size = m->initramfs_size, at;
	void *dst;

	if (!m->initramfs)
		return 0;
	for (int i = m->nr_ram - 1; i >= 0; i--) {
		uint64_t base = m->ram[i].base, end = base + m->ram[i].size;

		if (base < PTELAB_BOOT_END)
			base = PTELAB_BOOT_END;
		if (base >= end || end - base < 4 * size)
			continue;
		at = (end - size) & ~(uint64_t)(PTELAB_INITRAMFS_ALIGN - 1);
		dst = vmm_gpa(&k->mem, at, size);
		if (!dst)
			continue;
		memcpy(dst, m->initramfs, size);
		*mod = (struct hvm_modlist_entry){ .paddr = at, .size = size };
		return 1;
	}
	vmm_msg("--initramfs: %llu bytes do not fit in a quarter of one RAM run",
		(unsigned long long)size);
	return -1;
}

/* The FDT, its module entry, the memory map and hvm_start_info. */
static int write_boot_info(struct vmm_kvm *k)
{
	struct hvm_start_info *si = vmm_gpa(&k->mem, PTELAB_BOOT_START_INFO, sizeof(*si));
	struct hvm_modlist_entry *mod = vmm_gpa(&k->mem, PTELAB_BOOT_MODLIST, 2 * sizeof(*mod));
	struct hvm_memmap_table_entry *mm =
		vmm_gpa(&k->mem, PTELAB_BOOT_MEMMAP, PTELAB_BOOT_MEMMAP_MAX * sizeof(*mm));
	void *fdt = vmm_gpa(&k->mem, PTELAB_BOOT_FDT, PTELAB_BOOT_FDT_MAX);
	int fdt_size, nr_mm, nr_initramfs;

	if (!si || !mod || !mm || !fdt) {
		vmm_msg("the boot structures below 0x%x are not in guest RAM", PTELAB_BOOT_END);
		return -1;
	}
	fdt_size = vmm_fdt_build(k->m, fdt, PTELAB_BOOT_FDT_MAX);
	nr_mm = boot_memmap(k->m, mm, PTELAB_BOOT_MEMMAP_MAX);
	if (fdt_size < 0 || nr_mm < 0) {
		vmm_msg("the device tree (%d) or memory map does not fit", fdt_size);
		return -1;
	}
	*mod = (struct hvm_modlist_entry){ .paddr = PTELAB_BOOT_FDT, .size = (uint64_t)fdt_size };
	nr_initramfs = place_initramfs(k, &mod[1]);
	if (nr_initramfs < 0)
		return -1;
	*si = (struct hvm_start_info){
		.magic = PVH_START_MAGIC,
		.version = 1,
		.nr_modules = 1 + (uint32_t)nr_initramfs,
		.modlist_paddr = PTELAB_BOOT_MODLIST,
		.memmap_paddr = PTELAB_BOOT_MEMMAP,
		.memmap_entries = (uint32_t)nr_mm,
	};
	return 0;
}

/* A flat 4 GiB, 32-bit, ring-0 segment of @type (0xb code, 0x3 data). */
static struct kvm_segment flat_segment(uint16_t selector, uint8_t type)
{
	return (struct kvm_segment){ .base = 0,
				     .limit = 0xffffffff,
				     .selector = selector,
				     .type = type,
				     .present = 1,
				     .s = 1,
				     .db = 1,
				     .g = 1 };
}

/*
 * set_pvh_state - the PVH entry state QEMU and Xen give: 32-bit protected
 * mode, paging off, flat CS and data segments, a busy 32-bit TSS (so VMX
 * entry checks pass), CR0 = PE|ET, CR4 = EFER = 0, RFLAGS = 2,
 * EIP = @entry, EBX = the hvm_start_info address.
 */
static int set_pvh_state(int fd, uint64_t entry)
{
	struct kvm_sregs s;
	struct kvm_regs r = { .rflags = 2, .rip = entry, .rbx = PTELAB_BOOT_START_INFO };

	if (ioctl(fd, KVM_GET_SREGS, &s)) {
		vmm_msg("KVM_GET_SREGS: %s", strerror(errno));
		return -1;
	}
	s.cs = flat_segment(0x10, 0xb);
	s.ds = s.es = s.fs = s.gs = s.ss = flat_segment(0x18, 0x3);
	s.tr = (struct kvm_segment){ .selector = 0x20, .limit = 0x67, .type = 0xb, .present = 1 };
	s.ldt = (struct kvm_segment){ .limit = 0xffff, .type = 0x2, .present = 1 };
	s.gdt = (struct kvm_dtable){ .base = 0, .limit = 0xffff };
	s.idt = (struct kvm_dtable){ .base = 0, .limit = 0xffff };
	s.cr0 = CR0_PE | CR0_ET;
	s.cr2 = s.cr3 = s.cr4 = s.efer = 0;
	if (ioctl(fd, KVM_SET_SREGS, &s)) {
		vmm_msg("KVM_SET_SREGS: %s", strerror(errno));
		return -1;
	}
	if (ioctl(fd, KVM_SET_REGS, &r)) {
		vmm_msg("KVM_SET_REGS: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int vmm_kvm_arch_boot(struct vmm_kvm *k, const struct vmm_elf_image *img)
{
	if (write_boot_info(k))
		return -1;
	return set_pvh_state(k->vcpu[0].fd, img->entry);
}

/* The byte an IN from @port reads: a ready, empty UART; nothing elsewhere. */
static uint8_t port_in_byte(uint16_t port)
{
	if (port == SERIAL_LSR)
		return LSR_THR_EMPTY;
	if (port >= PTELAB_PORT_SERIAL && port < PTELAB_PORT_SERIAL + 8)
		return 0;
	return 0xff;
}

/* The exit port: the guest's status in the first 1, 2 or 4 byte unit. */
static enum vmm_kvm_exit exit_port(struct vmm_kvm *k, const uint8_t *data, uint8_t size,
				   int *status)
{
	uint32_t v = 0;

	memcpy(&v, data, size <= 4 ? size : 4);
	if (v > 255) {
		vmm_console_flush(k->con);
		vmm_msg("guest crashed: it wrote exit status %u (limit 0..255)", v);
		return VMM_KVM_CRASH;
	}
	*status = (int)v;
	return VMM_KVM_DONE;
}

static enum vmm_kvm_exit handle_io(struct vmm_kvm_vcpu *v, int *status)
{
	struct vmm_kvm *k = v->k;
	struct kvm_run *run = v->run;
	uint64_t unit = run->io.size, bytes = unit * run->io.count;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;

	if (unit == 0 || run->io.data_offset > k->run_size ||
	    bytes > k->run_size - run->io.data_offset) {
		vmm_msg("KVM reported port I/O outside kvm_run (offset 0x%llx, %llu bytes)",
			X(run->io.data_offset), X(bytes));
		return VMM_KVM_CRASH;
	}
	if (run->io.direction == KVM_EXIT_IO_IN) {
		for (uint64_t i = 0; i < bytes; i++)
			data[i] = port_in_byte((uint16_t)(run->io.port + i % unit));
		return VMM_KVM_CONTINUE;
	}
	if (run->io.port == PTELAB_PORT_EXIT)
		return exit_port(k, data, run->io.size, status);
	if (run->io.port == PTELAB_PORT_SERIAL) {
		if (unit == 1) /* rep outsb: count bytes at once */
			vmm_console_put(k->con, data, bytes);
		else /* the THR takes the low byte of each wider write */
			for (uint64_t i = 0; i < bytes; i += unit)
				vmm_console_put(k->con, data + i, 1);
	}
	return VMM_KVM_CONTINUE;
}

enum vmm_kvm_exit vmm_kvm_arch_handle_exit(struct vmm_kvm_vcpu *v, int *status)
{
	if (v->run->exit_reason == KVM_EXIT_IO)
		return handle_io(v, status);
	/* With the in-kernel irqchip HLT sleeps inside KVM_RUN; an exit means
	 * KVM gave it to us anyway: nothing here would ever wake the vCPU. */
	if (v->run->exit_reason == KVM_EXIT_HLT)
		return VMM_KVM_HALTED;
	return VMM_KVM_UNHANDLED;
}

/*
 * print_walk - the 4-level page walk of @va from @cr3, through vmm_gpa(),
 * as one line: each entry read until a leaf, a non-present entry or a
 * table outside guest RAM.
 */
static void print_walk(struct vmm_kvm *k, uint64_t cr3, uint64_t va, const char *what)
{
	static const char *const level[] = { "PML4E", "PDPTE", "PDE", "PTE" };
	uint64_t table = cr3 & PTE_ADDR;
	char line[320];
	int n = snprintf(line, sizeof(line), "walk %s 0x%llx:", what, X(va));

	for (int l = 0; l < 4 && n < (int)sizeof(line); l++) {
		uint64_t gpa = table + ((va >> (39 - 9 * l)) & 511) * 8, e;
		const void *p = vmm_gpa(&k->mem, gpa, sizeof(e));

		if (!p) {
			n += snprintf(line + n, sizeof(line) - (size_t)n,
				      " %s at 0x%llx not in RAM", level[l], X(gpa));
			break;
		}
		memcpy(&e, p, sizeof(e));
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %s=0x%llx", level[l], X(e));
		if (!(e & PTE_PRESENT)) {
			n += snprintf(line + n, sizeof(line) - (size_t)n, " (not present)");
			break;
		}
		if ((l == 1 || l == 2) && (e & PTE_LARGE))
			break;
		table = e & PTE_ADDR;
	}
	vmm_msg("%s", line);
}

void vmm_kvm_arch_dump(struct vmm_kvm_vcpu *v)
{
	struct vmm_kvm *k = v->k;
	struct kvm_regs r;
	struct kvm_sregs s;

	if (ioctl(v->fd, KVM_GET_REGS, &r) || ioctl(v->fd, KVM_GET_SREGS, &s)) {
		vmm_msg("cannot read the vCPU registers: %s", strerror(errno));
		return;
	}
	vmm_msg("RIP=0x%016llx RSP=0x%016llx RFLAGS=0x%llx CS=0x%x (%s)", X(r.rip), X(r.rsp),
		X(r.rflags), s.cs.selector,
		s.cs.l	  ? "64-bit"
		: s.cs.db ? "32-bit"
			  : "16-bit");
	vmm_msg("CR0=0x%llx CR2=0x%llx CR3=0x%llx CR4=0x%llx EFER=0x%llx", X(s.cr0), X(s.cr2),
		X(s.cr3), X(s.cr4), X(s.efer));
	vmm_msg("RAX=0x%016llx RBX=0x%016llx RCX=0x%016llx RDX=0x%016llx", X(r.rax), X(r.rbx),
		X(r.rcx), X(r.rdx));
	vmm_msg("RSI=0x%016llx RDI=0x%016llx RBP=0x%016llx R8 =0x%016llx", X(r.rsi), X(r.rdi),
		X(r.rbp), X(r.r8));
	vmm_msg("R9 =0x%016llx R10=0x%016llx R11=0x%016llx R12=0x%016llx", X(r.r9), X(r.r10),
		X(r.r11), X(r.r12));
	vmm_msg("R13=0x%016llx R14=0x%016llx R15=0x%016llx", X(r.r13), X(r.r14), X(r.r15));
	if ((s.cr0 & CR0_PG) && (s.efer & EFER_LMA)) {
		print_walk(k, s.cr3, r.rip, "RIP");
		if (s.cr2)
			print_walk(k, s.cr3, s.cr2, "CR2");
	}
}

void vmm_kvm_arch_print_layout(struct vmm_kvm *k)
{
	(void)k;
	vmm_msg("layout: boot: hvm_start_info 0x%x, modlist 0x%x, memmap 0x%x, FDT 0x%x "
		"(max 0x%x), reserved [0, 0x%x)",
		PTELAB_BOOT_START_INFO, PTELAB_BOOT_MODLIST, PTELAB_BOOT_MEMMAP, PTELAB_BOOT_FDT,
		PTELAB_BOOT_FDT_MAX, PTELAB_BOOT_END);
}
