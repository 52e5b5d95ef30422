/*
 * stress.c - run=stress:mm: the schedule explorer's random operation mixes
 * (tests/mm/explore_*.c) on the guest's real CPUs, with real page faults
 * and TLBs, for seconds= seconds on cpus= CPUs. Where the host runner
 * picks each interleaving by a seed, here the vCPUs run free (QEMU's
 * multi-threaded TCG, KVM): the seed fixes the operations, not their
 * timing. Each schedule ends with its checks (the invariant checker, lost
 * writes, pins that lost their page, leaked pages); a progress line per
 * second, and "N passed, N failed" counting schedules.
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kernel.h"
#include "machine.h"
#include "mm.h"
#include "smp.h"

#include "mm/explore_mix.h"

/* cpus=, or every CPU when it is absent (the row's default is the
 * benchmarks'). */
static unsigned stress_cpus(void)
{
	return cmdline_get(&cmdline, "cpus") ? cmdline_num(&cmdline, CMDLINE_KEY_cpus)
					     : smp_nr_cpus();
}

int cmd_stress(const char *arg)
{
	unsigned cpus = stress_cpus();
	uint64_t end, next = 0, seed = 1, passed = 0, failed = 0;

	(void)arg;
	if (cpus > smp_nr_cpus())
		cpus = smp_nr_cpus();
	if (cpus < 2) {
		printf("stress: the mixes need 2 CPUs or more (--cpus)\n0 passed, 0 failed\n");
		return PTELAB_EXIT_USAGE;
	}
	mm_init();
	end = time_ns() + (uint64_t)cmdline_num(&cmdline, CMDLINE_KEY_seconds) * 1000000000u;
	while (time_ns() < end) {
		const struct mix_profile *p = &mix_profiles[seed % mix_nr_profiles];

		if (mix_run_schedule(p, seed, cpus, 0)) {
			printf("stress: %s seed %llu failed (above)\n", p->name,
			       (unsigned long long)seed);
			failed++;
		} else {
			passed++;
		}
		seed++;
		if (time_ns() >= next) {
			printf("stress: %llu schedules on %u CPUs, %llu failed\n",
			       (unsigned long long)(passed + failed), cpus,
			       (unsigned long long)failed);
			next = time_ns() + 1000000000u;
		}
	}
	printf("%llu passed, %llu failed\n", (unsigned long long)passed,
	       (unsigned long long)failed);
	return failed ? PTELAB_EXIT_FAIL : PTELAB_EXIT_OK;
}
