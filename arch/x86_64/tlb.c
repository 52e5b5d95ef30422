/*
 * tlb.c (x86_64) - TLB shootdown. INVLPG and a CR3 load act on the
 * executing CPU only, so a page-table change that another CPU may have
 * cached must be flushed there too: by IPI, to each other CPU in the
 * mm's cpumask (set while a CPU has the mm loaded, see <asm/mm_context.h>).
 *
 * Each sending CPU owns one request slot (mm, range, outstanding acks):
 * it fills the slot, sets its own bit in each target's flush_pending and
 * sends the IPI; the target's handler takes its pending bits, flushes each
 * request whose mm it has loaded, and acknowledges by decrementing the
 * slot's count. The sender waits for zero with interrupts enabled, so two
 * CPUs flushing at each other both get served.
 *
 * Ordering: the caller's page-table writes come before the full barrier
 * that precedes the cpumask read; the slot and flush_pending are written
 * before the ICR write (apic_send_ipi fences); the handler's flush
 * happens before its release decrement, which the sender's acquire load
 * of zero pairs with. Only after that may the caller free the pages.
 */
#include "kernel.h"
#include "mm_internal.h"
#include "percpu.h"
#include "trace.h"

#include <asm/apic.h>
#include <asm/mmu.h>
#include <asm/traps.h>

struct flush_req {
	struct mm *mm;
	unsigned long start, end;
	volatile unsigned acks; /* targets that have not flushed yet */
};

static struct flush_req flush_req[NR_CPUS]; /* by sending CPU */

void x86_flush_tlb_local(unsigned long start, unsigned long end)
{
	unsigned long first = start & ~(PAGE_SIZE - 1);

	if ((end - first + PAGE_SIZE - 1) / PAGE_SIZE > X86_TLB_FLUSH_CEILING) {
		write_cr3(read_cr3());
		return;
	}
	for (unsigned long a = first; a < end; a += PAGE_SIZE)
		invlpg(a);
}

void x86_flush_tlb_others(struct mm *mm, unsigned long start, unsigned long end)
{
	unsigned self = smp_processor_id();
	struct flush_req *r = &flush_req[self];
	unsigned long mask;

	if (!mm)
		return; /* a test's table outside any mm: no CPU has it loaded */
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the PTE writes before the mask read */
	mask = __atomic_load_n(&mm->context.cpumask, __ATOMIC_RELAXED) & ~(1ul << self);
	if (!mask)
		return;
	r->mm = mm;
	r->start = start;
	r->end = end;
	r->acks = (unsigned)__builtin_popcountl(mask);
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		if (!(mask & (1ul << cpu)))
			continue;
		__atomic_fetch_or(&percpu_area[cpu].arch.flush_pending, 1u << self,
				  __ATOMIC_SEQ_CST);
		apic_send_ipi(percpu_area[cpu].arch.apic_id, X86_IPI_VECTOR);
		count_event(tlb_ipis, 1);
	}
	count_event(tlb_shootdowns, 1);
	if (mm_tracing()) {
		char how[64];

		snprintf(how, sizeof(how), "IPIs to the CPU mask %#lx, then a wait for their acks",
			 mask);
		trace_flush_how(how);
	}
	while (__atomic_load_n(&r->acks, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause" : : : "memory");
}

void x86_ipi_handler(void)
{
	struct percpu *pc = this_cpu();
	uint32_t pending = __atomic_exchange_n(&pc->arch.flush_pending, 0, __ATOMIC_ACQ_REL);

	for (unsigned s = 0; pending; s++, pending >>= 1) {
		struct flush_req *r = &flush_req[s];

		if (!(pending & 1))
			continue;
		/* Switched away meanwhile: the CR3 load dropped the entries. */
		if (r->mm == pc->arch.loaded_mm)
			x86_flush_tlb_local(r->start, r->end);
		__atomic_fetch_sub(&r->acks, 1, __ATOMIC_RELEASE);
	}
	apic_eoi();
}
