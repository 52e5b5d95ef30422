/*
 * anon_family.c - membership of the anon family and the locks that keep
 * it stable while migration walks it (the contract is in anon_family.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "mm_internal.h"

int anon_family_join(struct mm *mm, struct anon_family *fam)
{
	if (!fam) {
		fam = calloc(1, sizeof(*fam));
		if (!fam)
			return -ENOMEM;
		fam->lock = RWLOCK_INIT_CLASS(LOCK_FAMILY, "anon family lock");
		spin_lock_init(&fam->list_lock, LOCK_LEAF, "anon family list");
	}
	spin_lock(&fam->list_lock);
	mm->family = fam;
	mm->family_next = fam->members;
	fam->members = mm;
	fam->nr++;
	spin_unlock(&fam->list_lock);
	return 0;
}

void anon_family_leave(struct mm *mm)
{
	struct anon_family *fam = mm->family;
	struct mm **p = &fam->members;
	int left;

	spin_lock(&fam->list_lock);
	while (*p != mm)
		p = &(*p)->family_next;
	*p = mm->family_next;
	left = --fam->nr;
	spin_unlock(&fam->list_lock);
	mm->family = NULL;
	read_unlock(&fam->lock);
	if (!left)
		free(fam); /* no member left to reach it */
}

void mmap_write_lock(struct mm *mm)
{
	read_lock(&mm->family->lock);
	write_lock(&mm->mmap_lock);
}

void mmap_write_unlock(struct mm *mm)
{
	write_unlock(&mm->mmap_lock);
	read_unlock(&mm->family->lock);
}
