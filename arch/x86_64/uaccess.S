/*
 * uaccess.S (x86_64) - the kernel's one instruction that touches user
 * memory. A #PF on it is resolved by handle_mm_fault() and the rep movsb
 * resumes where it stopped; one that cannot be resolved resumes at
 * x86_copy_user_fixup instead, with the fault's error already in RAX
 * (fault.c puts it there).
 *
 * long x86_copy_user(void *dst, const void *src, unsigned long len)
 * Return: 0, or the fault's error (-EFAULT, -ENOMEM).
 */
	.text
	.globl x86_copy_user, x86_copy_user_insn, x86_copy_user_fixup
x86_copy_user:
	mov %rdx, %rcx
x86_copy_user_insn:
	rep movsb
	xor %eax, %eax
	ret
x86_copy_user_fixup:
	ret
	.section .note.GNU-stack, "", @progbits
