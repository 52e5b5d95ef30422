/*
 * traps.c (x86_64) - GDT with a TSS, the IDT, and the C side of exception
 * entry: page faults go to mm/ through arch_handle_user_fault(); anything
 * else is reported (vector by name, error code, RIP, CR2, registers) and
 * stops the guest with PTELAB_EXIT_CRASH.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "ptelab/abi.h"
#include "percpu.h"
#include "user_arch.h"

#include <asm/apic.h>
#include <asm/io.h>
#include <asm/traps.h>

#define NR_VECTORS 32 /* the CPU's exceptions */
#define NR_IDT 256    /* and the interrupt vectors above them */
/* null, kernel code and data, user data and code (in the order SYSRET
 * needs: arch/x86_64/user.c), the TSS's two */
#define GDT_ENTRIES 7
#define KERNEL_CS 0x08
#define USER_DS_DESC 0x00cff2000000ffffull /* 0x18: DPL 3 data */
#define USER_CS_DESC 0x00affa000000ffffull /* 0x20: DPL 3 64-bit code */
#define TSS_SEL 0x28
#define IST_STACK_SIZE 8192
#define GATE_INTR 0x8e00 /* present, DPL 0, 64-bit interrupt gate */
#define GATE_DPL3 0x6000 /* ring 3 may raise it by INT n (int3, into), as on Linux */

struct idt_gate {
	uint16_t off0, sel, flags, off1;
	uint32_t off2, zero;
};

struct tss {
	uint32_t rsv0;
	uint64_t rsp[3];
	uint64_t rsv1;
	uint64_t ist[7];
	uint64_t rsv2;
	uint16_t rsv3, iomap;
} __attribute__((packed));

extern uint64_t boot_gdt[];
extern const uint64_t trap_stubs[NR_VECTORS];
extern char vec_timer[], vec_ipi[], vec_spurious[];

/* One IDT for all CPUs; a GDT, TSS and IST stack each (a TSS is busy
 * while loaded, so CPUs cannot share one). */
static struct idt_gate idt[NR_IDT];
static uint64_t cpu_gdt[NR_CPUS][GDT_ENTRIES] __attribute__((aligned(16)));
static struct tss cpu_tss[NR_CPUS];
static uint8_t ist_stack[NR_CPUS][IST_STACK_SIZE] __attribute__((aligned(16)));

static const char *const vector_names[NR_VECTORS] = {
	"#DE divide error",
	"#DB debug",
	"NMI",
	"#BP breakpoint",
	"#OF overflow",
	"#BR bound range",
	"#UD invalid opcode",
	"#NM device not available",
	"#DF double fault",
	"coprocessor overrun",
	"#TS invalid TSS",
	"#NP segment not present",
	"#SS stack fault",
	"#GP general protection",
	"#PF page fault",
	"reserved 15",
	"#MF x87 error",
	"#AC alignment check",
	"#MC machine check",
	"#XM SIMD error",
	"#VE virtualization",
	"#CP control protection",
};

__attribute__((weak)) int arch_handle_user_fault(struct trap_frame *f, uint64_t addr)
{
	(void)f;
	(void)addr;
	return 0;
}

struct descriptor_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* CPU @cpu's GDT: boot.S's code and data descriptors, then its own TSS
 * (16 bytes at selector 0x18) whose IST1 stack #DF, NMI and #MC use, so a
 * blown kernel stack still gets reported. */
static void gdt_tss_init(unsigned cpu)
{
	struct tss *tss = &cpu_tss[cpu];
	uint64_t *gdt = cpu_gdt[cpu];
	uint64_t base = (uint64_t)(uintptr_t)tss, limit = sizeof(*tss) - 1;
	struct descriptor_ptr gdtr = { sizeof(cpu_gdt[0]) - 1, (uint64_t)(uintptr_t)gdt };

	tss->ist[0] = (uint64_t)(uintptr_t)(ist_stack[cpu] + IST_STACK_SIZE);
	tss->iomap = sizeof(*tss);
	gdt[0] = boot_gdt[0];
	gdt[1] = boot_gdt[1];
	gdt[2] = boot_gdt[2];
	gdt[3] = USER_DS_DESC;
	gdt[4] = USER_CS_DESC;
	gdt[TSS_SEL / 8] = (limit & 0xffff) | (base & 0xffffff) << 16 | 0x89ull << 40 |
			   ((limit >> 16) & 0xf) << 48 | ((base >> 24) & 0xff) << 56;
	gdt[TSS_SEL / 8 + 1] = base >> 32;
	__asm__ volatile("lgdt %0" : : "m"(gdtr));
	__asm__ volatile("ltr %w0" : : "r"(TSS_SEL));
}

static void set_gate(int v, uint64_t a, int ist)
{
	uint16_t dpl = v == 3 || v == 4 ? GATE_DPL3 : 0; /* #BP, #OF */

	idt[v] = (struct idt_gate){ (uint16_t)a,	 KERNEL_CS,	      GATE_INTR | dpl | ist,
				    (uint16_t)(a >> 16), (uint32_t)(a >> 32), 0 };
}

void x86_tss_set_rsp0(unsigned cpu, uint64_t rsp0)
{
	cpu_tss[cpu].rsp[0] = rsp0;
}

void traps_cpu_init(unsigned cpu)
{
	struct descriptor_ptr idtr = { sizeof(idt) - 1, (uint64_t)(uintptr_t)idt };

	gdt_tss_init(cpu);
	__asm__ volatile("lidt %0" : : "m"(idtr));
}

void traps_init(void)
{
	for (int v = 0; v < NR_VECTORS; v++)
		set_gate(v, trap_stubs[v], v == 2 || v == 8 || v == 18);
	set_gate(X86_TIMER_VECTOR, (uint64_t)(uintptr_t)vec_timer, 0);
	set_gate(X86_IPI_VECTOR, (uint64_t)(uintptr_t)vec_ipi, 0);
	set_gate(X86_SPURIOUS_VECTOR, (uint64_t)(uintptr_t)vec_spurious, 0);
	traps_cpu_init(0);
}

static void report_frame(const struct trap_frame *f, uint64_t cr2)
{
	unsigned v = (unsigned)f->vector;

	console_printf("\nguest: unhandled exception %s (vector %u) on cpu%u, error code 0x%llx\n",
		       v < NR_VECTORS && vector_names[v] ? vector_names[v] : "reserved", v,
		       smp_processor_id(), (unsigned long long)f->error);
	console_printf(
		"guest: RIP 0x%016llx CR2 (fault address) 0x%016llx RSP 0x%016llx RFLAGS 0x%llx\n",
		(unsigned long long)f->rip, (unsigned long long)cr2, (unsigned long long)f->rsp,
		(unsigned long long)f->rflags);
	console_printf("guest: RAX %016llx RBX %016llx RCX %016llx RDX %016llx\n",
		       (unsigned long long)f->rax, (unsigned long long)f->rbx,
		       (unsigned long long)f->rcx, (unsigned long long)f->rdx);
	console_printf("guest: RSI %016llx RDI %016llx RBP %016llx\n", (unsigned long long)f->rsi,
		       (unsigned long long)f->rdi, (unsigned long long)f->rbp);
}

/* Called by entry.S with interrupts off, @fx the interrupted code's
 * fxsave image. Returns to resume @f and @fx. */
void x86_trap(struct trap_frame *f, uint8_t *fx);
void x86_trap(struct trap_frame *f, uint8_t *fx)
{
	uint64_t cr2 = read_cr2();
	int *in_trap = &this_cpu()->arch.in_trap;

	if (f->vector == X86_IPI_VECTOR) {
		x86_ipi_handler();
		return;
	}
	if (f->vector == X86_SPURIOUS_VECTOR)
		return; /* no EOI for a spurious interrupt */
	if (f->vector == X86_TIMER_VECTOR) {
		apic_eoi(); /* before a switch: the next tick must get through */
		if ((f->cs & 3) == 3)
			x86_user_tick(f, fx);
		else
			kernel_timer_tick();
		return;
	}
	if (!*in_trap && x86_user_exception(f, cr2, fx))
		return;
	if (f->vector == 14 && !*in_trap && arch_handle_user_fault(f, cr2))
		return;
	if ((*in_trap)++) {
		console_printf("\nguest: exception %llu while reporting an exception\n",
			       (unsigned long long)f->vector);
		arch_exit(PTELAB_EXIT_CRASH);
	}
	report_frame(f, cr2);
	arch_exit(PTELAB_EXIT_CRASH);
}
