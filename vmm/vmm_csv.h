/*
 * vmm_csv.h - RESULT lines as CSV rows (ptelab --csv), for spreadsheets and
 * gnuplot. The columns are whatever the first RESULT line holds, in its
 * order: a top-level member is a column of its own name, a member of a
 * nested object is "<object>.<member>" ("caps.zap", "counters.ptl_takes"),
 * so nothing here repeats the guest's keys or counter list.
 */
#ifndef VMM_CSV_H
#define VMM_CSV_H

#include <stddef.h>
#include <stdio.h>

#define VMM_CSV_MAX_COLS 160
#define VMM_CSV_NAME_MAX 64

struct vmm_csv {
	FILE *f;   /* NULL: no --csv */
	int ncols; /* 0 until the header line is written */
	char col[VMM_CSV_MAX_COLS][VMM_CSV_NAME_MAX];
};

/*
 * vmm_csv_row - write the JSON object @json (@len bytes, one RESULT line)
 * as a CSV row to csv->f; the first row also fixes and writes the header
 * (every name in double quotes). A later row fills the header's columns
 * by name: a column it lacks is left empty, a member the header lacks is
 * dropped. Strings lose their JSON quotes (escapes stay as written), are
 * CSV-quoted when they hold a comma, a quote, CR or LF, and get a leading
 * ' when they start with = + - @ tab or CR (a spreadsheet formula);
 * numbers are written as they are; null is an empty field. The JSON must
 * be strict (vmm_json_walk()): objects nest at most VMM_JSON_MAX_DEPTH
 * deep, keys are not empty, arrays are refused.
 * Return: NULL, or why no row was written (the text is refused, at its
 * byte *@at) or writing failed.
 */
const char *vmm_csv_row(struct vmm_csv *csv, const char *json, size_t len, size_t *at);

#endif
