/*
 * user.c (arm64) - user mode for kernel/user_arch.h: a placeholder that
 * refuses to run a program until EL0 lands (branch uproc-arm64).
 */
#include "kernel.h"
#include "user_arch.h"

const struct syscall_numbers arch_syscall_numbers = { .read = SYSNR(63) };

void arch_user_init_cpu(void)
{
}

void arch_user_regs_init(struct user_regs *r, unsigned long entry, unsigned long sp)
{
	*r = (struct user_regs){ .pc = entry, .sp = sp };
}

void arch_user_set_kstack(void *top)
{
	(void)top;
}

void arch_return_to_user(struct user_regs *r)
{
	(void)r;
	panic("arch_return_to_user: no EL0 support on arm64 yet");
}

long arch_syscall_nr(const struct user_regs *r)
{
	return (long)r->x[8];
}

long arch_syscall_arg(const struct user_regs *r, int i)
{
	return (long)r->x[i];
}

void arch_syscall_set_return(struct user_regs *r, long v)
{
	r->x[0] = (uint64_t)v;
}

void arch_set_tls(struct user_regs *r, unsigned long v)
{
	r->tpidr = v;
}

void arch_elf_info(struct arch_elf_info *info)
{
	*info = (struct arch_elf_info){
		.machine = 183, .platform = "aarch64", .uts_machine = "aarch64", .minsigstksz = 5120
	};
}

/* asm-generic's struct stat, which arm64 uses. */
struct arm64_stat {
	uint64_t dev, ino;
	uint32_t mode, nlink, uid, gid;
	uint64_t rdev, pad1;
	int64_t size;
	int32_t blksize, pad2;
	int64_t blocks;
	int64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	uint32_t unused[2];
};

unsigned long arch_stat_encode(const struct kstat *ks, void *out)
{
	struct arm64_stat *st = out;

	*st = (struct arm64_stat){ .dev = ks->dev,
				   .ino = ks->ino,
				   .mode = ks->mode,
				   .nlink = (uint32_t)ks->nlink,
				   .uid = ks->uid,
				   .gid = ks->gid,
				   .rdev = ks->rdev,
				   .size = (int64_t)ks->size,
				   .blksize = (int32_t)ks->blksize,
				   .blocks = (int64_t)ks->blocks };
	return sizeof(*st);
}
