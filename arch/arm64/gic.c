/*
 * gic.c (arm64) - just enough GICv3 for wake-up IPIs: SGI 0, group 1,
 * through the distributor and redistributors the tree names (QEMU virt
 * with gic-version=3, ptelab's in-kernel vGICv3). A CPU sleeping in WFI
 * wakes when an SGI is pending for it even with PSTATE.I set, so the
 * kernel keeps IRQs masked and never takes the interrupt: the woken CPU
 * acknowledges it through ICC_IAR1_EL1 and ends it through ICC_EOIR1_EL1.
 * The scheduler's tick (tick.c) adds one PPI, the virtual timer's, taken
 * only at EL0, where IRQs are unmasked; a level-sensitive source must be
 * quiet before its end (tick.c), so acknowledging and ending are two calls.
 */
#include "kernel.h"
#include "percpu.h"

#include <asm/mmu.h>
#include <asm/sysreg.h>

#define GICD_CTLR 0x0
#define GICD_CTLR_RWP (1u << 31)
#define GICD_CTLR_ARE (1u << 4)
#define GICD_CTLR_GRP1 (1u << 1) /* EnableGrp1 (one security state, as here) */
#define GICR_TYPER 0x8
#define GICR_TYPER_LAST (1ull << 4)
#define GICR_WAKER 0x14
#define GICR_WAKER_SLEEP (1u << 1)
#define GICR_WAKER_ASLEEP (1u << 2)
#define GICR_FRAME 0x20000 /* RD_base + SGI_base, 64 KiB each */
#define GICR_SGI 0x10000
#define GICR_IGROUPR0 0x80
#define GICR_ISENABLER0 0x100
#define WAKE_SGI 0
#define SPURIOUS_INTID 1020
#define GIC_TIMEOUT_NS 100000000ull

static volatile uint32_t *mmio32(uint64_t pa)
{
	return (volatile uint32_t *)phys_to_virt(pa);
}

/* MPIDR affinity as GICR_TYPER[63:32] and ICC_SGI1R_EL1 spell it. */
static uint32_t aff_packed(uint64_t mpidr)
{
	return (uint32_t)((mpidr & 0xffffff) | ((mpidr >> 32) & 0xff) << 24);
}

static void wait_clear(volatile uint32_t *reg, uint32_t bit, const char *what)
{
	uint64_t t0 = time_ns();

	while (*reg & bit)
		if (time_ns() - t0 > GIC_TIMEOUT_NS)
			panic("gic: %s did not finish (register %#x)", what, *reg);
}

/* Find this CPU's redistributor frame by its affinity. */
static uint64_t find_rd(uint64_t mpidr)
{
	uint64_t rd = machine.gicr_base;

	for (int i = 0; i < NR_CPUS * 4; i++, rd += GICR_FRAME) {
		uint64_t typer = *(volatile uint64_t *)phys_to_virt(rd + GICR_TYPER);

		if ((uint32_t)(typer >> 32) == aff_packed(mpidr))
			return rd;
		if (typer & GICR_TYPER_LAST)
			break;
	}
	panic("gic: no redistributor for MPIDR %#llx below %#llx", (unsigned long long)mpidr,
	      (unsigned long long)machine.gicr_base);
}

void arm64_gic_dist_init(void)
{
	volatile uint32_t *ctlr = mmio32(machine.gicd_base + GICD_CTLR);

	if (!machine.gicd_base || !machine.gicr_base)
		panic("gic: %d CPUs but no arm,gic-v3 node in the tree (QEMU needs "
		      "gic-version=3): no way to wake a CPU",
		      machine.nr_cpus);
	*ctlr = GICD_CTLR_ARE | GICD_CTLR_GRP1;
	wait_clear(ctlr, GICD_CTLR_RWP, "GICD_CTLR write");
}

void arm64_gic_cpu_init(void)
{
	struct percpu *pc = this_cpu();
	uint64_t rd = find_rd(read_sysreg(mpidr_el1));

	pc->arch.gicr_rd = rd;
	*mmio32(rd + GICR_WAKER) &= ~GICR_WAKER_SLEEP;
	wait_clear(mmio32(rd + GICR_WAKER), GICR_WAKER_ASLEEP, "redistributor wake-up");
	*mmio32(rd + GICR_SGI + GICR_IGROUPR0) |= 1u << WAKE_SGI;
	*mmio32(rd + GICR_SGI + GICR_ISENABLER0) = 1u << WAKE_SGI;
	write_sysreg_s(read_sysreg_s(ICC_SRE_EL1) | ICC_SRE_SRE, ICC_SRE_EL1);
	isb();
	write_sysreg_s(0xff, ICC_PMR_EL1);
	write_sysreg_s(1, ICC_IGRPEN1_EL1);
	isb();
}

void arm64_gic_send_wake(uint64_t mpidr)
{
	uint64_t v = (mpidr >> 8 & 0xff) << 16 | (mpidr >> 16 & 0xff) << 32 |
		     (mpidr >> 32 & 0xff) << 48 | (uint64_t)WAKE_SGI << 24 | 1ull << (mpidr & 0xf);

	dsb(ishst); /* the mailbox before the SGI */
	write_sysreg_s(v, ICC_SGI1R_EL1);
	isb();
}

uint64_t arm64_gic_ack(void)
{
	return read_sysreg_s(ICC_IAR1_EL1);
}

void arm64_gic_eoi(uint64_t intid)
{
	if (intid < SPURIOUS_INTID)
		write_sysreg_s(intid, ICC_EOIR1_EL1);
}

void arm64_gic_enable_ppi(unsigned intid)
{
	uint64_t rd = this_cpu()->arch.gicr_rd;

	*mmio32(rd + GICR_SGI + GICR_IGROUPR0) |= 1u << intid;
	*mmio32(rd + GICR_SGI + GICR_ISENABLER0) = 1u << intid;
}
