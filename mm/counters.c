/*
 * counters.c - the per-CPU event counters, their sum and their
 * RESULT-line form.
 */
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "spinlock.h"

struct mm_counters_cpu mm_counters_cpu[NR_CPUS];

/* The core's lock hooks (spinlock.h): mm's names for the lock classes. */
void lock_count_contended(enum lock_class cls)
{
	switch (cls) {
	case LOCK_PTL:
		count_event(ptl_contended, 1);
		break;
	case LOCK_FAMILY:
	case LOCK_MMAP:
	case LOCK_PGTABLE:
		count_event(mm_lock_contended, 1);
		break;
	case LOCK_ALLOC:
		count_event(alloc_lock_contended, 1);
		break;
	default:
		count_event(other_lock_contended, 1);
	}
}

void lock_count_wait(void)
{
	count_event(lock_waits, 1);
}

struct mm_counters mm_counters_read(void)
{
	struct mm_counters sum = { 0 };

	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct mm_counters *c = &mm_counters_cpu[cpu].c;

#define MM_COUNTER_SUM(name, what) sum.name += __atomic_load_n(&c->name, __ATOMIC_RELAXED);
		MM_COUNTER_LIST(MM_COUNTER_SUM)
#undef MM_COUNTER_SUM
	}
	return sum;
}

void mm_counters_delta(struct mm_counters *d, const struct mm_counters *before,
		       const struct mm_counters *after)
{
#define MM_COUNTER_SUB(name, what) d->name = after->name - before->name;
	MM_COUNTER_LIST(MM_COUNTER_SUB)
#undef MM_COUNTER_SUB
}

void mm_counters_since(struct mm_counters *d, const struct mm_counters *before)
{
	struct mm_counters now = mm_counters_read();

	mm_counters_delta(d, before, &now);
}

/* Append "name":value (comma-separated) to @buf at *@len if it fits whole,
 * so a truncated result is still valid JSON. */
static void json_field(char *buf, int size, int *len, const char *name, uint64_t v)
{
	int n;

	if (!v || *len >= size)
		return;
	n = snprintf(buf + *len, (size_t)(size - *len), "%s\"%s\":%llu", *len ? "," : "", name,
		     (unsigned long long)v);
	if (n >= size - *len) {
		buf[*len] = '\0'; /* did not fit: drop the partial field */
		*len = size;
		return;
	}
	*len += n;
}

/*
 * mm_counters_json - the non-zero counters of @c as a JSON object body in
 * @buf (NUL-terminated). Fields that do not fit are left out whole.
 * Return: strlen(buf).
 */
int mm_counters_json(const struct mm_counters *c, char *buf, int size)
{
	int len = 0;

	if (size <= 0)
		return 0;
	buf[0] = '\0';
#define MM_COUNTER_JSON(name, what) json_field(buf, size, &len, #name, c->name);
	MM_COUNTER_LIST(MM_COUNTER_JSON)
#undef MM_COUNTER_JSON
	return (int)strlen(buf);
}
