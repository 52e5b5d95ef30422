/*
 * vmm_json.h - the one strict JSON reader for the guest's RESULT lines
 * (RFC 8259: strings without raw control characters, valid escapes and
 * UTF-8, the number grammar, the three literals), shared by --results
 * (a line is written only if it parses) and --csv (its members become
 * columns). The guest chooses every byte, so the reader never recurses
 * and refuses nesting deeper than VMM_JSON_MAX_DEPTH.
 */
#ifndef VMM_JSON_H
#define VMM_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define VMM_JSON_MAX_DEPTH 8 /* objects and arrays, the outermost included */
#define VMM_JSON_NAME_MAX 64 /* a leaf's dotted name with its NUL (--csv) */

enum vmm_json_type { VMM_JSON_STRING, VMM_JSON_NUMBER, VMM_JSON_LITERAL };

/* One scalar member of an object: @name is its dotted path ("caps.zap"),
 * @val its text (a string's inside, escapes as written). @in_array: it
 * sits inside an array (no column can name it). Return: 0, or a reason
 * the walk stops. */
typedef const char *(*vmm_json_leaf_fn)(void *arg, const char *name, const char *val, size_t len,
					enum vmm_json_type type, bool in_array);

/*
 * vmm_json_walk - check that @s (@len bytes) is one strict JSON object
 * and, when @leaf is not NULL, call it for each scalar in document order.
 * With @leaf, keys must also be non-empty and dotted names shorter than
 * VMM_JSON_NAME_MAX (they become column names).
 * Return: NULL, or why the text was refused, with *@at its byte offset.
 */
const char *vmm_json_walk(const char *s, size_t len, vmm_json_leaf_fn leaf, void *arg, size_t *at);

#endif
