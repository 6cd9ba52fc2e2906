// SPDX-License-Identifier: GPL-2.0
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool silent;

void messages_off(void)
{
	silent = true;
}

static void message(const char *prefix, const char *fmt, va_list ap)
{
	if (silent)
		return;
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message(PROGRAM_NAME ": ", fmt, ap);
	va_end(ap);
	return 1;
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message(PROGRAM_NAME ": warning: ", fmt, ap);
	va_end(ap);
}

static void *check_alloc(void *p)
{
	if (!p) {
		fail("out of memory");
		exit(1);
	}
	return p;
}

void *xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
	return check_alloc(realloc(p, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

char *xstrndup(const char *s, size_t n)
{
	return check_alloc(strndup(s, n));
}

static int read_all_at(int fd, bool positional, size_t max, char **buf,
		       size_t *len)
{
	size_t cap = 4096, n = 0;
	char *p = xmalloc(cap + 1);

	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap > max) {
				free(p);
				return EFBIG;
			}
			cap *= 2;
			p = xrealloc(p, cap + 1);
		}
		r = positional ? pread(fd, p + n, cap - n, (off_t)n) :
				 read(fd, p + n, cap - n);
		if (r < 0 && errno == ESPIPE && positional) {
			positional = false;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = errno;

			free(p);
			return err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(p);
		return EFBIG;
	}
	p[n] = '\0';
	*buf = p;
	*len = n;
	return 0;
}

int read_all(int fd, size_t max, char **buf, size_t *len)
{
	return read_all_at(fd, false, max, buf, len);
}

int read_all_from_start(int fd, size_t max, char **buf, size_t *len)
{
	return read_all_at(fd, true, max, buf, len);
}

int write_once(int fd, const char *buf, size_t len)
{
	ssize_t r;

	do
		r = write(fd, buf, len);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno;
	return (size_t)r == len ? 0 : EIO;
}

const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	cp = s[0] & (0x7fu >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Every result of esc() since the last esc_release(): none is reused. */
static struct {
	char **s;
	size_t n, cap;
} esc_kept;

void esc_release(void)
{
	for (size_t i = 0; i < esc_kept.n; i++)
		free(esc_kept.s[i]);
	free(esc_kept.s);
	memset(&esc_kept, 0, sizeof(esc_kept));
}

/* Keep out until esc_release (at exit at the latest). */
static void esc_keep_result(char *out)
{
	static bool registered;

	if (!registered && atexit(esc_release) != 0)
		abort();
	registered = true;
	if (esc_kept.n == esc_kept.cap) {
		esc_kept.cap = esc_kept.cap ? 2 * esc_kept.cap : 16;
		esc_kept.s = xrealloc(esc_kept.s,
				      esc_kept.cap * sizeof(*esc_kept.s));
	}
	esc_kept.s[esc_kept.n++] = out;
}

/* Append the escape of one byte c, a backslash and 3 octal digits. */
static size_t esc_byte(char *out, unsigned char c)
{
	out[0] = '\\';
	out[1] = (char)('0' + (c >> 6));
	out[2] = (char)('0' + ((c >> 3) & 7));
	out[3] = (char)('0' + (c & 7));
	return 4;
}

/* The code point of the valid n-byte UTF-8 sequence at s. */
static unsigned int code_point(const unsigned char *s, size_t n)
{
	unsigned int cp = n == 1 ? s[0] : s[0] & (0x7fu >> n);

	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/*
 * Invisible and bidirectional formatting characters: a path or command
 * line holding them looks like another one (U+202E reverses what
 * follows, U+200B and U+FEFF are not seen at all).
 */
static bool invisible(unsigned int cp)
{
	return cp == 0xad || cp == 0x61c || cp == 0x180e ||
	       (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
	       (cp >= 0xfff9 && cp <= 0xfffb);
}

/*
 * Whether the n-byte sequence at s is kept as it is; edge says whether it
 * starts or ends the string (a space there is escaped, so that no
 * trimming of blanks takes it).
 */
static bool esc_keep(const unsigned char *s, size_t n, bool edge)
{
	if (n == 1 && s[0] == ' ')
		return !edge;
	if (n == 1)
		return s[0] > 0x20 && s[0] < 0x7f && s[0] != '\\';
	/* U+0080..U+009F, the C1 controls, are c2 80..c2 9f. */
	return n > 1 && !(s[0] == 0xc2 && s[1] < 0xa0) &&
	       !invisible(code_point(s, n));
}

const char *esc(const char *str)
{
	char *out = esc_dup(str);

	esc_keep_result(out);
	return out;
}

char *esc_dup(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	char *out = xmalloc(4 * strlen(str) + 1), *o;

	for (o = out; *s;) {
		size_t n = utf8_len(s), len = n ? n : 1;
		bool edge = s == (const unsigned char *)str || !s[len];

		if (esc_keep(s, n, edge)) {
			memcpy(o, s, n);
			o += n;
			s += n;
			continue;
		}
		/* every byte of a C1 sequence, or the one bad byte */
		for (size_t i = 0; i < len; i++)
			o += esc_byte(o, s[i]);
		s += len;
	}
	*o = '\0';
	return out;
}

/* The byte that the escape at s (a backslash and 3 octal digits) stands
 * for, 1 to 0377; else -1. */
static int unesc_one(const char *s)
{
	for (int i = 1; i <= 3; i++)
		if (s[i] < '0' || s[i] > '7')
			return -1;
	if (s[1] > '3')
		return -1;
	return (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
}

char *unesc(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	while (*s) {
		int c;

		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		c = unesc_one(s);
		if (c <= 0) {
			free(out);
			return NULL;
		}
		*o++ = (char)c;
		s += 4;
	}
	*o = '\0';
	return out;
}
