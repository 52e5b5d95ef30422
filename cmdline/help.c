/*
 * help.c - the help of the commands, the benchmarks and the keys, from the
 * rows of ptelab/cmdline_cmds.h and ptelab/cmdline_keys.h: what ptelab -h
 * and the guest's run=list and run=help print (ptelab/cmdline.h).
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/cmdline.h"

/* The values row @r takes, in @buf of @size. Return: @buf. */
static const char *range_text(const struct cmdline_key *r, char *buf, size_t size)
{
	char folios[128];

	switch (r->kind) {
	case CMDLINE_RUN:
		return "NAME[:ARG][,NAME...]";
	case CMDLINE_NUM:
		snprintf(buf, size, "%u..%u%s%s", r->lo, r->hi, r->what ? " " : "",
			 r->what ? r->what : "");
		return buf;
	case CMDLINE_EVEN:
		snprintf(buf, size, "an even number of %s, %u..%u", r->what, r->lo, r->hi);
		return buf;
	case CMDLINE_CAP:
	case CMDLINE_BATCH:
		snprintf(buf, size, "N (1..%u) or max", CMDLINE_CAP_LIMIT);
		return buf;
	case CMDLINE_CAPS:
		snprintf(buf, size, "a list of up to %d caps, each N (1..%u) or max",
			 CMDLINE_CAPS_MAX, CMDLINE_CAP_LIMIT);
		return buf;
	case CMDLINE_SWITCH:
	case CMDLINE_ONOFF:
		return "on or off";
	case CMDLINE_CHOICE:
		snprintf(buf, size, "one of %s", r->what);
		return buf;
	case CMDLINE_CHOICES:
		snprintf(buf, size, "a list of %s", r->what);
		return buf;
	case CMDLINE_FOLIOS:
		folio_sizes_text(folios, sizeof(folios));
		snprintf(buf, size, "a list of %s", folios);
		return buf;
	case CMDLINE_TEXT:
		break;
	}
	return "text";
}

/* Two lines a key: its values, default and the commands that read it (or
 * the one arch it exists on); then what it does. */
void cmdline_print_keys(FILE *out)
{
	for (int k = 0; k < NR_CMDLINE_KEYS; k++) {
		const struct cmdline_key *r = &cmdline_keys[k];
		char range[160];

		if (!strncmp(r->name, "ptelab.", 7))
			continue;
		fprintf(out, "  %-14s %s", r->name, range_text(r, range, sizeof(range)));
		if (r->dflt[0])
			fprintf(out, " (default %s)", r->dflt);
		if (r->takers)
			fprintf(out, "; for %s", r->takers);
		if (r->arch)
			fprintf(out, "; %s only", r->arch);
		fprintf(out, "\n  %-14s %s\n", "", r->help);
	}
}

void cmdline_print_cmds(FILE *out)
{
	for (int c = 0; c < NR_CMDLINE_CMDS; c++)
		fprintf(out, "  %-10s %s\n", cmdline_cmds[c].name, cmdline_cmds[c].help);
}

void cmdline_print_benches(FILE *out)
{
	int col = fprintf(out, "  benchmarks (run=bench:NAME; run=bench runs all):");

	for (int b = 0; b < NR_CMDLINE_BENCHES; b++) {
		const char *name = cmdline_benches[b].name;

		if (col + 1 + (int)strlen(name) > 79)
			col = fprintf(out, "\n   ") - 1;
		col += fprintf(out, " %s", name);
	}
	fprintf(out, "\n");
}
