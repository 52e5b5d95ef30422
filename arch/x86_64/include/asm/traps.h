/*
 * traps.h (x86_64) - the exception frame entry.S builds, and the hook
 * through which mm/ resolves page faults on user addresses.
 */
#ifndef ASM_TRAPS_H
#define ASM_TRAPS_H

#include <stdint.h>

/* Lowest address first: what entry.S pushed, then what the CPU pushed. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

#define X86_PF_PRESENT (1u << 0) /* the error code's bits */
#define X86_PF_WRITE (1u << 1)
#define X86_PF_USER (1u << 2)
#define X86_PF_INSTR (1u << 4)

/*
 * arch_handle_user_fault - resolve a #PF at @addr (CR2) taken in @f.
 * The default (weak) handles nothing; the uaccess code overrides it to
 * call handle_mm_fault() and, when that fails, to resume at a fixup.
 * Return: 1 when @f may be resumed (possibly with f->rip changed), 0 when
 * the fault is fatal.
 */
int arch_handle_user_fault(struct trap_frame *f, uint64_t addr);

/*
 * x86_user_exception - an exception taken in ring 3 (arch/x86_64/user.c):
 * a page fault mm/ resolves is resumed; anything else raises the signal
 * Linux would send (kernel/user_arch.h, user_fault_signal()), which
 * either ends the process or changes @f and @fx (the fxsave image
 * entry.S restores) to enter its handler.
 * Return: 0 when @f was not taken in ring 3, 1 to resume @f.
 */
int x86_user_exception(struct trap_frame *f, uint64_t cr2, uint8_t *fx);

/* The tick taken in ring 3 (arch/x86_64/user.c): user_timer_tick() on
 * @f and @fx as a struct user_regs, which may switch processes or enter
 * a signal handler (@f and @fx changed). */
void x86_user_tick(struct trap_frame *f, uint8_t *fx);

/* TSS.RSP0 of CPU @cpu: the stack an interrupt or exception from ring 3
 * starts on. */
void x86_tss_set_rsp0(unsigned cpu, uint64_t rsp0);

/* Interrupt vectors: the scheduler's tick (arch/x86_64/tick.c), the one
 * IPI (TLB flush requests and smp_run's wake-up), and the x2APIC's
 * spurious vector. */
#define X86_TIMER_VECTOR 0xef
#define X86_IPI_VECTOR 0xf0
#define X86_SPURIOUS_VECTOR 0xff

/* The boot CPU: build the IDT and load it with CPU 0's GDT and TSS. */
void traps_init(void);

/* Load the IDT and CPU @cpu's own GDT and TSS (every secondary). */
void traps_cpu_init(unsigned cpu);

/* The IPI vector's handler (arch/x86_64/smp.c): serve this CPU's flush
 * requests, then EOI. Context: interrupts off. */
void x86_ipi_handler(void);

#endif
