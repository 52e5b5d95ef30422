/*
 * sys_mm.c - brk, mmap, munmap, mprotect, madvise: Linux's arguments
 * checked and turned into mm/ calls on the current process's mm.
 */
#include <errno.h>

#include "initramfs.h"
#include "kernel.h"
#include "madvise.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "syscall.h"

#define BRK_MAX (1ul << 30) /* how far the break may grow */

static unsigned long page_up(unsigned long a)
{
	return (a + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
}

/* The orders a new mapping of @len is placed for: aligned to 2 MiB when
 * it can hold a PMD folio, as Linux places large anonymous mappings.
 * Which orders its faults use is the system THP settings' choice
 * (VM_THP_SYSTEM, mm/thp_policy.h). */
static unsigned long mmap_orders(unsigned long len)
{
	return len >= (PAGE_SIZE << PMD_ORDER) ? 1ul | 1ul << PMD_ORDER : 1ul;
}

static int prot_to_vm(int prot, unsigned *vm)
{
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	/* No bit (PROT_NONE) is a VMA without access; PROT_WRITE or PROT_EXEC
	 * alone is a VMA without VM_READ, as on Linux (mm.h, VM_ACCESS_FLAGS). */
	*vm = (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	      (prot & PROT_EXEC ? VM_EXEC : 0);
	return 0;
}

/* The break moves in whole pages: [brk_start, page_up(brk)) is one
 * anonymous mapping, grown or shrunk at its end. On failure the old break
 * is returned, as Linux does. */
long sys_brk(struct user_regs *r, const long *a)
{
	struct process *p = process_group(current_process); /* the process's break */
	unsigned long want = (unsigned long)a[0], old_end = page_up(p->brk), new_end;

	(void)r;
	if (want < p->brk_start || want - p->brk_start > BRK_MAX)
		return (long)p->brk;
	new_end = page_up(want);
	if (new_end > old_end) {
		if (!mm_range_free(p->mm, old_end, new_end - old_end) ||
		    mm_mmap(p->mm, old_end, new_end - old_end, VM_READ | VM_WRITE, MAP_FIXED_ADDR,
			    1) < 0)
			return (long)p->brk;
	} else if (new_end < old_end && mm_munmap(p->mm, new_end, old_end - new_end)) {
		return (long)p->brk;
	}
	p->brk = want;
	return (long)want;
}

/* Fault in every page of [addr, addr+len) (MAP_POPULATE), writing when
 * the mapping is writable, as Linux's populate does. */
static void populate(struct mm *mm, unsigned long addr, unsigned long len, unsigned vm)
{
	for (unsigned long a = addr; a < addr + len; a += PAGE_SIZE)
		if (handle_mm_fault(mm, a, vm & VM_WRITE ? FAULT_WRITE : 0))
			return;
}

/* A private read-only copy of @fd's bytes from @off into [addr, addr+len). */
static int copy_file(struct mm *mm, long fd, long off, unsigned long addr, unsigned long len)
{
	const struct fd *f = (int)fd >= 0 && (int)fd < PROC_NR_FDS
				     ? &process_group(current_process)->fds[(int)fd]
				     : NULL;
	uint64_t size;

	if (!f || f->kind != FD_FILE)
		return -EBADF;
	if (off < 0 || (off & (PAGE_SIZE - 1)))
		return -EINVAL;
	size = f->file->size;
	if ((uint64_t)off >= size)
		return 0;
	if (len > size - (uint64_t)off)
		len = (unsigned long)(size - (uint64_t)off);
	return mm_access(mm, addr, (void *)(f->file->data + off), len, true);
}

static long map_fd(struct mm *mm, long addr, unsigned long len, unsigned vm, long fd, long off)
{
	int err = copy_file(mm, fd, off, (unsigned long)addr, len);

	if (!err && !(vm & VM_WRITE))
		err = mm_mprotect(mm, (unsigned long)addr, len, vm);
	if (err) {
		mm_munmap(mm, (unsigned long)addr, len);
		return err;
	}
	return addr;
}

long sys_mmap(struct user_regs *r, const long *a)
{
	struct mm *mm = current_process->mm;
	unsigned long addr = (unsigned long)a[0], len = page_up((unsigned long)a[1]);
	int flags = (int)a[3];
	long ret;
	unsigned vm, map_flags = 0;
	int anon = flags & MAP_ANONYMOUS;
	int type = flags & (MAP_SHARED | MAP_PRIVATE);

	(void)r;
	/* Shared memory is anonymous only (mm/shmem.h): no shared files. */
	if (!a[1] || !len || (type != MAP_PRIVATE && !(type == MAP_SHARED && anon)))
		return -EINVAL;
	if (flags & MAP_HUGETLB) /* no hugetlb pages: Linux with none reserved */
		return -ENOMEM;
	ret = prot_to_vm((int)a[2], &vm);
	if (ret)
		return ret;
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr & (PAGE_SIZE - 1))
			return -EINVAL;
		if ((flags & MAP_FIXED_NOREPLACE) && !(flags & MAP_FIXED) &&
		    !mm_range_free(mm, addr, len))
			return -EEXIST;
		map_flags = MAP_FIXED_ADDR;
	}
	if (type == MAP_SHARED)
		vm |= VM_SHARED;
	ret = mm_mmap(mm, addr, len, (anon ? vm : vm | VM_WRITE) | VM_THP_SYSTEM, map_flags,
		      mmap_orders(len));
	if (ret < 0)
		return ret;
	if (!anon)
		ret = map_fd(mm, ret, len, vm, a[4], a[5]);
	if (ret >= 0 && (flags & MAP_POPULATE))
		populate(mm, (unsigned long)ret, len, vm);
	return ret;
}

long sys_munmap(struct user_regs *r, const long *a)
{
	(void)r;
	return mm_munmap(current_process->mm, (unsigned long)a[0], page_up((unsigned long)a[1]));
}

long sys_mprotect(struct user_regs *r, const long *a)
{
	unsigned vm;
	int err = prot_to_vm((int)a[2], &vm);

	(void)r;
	if (err)
		return err;
	return mm_mprotect(current_process->mm, (unsigned long)a[0], page_up((unsigned long)a[1]),
			   vm);
}

long sys_madvise(struct user_regs *r, const long *a)
{
	struct mm *mm = current_process->mm;
	unsigned long addr = (unsigned long)a[0], len = page_up((unsigned long)a[1]);

	(void)r;
	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	if (!len)
		return 0;
	switch ((int)a[2]) {
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL:
	case MADV_WILLNEED:
		return 0; /* hints mm/ has no use for */
	default:
		return mm_madvise(mm, addr, len, (int)a[2]); /* the rest: mm/madvise.h */
	}
}

long sys_mremap(struct user_regs *r, const long *a)
{
	(void)r;
	return mm_mremap(current_process->mm, (unsigned long)a[0], (unsigned long)a[1],
			 (unsigned long)a[2], (unsigned)a[3], (unsigned long)a[4]);
}
