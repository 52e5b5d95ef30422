/*
 * gup_test.c - /sys/kernel/debug/gup_test, the device of Linux's
 * mm/gup_test.c that the mm selftests drive (cow.c's R/O pin cases):
 *
 *   PIN_LONGTERM_TEST_START  pin [addr, addr + size) long-term (FOLL_PIN |
 *                            FOLL_LONGTERM, FOLL_WRITE with ..._USE_WRITE,
 *                            pin_user_pages_fast with ..._USE_FAST)
 *   PIN_LONGTERM_TEST_READ   copy the pinned pages, through the kernel's
 *                            view of them, to the user buffer given
 *   PIN_LONGTERM_TEST_STOP   unpin
 *
 * The pins are held by the device, not by a process, as Linux's module
 * holds them: one set at a time (a second START is -EINVAL, as Linux).
 * The other commands of Linux's device (the GUP benchmarks) answer -EINVAL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gup.h"
#include "kernel.h"
#include "page.h"
#include "process.h"
#include "procfs.h"

/* Linux's ioctl numbers (_IOW('g', 7, struct pin_longterm_test) etc.;
 * the generic encoding, the same on x86_64 and arm64). */
#define PIN_LONGTERM_TEST_START 0x40186707ul
#define PIN_LONGTERM_TEST_STOP 0x6708ul
#define PIN_LONGTERM_TEST_READ 0x40086709ul
#define FLAG_USE_WRITE 1u
#define FLAG_USE_FAST 2u
#define PIN_MAX_PAGES (1ul << 18) /* 1 GiB of pins at most */

struct pin_longterm_test {
	uint64_t addr, size;
	uint32_t flags, pad;
};

static struct {
	struct page **pages;
	unsigned long nr;
	bool active;
} pins;

static long pin_stop(void)
{
	if (pins.active) {
		unpin_user_pages(pins.pages, pins.nr);
		free(pins.pages);
	}
	pins.pages = NULL;
	pins.nr = 0;
	pins.active = false;
	return 0;
}

static long pin_start(struct process *p, unsigned long uarg)
{
	struct pin_longterm_test t;
	unsigned flags = FOLL_LONGTERM;
	unsigned long nr;
	long got;

	if (pins.active)
		return -EINVAL;
	if (copy_from_user(&t, uarg, 20)) /* the struct without its tail padding */
		return -EFAULT;
	if (t.flags & ~(FLAG_USE_WRITE | FLAG_USE_FAST))
		return -EINVAL;
	if (!t.size || (t.addr | t.size) & (PAGE_SIZE - 1))
		return -EINVAL;
	nr = (unsigned long)(t.size >> PAGE_SHIFT);
	if (nr > PIN_MAX_PAGES)
		return -EINVAL;
	pins.pages = calloc(nr, sizeof(*pins.pages));
	if (!pins.pages)
		return -ENOMEM;
	if (t.flags & FLAG_USE_WRITE)
		flags |= FOLL_WRITE;
	got = t.flags & FLAG_USE_FAST ? pin_user_pages_fast(p->mm, t.addr, nr, flags, pins.pages)
				      : pin_user_pages(p->mm, t.addr, nr, flags, pins.pages);
	pins.active = true;
	pins.nr = got > 0 ? (unsigned long)got : 0;
	if (got != (long)nr) { /* all or nothing, as Linux's device */
		pin_stop();
		return got < 0 ? got : -EFAULT;
	}
	return 0;
}

static long pin_read(unsigned long uarg)
{
	uint64_t dst;

	if (!pins.active)
		return -EINVAL;
	if (copy_from_user(&dst, uarg, sizeof(dst)))
		return -EFAULT;
	for (unsigned long i = 0; i < pins.nr; i++)
		if (copy_to_user((unsigned long)dst + i * PAGE_SIZE, page_address(pins.pages[i]),
				 PAGE_SIZE))
			return -EFAULT;
	return 0;
}

static long gup_test_ioctl(struct process *p, const struct proc_entry *e, unsigned long cmd,
			   unsigned long arg)
{
	(void)e;
	switch (cmd) {
	case PIN_LONGTERM_TEST_START:
		return pin_start(p, arg);
	case PIN_LONGTERM_TEST_STOP:
		return pin_stop();
	case PIN_LONGTERM_TEST_READ:
		return pin_read(arg);
	default:
		return -EINVAL;
	}
}

static const struct proc_entry files[] = {
	{ "sys/kernel/debug/gup_test", .ioctl = gup_test_ioctl },
};

const struct sys_table gup_test_table = { files, sizeof(files) / sizeof(files[0]) };
