/*
 * anon_family.h - the mms that may map one anon folio: an mm and every mm
 * forked from it, all the way down (Linux keeps this per VMA in its
 * anon_vma tree; ptelab has no rmap and keeps it per mm).
 *
 * Migration finds a folio's other mappings by walking the tables of every
 * member, and rewrites them (migration entries, then the new page) under
 * their page_table_lock and PTE locks but not their mmap_lock. So while it
 * walks, no member may change what those locks do not cover: its VMAs
 * (mmap, munmap, mprotect, madvise, mbind), its tables (munmap and
 * teardown free them), its membership (fork adds a member, teardown
 * removes one). The family lock says so: migration holds it for write;
 * each member's mmap_lock writers and its teardown hold it for read, so
 * they still run beside each other, and faults and GUP (mmap_lock readers)
 * run beside the migration as they do in the migrating mm itself.
 * Linux's rmap walkers take the anon_vma lock for read and fork and
 * munmap for write; here the one migration at a time (migrate_lock) is
 * the writer, so that members do not serialize against each other.
 *
 * Lock order: migrate_lock, then the family lock, then an mmap_lock.
 */
#ifndef MM_ANON_FAMILY_H
#define MM_ANON_FAMILY_H

#include "spinlock.h"

struct mm;

struct anon_family {
	struct rwlock lock;	   /* read: a member's VMA or table change; write: migration */
	struct spinlock list_lock; /* members and nr, beside other readers of lock */
	struct mm *members;	   /* linked by mm->family_next; stable while lock is written */
	int nr;			   /* members; the family is freed with its last */
};

/* The members of @fam: only while its lock is held for write. */
#define for_each_family_member(m, fam) for (struct mm *m = (fam)->members; m; m = m->family_next)

/*
 * anon_family_join - make @mm a member of @fam, or of a new family of its
 * own when @fam is NULL. Return: 0 or -ENOMEM.
 * Context: @fam's lock held for read (fork), none for a new family.
 */
int anon_family_join(struct mm *mm, struct anon_family *fam);

/* anon_family_leave - @mm is no member any more; the last member frees
 * the family. Context: the family lock held for read, released here. */
void anon_family_leave(struct mm *mm);

/* mmap_write_lock - take @mm's mmap_lock for write, as every change of its
 * VMAs does: the family lock for read first. */
void mmap_write_lock(struct mm *mm);
void mmap_write_unlock(struct mm *mm);

#endif
