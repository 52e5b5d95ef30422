/*
 * vmm_run.h - the ptelab command from start to exit status. main() only
 * calls vmm_main(), so everything else links into the host tests.
 */
#ifndef VMM_RUN_H
#define VMM_RUN_H

/* Run ptelab with @argv. Return: the process exit status (PTELAB_EXIT_*
 * or the guest's own). */
int vmm_main(int argc, char **argv);

#endif
