/*
 * version.c - ptelab's version, baked in at build time from git describe
 * (build/gen/version.h, rewritten only when it changes).
 */
#include "version.h"
#include "vmm_config.h"

const char vmm_version[] = PTELAB_VERSION;
