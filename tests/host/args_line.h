/*
 * args_line.h - a ptelab command line from one string, for the host tests
 * of vmm/args.c and vmm/guestargs.c (defined in test_args.c).
 */
#ifndef TESTS_HOST_ARGS_LINE_H
#define TESTS_HOST_ARGS_LINE_H

#include <stddef.h>

#include "vmm_config.h"

/* vmm_args_parse() of "ptelab" and the words of @line (split at single
 * spaces) into @c, with its message in @e. Return: as vmm_args_parse(). */
int args_parse_line(const char *line, struct vmm_config *c, char *e, size_t elen);

#endif
