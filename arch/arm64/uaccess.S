/*
 * uaccess.S (arm64) - arch_copy_user(), the kernel's only loads and stores
 * to user memory (see <asm/mmu.h>). A data abort on a user address between
 * arm64_uaccess_start and arm64_uaccess_end goes to mm/ through
 * arch_handle_user_fault() and the faulting load or store is retried
 * (post-indexed addressing does not write back on a fault, so the retry
 * is exact); one that mm/ cannot resolve resumes at arm64_uaccess_fixup
 * with the error in x0 (traps.c puts it there).
 *
 * int arch_copy_user(unsigned long uaddr, void *kbuf, unsigned long len,
 *                    int write)
 * Return: 0, or the fault's error (-EFAULT, -ENOMEM) with the copy stopped
 * at the access that could not be resolved (bytes before it are copied).
 */
	.text
	.globl	arch_copy_user, arm64_uaccess_start, arm64_uaccess_end, arm64_uaccess_fixup
arch_copy_user:
	cmp	w3, #0
	csel	x4, x0, x1, ne		/* dst: the user address when writing */
	csel	x5, x1, x0, ne		/* src; x0 is free from here on */
arm64_uaccess_start:
1:	cmp	x2, #8			/* whole words first */
	b.lo	2f
	ldr	x6, [x5], #8
	str	x6, [x4], #8
	sub	x2, x2, #8
	b	1b
2:	cbz	x2, 3f
	ldrb	w6, [x5], #1
	strb	w6, [x4], #1
	sub	x2, x2, #1
	b	2b
arm64_uaccess_end:
3:	mov	w0, #0
	ret
arm64_uaccess_fixup:			/* x0 = -errno, set by traps.c */
	ret

	.section .note.GNU-stack, "", %progbits
