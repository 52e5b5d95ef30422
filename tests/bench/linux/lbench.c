/*
 * lbench.c - the Linux side of `make compare`: ptelab's mm benchmarks as
 * system calls on a real Linux kernel, printing RESULT lines in ptelab's
 * JSON schema (guest/bench.c) with "backend":"linux" and the kernel
 * release as "version", so ptelab --csv's reader, the plots and the
 * tables take them unchanged.
 *
 *   lbench [bench=fault,zap,mremap,...,madvise_free,...,pageout,swapin,young,reclaim,
 *          reclaim_shared,syscall,ufault,forkexit]
 *          [folios=4K,64K,...] [size=MiB] [reps=N] [clock=icount|host]
 *          [knobs=on|off]
 *
 * Static, run as /init's child in a kernel booted under QEMU icount (a
 * CLOCK_MONOTONIC difference is then a guest instruction count) or
 * natively (clock=host). Each repetition maps a fresh region of @size,
 * populates it with folios of the asked size (the mTHP/THP sysfs knobs
 * when knobs=on), checks the sizes with /proc/self/pagemap and
 * /proc/kpageflags, times one operation and unmaps it, as ptelab's
 * harness does with a fresh mm. A row whose folios are not the asked size
 * gets "variant":"got-<size>" and "folio_ok":false: not comparable. A
 * swapin row whose pages came back as other folios than the asked size
 * says so as "variant":"back-<size>" (and "folio_after"): comparable, as
 * the kernel's own choice.
 * Counters are the /proc/vmstat deltas of one repetition.
 *
 * The same static binary runs on ptelab as a user process (run=exec, its
 * uname release says "ptelab"): both kernels then pay the same system
 * call, fault and copy-to-user costs. Three micro-benchmarks time one
 * operation each, reported per operation (median_us of one operation,
 * "ops" in params): syscall (a getpid round trip), ufault (one user page
 * fault that maps a whole folio of the asked size) and forkexit (fork,
 * the child's _exit, the parent's waitpid).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/io_uring.h>

#define PAGE 4096ul
#define PMD (2ul << 20)
#define MPOL_BIND 2
#define MPOL_MF_MOVE 2

struct fsize {
	const char *label;
	unsigned kb;
	bool pmd;
};

static const struct fsize fsizes[] = {
	{ "4K", 4, false },	  { "16K", 16, false },	  { "32K", 32, false },
	{ "64K", 64, false },	  { "128K", 128, false }, { "256K", 256, false },
	{ "512K", 512, false },	  { "1M", 1024, false },  { "2M-pte", 2048, false },
	{ "2M-pmd", 2048, true },
};
#define NR_FSIZES (sizeof(fsizes) / sizeof(fsizes[0]))

static struct {
	const char *benches, *folios, *clock;
	unsigned long size;
	int reps;
	bool knobs;
	char version[80], arch[72];
} opt = { "fault,zap,mprotect,fork,migrate,move_pages,gup,mremap",
	  "4K,16K,32K,64K,128K,256K,512K,1M,2M-pte,2M-pmd",
	  "icount",
	  64ul << 20,
	  3,
	  true,
	  "",
	  "" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --- /proc/vmstat --------------------------------------------------------- */

#define VM_MAX 320
struct vmstat {
	int n;
	char name[VM_MAX][48];
	unsigned long long v[VM_MAX];
};

static void vmstat_read(struct vmstat *s)
{
	FILE *f = fopen("/proc/vmstat", "r");

	s->n = 0;
	while (f && s->n < VM_MAX && fscanf(f, "%47s %llu", s->name[s->n], &s->v[s->n]) == 2)
		s->n++;
	if (f)
		fclose(f);
}

/* The non-zero deltas @b - @a as a JSON object body. */
static void vmstat_json(const struct vmstat *a, const struct vmstat *b, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int i = 0; i < a->n && i < b->n && o < len; i++) {
		long long d = (long long)(b->v[i] - a->v[i]);

		if (d && !strcmp(a->name[i], b->name[i]))
			o += (size_t)snprintf(buf + o, len - o, "%s\"%s\":%lld", o ? "," : "",
					      a->name[i], d);
	}
}

/* --- THP knobs ------------------------------------------------------------ */

#define THP "/sys/kernel/mm/transparent_hugepage"

static int put_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/* Ask for folios of @fs on new anonymous faults: every mTHP size "never"
 * but the one asked (6.8 and later have hugepages-<kB>kB; 6.1 has none,
 * so only 4K and 2M can be asked there). */
static void knobs_set(const struct fsize *fs)
{
	char path[96];

	if (!opt.knobs)
		return;
	for (unsigned kb = 8; kb <= 2048; kb *= 2) {
		snprintf(path, sizeof(path), THP "/hugepages-%ukB/enabled", kb);
		put_file(path, kb == fs->kb ? "always" : "never");
	}
	put_file(THP "/enabled", fs->kb == 2048 ? "always" : "never");
}

/* --- folio sizes: pagemap + kpageflags ------------------------------------ */

#define KPF_COMPOUND_TAIL 16

/* Does smaps_rollup show PMD-mapped anon THPs? */
static bool has_pmd_thp(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[128];
	unsigned long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %lu", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb > 0;
}

static int read_pfns(const char *p, unsigned long n, uint64_t *pfn)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	ssize_t want = (ssize_t)(n * 8);
	bool ok = fd >= 0 && pread(fd, pfn, (size_t)want, (off_t)((uintptr_t)p / PAGE * 8)) == want;

	if (fd >= 0)
		close(fd);
	for (unsigned long i = 0; ok && i < n; i++) {
		if (!(pfn[i] >> 63) || !(pfn[i] & ((1ull << 55) - 1)))
			return -1; /* not present, or PFNs hidden (not root) */
		pfn[i] &= (1ull << 55) - 1;
	}
	return ok ? 0 : -1;
}

/* kpageflags of every PFN in @pfn, read in runs of consecutive PFNs. */
static int read_flags(const uint64_t *pfn, unsigned long n, uint64_t *flags)
{
	int fd = open("/proc/kpageflags", O_RDONLY);
	unsigned long i = 0, j;

	while (fd >= 0 && i < n) {
		for (j = i + 1; j < n && j - i < 4096 && pfn[j] == pfn[j - 1] + 1; j++)
			;
		if (pread(fd, flags + i, (j - i) * 8, (off_t)(pfn[i] * 8)) !=
		    (ssize_t)((j - i) * 8))
			break;
		i = j;
	}
	if (fd >= 0)
		close(fd);
	return fd >= 0 && i == n ? 0 : -1;
}

/*
 * census - the folio size backing [@p, @p + @size): every folio the same
 * number of pages, or "mixed", or "unknown" (no PFNs). The label is
 * ptelab's (2M-pmd when smaps shows PMD mappings). Return: the number of
 * folios (0 when not uniform).
 */
static unsigned long census(const char *p, unsigned long size, char *label, size_t len)
{
	unsigned long n = size / PAGE, folios = 0, pages = 0, cur = 0;
	uint64_t *pfn = malloc(n * 8), *flags = malloc(n * 8);

	snprintf(label, len, "unknown");
	if (pfn && flags && !read_pfns(p, n, pfn) && !read_flags(pfn, n, flags)) {
		for (unsigned long i = 0; i <= n; i++) {
			if (i < n && i && (flags[i] >> KPF_COMPOUND_TAIL & 1) &&
			    pfn[i] == pfn[i - 1] + 1) {
				cur++;
				continue;
			}
			if (i && pages && cur != pages)
				pages = ~0ul;
			if (i && !pages)
				pages = cur;
			folios += i > 0;
			cur = 1;
		}
		if (pages == ~0ul)
			snprintf(label, len, "mixed"), folios = 0;
		else if (pages * 4 >= 1024)
			snprintf(label, len, "%luM%s", pages * 4 / 1024,
				 pages == 512 ? (has_pmd_thp() ? "-pmd" : "-pte") : "");
		else
			snprintf(label, len, "%luK", pages * 4);
	}
	free(pfn);
	free(flags);
	return folios;
}

/* --- the region ----------------------------------------------------------- */

static void set_policy_node0(void)
{
	unsigned long mask = 1;

	syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 64ul);
}

/* A 2 MiB-aligned region of @size for @fs, every page written. 2M-pte:
 * each PMD is split by a one-page mprotect round trip (the folio stays
 * whole, mapped by 512 PTEs). Return: the region or NULL. */
static char *region_map(const struct fsize *fs, unsigned long size, bool populate)
{
	char *raw = mmap(NULL, size + PMD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0),
	     *p;

	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)raw + PMD - 1) & ~(PMD - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	munmap(p + size, (size_t)(raw + PMD - p));
	madvise(p, size, fs->kb == 4 ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
	for (unsigned long o = 0; populate && o < size; o += PAGE)
		p[o] = 1;
	for (unsigned long o = 0; populate && fs->kb == 2048 && !fs->pmd && o < size; o += PMD) {
		mprotect(p + o, PAGE, PROT_READ);
		mprotect(p + o, PAGE, PROT_READ | PROT_WRITE);
	}
	return p;
}

/* Are all pages of [p, p + size) on @node? (move_pages with no target.) */
static bool on_node(char *p, unsigned long size, int node)
{
	unsigned long n = size / PAGE;
	void **pages = malloc(n * sizeof(*pages));
	int *status = malloc(n * sizeof(*status));
	bool ok = pages && status;

	for (unsigned long i = 0; ok && i < n; i++)
		pages[i] = p + i * PAGE;
	ok = ok && syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) == 0;
	for (unsigned long i = 0; ok && i < n; i++)
		ok = status[i] == node;
	free(pages);
	free(status);
	return ok;
}

/* One 4 KiB copy as 512 `rep movsq` iterations (@bytewise: 4096 `rep
 * movsb` ones); a plain memcpy off x86_64. */
static void copy_page_rep(char *dst, const char *src, int bytewise)
{
#ifdef __x86_64__
	unsigned long n = bytewise ? PAGE : PAGE / 8;

	if (bytewise)
		asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	else
		asm volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
#else
	(void)bytewise;
	memcpy(dst, src, PAGE);
#endif
}

/* --- the operations --------------------------------------------------------- */

/* One repetition's outcome: up to two timed parts (gup: pin and unpin;
 * migrate, move_pages: the round trip and the way there). */
struct rep {
	uint64_t t[2];
	uint64_t leg[2]; /* migration: the two legs */
	char got[32];	 /* folio size census before the operation */
	char after[32];	 /* migration: after the way back */
	struct vmstat vm0, vm1;
};

typedef int (*op_fn)(const struct fsize *fs, struct rep *r);

static char *prepare(const struct fsize *fs, struct rep *r)
{
	char *p;

	knobs_set(fs);
	p = region_map(fs, opt.size, true);
	if (p)
		census(p, opt.size, r->got, sizeof(r->got));
	return p;
}

static int op_fault(const struct fsize *fs, struct rep *r)
{
	char *p;
	uint64_t t0;

	knobs_set(fs);
	p = region_map(fs, opt.size, false);
	if (!p)
		return -1;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	for (unsigned long o = 0; o < opt.size; o += PAGE)
		p[o] = 1;
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	census(p, opt.size, r->got, sizeof(r->got));
	return munmap(p, opt.size);
}

static int op_zap(const struct fsize *fs, struct rep *r)
{
	char *p = prepare(fs, r);
	uint64_t t0;
	int err;

	if (!p)
		return -1;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	err = munmap(p, opt.size);
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	return err;
}

static int op_mprotect(const struct fsize *fs, struct rep *r)
{
	char *p = prepare(fs, r);
	uint64_t t0;
	int err;

	if (!p)
		return -1;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	err = mprotect(p, opt.size, PROT_READ) || mprotect(p, opt.size, PROT_READ | PROT_WRITE);
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	return err | munmap(p, opt.size);
}

/*
 * mremap(MREMAP_MAYMOVE | MREMAP_FIXED) of the region to a free range, as
 * ptelab's bench:mremap: a 2 MiB boundary plus 64 KiB (2M-pmd: the
 * boundary itself). The range is found by a PROT_NONE mapping given back
 * before the timed call, so the move, like ptelab's, replaces nothing.
 */
static int op_mremap(const struct fsize *fs, struct rep *r)
{
	char *p = prepare(fs, r), *raw, *dst, *got;
	unsigned long span = opt.size + 2 * PMD;
	uint64_t t0;

	if (!p)
		return -1;
	raw = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return munmap(p, opt.size), -1;
	munmap(raw, span);
	dst = (char *)(((uintptr_t)raw + PMD - 1) & ~(PMD - 1)) + (fs->pmd ? 0 : 64ul << 10);
	vmstat_read(&r->vm0);
	t0 = now_ns();
	got = mremap(p, opt.size, opt.size, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	if (got != dst)
		return munmap(p, opt.size), -1;
	return munmap(dst, opt.size);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* One madvise(@advice) of the whole region, timed, as ptelab's bench
 * madvise_free / _dontneed (a populated region) and madvise_populate
 * (MADV_POPULATE_WRITE of an empty one, its folios counted after: a
 * 2M-pte region cannot be asked for there, it faults in 2M-pmd). */
static int op_advice(const struct fsize *fs, struct rep *r, int advice)
{
	bool populate = advice == MADV_POPULATE_WRITE;
	char *p;
	uint64_t t0;
	int err;

	knobs_set(fs);
	p = populate ? region_map(fs, opt.size, false) : prepare(fs, r);
	if (!p)
		return -1;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	err = madvise(p, opt.size, advice);
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	if (populate && !err)
		census(p, opt.size, r->got, sizeof(r->got));
	return err | munmap(p, opt.size);
}

static int op_madvise_free(const struct fsize *fs, struct rep *r)
{
	return op_advice(fs, r, MADV_FREE);
}

static int op_madvise_dontneed(const struct fsize *fs, struct rep *r)
{
	return op_advice(fs, r, MADV_DONTNEED);
}

static int op_madvise_populate(const struct fsize *fs, struct rep *r)
{
	return op_advice(fs, r, MADV_POPULATE_WRITE);
}

/* The parent's fork() call, SCHED_FIFO when we may (the child, of the same
 * priority, waits until the parent blocks in waitpid, outside the window). */
static int timed_fork(struct rep *r)
{
	struct sched_param sp = { .sched_priority = 1 }, sp0 = { 0 };
	bool fifo = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
	uint64_t t0;
	pid_t pid;
	int st;

	vmstat_read(&r->vm0);
	t0 = now_ns();
	pid = fork();
	if (pid == 0)
		_exit(0);
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	if (fifo)
		sched_setscheduler(0, SCHED_OTHER, &sp0);
	return pid < 0 || waitpid(pid, &st, 0) != pid ? -1 : 0;
}

static int op_fork(const struct fsize *fs, struct rep *r)
{
	char *p = prepare(fs, r);

	return p ? timed_fork(r) | munmap(p, opt.size) : -1;
}

/* fork() of this process with no region: what every fork costs besides
 * copying the region (reported apart as bench fork_bare). */
static int op_fork_bare(const struct fsize *fs, struct rep *r)
{
	(void)fs;
	snprintf(r->got, sizeof(r->got), "-");
	return timed_fork(r);
}

/* migrate_pages() of the whole process, node 0 -> 1, then 1 -> 0; each
 * leg timed apart (6.12 splits mTHP folios on the way back). */
static int op_migrate(const struct fsize *fs, struct rep *r)
{
	unsigned long n0 = 1, n1 = 2;
	char *p = prepare(fs, r);
	char mid[24];
	uint64_t t0;
	long a, b;

	if (!p)
		return -1;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	a = syscall(SYS_migrate_pages, 0, 64ul, &n0, &n1);
	r->leg[0] = now_ns() - t0;
	census(p, opt.size, mid, sizeof(mid));
	if (!on_node(p, opt.size, 1) || strcmp(mid, r->got))
		snprintf(r->got, sizeof(r->got), "moved-%s", mid);
	t0 = now_ns();
	b = syscall(SYS_migrate_pages, 0, 64ul, &n1, &n0);
	r->leg[1] = now_ns() - t0;
	vmstat_read(&r->vm1);
	r->t[0] = r->leg[0] + r->leg[1];
	r->t[1] = r->leg[0];
	census(p, opt.size, r->after, sizeof(r->after));
	if (!on_node(p, opt.size, 0))
		snprintf(r->after, sizeof(r->after), "not-back");
	return a != 0 || b != 0 ? -1 : munmap(p, opt.size);
}

/* move_pages() of every page to node 1 and back, one call each way; the
 * folio sizes after the way back in r->after. */
static int op_move_pages(const struct fsize *fs, struct rep *r)
{
	unsigned long n = opt.size / PAGE;
	void **pages = malloc(n * sizeof(*pages));
	int *nodes = malloc(n * sizeof(*nodes)), *status = malloc(n * sizeof(*status));
	char *p = prepare(fs, r);
	long a = -1, b = -1;
	uint64_t t0;

	if (p && pages && nodes && status) {
		for (unsigned long i = 0; i < n; i++)
			pages[i] = p + i * PAGE, nodes[i] = 1;
		vmstat_read(&r->vm0);
		t0 = now_ns();
		a = syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE);
		r->leg[0] = now_ns() - t0;
		for (unsigned long i = 0; i < n; i++)
			nodes[i] = 0;
		t0 = now_ns();
		b = syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE);
		r->leg[1] = now_ns() - t0;
		vmstat_read(&r->vm1);
		r->t[0] = r->leg[0] + r->leg[1];
		r->t[1] = r->leg[0];
		census(p, opt.size, r->after, sizeof(r->after));
		if (!on_node(p, opt.size, 0))
			snprintf(r->after, sizeof(r->after), "not-back");
	}
	free(pages);
	free(nodes);
	free(status);
	return a != 0 || b != 0 ? -1 : munmap(p, opt.size);
}

/* A long-term pin of the whole region and its release: io_uring buffer
 * registration (one iovec: one pin_user_pages(FOLL_WRITE | FOLL_LONGTERM)
 * call) and unregistration (unpin_user_pages), as ptelab's default
 * gup_op=longterm. io_uring's own per-page work is in the figure too. */
/* The io_uring instance gup registers its buffer with (made once), or -1
 * with errno set: a kernel without io_uring (ptelab) says ENOSYS. */
static int uring_fd(void)
{
	static int ring = -1, err;
	struct io_uring_params prm;

	memset(&prm, 0, sizeof(prm));
	if (ring < 0 && !err) {
		ring = (int)syscall(SYS_io_uring_setup, 1, &prm);
		err = ring < 0 ? errno : 0;
	}
	errno = err;
	return ring;
}

static int op_gup(const struct fsize *fs, struct rep *r)
{
	int ring = uring_fd();
	struct iovec iov;
	char *p = ring < 0 ? NULL : prepare(fs, r);
	uint64_t t0;
	long a, b;

	if (!p)
		return -1;
	iov.iov_base = p;
	iov.iov_len = opt.size;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	a = syscall(SYS_io_uring_register, ring, IORING_REGISTER_BUFFERS, &iov, 1);
	r->t[0] = now_ns() - t0;
	t0 = now_ns();
	b = syscall(SYS_io_uring_register, ring, IORING_UNREGISTER_BUFFERS, NULL, 0);
	r->t[1] = now_ns() - t0;
	vmstat_read(&r->vm1);
	return a || b ? -1 : munmap(p, opt.size);
}

/* memcpy() of @size bytes there and back between two written regions of
 * 2 MiB THPs (where the knobs allow: the copy, not TLB misses): the
 * physical limit of a migration round trip of the same bytes (reported
 * as bench copy). */
static int op_copy(const struct fsize *fs, struct rep *r)
{
	const struct fsize *thp = &fsizes[NR_FSIZES - 1];
	char *a, *b;
	uint64_t t0;

	(void)fs;
	knobs_set(thp);
	a = region_map(thp, opt.size, true);
	b = region_map(thp, opt.size, true);
	snprintf(r->got, sizeof(r->got), "-");
	if (!a || !b)
		return -1;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	memcpy(b, a, opt.size);
	memcpy(a, b, opt.size);
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	return munmap(a, opt.size) | munmap(b, opt.size);
}

/*
 * The page copy Linux's x86_64 migration does, in user space under the
 * same clock: @size bytes as 4 KiB `rep movsq` (6.1's copy_page) and as
 * 4 KiB `rep movsb` (6.12's copy_mc with ERMS), there and back. QEMU
 * counts every iteration of a rep string instruction, so these are what
 * such a copy costs in icount (bench copy_movsq, copy_movsb; x86_64 only).
 */
static int op_copy_rep(const struct fsize *fs, struct rep *r)
{
	char *a = region_map(&fsizes[0], opt.size, true),
	     *b = region_map(&fsizes[0], opt.size, true);

	(void)fs;
	snprintf(r->got, sizeof(r->got), "-");
	if (!a || !b)
		return -1;
	for (int k = 0; k < 2; k++) {
		uint64_t t0 = now_ns();

		for (int way = 0; way < 2; way++)
			for (unsigned long o = 0; o < opt.size; o += PAGE)
				copy_page_rep(way ? a + o : b + o, way ? b + o : a + o, k);
		r->t[k] = now_ns() - t0;
	}
	return munmap(a, opt.size) | munmap(b, opt.size);
}

/* --- swap and aging ------------------------------------------------------- */

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#define PM_SWAPPED (1ull << 62)

/* How many pages of [@p, @p + @size) have @bit in their pagemap entry
 * (PM_SWAPPED: on swap), or -1 when pagemap cannot be read. */
static long pagemap_count(const char *p, unsigned long size, uint64_t bit)
{
	unsigned long n = size / PAGE;
	uint64_t *e = malloc(n * 8);
	int fd = open("/proc/self/pagemap", O_RDONLY);
	long got = -1;

	if (e && fd >= 0 &&
	    pread(fd, e, n * 8, (off_t)((uintptr_t)p / PAGE * 8)) == (ssize_t)(n * 8)) {
		got = 0;
		for (unsigned long i = 0; i < n; i++)
			got += (e[i] & bit) != 0;
	}
	if (fd >= 0)
		close(fd);
	free(e);
	return got;
}

/* After a MADV_PAGEOUT of the region: every page on swap, or r->got says
 * how many stayed ("resident-N": the row is not comparable). */
static void check_swapped(const char *p, struct rep *r)
{
	long n = (long)(opt.size / PAGE), on = pagemap_count(p, opt.size, PM_SWAPPED);

	if (on != n)
		snprintf(r->got, sizeof(r->got), "resident-%ld", on < 0 ? n : n - on);
}

/* One MADV_PAGEOUT of the populated region, as ptelab's bench:pageout:
 * every folio unmapped and written to the swap device (init.sh's RAM
 * disk), checked through pagemap's swapped bit. */
static int op_pageout(const struct fsize *fs, struct rep *r)
{
	char *p = prepare(fs, r);
	uint64_t t0;
	int err;

	if (!p)
		return -1;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	err = madvise(p, opt.size, MADV_PAGEOUT);
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	check_swapped(p, r);
	return err | munmap(p, opt.size);
}

/* A read of every page of a region an untimed MADV_PAGEOUT put on swap,
 * as ptelab's bench:swapin: the swap-in fault path (one fault per folio
 * the kernel reads back). The folio size it read back: r->after. */
static int op_swapin(const struct fsize *fs, struct rep *r)
{
	char *p = prepare(fs, r);
	unsigned long sum = 0;
	uint64_t t0;

	if (!p)
		return -1;
	if (madvise(p, opt.size, MADV_PAGEOUT))
		return munmap(p, opt.size), -1;
	check_swapped(p, r);
	vmstat_read(&r->vm0);
	t0 = now_ns();
	for (unsigned long o = 0; o < opt.size; o += PAGE)
		sum += ((volatile char *)p)[o];
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	census(p, opt.size, r->after, sizeof(r->after));
	return sum != opt.size / PAGE ? -1 : munmap(p, opt.size);
}

/* --- reclaim under a memory limit ----------------------------------------- */

#define CGROOT "/sys/fs/cgroup"
#define MEMCG CGROOT "/lbench"

/* Into a memory cgroup of its own whose memory.max is @limit bytes (above
 * what the group holds: nothing, since what lbench had stays charged to
 * the root): cgroup2 mounted at CGROOT when it is not, the memory
 * controller on for the root's children. Return: 0, or -1 where the
 * kernel has no memory cgroup (ptelab: the row is left out). */
static int memcg_enter(unsigned long limit)
{
	char v[32];

	if (access(CGROOT "/cgroup.subtree_control", W_OK) &&
	    (mkdir(CGROOT, 0755), mount("none", CGROOT, "cgroup2", 0, NULL)))
		return -1;
	if (put_file(CGROOT "/cgroup.subtree_control", "+memory") ||
	    (mkdir(MEMCG, 0755) && errno != EEXIST))
		return -1;
	snprintf(v, sizeof(v), "%lu", limit);
	if (put_file(MEMCG "/memory.max", v))
		return -1;
	snprintf(v, sizeof(v), "%d", getpid());
	return put_file(MEMCG "/cgroup.procs", v);
}

/* Back to the root group; the group goes (its pages were freed first). */
static void memcg_leave(void)
{
	char v[32];

	snprintf(v, sizeof(v), "%d", getpid());
	put_file(CGROOT "/cgroup.procs", v);
	rmdir(MEMCG);
}

/* Can lbench run in a memory cgroup of its own here? */
static bool memcg_available(void)
{
	bool ok = memcg_enter(PMD) == 0;

	memcg_leave();
	return ok;
}

/* As ptelab's bench:reclaim: a write of every page of an unpopulated
 * region that only half fits (ptelab puts its watermark half the region
 * below the free pages; here the memory cgroup's limit is half the
 * region: the faults of the second half reclaim from the group's LRU to
 * the swap device, init.sh's RAM disk), then a read of every page (the
 * swap-in of what went out). One timed window. */
static int op_reclaim(const struct fsize *fs, struct rep *r)
{
	unsigned long sum = 0;
	uint64_t t0;
	char *p;

	knobs_set(fs);
	p = region_map(fs, opt.size, false);
	if (!p)
		return -1;
	if (memcg_enter(opt.size / 2))
		return munmap(p, opt.size), -1;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	for (unsigned long o = 0; o < opt.size; o += PAGE)
		p[o] = 1;
	for (unsigned long o = 0; o < opt.size; o += PAGE)
		sum += ((volatile char *)p)[o];
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	/* The asked size, as the faults allocate it with knobs_set() (bench
	 * fault's census shows they do); a census here would see half the
	 * region on swap. */
	snprintf(r->got, sizeof(r->got), "%s", fs->label);
	munmap(p, opt.size);
	memcg_leave();
	return sum == opt.size / PAGE ? 0 : -1;
}

/* As ptelab's bench:reclaim_shared: in a memory cgroup whose limit is
 * three quarters of the region, the first half written (untimed) and a
 * child forked that maps it too and waits; then a timed write of the
 * second half, whose faults past the limit reclaim the first half's
 * folios (the oldest on the group's LRU, mapped by both processes:
 * try_to_unmap() walks the anon_vma to both) to the swap device. ptelab
 * puts its watermark a quarter of the region below its free pages: the
 * same quarter of the region goes out. */
static int op_reclaim_shared(const struct fsize *fs, struct rep *r)
{
	unsigned long half = opt.size / 2;
	int fds[2] = { -1, -1 }, err = -1;
	pid_t pid = -1;
	uint64_t t0;
	char *p, c;

	knobs_set(fs);
	p = region_map(fs, opt.size, false);
	if (!p)
		return -1;
	if (memcg_enter(opt.size / 4 * 3))
		return munmap(p, opt.size), -1;
	for (unsigned long o = 0; o < half; o += PAGE)
		p[o] = 1;
	if (!pipe(fds) && (pid = fork()) == 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) < 0);
	}
	if (pid > 0) {
		vmstat_read(&r->vm0);
		t0 = now_ns();
		for (unsigned long o = half; o < opt.size; o += PAGE)
			p[o] = 1;
		r->t[0] = now_ns() - t0;
		vmstat_read(&r->vm1);
		err = 0;
	}
	if (fds[1] >= 0)
		close(fds[1]); /* the child's read returns: it exits */
	if (fds[0] >= 0)
		close(fds[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	snprintf(r->got, sizeof(r->got), "%s", fs->label);
	munmap(p, opt.size);
	memcg_leave();
	return err;
}

/* One write of "1" to /proc/self/clear_refs after the region was written
 * (every entry young), as ptelab's bench:young: the kernel walks the
 * process's mappings and tests and clears each entry's young bit (Linux
 * flushes no TLB for "1", only for soft-dirty's "4"; the walk covers
 * lbench's own small mappings too, on both kernels). */
static int op_young(const struct fsize *fs, struct rep *r)
{
	char *p = prepare(fs, r);
	int fd = open("/proc/self/clear_refs", O_WRONLY);
	ssize_t n = -1;
	uint64_t t0;

	if (p && fd >= 0) {
		vmstat_read(&r->vm0);
		t0 = now_ns();
		n = write(fd, "1", 1);
		r->t[0] = now_ns() - t0;
		vmstat_read(&r->vm1);
	}
	if (fd >= 0)
		close(fd);
	return !p ? -1 : (n != 1) | munmap(p, opt.size);
}

/* --- micro-benchmarks: one operation, timed over a loop ------------------- */

#define SYSCALL_OPS 1000
#define FORKEXIT_OPS 10

/* How many operations a micro-benchmark's repetition timed (0: not a
 * micro-benchmark); its RESULT line says so as "ops=N" in params, and
 * the figure is the whole loop (table.sh divides: one operation). */
static unsigned long micro_ops;

/* SYSCALL_OPS getpid() round trips through syscall() (glibc caches no
 * pid, but the raw call rules out any library shortcut). */
static int op_syscall(const struct fsize *fs, struct rep *r)
{
	uint64_t t0;

	(void)fs;
	snprintf(r->got, sizeof(r->got), "-");
	vmstat_read(&r->vm0);
	t0 = now_ns();
	for (int i = 0; i < SYSCALL_OPS; i++)
		syscall(SYS_getpid);
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	micro_ops = SYSCALL_OPS;
	return 0;
}

/* One write fault per folio of @fs in a fresh region: each fault maps a
 * whole folio (2M-pmd: one PMD). 2M-pte is made by splitting a PMD after
 * the fault, so it is no fault size: left out (run_bench). */
static int op_ufault(const struct fsize *fs, struct rep *r)
{
	unsigned long step = fs->kb * 1024ul;
	char *p;
	uint64_t t0;

	knobs_set(fs);
	p = region_map(fs, opt.size, false);
	if (!p)
		return -1;
	vmstat_read(&r->vm0);
	t0 = now_ns();
	for (unsigned long o = 0; o < opt.size; o += step)
		p[o] = 1;
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	census(p, opt.size, r->got, sizeof(r->got));
	micro_ops = opt.size / step;
	return munmap(p, opt.size);
}

/* FORKEXIT_OPS times: fork(), the child's _exit(0), the parent's waitpid(). */
static int op_forkexit(const struct fsize *fs, struct rep *r)
{
	uint64_t t0;
	int st, err = 0;

	(void)fs;
	snprintf(r->got, sizeof(r->got), "-");
	vmstat_read(&r->vm0);
	t0 = now_ns();
	for (int i = 0; i < FORKEXIT_OPS && !err; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		err = pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st);
	}
	r->t[0] = now_ns() - t0;
	vmstat_read(&r->vm1);
	micro_ops = FORKEXIT_OPS;
	return err ? -1 : 0;
}

/* --- the harness ---------------------------------------------------------- */

struct bench {
	const char *name, *second; /* second: the name of t[1], if timed */
	op_fn fn;
};

static const struct bench benches[] = {
	{ "fault", NULL, op_fault },
	{ "zap", NULL, op_zap },
	{ "mprotect", NULL, op_mprotect },
	{ "mremap", NULL, op_mremap },
	{ "fork", NULL, op_fork },
	{ "fork_bare", NULL, op_fork_bare },
	{ "migrate", "migrate_leg1", op_migrate },
	{ "move_pages", "move_pages_leg1", op_move_pages },
	{ "gup", "gup_put", op_gup },
	{ "copy", NULL, op_copy },
	{ "copy_movsq", "copy_movsb", op_copy_rep },
	{ "madvise_free", NULL, op_madvise_free },
	{ "madvise_dontneed", NULL, op_madvise_dontneed },
	{ "madvise_populate", NULL, op_madvise_populate },
	{ "pageout", NULL, op_pageout },
	{ "swapin", NULL, op_swapin },
	{ "young", NULL, op_young },
	{ "reclaim", NULL, op_reclaim },
	{ "reclaim_shared", NULL, op_reclaim_shared },
	{ "syscall", NULL, op_syscall },
	{ "ufault", NULL, op_ufault },
	{ "forkexit", NULL, op_forkexit },
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool in_list(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *s = list; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, w, n) && (s[n] == ',' || !s[n]))
			return true;
	return false;
}

/* One RESULT line: part @k of @reps repetitions @r of @b on @fs. */
static void print_result(const char *name, const struct fsize *fs, struct rep *r, int k)
{
	static char counters[8192];
	uint64_t t[64], med;
	const char *got = r[0].got, *label = fs ? fs->label : "-";
	bool ok = !strcmp(got, label);
	char variant[40], params[32];

	for (int i = 0; i < opt.reps; i++) {
		t[i] = r[i].t[k];
		if (strcmp(r[i].got, got))
			ok = false;
	}
	qsort(t, (size_t)opt.reps, 8, cmp_u64);
	med = opt.reps % 2 ? t[opt.reps / 2] : (t[opt.reps / 2 - 1] + t[opt.reps / 2]) / 2;
	snprintf(variant, sizeof(variant), ok ? "linux" : "got-%s", got);
	if (ok && k == 0 && r[0].leg[0] && strcmp(r[0].after, label))
		snprintf(variant, sizeof(variant), "split-back");
	else if (ok && k == 0 && r[0].after[0] && strcmp(r[0].after, label))
		snprintf(variant, sizeof(variant), "back-%s", r[0].after); /* swapin */
	vmstat_json(&r[0].vm0, &r[0].vm1, counters, sizeof(counters));
	printf("RESULT {\"bench\":\"%s\",\"arch\":\"%s\",\"backend\":\"linux\",\"clock\":\"%s\","
	       "\"version\":\"%s\",\"folio\":\"%s\",\"variant\":\"%s\",\"cap\":\"-\",\"reps\":%d,"
	       "\"size_mb\":%lu,\"median_us\":%.1f,\"min_us\":%.1f,\"max_us\":%.1f,"
	       "\"spread_pct\":%.1f,\"folio_ok\":%s,\"folio_got\":\"%s\"",
	       name, opt.arch, opt.clock, opt.version, label, variant, opt.reps, opt.size >> 20,
	       med / 1000.0, t[0] / 1000.0, t[opt.reps - 1] / 1000.0,
	       med ? 100.0 * (double)(t[opt.reps - 1] - t[0]) / (double)med : 0.0,
	       ok ? "true" : "false", got);
	if (r[0].leg[0])
		printf(",\"leg1_us\":%.1f,\"leg2_us\":%.1f,\"folio_after\":\"%s\"",
		       r[0].leg[0] / 1000.0, r[0].leg[1] / 1000.0, r[0].after);
	else if (r[0].after[0]) /* swapin */
		printf(",\"folio_after\":\"%s\"", r[0].after);
	/* ptelab's "params" for the same work: io_uring's registration pins
	 * as gup_op=longterm and keeps them as one bvec per folio run. */
	snprintf(params, sizeof(params), micro_ops ? "ops=%lu" : "", micro_ops);
	printf(",\"params\":\"%s\",\"caps\":{},\"counters\":{%s}}\n",
	       !strcmp(name, "gup") || !strcmp(name, "gup_put")
		       ? "gup_op=longterm gup_keep=ranges gup_write=on gup_touch=off"
		       : params,
	       counters);
	fflush(stdout);
}

/* Can this kernel be asked for @fs? mTHP needs hugepages-<kB>kB (6.8+). */
static bool size_available(const struct fsize *fs)
{
	char path[96];

	snprintf(path, sizeof(path), THP "/hugepages-%ukB/enabled", fs->kb);
	return !opt.knobs || fs->kb == 4 || fs->kb == 2048 || access(path, W_OK) == 0;
}

static int run_bench(const struct bench *b, const struct fsize *fs)
{
	static struct rep r[64];

	if (fs && !size_available(fs)) {
		printf("lbench: %s %s: this kernel has no hugepages-%ukB knob (no mTHP): left "
		       "out\n",
		       b->name, fs->label, fs->kb);
		return 0;
	}
	if (b->fn == op_gup && uring_fd() < 0) {
		printf("lbench: gup %s: no io_uring here (%s): left out\n", fs->label,
		       strerror(errno));
		return 0;
	}
	bool memcg = b->fn == op_reclaim || b->fn == op_reclaim_shared;

	if ((b->fn == op_ufault || memcg) && fs->kb == 2048 && !fs->pmd)
		return 0; /* 2M-pte is no fault size */
	if (memcg && !memcg_available()) {
		printf("lbench: %s %s: no memory cgroup here: left out\n", b->name, fs->label);
		return 0;
	}
	/* Only the entries used: the process stays small (forkexit). */
	memset(r, 0, (size_t)opt.reps * sizeof(r[0]));
	micro_ops = 0;
	for (int i = 0; i < opt.reps; i++)
		if (b->fn(fs, &r[i])) {
			printf("lbench: %s %s failed: %s\n", b->name, fs ? fs->label : "-",
			       strerror(errno));
			return -1;
		}
	print_result(b->name, fs, r, 0);
	if (b->second)
		print_result(b->second, fs, r, 1);
	return 0;
}

static void parse(int argc, char **argv)
{
	struct utsname u;

	for (int i = 1; i < argc; i++) {
		char *v = strchr(argv[i], '=');

		if (!v)
			continue;
		*v++ = 0;
		if (!strcmp(argv[i], "bench"))
			opt.benches = v;
		else if (!strcmp(argv[i], "folios"))
			opt.folios = v;
		else if (!strcmp(argv[i], "clock"))
			opt.clock = v;
		else if (!strcmp(argv[i], "size"))
			opt.size = strtoul(v, NULL, 0) << 20;
		else if (!strcmp(argv[i], "reps"))
			opt.reps = atoi(v) < 1 ? 1 : atoi(v) > 64 ? 64 : atoi(v);
		else if (!strcmp(argv[i], "knobs"))
			opt.knobs = !strcmp(v, "on");
	}
	uname(&u);
	snprintf(opt.version, sizeof(opt.version), "%s", u.release);
	snprintf(opt.arch, sizeof(opt.arch), "%s",
		 strcmp(u.machine, "aarch64") ? u.machine : "arm64");
}

int main(int argc, char **argv)
{
	int err = 0;

	parse(argc, argv);
	set_policy_node0();
	for (unsigned i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
		if (!in_list(opt.benches, benches[i].name))
			continue;
		if (benches[i].fn == op_fork_bare || benches[i].fn == op_copy ||
		    benches[i].fn == op_copy_rep || benches[i].fn == op_syscall ||
		    benches[i].fn == op_forkexit) {
			err |= run_bench(&benches[i], NULL);
			continue;
		}
		for (unsigned f = 0; f < NR_FSIZES; f++)
			if (in_list(opt.folios, fsizes[f].label))
				err |= run_bench(&benches[i], &fsizes[f]);
	}
	printf("lbench: done\n");
	return err ? 1 : 0;
}
