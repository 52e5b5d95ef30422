/*
 * folio_sizes.c - the folio sizes a benchmark can run, by label (folios=;
 * ptelab/cmdline.h), for ptelab's check and the guest's benchmarks.
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

int folio_sizes_text(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < nr_folio_sizes && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "",
				      folio_sizes[i].label);
	return (int)n;
}

int folios_check(const char *list, char *err, size_t errlen)
{
	char have[128];

	for (const char *s = list;;) {
		size_t len = strcspn(s, ",");

		if (!folio_size_find(s, len)) {
			folio_sizes_text(have, sizeof(have));
			snprintf(err, errlen, "folios=%s: '%.*s' is not a folio size (have %s)",
				 list, (int)len, s, have);
			return -1;
		}
		if (!s[len])
			return 0;
		s += len + 1;
	}
}
