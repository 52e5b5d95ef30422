/*
 * fault.c (x86_64) - page faults on user addresses, and arch_copy_user().
 *
 * The kernel reaches user memory only through x86_copy_user() with the
 * mm switched in (CR3). A #PF below MM_USER_END goes to handle_mm_fault()
 * with the access the error code names; when that fails (no VMA, wrong
 * protection, no memory) and the faulting instruction is the copy's, the
 * copy resumes at its fixup and returns handle_mm_fault()'s error. Any
 * other kernel fault is a bug, reported by traps.c.
 */
#include <errno.h>

#include "kernel.h"
#include "mm.h"
#include "mm_internal.h"
#include "percpu.h"

#include <asm/traps.h>

long x86_copy_user(void *dst, const void *src, unsigned long len);
extern char x86_copy_user_insn[], x86_copy_user_fixup[];

int arch_copy_user(unsigned long uaddr, void *kbuf, unsigned long len, int write)
{
	void *u = (void *)uaddr;

	return (int)(write ? x86_copy_user(u, kbuf, len) : x86_copy_user(kbuf, u, len));
}

#define X86_EFLAGS_IF (1ul << 9)

/*
 * mm/ may send TLB-flush IPIs and wait for them, so it runs with
 * interrupts enabled when the faulting code had them: two CPUs faulting
 * and flushing at each other must both be able to take the other's IPI.
 * With pagefault_disable() the fault goes straight to the fixup.
 */
int arch_handle_user_fault(struct trap_frame *f, uint64_t addr)
{
	unsigned flags = f->error & X86_PF_WRITE ? FAULT_WRITE : 0;
	int err = -EFAULT;

	if (addr >= MM_USER_END || !current_mm)
		return 0;
	if (!this_cpu()->pagefault_disabled) {
		if (f->rflags & X86_EFLAGS_IF)
			__asm__ volatile("sti" : : : "memory");
		err = handle_mm_fault(current_mm, addr, flags);
		__asm__ volatile("cli" : : : "memory");
	}
	if (err == 0)
		return 1;
	if (f->rip != (uint64_t)(uintptr_t)x86_copy_user_insn)
		return 0;
	f->rax = (uint64_t)(int64_t)err;
	f->rip = (uint64_t)(uintptr_t)x86_copy_user_fixup;
	return 1;
}
