/*
 * kvm_arm64.c - the arm64 half of ptelab's KVM backend (built on arm64
 * hosts): the preferred vCPU target, the device tree and the boot
 * registers, the PL011 and the exit device as trapped MMIO, crash dumps;
 * --initramfs at the top of RAM, named in the tree's /chosen.
 *
 * Every vCPU has PSCI 0.2 in KVM (the tree's /psci, method hvc); vCPUs
 * other than 0 start powered off until the guest's CPU_ON. An in-kernel
 * vGICv3 (the tree's arm,gic-v3 node) carries the guest's wake-up SGIs;
 * the guest polls its console and takes no device interrupt. A WFI with
 * nothing pending blocks inside KVM_RUN.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "ptelab/abi.h"
#include "vmm_fdt.h"
#include "vmm_kvm.h"
#include "vmm_tsc.h"
#include "vmm_util.h"

#define X(v) ((unsigned long long)(v))

#define CORE_REG(field)                                                                            \
	(KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | KVM_REG_ARM_CORE_REG(field))
#define REG_PC CORE_REG(regs.pc)
#define REG_PSTATE CORE_REG(regs.pstate)
#define REG_SP_EL0 CORE_REG(regs.sp)
#define REG_SP_EL1 CORE_REG(sp_el1)
#define REG_ELR_EL1 CORE_REG(elr_el1)
#define REG_SPSR_EL1 CORE_REG(spsr[KVM_SPSR_EL1])
#define REG_X(n) (CORE_REG(regs.regs[0]) + 2 * (n)) /* each Xn is two 32-bit units */

#define REG_SCTLR_EL1 ARM64_SYS_REG(3, 0, 1, 0, 0)
#define REG_TTBR0_EL1 ARM64_SYS_REG(3, 0, 2, 0, 0)
#define REG_TTBR1_EL1 ARM64_SYS_REG(3, 0, 2, 0, 1)
#define REG_TCR_EL1 ARM64_SYS_REG(3, 0, 2, 0, 2)
#define REG_ESR_EL1 ARM64_SYS_REG(3, 0, 5, 2, 0)
#define REG_FAR_EL1 ARM64_SYS_REG(3, 0, 6, 0, 0)
#define REG_VBAR_EL1 ARM64_SYS_REG(3, 0, 12, 0, 0)

/* EL1 on SP_EL1 with D, A, I and F masked: how Linux's boot protocol and
 * kvmtool start a vCPU. */
#define BOOT_PSTATE (PSR_MODE_EL1h | PSR_D_BIT | PSR_A_BIT | PSR_I_BIT | PSR_F_BIT)

#define PL011_DR 0x00
#define PL011_FR 0x18
#define PL011_FR_IDLE 0x90 /* TXFE | RXFE: sent everything, nothing to read */

const enum vmm_arch vmm_kvm_guest_arch = VMM_ARCH_ARM64;

/* Data aborts KVM cannot decode (no instruction syndrome) exit to us as
 * KVM_EXIT_ARM_NISV, reported by name, instead of failing KVM_RUN with
 * ENOSYS. Kernels before 5.5 lack the capability: no matter. */
int vmm_kvm_arch_init_vm(struct vmm_kvm *k)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_ARM_NISV_TO_USER };

	ioctl(k->vm_fd, KVM_ENABLE_CAP, &cap);
	return 0;
}

int vmm_kvm_arch_init_vcpu(struct vmm_kvm_vcpu *v)
{
	struct kvm_vcpu_init init;

	memset(&init, 0, sizeof(init));
	if (ioctl(v->k->vm_fd, KVM_ARM_PREFERRED_TARGET, &init)) {
		vmm_msg("KVM_ARM_PREFERRED_TARGET: %s", strerror(errno));
		return -1;
	}
	init.features[0] |= 1u << KVM_ARM_VCPU_PSCI_0_2;
	if (v->id)
		init.features[0] |= 1u << KVM_ARM_VCPU_POWER_OFF;
	if (ioctl(v->fd, KVM_ARM_VCPU_INIT, &init)) {
		vmm_msg("KVM_ARM_VCPU_INIT of vCPU %d (target %u): %s", v->id, init.target,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* One attribute of the vGIC device. */
static int vgic_attr(int fd, uint32_t group, uint64_t attr, const void *val, const char *what)
{
	struct kvm_device_attr a = { .group = group,
				     .attr = attr,
				     .addr = (uint64_t)(uintptr_t)val };

	if (ioctl(fd, KVM_SET_DEVICE_ATTR, &a)) {
		vmm_msg("vGICv3 %s: %s", what, strerror(errno));
		return -1;
	}
	return 0;
}

/* The in-kernel vGICv3 at the tree's addresses, initialised once every
 * vCPU exists (its redistributors are per vCPU). */
int vmm_kvm_arch_finish_vm(struct vmm_kvm *k)
{
	struct kvm_create_device d = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	uint64_t dist = PTELAB_ARM64_GICD, redist = PTELAB_ARM64_GICR;

	if (ioctl(k->vm_fd, KVM_CREATE_DEVICE, &d)) {
		vmm_msg("KVM_CREATE_DEVICE (vGICv3): %s", strerror(errno));
		return -1;
	}
	k->arch_fd = (int)d.fd;
	if (vgic_attr(k->arch_fd, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_DIST, &dist,
		      "distributor address") ||
	    vgic_attr(k->arch_fd, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_REDIST, &redist,
		      "redistributor address") ||
	    vgic_attr(k->arch_fd, KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT, NULL,
		      "init"))
		return -1;
	return 0;
}

/* The guest's counter runs at the host's CNTFRQ_EL0 (KVM offsets the
 * count, not the rate); EL0 may read it. */
uint64_t vmm_kvm_arch_timebase_hz(struct vmm_kvm *k)
{
	(void)k;
	return vmm_host_counter_hz(); /* CNTFRQ_EL0 */
}

static int set_reg(int fd, uint64_t id, uint64_t v, const char *name)
{
	struct kvm_one_reg r = { .id = id, .addr = (uint64_t)(uintptr_t)&v };

	if (ioctl(fd, KVM_SET_ONE_REG, &r)) {
		vmm_msg("KVM_SET_ONE_REG %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

/* Return: 0 with *@v, or -1 (errno set). */
static int get_reg(struct vmm_kvm_vcpu *vc, uint64_t id, uint64_t *v)
{
	struct kvm_one_reg r = { .id = id, .addr = (uint64_t)(uintptr_t)v };

	return ioctl(vc->fd, KVM_GET_ONE_REG, &r);
}

/*
 * place_initramfs - copy @k's initramfs to vmm_arm64_initramfs_pa(), the
 * range the tree's /chosen/linux,initrd-* name (the guest reserves it
 * before it allocates). Return: 0 (also without one), or -1 (reported)
 * when no RAM run has room.
 */
static int place_initramfs(struct vmm_kvm *k)
{
	const struct vmm_machine *m = k->m;
	uint64_t at = vmm_arm64_initramfs_pa(m);
	void *dst;

	if (!m->initramfs)
		return 0;
	dst = at ? vmm_gpa(&k->mem, at, m->initramfs_size) : NULL;
	if (!dst) {
		vmm_msg("--initramfs: %zu bytes do not fit in a quarter of one RAM run",
			m->initramfs_size);
		return -1;
	}
	memcpy(dst, m->initramfs, m->initramfs_size);
	return 0;
}

/* The initramfs, the tree at the base of RAM, then PC = the entry, X0 = the
 * tree. */
int vmm_kvm_arch_boot(struct vmm_kvm *k, const struct vmm_elf_image *img)
{
	void *fdt = vmm_gpa(&k->mem, PTELAB_ARM64_FDT, PTELAB_ARM64_FDT_MAX);
	int size;

	if (place_initramfs(k))
		return -1;
	if (!fdt) {
		vmm_msg("the device tree slot at 0x%x is not in guest RAM", PTELAB_ARM64_FDT);
		return -1;
	}
	size = vmm_fdt_build(k->m, fdt, PTELAB_ARM64_FDT_MAX);
	if (size < 0) {
		vmm_msg("the device tree does not fit in 0x%x bytes (%d)", PTELAB_ARM64_FDT_MAX,
			size);
		return -1;
	}
	if (set_reg(k->vcpu[0].fd, REG_PSTATE, BOOT_PSTATE, "PSTATE") ||
	    set_reg(k->vcpu[0].fd, REG_PC, img->entry, "PC") ||
	    set_reg(k->vcpu[0].fd, REG_X(0), PTELAB_ARM64_FDT, "X0"))
		return -1;
	return 0;
}

/* The exit device: a write of the guest's status at offset 0. */
static enum vmm_kvm_exit exit_device(struct vmm_kvm_vcpu *vc, uint64_t off, int *status)
{
	struct vmm_kvm *k = vc->k;
	struct kvm_run *run = vc->run;
	uint64_t v = 0;

	if (!run->mmio.is_write || off != 0) {
		if (!run->mmio.is_write)
			memset(run->mmio.data, 0, sizeof(run->mmio.data));
		return VMM_KVM_CONTINUE;
	}
	memcpy(&v, run->mmio.data, run->mmio.len <= 8 ? run->mmio.len : 8);
	if (v > 255) {
		vmm_console_flush(k->con);
		vmm_msg("guest crashed: it wrote exit status %llu (limit 0..255)", X(v));
		return VMM_KVM_CRASH;
	}
	*status = (int)v;
	return VMM_KVM_DONE;
}

/* The PL011, transmit only: DR takes a byte, FR says idle, the rest reads
 * as 0 and ignores writes. */
static enum vmm_kvm_exit pl011(struct vmm_kvm_vcpu *vc, uint64_t off)
{
	struct vmm_kvm *k = vc->k;
	struct kvm_run *run = vc->run;

	if (run->mmio.is_write) {
		if (off == PL011_DR)
			vmm_console_put(k->con, run->mmio.data, 1);
		return VMM_KVM_CONTINUE;
	}
	memset(run->mmio.data, 0, sizeof(run->mmio.data));
	if (off == PL011_FR)
		run->mmio.data[0] = PL011_FR_IDLE;
	return VMM_KVM_CONTINUE;
}

static enum vmm_kvm_exit handle_mmio(struct vmm_kvm_vcpu *vc, int *status)
{
	uint64_t a = vc->run->mmio.phys_addr;

	if (a >= PTELAB_ARM64_UART && a - PTELAB_ARM64_UART < PTELAB_ARM64_UART_SIZE)
		return pl011(vc, a - PTELAB_ARM64_UART);
	if (a >= PTELAB_ARM64_EXIT && a - PTELAB_ARM64_EXIT < PTELAB_ARM64_EXIT_SIZE)
		return exit_device(vc, a - PTELAB_ARM64_EXIT, status);
	return VMM_KVM_UNHANDLED;
}

enum vmm_kvm_exit vmm_kvm_arch_handle_exit(struct vmm_kvm_vcpu *vc, int *status)
{
	struct vmm_kvm *k = vc->k;
	struct kvm_run *run = vc->run;

	if (run->exit_reason == KVM_EXIT_MMIO)
		return handle_mmio(vc, status);
	if (run->exit_reason == KVM_EXIT_ARM_NISV) {
		vmm_console_flush(k->con);
		vmm_msg("guest crashed: KVM_EXIT_ARM_NISV: an access to IPA 0x%llx that KVM cannot "
			"decode (no instruction syndrome; ESR ISS 0x%llx)",
			X(run->arm_nisv.fault_ipa), X(run->arm_nisv.esr_iss));
		vmm_kvm_arch_dump(vc);
		return VMM_KVM_CRASH;
	}
	return VMM_KVM_UNHANDLED;
}

/* The exception class of an ESR by name (those a kernel meets). */
static const char *esr_class(uint64_t esr)
{
	switch ((esr >> 26) & 0x3f) {
	case 0x00:
		return "unknown (an undefined instruction)";
	case 0x01:
		return "WFI/WFE";
	case 0x07:
		return "FP/SIMD access";
	case 0x15:
		return "SVC";
	case 0x16:
		return "HVC";
	case 0x17:
		return "SMC";
	case 0x18:
		return "MSR/MRS";
	case 0x20:
		return "instruction abort from EL0";
	case 0x21:
		return "instruction abort at EL1";
	case 0x22:
		return "PC alignment";
	case 0x24:
		return "data abort from EL0";
	case 0x25:
		return "data abort at EL1";
	case 0x26:
		return "SP alignment";
	case 0x2f:
		return "SError";
	case 0x3c:
		return "BRK";
	}
	return "other";
}

static const char *pstate_mode(uint64_t pstate)
{
	switch (pstate & 0xf) {
	case PSR_MODE_EL0t:
		return "EL0t";
	case PSR_MODE_EL1t:
		return "EL1t";
	case PSR_MODE_EL1h:
		return "EL1h";
	}
	return "EL2+?";
}

/* A register by name into @line (unreadable ones say so). */
static int fmt_reg(struct vmm_kvm_vcpu *k, char *line, size_t size, const char *name, uint64_t id)
{
	uint64_t v;

	if (get_reg(k, id, &v))
		return snprintf(line, size, " %s=?", name);
	return snprintf(line, size, " %s=0x%016llx", name, X(v));
}

static void dump_gprs(struct vmm_kvm_vcpu *k)
{
	char line[160], name[8];

	for (int i = 0; i < 31; i += 4) {
		int n = 0;

		for (int j = i; j < i + 4 && j < 31; j++) {
			snprintf(name, sizeof(name), "X%d", j);
			n += fmt_reg(k, line + n, sizeof(line) - (size_t)n, name, REG_X(j));
		}
		vmm_msg("%s", line + 1);
	}
}

void vmm_kvm_arch_dump(struct vmm_kvm_vcpu *k)
{
	uint64_t pc, pstate, esr, far, elr;
	char line[200];
	int n = 0;

	if (get_reg(k, REG_PC, &pc) || get_reg(k, REG_PSTATE, &pstate) ||
	    get_reg(k, REG_ESR_EL1, &esr) || get_reg(k, REG_FAR_EL1, &far) ||
	    get_reg(k, REG_ELR_EL1, &elr)) {
		vmm_msg("cannot read the vCPU registers: %s", strerror(errno));
		return;
	}
	vmm_msg("PC=0x%016llx PSTATE=0x%llx (%s)", X(pc), X(pstate), pstate_mode(pstate));
	/* The last exception the guest took (it reports those itself while its
	 * vectors work; these matter when they do not). */
	vmm_msg("ESR_EL1=0x%08llx (%s) FAR_EL1=0x%016llx ELR_EL1=0x%016llx", X(esr), esr_class(esr),
		X(far), X(elr));
	n += fmt_reg(k, line + n, sizeof(line) - (size_t)n, "SP_EL0", REG_SP_EL0);
	n += fmt_reg(k, line + n, sizeof(line) - (size_t)n, "SP_EL1", REG_SP_EL1);
	n += fmt_reg(k, line + n, sizeof(line) - (size_t)n, "SPSR_EL1", REG_SPSR_EL1);
	vmm_msg("%s", line + 1);
	n = 0;
	n += fmt_reg(k, line + n, sizeof(line) - (size_t)n, "SCTLR_EL1", REG_SCTLR_EL1);
	n += fmt_reg(k, line + n, sizeof(line) - (size_t)n, "TCR_EL1", REG_TCR_EL1);
	n += fmt_reg(k, line + n, sizeof(line) - (size_t)n, "VBAR_EL1", REG_VBAR_EL1);
	vmm_msg("%s", line + 1);
	n = 0;
	n += fmt_reg(k, line + n, sizeof(line) - (size_t)n, "TTBR0_EL1", REG_TTBR0_EL1);
	n += fmt_reg(k, line + n, sizeof(line) - (size_t)n, "TTBR1_EL1", REG_TTBR1_EL1);
	vmm_msg("%s", line + 1);
	dump_gprs(k);
}

void vmm_kvm_arch_print_layout(struct vmm_kvm *k)
{
	(void)k;
	vmm_msg("layout: boot: FDT 0x%x (max 0x%x, X0), PL011 0x%x, exit device 0x%x",
		PTELAB_ARM64_FDT, PTELAB_ARM64_FDT_MAX, PTELAB_ARM64_UART, PTELAB_ARM64_EXIT);
}
