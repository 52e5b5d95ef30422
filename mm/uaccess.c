/*
 * uaccess.c - the kernel reading and writing an mm's memory.
 *
 * The access is real: switch to the mm and let arch_copy_user() load or
 * store through the MMU. A fault on the way is taken by the hardware and
 * resolved by handle_mm_fault(); one that cannot be resolved makes
 * arch_copy_user() return -EFAULT through its fixup instead of crashing
 * the kernel (on the host runner, the software MMU does the same).
 */
#include <errno.h>

#include "kernel.h"
#include "mm_internal.h"

int mm_access(struct mm *mm, unsigned long addr, void *buf, unsigned long len, bool write)
{
	if (addr >= MM_USER_END || len > MM_USER_END - addr)
		return -EFAULT;
	switch_mm(mm);
	return arch_copy_user(addr, buf, len, write);
}

int mm_touch(struct mm *mm, unsigned long addr, unsigned long len, bool write)
{
	unsigned long end = addr + len;

	if (addr >= MM_USER_END || len > MM_USER_END - addr)
		return -EFAULT;
	switch_mm(mm);
	for (addr &= ~(PAGE_SIZE - 1); addr < end; addr += PAGE_SIZE) {
		unsigned char b = (unsigned char)(addr >> PAGE_SHIFT);
		int err = arch_copy_user(addr, &b, 1, write);

		if (err)
			return err;
	}
	return 0;
}
