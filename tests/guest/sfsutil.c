/* sfsutil.c - file, policy and output helpers of sfstest (see sfs.h). */
#include "sfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *sfs_dir = "/sys/kernel/security/denywrite";
int failures;

int text_read(const char *path, struct text *t)
{
	size_t cap = 4096;
	int fd, err = 0;

	t->len = 0;
	t->p = malloc(cap);
	if (!t->p)
		return ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (cap - t->len < 2) {
			char *p = realloc(t->p, cap * 2);

			if (!p) {
				err = ENOMEM;
				break;
			}
			t->p = p;
			cap *= 2;
		}
		n = read(fd, t->p + t->len, cap - t->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		t->len += (size_t)n;
	}
	close(fd);
out:
	t->p[t->len] = '\0';
	return err;
}

void text_free(struct text *t)
{
	free(t->p);
	t->p = NULL;
	t->len = 0;
}

bool text_is(const struct text *t, const char *s, size_t len)
{
	return t->p && t->len == len && !memcmp(t->p, s, len);
}

int file_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return errno;
	n = write(fd, data, len);
	err = n < 0 ? errno : (size_t)n == len ? 0 : EIO;
	close(fd);
	return err;
}

int file_puts(const char *path, const char *s)
{
	return file_write(path, s, strlen(s));
}

const char *sfs_path(const char *file)
{
	static char buf[4][256];
	static int slot;

	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", sfs_dir, file);
	return buf[slot];
}

int sfs_write(const char *file, const void *data, size_t len)
{
	return file_write(sfs_path(file), data, len);
}

int policy_read(struct policy *p, char *why, size_t whylen)
{
	int err = text_read(sfs_path("rules"), &p->rules);

	if (!err)
		err = text_read(sfs_path("mode"), &p->mode);
	else
		p->mode = (struct text){ 0 };
	if (err) {
		snprintf(why, whylen, "cannot read the policy: %s",
			 errname(err));
		policy_free(p);
	}
	return err;
}

void policy_free(struct policy *p)
{
	text_free(&p->rules);
	text_free(&p->mode);
}

bool policy_same(const struct policy *a, const struct policy *b)
{
	return text_is(&a->rules, b->rules.p, b->rules.len) &&
	       text_is(&a->mode, b->mode.p, b->mode.len);
}

const char *policy_diff(const struct policy *a, const char *rules,
			size_t rules_len, const char *mode)
{
	static char buf[600];

	if (!text_is(&a->rules, rules, rules_len)) {
		int n = snprintf(buf, sizeof(buf), "rules are '%s'",
				 escaped(a->rules.p, a->rules.len));

		snprintf(buf + n, sizeof(buf) - (size_t)n,
			 ", expected '%s'", escaped(rules, rules_len));
		return buf;
	}
	if (!text_is(&a->mode, mode, strlen(mode))) {
		int n = snprintf(buf, sizeof(buf), "mode is '%s'",
				 escaped(a->mode.p, a->mode.len));

		snprintf(buf + n, sizeof(buf) - (size_t)n,
			 ", expected '%s'", escaped(mode, strlen(mode)));
		return buf;
	}
	return NULL;
}

int policy_write(const char *rules, size_t rules_len, const char *mode,
		 char *why, size_t whylen)
{
	/* An empty write would leave a written "\n" meaning the same. */
	int err = sfs_write("rules", rules_len ? rules : "\n",
			    rules_len ? rules_len : 1);

	if (err) {
		snprintf(why, whylen, "cannot write rules '%s': %s",
			 escaped(rules, rules_len), errname(err));
		return err;
	}
	err = sfs_write("mode", mode, strlen(mode));
	if (err)
		snprintf(why, whylen, "cannot write mode '%s': %s",
			 escaped(mode, strlen(mode)), errname(err));
	return err;
}

size_t rule_count(const struct text *rules)
{
	size_t n = 0;

	for (size_t i = 0; i < rules->len; i++)
		n += rules->p[i] == '\n';
	return n;
}

const char *escaped(const void *data, size_t len)
{
	static char buf[4][200];
	static int slot;
	const unsigned char *s = data;
	char *out;
	size_t o = 0, i;

	slot = (slot + 1) % 4;
	out = buf[slot];
	for (i = 0; i < len && o + 32 < sizeof(buf[slot]); i++) {
		unsigned char c = s[i];

		if (c == '\n')
			o += (size_t)sprintf(out + o, "\\n");
		else if (c == '\\' || c == '\'')
			o += (size_t)sprintf(out + o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	if (i < len)
		o += (size_t)sprintf(out + o, "...(%zu)", len);
	out[o] = '\0';
	return out;
}

static const char *only_list; /* comma-separated name prefixes, or NULL */

void set_only(const char *list)
{
	only_list = list;
}

bool selected(const char *name)
{
	const char *p = only_list;

	if (!p)
		return true;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n && !strncmp(name, p, n))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

void pass(const char *name)
{
	printf("PASS %s\n", name);
	fflush(stdout);
}

void fail(const char *name, const char *fmt, ...)
{
	char reason[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	for (char *p = reason; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	printf("FAIL %s: %s\n", name, reason);
	fflush(stdout);
	failures++;
}

void stat_line(const char *key, long long value)
{
	printf("STAT sfs %s %lld\n", key, value);
	fflush(stdout);
}

/* ---- SHA-256 (FIPS 180-4), for the policy= field of audit records ------ */

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void sha_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], v[8];
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3;
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10;

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (i = 0; i < 64; i++) {
		uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[i] + w[i];
		uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	const unsigned char *p = data;
	unsigned char tail[128] = { 0 };
	size_t rest = len % 64, tail_len = rest < 56 ? 64 : 128;
	uint64_t bits = (uint64_t)len * 8;

	for (size_t i = 0; i + 64 <= len; i += 64)
		sha_block(h, p + i);
	if (rest)
		memcpy(tail, p + len - rest, rest);
	tail[rest] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[tail_len - 1 - i] = (unsigned char)(bits >> (8 * i));
	for (size_t i = 0; i < tail_len; i += 64)
		sha_block(h, tail + i);
	for (int i = 0; i < 8; i++)
		sprintf(out + 8 * i, "%08x", h[i]);
}
