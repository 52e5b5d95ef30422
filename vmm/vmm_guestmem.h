/*
 * vmm_guestmem.h - guest RAM as the VMM sees it: host mappings of every
 * RAM region and the one checked translator from guest-physical addresses.
 */
#ifndef VMM_GUESTMEM_H
#define VMM_GUESTMEM_H

#include <stdint.h>

#include "vmm_layout.h"

struct vmm_mem_region {
	uint64_t gpa, size;
	void *host; /* MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE */
};

struct vmm_guest_mem {
	int nr;
	struct vmm_mem_region region[VMM_MAX_RAM];
};

/*
 * vmm_guest_mem_map - map one anonymous region per entry of @ram.
 * Return: 0, or -1 with errno set and nothing left mapped.
 */
int vmm_guest_mem_map(struct vmm_guest_mem *mem, const struct vmm_range *ram, int nr);

/* Unmap every region; @mem is empty afterwards (safe to call twice). */
void vmm_guest_mem_unmap(struct vmm_guest_mem *mem);

/*
 * vmm_gpa - the host address of guest-physical [gpa, gpa+len).
 * Return: NULL unless @len > 0 and the whole range, with no overflow, lies
 * inside one RAM region. Every guest address the VMM touches goes through
 * here; a range spanning two adjacent regions is refused too, so callers
 * may treat the result as one flat host buffer.
 */
void *vmm_gpa(struct vmm_guest_mem *mem, uint64_t gpa, uint64_t len);

#endif
