/* SPDX-License-Identifier: GPL-2.0 */
/* Error reporting and small helpers shared by denywritectl's modules. */
#ifndef DENYWRITECTL_UTIL_H
#define DENYWRITECTL_UTIL_H

#include <stddef.h>

#include "config.h"	/* PROGRAM_VERSION and the directories, from make */

#define PROGRAM_NAME "denywritectl"

/* Exit codes. */
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_INACTIVE 3	/* denywrite is not active (as systemctl is-active) */
#define EXIT_UNKNOWN 4	/* whether it is cannot be told (no securityfs) */
#define EXIT_NO_FILE 5	/* why: the file named cannot be found */
#define EXIT_PARTIAL 6	/* load: parts skipped, the other rules loaded */

/* Print "denywritectl: <message>\n" to stderr and return 1 (the exit code). */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "denywritectl: warning: <message>\n" on stderr. */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* From now on fail() and warn() print nothing (why -q). */
void messages_off(void);

/*
 * s in the one escape dialect of everything denywritectl prints (rules,
 * paths, messages, log fields), the kernel's and /proc/mounts': a byte
 * written as a backslash and 3 octal digits ("\011", "\134", "\040").
 * Escaped are the backslash, control characters (C0, DEL and each byte
 * of a C1 control), bytes that are not valid UTF-8, invisible and
 * bidirectional formatting characters (U+200B, U+202E, U+FEFF...: each
 * of their bytes), and a space that starts or ends s, so that no trimming
 * of blanks takes it; printable ASCII and other valid UTF-8 are kept, as
 * ls -b and ps keep them.  Two different strings never give the same
 * text, nothing in it moves a terminal's cursor or hides text, and the
 * kernel and a policy file read it back as s.
 * The result stays valid until esc_release() (called at exit, and by a
 * loop that may run for ever, such as log --follow's, between two of its
 * rounds): no later call reuses it, so any number may be used at once.
 * esc_dup gives the same text malloc'd, for the caller to free.
 */
const char *esc(const char *s);
char *esc_dup(const char *s);
void esc_release(void);

/*
 * The inverse of esc(): each backslash and 3 octal digits (001 to 377)
 * decoded, other bytes kept.  malloc'd; NULL for any other backslash.
 */
char *unesc(const char *s);

/* one if n is 1, else many ("1 rule", "2 rules"). */
const char *plural(size_t n, const char *one, const char *many);

/* Length of the valid UTF-8 sequence at s (1 for ASCII), 0 if invalid. */
size_t utf8_len(const unsigned char *s);

/* Allocation that reports "out of memory" and exits 1 on failure. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/*
 * Read everything from fd into a new NUL-terminated buffer (*buf, length
 * *len, NULs inside are kept).  Fails with EFBIG past max bytes.
 * Returns 0 or an errno value.
 */
int read_all(int fd, size_t max, char **buf, size_t *len);

/*
 * The same from offset 0 with pread(2), whatever the file position is;
 * from the file position with read(2) if the file is not seekable.
 */
int read_all_from_start(int fd, size_t max, char **buf, size_t *len);

/* Write len bytes in one write(2); a short write is EIO.  0 or errno. */
int write_once(int fd, const char *buf, size_t len);

#endif
