/*
 * vmm_util.h - small helpers shared by every part of the VMM: messages on
 * stderr, the monotonic clock, size formatting, shell quoting.
 */
#ifndef VMM_UTIL_H
#define VMM_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define VMM_KIB (1ULL << 10)
#define VMM_MIB (1ULL << 20)
#define VMM_GIB (1ULL << 30)

/* Print "ptelab: <message>\n" on stderr. */
void vmm_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * vmm_guest_status - @status, which the guest chose. When it is one of
 * the statuses only ptelab gives (ptelab/abi.h's "VMM only": 4 no backend,
 * 124 timeout; and 128+N, a signal), say on stderr that it is the
 * guest's, so the two can be told apart. The guest's 2 and 3 mean what
 * ptelab's do (a refused word, a crash): not named. Return: @status.
 */
int vmm_guest_status(int status);

/* Microseconds of CLOCK_MONOTONIC. */
uint64_t vmm_now_us(void);

/* Write @bytes as the shortest exact "<n>G", "<n>M", "<n>K" or "<n>" into
 * @buf (at least 24 bytes). Return: @buf. */
char *vmm_fmt_size(uint64_t bytes, char *buf, size_t size);

/*
 * vmm_shell_quote - append @word to @buf (NUL-terminated, @size bytes) so a
 * POSIX shell reads it back as one word: bare when it only has safe
 * characters, else in single quotes with each ' written as '\''.
 * Return: 0, or -1 when it does not fit (@buf is then left unchanged).
 */
int vmm_shell_quote(char *buf, size_t size, const char *word);

/*
 * vmm_self_exe - the absolute path of the running ptelab (/proc/self/exe),
 * which finds the files installed next to it (the guests, the host backend).
 * Return: 0, or -1 when it cannot be read or does not fit in @size bytes.
 */
int vmm_self_exe(char *buf, size_t size);

/* Find @name in $PATH; return 1 when an executable file of that name exists. */
int vmm_in_path(const char *name);

#endif
