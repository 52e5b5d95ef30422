/*
 * vmm_hostrun.h - --backend host: the guest's mm commands run natively on
 * this CPU by build/ptelab-host-<arch> (arch/host/boot/main.c), whose
 * output goes through the same console as a guest's.
 */
#ifndef VMM_HOSTRUN_H
#define VMM_HOSTRUN_H

#include "vmm_config.h"
#include "vmm_console.h"
#include "vmm_timing.h"

/*
 * vmm_host_boot - run ptelab-host-<arch> (next to ptelab) with cfg->mem,
 * cfg->nodes and cfg->bootargs; feed its stdout to @con; stop it after
 * cfg->timeout seconds.
 * Return: its exit status, PTELAB_EXIT_TIMEOUT, PTELAB_EXIT_CRASH when a
 * signal killed it, PTELAB_EXIT_NOBACKEND when it is missing (reported).
 */
int vmm_host_boot(const struct vmm_config *cfg, struct vmm_console *con, struct vmm_timing *t);

#endif
