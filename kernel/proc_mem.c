/*
 * proc_mem.c - /proc/self/mem: the process's memory at the file offset
 * that is its address, read and written as ptrace does (Linux's
 * mem_rw() through access_remote_vm()): each page is taken by GUP with
 * FOLL_FORCE, so a read-only private mapping can be written (COW is
 * broken, the entries stay read-only: mm/gup.h), then copied through
 * the kernel's view of the page.
 */
#include <errno.h>

#include "gup.h"
#include "kernel.h"
#include "mm.h"
#include "page.h"
#include "process.h"
#include "procfs.h"

/*
 * Copy @len bytes between user @buf and the process's memory at @pos
 * (the address), a page at a time. Return: the bytes copied, or -EIO
 * when the first page cannot be taken (no VMA, no access at all, out of
 * memory), as Linux; -EFAULT when @buf itself is bad before anything
 * was copied.
 */
static long mem_rw(struct process *p, unsigned long buf, size_t len, uint64_t pos, bool write)
{
	unsigned flags = FOLL_FORCE | FOLL_TOUCH | (write ? FOLL_WRITE : 0);
	size_t done = 0;

	while (done < len) {
		unsigned long addr = (unsigned long)pos + done, off = addr & (PAGE_SIZE - 1);
		size_t n = PAGE_SIZE - off < len - done ? PAGE_SIZE - off : len - done;
		struct page *page;
		char *k;
		int err;

		if (addr >= MM_USER_END || get_user_pages(p->mm, addr - off, 1, flags, &page) != 1)
			return done ? (long)done : -EIO;
		k = (char *)page_address(page) + off;
		err = write ? copy_from_user(k, buf + done, n) : copy_to_user(buf + done, k, n);
		put_user_pages(&page, 1);
		if (err)
			return done ? (long)done : -EFAULT;
		done += n;
	}
	return (long)done;
}

long proc_mem_read(struct process *p, unsigned long buf, size_t len, uint64_t pos)
{
	return mem_rw(p, buf, len, pos, false);
}

long proc_mem_write(struct process *p, const struct proc_entry *e, unsigned long buf, size_t len,
		    uint64_t pos)
{
	(void)e;
	return mem_rw(p, buf, len, pos, true);
}
