/*
 * exec_stack.c - the initial user stack, as Linux's binfmt_elf lays it
 * out (docs/user.md draws it). Kept apart from exec.c so that the host
 * runner can test the layout without an MMU.
 */
#include <errno.h>
#include <string.h>

#include "exec.h"

/* Copies @len bytes below *@pos (user address) into @buf; -1 if it does
 * not fit. */
static int push_bytes(uint8_t *buf, unsigned long base, unsigned long *pos, const void *src,
		      size_t len)
{
	if (*pos - base < len)
		return -1;
	*pos -= len;
	memcpy(buf + (*pos - base), src, len);
	return 0;
}

static int push_strings(uint8_t *buf, unsigned long base, unsigned long *pos, int n, char *const *s,
			unsigned long *addr)
{
	for (int i = n - 1; i >= 0; i--) {
		if (push_bytes(buf, base, pos, s[i], strlen(s[i]) + 1))
			return -1;
		addr[i] = *pos;
	}
	return 0;
}

static void put_word(uint8_t *buf, unsigned long base, unsigned long *at, unsigned long v)
{
	memcpy(buf + (*at - base), &v, sizeof(v));
	*at += sizeof(v);
}

long exec_stack_build(uint8_t *buf, size_t size, unsigned long top, const struct exec_stack_args *a)
{
	unsigned long base = top - size, pos = top, execfn, platform = 0, random, at;
	unsigned long argp[a->argc + 1], envp[a->envc + 1];
	size_t words;
	int nr_aux = a->nr_auxv;

	if (push_bytes(buf, base, &pos, a->execfn, strlen(a->execfn) + 1))
		return -E2BIG;
	execfn = pos;
	if (push_strings(buf, base, &pos, a->envc, a->envp, envp) ||
	    push_strings(buf, base, &pos, a->argc, a->argv, argp) ||
	    (a->platform && push_bytes(buf, base, &pos, a->platform, strlen(a->platform) + 1)))
		return -E2BIG;
	platform = a->platform ? pos : 0;
	pos &= ~15ul;
	if (push_bytes(buf, base, &pos, a->random, 16))
		return -E2BIG;
	random = pos;
	/* argc, argv + NULL, envp + NULL, the caller's auxv, our three, AT_NULL */
	words = 1 + (size_t)a->argc + 1 + (size_t)a->envc + 1 + 2 * ((size_t)nr_aux + 4);
	pos = (pos - words * sizeof(long)) & ~15ul;
	if (pos < base || pos > top)
		return -E2BIG;
	at = pos;
	put_word(buf, base, &at, (unsigned long)a->argc);
	for (int i = 0; i < a->argc; i++)
		put_word(buf, base, &at, argp[i]);
	put_word(buf, base, &at, 0);
	for (int i = 0; i < a->envc; i++)
		put_word(buf, base, &at, envp[i]);
	put_word(buf, base, &at, 0);
	for (int i = 0; i < nr_aux; i++) {
		put_word(buf, base, &at, a->auxv[i][0]);
		put_word(buf, base, &at, a->auxv[i][1]);
	}
	put_word(buf, base, &at, AT_RANDOM);
	put_word(buf, base, &at, random);
	put_word(buf, base, &at, AT_EXECFN);
	put_word(buf, base, &at, execfn);
	put_word(buf, base, &at, platform ? AT_PLATFORM : AT_FLAGS);
	put_word(buf, base, &at, platform);
	put_word(buf, base, &at, AT_NULL);
	put_word(buf, base, &at, 0);
	return (long)pos;
}
