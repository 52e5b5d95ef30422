/*
 * guestmem.c - guest RAM mappings and the checked GPA translator.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "vmm_guestmem.h"

int vmm_guest_mem_map(struct vmm_guest_mem *mem, const struct vmm_range *ram, int nr)
{
	memset(mem, 0, sizeof(*mem));
	if (nr < 0 || nr > VMM_MAX_RAM) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < nr; i++) {
		struct vmm_mem_region *r = &mem->region[i];
		void *p = mmap(NULL, ram[i].size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED)
			goto err_unmap;
		/* Fewer, cheaper faults when the guest first touches its RAM;
		 * only a hint, so its failure does not matter. */
		madvise(p, ram[i].size, MADV_HUGEPAGE);
		r->gpa = ram[i].base;
		r->size = ram[i].size;
		r->host = p;
		mem->nr = i + 1;
	}
	return 0;

err_unmap : {
	int saved = errno;

	vmm_guest_mem_unmap(mem);
	errno = saved;
}
	return -1;
}

void vmm_guest_mem_unmap(struct vmm_guest_mem *mem)
{
	for (int i = 0; i < mem->nr; i++)
		munmap(mem->region[i].host, mem->region[i].size);
	mem->nr = 0;
}

void *vmm_gpa(struct vmm_guest_mem *mem, uint64_t gpa, uint64_t len)
{
	if (len == 0)
		return NULL;
	for (int i = 0; i < mem->nr; i++) {
		const struct vmm_mem_region *r = &mem->region[i];
		uint64_t off = gpa - r->gpa;

		if (gpa < r->gpa || off > r->size || len > r->size - off)
			continue;
		return (char *)r->host + off;
	}
	return NULL;
}
