/*
 * bench_folios.c - the folio sizes a benchmark can run, by label (folios=;
 * ptelab/cmdline.h). Plain C: ptelab links it too, to reject a bad
 * folios= before it boots anything.
 */
#include <stdio.h>
#include <string.h>

#include "ptelab/cmdline.h"

const struct folio_size folio_sizes[] = {
	{ "4K", 0, false },	{ "16K", 2, false },   { "32K", 3, false },  { "64K", 4, false },
	{ "128K", 5, false },	{ "256K", 6, false },  { "512K", 7, false }, { "1M", 8, false },
	{ "2M-pte", 9, false }, { "2M-pmd", 9, true },
};
const int nr_folio_sizes = sizeof(folio_sizes) / sizeof(folio_sizes[0]);

const struct folio_size *folio_size_find(const char *label, size_t len)
{
	for (int i = 0; i < nr_folio_sizes; i++)
		if (strlen(folio_sizes[i].label) == len &&
		    !strncmp(folio_sizes[i].label, label, len))
			return &folio_sizes[i];
	return NULL;
}

int folios_check(const char *list, char *err, size_t errlen)
{
	for (const char *s = list;;) {
		size_t len = strcspn(s, ",");

		if (!folio_size_find(s, len)) {
			snprintf(err, errlen,
				 "folios=%s: '%.*s' is not a folio size (have 4K, 16K, 32K, 64K, "
				 "128K, 256K, 512K, 1M, 2M-pte, 2M-pmd)",
				 list, (int)len, s);
			return -1;
		}
		if (!s[len])
			return 0;
		s += len + 1;
	}
}
