/*
 * arch.h (host) - the hosted simulation that stands in for a guest arch in
 * the host test runner. It shadows core/include/arch.h (the include path
 * puts arch/host/include first) and provides simulated physical memory: a
 * buffer that plays the machine's RAM, described by a struct machine as the
 * guest's FDT would describe it.
 */
#ifndef GUEST_ARCH_H
#define GUEST_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include <asm/layout.h>

extern uint8_t *host_ram; /* simulated RAM, physical [HOST_RAM_BASE, +host_ram_size) */
extern uint64_t host_ram_size;

void host_bad_phys(uint64_t pa) __attribute__((noreturn));

static inline void *phys_to_virt(uint64_t pa)
{
	if (pa < HOST_RAM_BASE || pa - HOST_RAM_BASE >= host_ram_size)
		host_bad_phys(pa);
	return host_ram + (pa - HOST_RAM_BASE);
}

uint64_t host_virt_to_phys(const void *va);
#define virt_to_phys host_virt_to_phys

struct boot_range {
	uint64_t start, size;
	const char *what;
};
#define BOOT_RANGES_MAX 8
struct boot_info {
	const void *fdt;
	uint64_t fdt_phys;
	int nr_reserved;
	struct boot_range reserved[BOOT_RANGES_MAX];
	const char *boot_path;
	int current_el;
	uint64_t entry_counter;
};

extern const char arch_name[]; /* "host-x86_64" or "host-arm64": the PTE format */

/* The guest's machine hooks that its generic commands call (guest/arch.h).
 * The host backend (arch/host/boot/main.c) defines them; commands that
 * need a real machine are refused there before they run. */
void arch_exit(int status) __attribute__((noreturn));
void arch_deliberate_fault(void) __attribute__((noreturn));
void arch_describe_boot(void);
void arch_hang(void) __attribute__((noreturn));

/*
 * host_machine_init - allocate @nodes nodes of @node_mb MiB of simulated RAM
 * each, fill the global `machine` as an FDT would, and set boot_info.
 */
void host_machine_init(int nodes, unsigned node_mb);

/*
 * host_catch_panic - run @fn(@arg); if it panics, return 1 with the panic
 * message in @msg instead of exiting. Return 0 when it did not panic.
 */
int host_catch_panic(void (*fn)(void *), void *arg, char *msg, size_t size);

/* Online CPUs of the host runner (arch/host/smp.c): each is a thread
 * while smp_run() runs. 1..NR_CPUS; panics otherwise. */
void host_smp_set_cpus(unsigned n);
/* CPUs running in smp_run() now (1 outside it). */
extern unsigned host_smp_running;

/*
 * The switch point of the schedule explorer (core/include/sched_point.h; kinds are
 * enum sched_point_kind): while no explored smp_run() runs, one test of a
 * global that the branch predictor learns (arch/host/explore.c).
 */
extern unsigned explore_running;
void explore_point(unsigned kind);

static inline void arch_sched_point(unsigned kind)
{
	if (__builtin_expect(__atomic_load_n(&explore_running, __ATOMIC_RELAXED), 0))
		explore_point(kind);
}
#define arch_sched_point arch_sched_point

#endif
