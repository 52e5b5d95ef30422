/*
 * results_csv.c - RESULT lines (ptelab's, or lbench's from a Linux
 * console) on stdin, one CSV row each on stdout through ptelab's own
 * writer (vmm/csv.c), so both sides of `make compare` share one schema.
 * Other lines are ignored. Exit 1 when no RESULT line was read.
 */
#include <stdio.h>
#include <string.h>

#include "vmm_csv.h"

int main(void)
{
	static char line[16384];
	static struct vmm_csv csv;
	int rows = 0;

	csv.f = stdout;

	while (fgets(line, sizeof(line), stdin)) {
		char *json = strstr(line, "RESULT {");
		size_t len, at;

		if (!json)
			continue;
		json += strlen("RESULT ");
		len = strcspn(json, "\r\n");
		if (vmm_csv_row(&csv, json, len, &at) != NULL)
			return 1;
		rows++;
	}
	return rows ? 0 : 1;
}
