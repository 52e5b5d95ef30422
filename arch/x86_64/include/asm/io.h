/* io.h (x86_64) - port I/O and the few other instructions the guest needs. */
#ifndef ASM_IO_H
#define ASM_IO_H

#include <stddef.h>
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* rep outsb: under KVM one exit for the whole run of bytes. */
static inline void outsb(uint16_t port, const void *buf, size_t len)
{
	__asm__ volatile("rep outsb" : "+S"(buf), "+c"(len) : "d"(port) : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

#endif
