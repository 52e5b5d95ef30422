/*
 * procfs.c - the table of /proc/self files, path lookup, and the fd
 * side: a text file's snapshot at open, reads at a position, release.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process.h"
#include "procfs.h"
#include "young.h"

static int proc_empty_text(struct process *p, const struct proc_entry *e, struct proc_text *t);

static const struct proc_entry entries[] = {
	{ "pagemap", .read = proc_pagemap_read },
	{ "mem", .read = proc_mem_read, .write = proc_mem_write },
	{ "maps", .text = proc_maps_text },
	{ "smaps", .text = proc_smaps_text },
	{ "smaps_rollup", .text = proc_smaps_rollup_text },
	{ "clear_refs", .text = proc_empty_text, .write = proc_clear_refs_write },
	{ "status", .text = proc_status_text },
};

static const struct sys_table *const sys_tables[] = { &sysfs_thp_table, &gup_test_table };

/* The /sys file at @path (no leading '/'), or NULL. */
static const struct proc_entry *sys_lookup(const char *path)
{
	for (size_t t = 0; t < sizeof(sys_tables) / sizeof(sys_tables[0]); t++)
		for (size_t i = 0; i < sys_tables[t]->nr; i++)
			if (!strcmp(path, sys_tables[t]->files[i].name))
				return &sys_tables[t]->files[i];
	return NULL;
}

static const struct sys_table *const proc_root_tables[] = { &proc_kpageflags_table,
							    &proc_vmstat_table };

/* The file /proc/NAME at @path ("proc/NAME", no leading '/'), or NULL. */
static const struct proc_entry *proc_root_lookup(const char *path)
{
	for (size_t t = 0; t < sizeof(proc_root_tables) / sizeof(proc_root_tables[0]); t++)
		for (size_t i = 0; i < proc_root_tables[t]->nr; i++)
			if (!strcmp(path, proc_root_tables[t]->files[i].name))
				return &proc_root_tables[t]->files[i];
	return NULL;
}

/* Is @path (no leading '/') a directory holding /sys files? */
static bool sys_is_dir(const char *path)
{
	size_t n = strlen(path);

	while (n && path[n - 1] == '/')
		n--;
	for (size_t t = 0; n && t < sizeof(sys_tables) / sizeof(sys_tables[0]); t++)
		for (size_t i = 0; i < sys_tables[t]->nr; i++) {
			const char *name = sys_tables[t]->files[i].name;

			if (!strncmp(name, path, n) && name[n] == '/')
				return true;
		}
	return false;
}

/* clear_refs reads as an empty file (Linux's is write-only). */
static int proc_empty_text(struct process *p, const struct proc_entry *e, struct proc_text *t)
{
	(void)p;
	(void)e;
	(void)t;
	return 0;
}

/*
 * /proc/self/clear_refs: Linux's commands 1 (all) and 2 (anonymous) clear
 * the young bit of every mapped page (mm_clear_young(), per run of one
 * folio, with no flush, as Linux), 3 (file pages) has nothing to clear, 4 (soft-dirty: nothing to
 * clear, as on a kernel without CONFIG_MEM_SOFT_DIRTY) and 5 (reset the
 * peak RSS: ptelab keeps none) are accepted.
 */
long proc_clear_refs_write(struct process *p, const struct proc_entry *e, unsigned long buf,
			   size_t len, uint64_t pos)
{
	char c[4] = { 0 };

	(void)e;
	(void)pos;
	if (!len || len > 3 || copy_from_user(c, buf, len))
		return len ? -EINVAL : 0;
	if (c[0] < '1' || c[0] > '5' || (c[1] && c[1] != '\n'))
		return -EINVAL;
	if (c[0] == '1' || c[0] == '2')
		mm_clear_young(p->mm, MM_USER_START, MM_USER_END, false);
	return (long)len;
}

/* Skip the slashes at @s (paths may say "/proc//self"). */
static const char *skip_slashes(const char *s)
{
	while (*s == '/')
		s++;
	return s;
}

/* After "/proc/": "self/" or "PID/" of @p; the rest, or NULL. */
static const char *proc_dir_rest(const struct process *p, const char *s)
{
	char pid[16];
	size_t n;

	if (!strncmp(s, "self/", 5))
		return s + 5;
	n = (size_t)snprintf(pid, sizeof(pid), "%d/", p->pid);
	return strncmp(s, pid, n) ? NULL : s + n;
}

const struct proc_entry *procfs_lookup(const struct process *p, const char *path)
{
	const char *s = skip_slashes(path);

	if (!strncmp(s, "sys/", 4))
		return sys_lookup(s);
	if (strncmp(s, "proc/", 5))
		return NULL;
	if (proc_root_lookup(s))
		return proc_root_lookup(s);
	s = proc_dir_rest(p, skip_slashes(s + 5));
	if (!s)
		return NULL;
	s = skip_slashes(s);
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(s, entries[i].name))
			return &entries[i];
	return NULL;
}

int procfs_access(const struct process *p, const char *path, bool write)
{
	const struct proc_entry *e = procfs_lookup(p, path);

	if (e)
		return write && !e->write ? -EACCES : 0;
	if (sys_is_dir(skip_slashes(path)))
		return write ? -EACCES : 0;
	return -ENOENT;
}

void proc_printf(struct proc_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->err = -EINVAL;
		return;
	}
	if ((size_t)n >= t->size - t->len) {
		size_t size = (t->size + (size_t)n + 1) * 2;
		char *buf = realloc(t->buf, size);

		if (!buf) {
			t->err = -ENOMEM;
			return;
		}
		t->buf = buf;
		t->size = size;
		va_start(ap, fmt);
		vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
		va_end(ap);
	}
	t->len += (size_t)n;
}

int procfs_open(struct process *p, struct fd *f, const struct proc_entry *e)
{
	struct proc_text t = { .size = 4096 };

	if (!e->text) {
		*f = (struct fd){ .kind = FD_PROC, .proc = e };
		return 0;
	}
	t.buf = malloc(t.size);
	if (!t.buf)
		return -ENOMEM;
	t.buf[0] = 0;
	if (e->text(p, e, &t) || t.err) {
		free(t.buf);
		return -ENOMEM;
	}
	*f = (struct fd){ .kind = FD_PROC, .proc = e, .text = t.buf, .text_len = t.len };
	return 0;
}

long procfs_read(struct process *p, const struct fd *f, unsigned long buf, size_t len, uint64_t pos)
{
	if (f->proc->read)
		return f->proc->read(p, buf, len, pos);
	if (pos >= f->text_len)
		return 0;
	if (len > f->text_len - pos)
		len = (size_t)(f->text_len - pos);
	return copy_to_user(buf, f->text + pos, len) ? -EFAULT : (long)len;
}

long procfs_write(struct process *p, const struct fd *f, unsigned long buf, size_t len,
		  uint64_t pos)
{
	return f->proc->write ? f->proc->write(p, f->proc, buf, len, pos) : -EBADF;
}

long procfs_ioctl(struct process *p, const struct fd *f, unsigned long cmd, unsigned long arg)
{
	return f->proc->ioctl ? f->proc->ioctl(p, f->proc, cmd, arg) : -ENOTTY;
}

void procfs_release(struct fd *f)
{
	free(f->text);
	f->text = NULL;
}
