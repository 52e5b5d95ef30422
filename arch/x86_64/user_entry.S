/*
 * user_entry.S (x86_64) - entering ring 3 and the SYSCALL entry.
 *
 * SYSCALL leaves the user RIP in RCX and RFLAGS in R11, masks IF (FMASK)
 * and keeps the user RSP: the entry saves it, moves to the process's
 * kernel stack (x86_user_kstack_top, set by arch_user_set_kstack()), and
 * builds a struct user_regs (asm/user.h; the offsets below are its) at
 * that stack's top, with the user's x87/SSE state in its fxsave area:
 * the kernel's C code uses SSE (newlib's memcpy). It then calls
 * syscall_entry() with interrupts on and returns by SYSRET: RCX and R11
 * are the syscall ABI's clobbers, so SYSRET loses nothing user code may
 * rely on. RIP is only ever the RCX SYSCALL saved, so it is canonical
 * (SYSRET to a non-canonical RIP would fault in ring 0).
 *
 * The two globals are one CPU's: one process runs at a time, on the CPU
 * that started it. The GS base stays the kernel's per-CPU pointer in
 * ring 3 (no SWAPGS); a program that loads %gs would break the kernel
 * (glibc never does on x86_64).
 */
#define USER_RIP 0x78
#define USER_RSP 0x80
#define USER_RFLAGS 0x88
#define USER_FXSAVE 0xa0
#define USER_REGS_SIZE 0x2c0
#define USER_CS (0x20 | 3)
#define USER_DS (0x18 | 3)

	.bss
	.p2align 3
	.globl x86_user_kstack_top
x86_user_kstack_top:
	.quad 0
x86_user_rsp_scratch:
	.quad 0

	.text
	.globl x86_syscall_entry
	.p2align 4
x86_syscall_entry:
	mov %rsp, x86_user_rsp_scratch(%rip)
	mov x86_user_kstack_top(%rip), %rsp
	sub $USER_REGS_SIZE, %rsp
	mov %r15, 0x00(%rsp)
	mov %r14, 0x08(%rsp)
	mov %r13, 0x10(%rsp)
	mov %r12, 0x18(%rsp)
	mov %r11, 0x20(%rsp)
	mov %r10, 0x28(%rsp)
	mov %r9, 0x30(%rsp)
	mov %r8, 0x38(%rsp)
	mov %rbp, 0x40(%rsp)
	mov %rdi, 0x48(%rsp)
	mov %rsi, 0x50(%rsp)
	mov %rdx, 0x58(%rsp)
	mov %rcx, 0x60(%rsp)
	mov %rbx, 0x68(%rsp)
	mov %rax, 0x70(%rsp)
	mov %rcx, USER_RIP(%rsp)
	mov x86_user_rsp_scratch(%rip), %rax
	mov %rax, USER_RSP(%rsp)
	mov %r11, USER_RFLAGS(%rsp)
	fxsave USER_FXSAVE(%rsp)
	xor %ebp, %ebp
	sti
	mov %rsp, %rdi
	call syscall_entry
	cli
	fxrstor USER_FXSAVE(%rsp)
	mov 0x00(%rsp), %r15
	mov 0x08(%rsp), %r14
	mov 0x10(%rsp), %r13
	mov 0x18(%rsp), %r12
	mov 0x28(%rsp), %r10
	mov 0x30(%rsp), %r9
	mov 0x38(%rsp), %r8
	mov 0x40(%rsp), %rbp
	mov 0x48(%rsp), %rdi
	mov 0x50(%rsp), %rsi
	mov 0x58(%rsp), %rdx
	mov 0x68(%rsp), %rbx
	mov 0x70(%rsp), %rax
	mov USER_RIP(%rsp), %rcx
	mov USER_RFLAGS(%rsp), %r11
	mov USER_RSP(%rsp), %rsp
	sysretq

/*
 * void x86_user_enter(struct user_regs *r): load all of @r and IRETQ to
 * ring 3 (the first entry, where RCX and R11 matter too).
 */
	.globl x86_user_enter
	.p2align 4
x86_user_enter:
	cli
	fxrstor USER_FXSAVE(%rdi)
	pushq $USER_DS
	pushq USER_RSP(%rdi)
	pushq USER_RFLAGS(%rdi)
	pushq $USER_CS
	pushq USER_RIP(%rdi)
	mov 0x00(%rdi), %r15
	mov 0x08(%rdi), %r14
	mov 0x10(%rdi), %r13
	mov 0x18(%rdi), %r12
	mov 0x20(%rdi), %r11
	mov 0x28(%rdi), %r10
	mov 0x30(%rdi), %r9
	mov 0x38(%rdi), %r8
	mov 0x40(%rdi), %rbp
	mov 0x50(%rdi), %rsi
	mov 0x58(%rdi), %rdx
	mov 0x60(%rdi), %rcx
	mov 0x68(%rdi), %rbx
	mov 0x70(%rdi), %rax
	mov 0x48(%rdi), %rdi
	iretq
