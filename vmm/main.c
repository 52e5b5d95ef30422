/*
 * main.c - the ptelab program; all of it is in vmm_main() (run.c).
 */
#include "vmm_run.h"

int main(int argc, char **argv)
{
	return vmm_main(argc, argv);
}
