/*
 * relax.c (x86_64) - how a CPU waits in a lock (mm/spinlock.h): PAUSE in
 * the spin, and the slow path's halt and kick when the hypervisor is KVM
 * with KVM_FEATURE_PV_UNHALT (ptelab's KVM backend passes KVM's CPUID on;
 * QEMU with KVM offers it too; TCG does not, and the slow path pauses).
 *
 * A halted waiter's vCPU thread sleeps in the host, so the lock holder
 * and the waiter whose turn it is get the host CPUs: with more vCPUs than
 * host CPUs a ticket lock otherwise hands the lock to a waiter that is
 * not running while everyone behind it spins (docs/smp.md, "When vCPUs
 * outnumber CPUs"). KVM_HC_KICK_CPU marks the target runnable even when
 * it halted with interrupts off, and a kick that comes before its HLT
 * makes that HLT return at once, so no wake-up is lost.
 */
#include <string.h>

#include "kernel.h"
#include "percpu.h"
#include "spinlock.h"

#include <asm/mmu.h>

#define KVM_CPUID_SIGNATURE 0x40000000u
#define KVM_CPUID_FEATURES 0x40000001u
#define KVM_FEATURE_PV_UNHALT (1u << 7)
#define KVM_HC_KICK_CPU 5

/* AMD and Hygon take VMMCALL, Intel VMCALL (KVM would patch the other). */
static bool hypercall_amd;

/* PAUSE: tells the core it is in a spin loop (saves power, and avoids
 * the memory-order mis-speculation when the lock is released). */
void arch_cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

/* Context: a lock's slow path; interrupts in any state. */
void arch_lock_wait(const uint16_t *word, uint16_t val)
{
	(void)word;
	(void)val;
	if (lock_pv_kick)
		__asm__ volatile("hlt" ::: "memory");
	else
		arch_cpu_relax();
}

void arch_lock_kick(unsigned cpu)
{
	uint64_t apic = percpu_area[cpu].hwid, ret = KVM_HC_KICK_CPU;

	if (hypercall_amd)
		__asm__ volatile("vmmcall" : "+a"(ret) : "b"(0ul), "c"(apic) : "memory");
	else
		__asm__ volatile("vmcall" : "+a"(ret) : "b"(0ul), "c"(apic) : "memory");
}

/* Is the hypervisor KVM, offering PV unhalt? Then turn the kick on.
 * Context: boot, before a second CPU runs. */
void x86_lock_pv_init(void)
{
	uint32_t a, b, c, d, sig[3];

	cpuid(0, &a, &sig[0], &sig[2], &sig[1]);
	hypercall_amd = !memcmp(sig, "AuthenticAMD", 12) || !memcmp(sig, "HygonGenuine", 12);
	cpuid(1, &a, &b, &c, &d);
	if (!(c & (1u << 31))) /* no hypervisor */
		return;
	cpuid(KVM_CPUID_SIGNATURE, &a, &sig[0], &sig[1], &sig[2]);
	if (memcmp(sig, "KVMKVMKVM\0\0\0", 12) || a < KVM_CPUID_FEATURES)
		return;
	cpuid(KVM_CPUID_FEATURES, &a, &b, &c, &d);
	lock_pv_kick = (a & KVM_FEATURE_PV_UNHALT) != 0;
}
