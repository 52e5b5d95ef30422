/*
 * fault.c (arm64) - data aborts on user (TTBR0) addresses go to mm/.
 *
 * traps.c calls this for a data abort the kernel took below the TTBR0
 * limit. Translation, access-flag and permission faults are all resolved
 * by handle_mm_fault(): the dirty state is software's job (TCR_EL1.HD is
 * clear), and so is the access flag on a CPU without FEAT_HAFDBS (where it
 * has it, the MMU sets the flag: arch/arm64/mmu.c).
 */
#include <errno.h>

#include "kernel.h"
#include "mm.h"
#include "percpu.h"

#include <asm/traps.h>

int arch_handle_user_fault(unsigned long far, unsigned long esr, unsigned long elr)
{
	int err;

	(void)elr;
	if (far >= MM_USER_END || !current_mm)
		return 0;
	if (this_cpu()->pagefault_disabled)
		return -EFAULT; /* pagefault_disable(): the copy's fixup says so */
	err = handle_mm_fault(current_mm, far, esr_dabt_is_write(esr) ? FAULT_WRITE : 0);
	return err ? err : 1;
}
