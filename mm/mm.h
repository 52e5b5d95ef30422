/*
 * mm.h - address spaces: struct mm, VMAs, mmap/munmap/mprotect, faults and
 * access to an mm's memory.
 *
 * User addresses are [MM_USER_START, MM_USER_END); the kernel half (direct
 * map, kernel image) is shared by every mm and set up by the arch.
 */
#ifndef MM_MM_H
#define MM_MM_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtable.h"
#include "smp.h"
#include <asm/mm_context.h> /* struct arch_mm_context */
#include "spinlock.h"

#define MM_USER_START 0x10000ul
#define MM_USER_END (1ul << 47)

/* VMA flags. */
#define VM_READ (1u << 0)
#define VM_WRITE (1u << 1)
#define VM_EXEC (1u << 2)
#define VM_DONTCOPY (1u << 3)	/* not copied into a fork child (MADV_DONTFORK) */
#define VM_NOHUGEPMD (1u << 4)	/* order-9 folios are mapped by 512 PTEs, not a PMD */
#define VM_HUGEPAGE (1u << 5)	/* MADV_HUGEPAGE: "madvise" THP orders apply (thp_policy.h) */
#define VM_THP_SYSTEM (1u << 6) /* fault orders from the system THP settings, not vma->orders */
#define VM_SHARED (1u << 7)	/* MAP_SHARED|MAP_ANONYMOUS: vma->shm backs it (mm/shmem.h) */
/* A VMA has any set of these, kept as given, as Linux keeps them: none
 * (PROT_NONE: the range is reserved, its entries refuse user mode), or
 * PROT_WRITE or PROT_EXEC alone; no arch here has write- or exec-only
 * entries, so the user may read such a VMA, while GUP and
 * MADV_POPULATE_READ, which go by the VMA's flags, may not. */
#define VM_ACCESS_FLAGS (VM_READ | VM_WRITE | VM_EXEC)

/* mm flags. */
#define MMF_HAS_PINNED (1u << 0) /* something in this mm was ever FOLL_PIN-ned */

/* A VMA's NUMA memory policy (mm/mempolicy.h): MPOL_* and the node
 * indexes it names (bit i = pglists[i]). */
struct mempolicy {
	unsigned mode;
	unsigned long nodes;
};

struct vma {
	struct mm *mm;
	unsigned long start, end; /* [start, end), page aligned */
	unsigned flags;		  /* VM_* */
	unsigned long orders;	  /* allowed anon folio orders, bit n = order n */
	int nid;		  /* node index for new folios */
	struct mempolicy pol;	  /* where faults allocate (MPOL_DEFAULT: nid) */
	struct shmem *shm;	  /* VM_SHARED: the object mapped (one reference), else NULL */
	unsigned long pgoff;	  /* VM_SHARED: the page of shm that start maps */
	struct vma *next;	  /* sorted by start */
};

/*
 * struct mm - an address space.
 * Context: mmap_lock guards the VMA list (vmas and every field of its
 * VMAs): written by mmap, munmap, mprotect, madvise, mbind and fork, read
 * by faults, the GUP slow path, migration, numa_maps and ptdump.
 * page_table_lock guards entries above the PTE level (installing a table,
 * changing a PMD leaf) against other holders of mmap_lock for read; each
 * PTE table has its own lock for its entries. users and nr_pt_pages
 * change atomically. mm_list_lock guards mm_list and next_mm; the anon
 * family lock, read by every mmap_lock writer (mmap_write_lock()), keeps
 * VMAs and tables still while a migration walks the family's other mms.
 */
struct mm {
	pgd_t *pgd;
	struct vma *vmas;
	struct rwlock mmap_lock;
	struct spinlock page_table_lock;
	int users;	      /* references: the mm is freed when the last goes */
	unsigned flags;	      /* MMF_* */
	uint64_t nr_pt_pages; /* page-table pages below pgd */
	int id;
	struct anon_family *family;	/* the mms that may map its anon folios (anon_family.h) */
	struct mm *family_next;		/* the family's next member */
	struct mm *next_mm;		/* all live mms, for the invariant checker */
	struct arch_mm_context context; /* the arch's (which CPUs hold it, ...) */
	/* Odd while fork copies this mm's mappings copy-on-write (written
	 * under the mmap_lock for write; read by FOLL_PIN gup-fast, which
	 * takes no lock: mm_internal.h, mm_write_protect_begin()). */
	unsigned long write_protect_seq;
	/* Migration's deferred TLB flush (mm/migrate.c): a range of this mm
	 * cleared and not yet flushed, and the next mm that has one. */
	unsigned long flush_start, flush_end;
	struct mm *flush_next;
	/* The periodic NUMA scan (mm/numa_scan.c): faults since the last
	 * step (atomic), and where the next step starts (its stepper's). */
	unsigned long numa_scan_faults, numa_scan_next;
};

extern struct mm *mm_list;

/* The mm whose user half is live in this CPU's MMU (CR3 / TTBR0), or
 * NULL: one per CPU, read and written only by its own CPU. */
extern struct mm *cpu_current_mm[NR_CPUS];
#define current_mm (cpu_current_mm[smp_processor_id()])

struct mm *mm_create(void); /* NULL when out of memory */
void mm_get(struct mm *mm);
void mm_put(struct mm *mm);    /* last reference: zap everything, free tables */
void switch_mm(struct mm *mm); /* on this CPU */

/*
 * mm_fork - a copy-on-write child of @src (VMAs without VM_DONTCOPY).
 * Return: the child, or NULL with -ENOMEM in *@err; on failure @src is
 * exactly as it was.
 */
struct mm *mm_fork(struct mm *src, int *err);

/* mmap flags. */
#define MAP_FIXED_ADDR (1u << 0) /* use @addr exactly (replacing what is there) */

/*
 * mm_mmap - map anonymous memory: private, or with VM_SHARED in @vm_flags
 * a new shared object (mm/shmem.h) of @len that fork children share.
 * @addr: wanted address (hint, or exact with MAP_FIXED_ADDR), page aligned.
 * @orders: allowed folio orders for faults in the new VMA (bit 0 always ok).
 * Return: the start address, or a negative errno (-EINVAL, -ENOMEM).
 * Without MAP_FIXED_ADDR the address is aligned to the largest allowed
 * order (2 MiB when PMD_ORDER is allowed) so large folios can be used.
 */
long mm_mmap(struct mm *mm, unsigned long addr, unsigned long len, unsigned vm_flags,
	     unsigned map_flags, unsigned long orders);

/* munmap / mprotect of any page-aligned sub-range: split VMAs as needed.
 * mprotect to no access (PROT_NONE) keeps every folio mapped, its entries
 * present to mm/ but refused to user mode (docs/mm-core.md).
 * Return: 0 or a negative errno; on error nothing changed. */
int mm_munmap(struct mm *mm, unsigned long addr, unsigned long len);
int mm_mprotect(struct mm *mm, unsigned long addr, unsigned long len, unsigned vm_flags);

/* mremap flags (Linux's values). */
#define MREMAP_MAYMOVE 1u
#define MREMAP_FIXED 2u
#define MREMAP_DONTUNMAP 4u

/*
 * mm_mremap - resize and/or move the mapping [@old, @old + @old_len),
 * which must lie in one VMA, to @new_len bytes (lengths rounded up to
 * pages), as Linux's mremap(): shrink in place; grow in place when the
 * pages after it are free; else, with MREMAP_MAYMOVE, move it to a free
 * range (MREMAP_FIXED: to @new_addr, replacing what is there), its pages
 * with it. MREMAP_DONTUNMAP leaves the old range mapped and empty.
 * Return: the (new) start, or -EINVAL (bad flags or ranges), -EFAULT
 * (the old range is not inside one VMA), -ENOMEM (no room, out of
 * memory); on error no mapping changed.
 */
long mm_mremap(struct mm *mm, unsigned long old, unsigned long old_len, unsigned long new_len,
	       unsigned flags, unsigned long new_addr);

/* Set VMA flags like VM_DONTCOPY on a range (splits VMAs). */
int mm_madvise_flags(struct mm *mm, unsigned long addr, unsigned long len, unsigned set,
		     unsigned clear);

/* Does no VMA overlap [addr, addr+len)? (MAP_FIXED_NOREPLACE's test.) */
bool mm_range_free(struct mm *mm, unsigned long addr, unsigned long len);

struct vma *find_vma(struct mm *mm, unsigned long addr); /* the VMA containing addr */

/* Fault flags. */
#define FAULT_WRITE (1u << 0)
#define FAULT_UNSHARE (1u << 1) /* make an anon page exclusive without writing */
#define FAULT_EXEC (1u << 2)
/* GUP with FOLL_FORCE checked the access (ptrace, /proc/PID/mem): a write
 * to a VMA without VM_WRITE breaks COW, and the entry stays read-only. */
#define FAULT_FORCE (1u << 3)

/*
 * handle_mm_fault - resolve a fault at @addr in @mm.
 * Return: 0 when the access can be retried, -EFAULT when it is outside
 * every VMA or against the VMA's protection, -ENOMEM when memory ran out.
 * Context: takes @mm's mmap_lock for read (the arch fault handlers call
 * it with no lock held); __handle_mm_fault() is the same for a caller
 * that holds it already (GUP).
 */
int handle_mm_fault(struct mm *mm, unsigned long addr, unsigned flags);
int __handle_mm_fault(struct mm *mm, unsigned long addr, unsigned flags);

/*
 * mm_access - copy between a kernel buffer and @mm's memory through the MMU
 * (the guest switches to @mm and really loads and stores; faults are taken
 * by the hardware and resolved by handle_mm_fault). @write copies @buf into
 * the mm. Return: 0, or with the copy stopped at the first page that
 * cannot be accessed: -EFAULT (no VMA, or against its protection) or
 * -ENOMEM (the fault ran out of memory).
 */
int mm_access(struct mm *mm, unsigned long addr, void *buf, unsigned long len, bool write);

/* Touch every page of [addr, addr+len) (one byte per page), writing when
 * @write. Return: 0, -EFAULT or -ENOMEM as mm_access(). */
int mm_touch(struct mm *mm, unsigned long addr, unsigned long len, bool write);

/* Print @mm's VMAs and runs of entries, readable by a student (format
 * in mm/ptdump.c); mm_ptdump_to() hands each line to @out instead. */
void mm_ptdump(struct mm *mm);
void mm_ptdump_to(struct mm *mm, void (*out)(void *ctx, const char *line), void *ctx);

/*
 * mm_ptstrip - [@start, @end) as a PTE strip, one character per entry
 * (W/w writable dirty/clean, R/r read-only dirty/clean, s a swap entry, m a migration
 * entry, . none), 64 a row in groups of 16, with rows beneath naming each
 * entry's folio (a letter that changes with the folio), its AnonExclusive
 * state, its node (with more than one) and, where the arch has blocks,
 * its contiguous bit; a PMD leaf is one line. mm_ptstrip_to() hands each line to @out.
 */
void mm_ptstrip(struct mm *mm, unsigned long start, unsigned long end);
void mm_ptstrip_to(struct mm *mm, unsigned long start, unsigned long end,
		   void (*out)(void *ctx, const char *line), void *ctx);

/* Check every invariant of every live mm and of all memory (mm/check.c
 * lists them); return the number of problems, each printed. @mm is
 * unused (a folio's mappings may come from any mm, so all are walked).
 * Context: quiescent: no other CPU runs mm code (tests call it between
 * steps); it reads without locks and reports any lock left held. */
int mm_check(struct mm *mm);

#endif
