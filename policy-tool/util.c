// SPDX-License-Identifier: GPL-2.0
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fail(const char *fmt, ...)
{
	va_list ap;

	fputs(PROGRAM_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
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
