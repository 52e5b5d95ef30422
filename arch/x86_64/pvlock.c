/*
 * pvlock.c (x86_64) - the halt and kick of a lock's slow path
 * (mm/spinlock.h, docs/smp.md "When vCPUs outnumber CPUs") on KVM with
 * KVM_FEATURE_PV_UNHALT: a waiter whose turn is not come executes HLT,
 * so its vCPU thread sleeps in the host and the holder gets the host
 * CPU; the unlocker's KVM_HC_KICK_CPU makes the halted vCPU runnable
 * again. KVM keeps a kick sent to a vCPU that is not halted (pv_unhalted)
 * and ends that vCPU's next HLT with it, whatever the interrupt flag, so
 * a kick that overtakes its HLT is not lost.
 *
 * Elsewhere (QEMU TCG, no hypervisor, a hypervisor that is not KVM or
 * lacks PV unhalt) lock_pv_halt stays clear and waiters spin.
 */
#include <string.h>

#include "kernel.h"
#include "percpu.h"
#include "spinlock.h"

#include <asm/apic.h>
#include <asm/mmu.h>

#define KVM_CPUID_SIGNATURE 0x40000000u
#define KVM_CPUID_FEATURES 0x40000001u
#define KVM_FEATURE_PV_UNHALT (1u << 7)
#define KVM_HC_KICK_CPU 5
#define CPUID_1_ECX_HYPERVISOR (1u << 31)

/* AMD and Hygon take VMMCALL, Intel VMCALL: KVM would emulate the other
 * after a #UD exit, one more exit per kick. */
static bool hypercall_amd;

/* A kick that failed, reported once: the halted CPU then sleeps until
 * an interrupt, which is a hang when none comes. */
static long kick_error;

/* Context: a lock's slow path, lock_pv_halt set. */
void arch_lock_halt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}

/* KVM_HC_KICK_CPU(flags 0, APIC ID of @cpu). Return: 0, or KVM's -errno. */
static long kvm_kick_cpu(unsigned cpu)
{
	unsigned long ret = KVM_HC_KICK_CPU;

	if (hypercall_amd)
		__asm__ volatile("vmmcall"
				 : "+a"(ret)
				 : "b"(0ul), "c"((unsigned long)percpu_area[cpu].arch.apic_id)
				 : "memory");
	else
		__asm__ volatile("vmcall"
				 : "+a"(ret)
				 : "b"(0ul), "c"((unsigned long)percpu_area[cpu].arch.apic_id)
				 : "memory");
	return (long)ret;
}

/* Context: an unlock, lock_pv_halt set; @cpu is halted or about to be. */
void arch_lock_kick(unsigned cpu)
{
	long r = kvm_kick_cpu(cpu);

	if (r && !__atomic_exchange_n(&kick_error, r, __ATOMIC_RELAXED))
		console_printf("pvlock: KVM_HC_KICK_CPU to cpu%u returned %ld\n", cpu, r);
}

/* Is this KVM with PV unhalt? KVM_GET_SUPPORTED_CPUID does not set the
 * hypervisor bit of leaf 1, so a VMM must (ptelab's does, as QEMU). */
static bool kvm_pv_unhalt(void)
{
	uint32_t a, b, c, d, sig[3];

	cpuid(1, &a, &b, &c, &d);
	if (!(c & CPUID_1_ECX_HYPERVISOR))
		return false;
	cpuid(KVM_CPUID_SIGNATURE, &a, &sig[0], &sig[1], &sig[2]);
	if (memcmp(sig, "KVMKVMKVM\0\0\0", 12) || a < KVM_CPUID_FEATURES)
		return false;
	cpuid(KVM_CPUID_FEATURES, &a, &b, &c, &d);
	return (a & KVM_FEATURE_PV_UNHALT) != 0;
}

static bool pv_unhalt;

bool arch_lock_can_halt(void)
{
	return pv_unhalt;
}

/* Context: boot, before a second CPU runs. */
void x86_lock_pv_init(void)
{
	uint32_t a, sig[3];

	cpuid(0, &a, &sig[0], &sig[2], &sig[1]);
	hypercall_amd = !memcmp(sig, "AuthenticAMD", 12) || !memcmp(sig, "HygonGenuine", 12);
	pv_unhalt = kvm_pv_unhalt();
	lock_pv_halt = pv_unhalt;
}
