// SPDX-License-Identifier: GPL-2.0
#include "policy.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPT_IGNORE_WRITERS "ignore-writers"

static const struct {
	const char *name;
	enum scope scope;
} scopes[] = {
	{ "exec", SCOPE_EXEC },
	{ "lib", SCOPE_LIB },
	{ "all", SCOPE_ALL },
};

const char *scope_name(enum scope scope)
{
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
		if (scopes[i].scope == scope)
			return scopes[i].name;
	return "?";
}

static bool word_is(const char *w, size_t len, const char *s)
{
	return strlen(s) == len && memcmp(w, s, len) == 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Parse "SCOPE[,OPTION]" (w, len) into r. */
static int parse_scope_word(const char *w, size_t len, struct rule *r,
			    char *err, size_t errlen)
{
	const char *comma = memchr(w, ',', len);
	size_t slen = comma ? (size_t)(comma - w) : len;

	r->scope = 0;
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
		if (word_is(w, slen, scopes[i].name))
			r->scope = scopes[i].scope;
	if (!r->scope) {
		snprintf(err, errlen,
			 "unknown scope '%.*s' (exec, lib or all)",
			 (int)slen, w);
		return -1;
	}
	r->ignore_writers = false;
	if (!comma)
		return 0;
	w = comma + 1;
	len -= slen + 1;
	if (!word_is(w, len, OPT_IGNORE_WRITERS)) {
		snprintf(err, errlen, "unknown option '%.*s' (only "
			 OPT_IGNORE_WRITERS ")", (int)len, w);
		return -1;
	}
	r->ignore_writers = true;
	return 0;
}

const char *path_short(const char *path, size_t len)
{
	char buf[72];

	snprintf(buf, sizeof(buf), "%.*s%s", (int)(len > 64 ? 64 : len), path,
		 len > 64 ? "..." : "");
	return esc(buf);
}

int rule_check_path(const char *p, size_t len, char *err, size_t errlen)
{
	if (len == 0) {
		snprintf(err, errlen, "missing path");
		return -1;
	}
	if (p[0] != '/') {
		snprintf(err, errlen, "path '%s' is not absolute",
			 path_short(p, len));
		return -1;
	}
	if (len > RULE_PATH_MAX) {
		snprintf(err, errlen, "path too long (%zu bytes, at most %d)",
			 len, RULE_PATH_MAX);
		return -1;
	}
	return 0;
}

static int octal_digit(char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

/* The byte that "\ooo" at p (n bytes left) stands for, or -1. */
static int octal_escape(const char *p, size_t n)
{
	int a, b, c, v;

	if (n < 4)
		return -1;
	a = octal_digit(p[1]);
	b = octal_digit(p[2]);
	c = octal_digit(p[3]);
	if (a < 0 || b < 0 || c < 0)
		return -1;
	v = a * 64 + b * 8 + c;
	return v >= 1 && v <= 0xff ? v : -1;
}

int path_unescape(const char *p, size_t len, char **out, char *err,
		  size_t errlen)
{
	char *raw = xmalloc(len + 1), *o = raw;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];
		int v;

		if (c == '\\' && (v = octal_escape(p + i, len - i)) >= 0) {
			*o++ = (char)v;
			i += 3;
			continue;
		}
		if (c == '\\')
			snprintf(err, errlen, "path '%s': a backslash must be "
				 "followed by 3 octal digits (byte %zu; \\134 "
				 "is a backslash)", path_short(p, len), i + 1);
		else if (c < 0x20 || c == 0x7f)
			snprintf(err, errlen, "path '%s' has a control character "
				 "(byte %zu): write it as \\%03o",
				 path_short(p, len), i + 1, c);
		else {
			*o++ = (char)c;
			continue;
		}
		free(raw);
		return -1;
	}
	*o = '\0';
	*out = raw;
	return 0;
}

char *path_escape(const char *raw)
{
	return esc_dup(raw);
}

bool rule_is_too_broad(const struct rule *r)
{
	static const char *const trees[] = { "/", "/etc", "/home", "/var" };

	if (!(r->scope & SCOPE_LIB))
		return false;
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
		if (strcmp(r->path, trees[i]) == 0)
			return true;
	return false;
}

int rule_parse_line(const char *line, size_t len, struct rule *r,
		    char *err, size_t errlen)
{
	size_t wlen = 0, p;
	bool optional, mask;
	char *raw;

	if (memchr(line, '\0', len)) {
		snprintf(err, errlen, "NUL byte in line");
		return -1;
	}
	while (len && is_blank(*line)) {
		line++;
		len--;
	}
	while (len && is_blank(line[len - 1]))
		len--;
	if (len == 0 || line[0] == '#')
		return 0;
	mask = line[0] == '!';
	optional = line[0] == '-';
	line += optional || mask;
	len -= optional || mask;
	while (!mask && wlen < len && !is_blank(line[wlen]))
		wlen++;
	if (!mask && parse_scope_word(line, wlen, r, err, errlen))
		return -1;
	if (mask) {
		r->scope = 0;
		r->ignore_writers = false;
	}
	for (p = wlen; p < len && is_blank(line[p]); p++)
		;
	if (rule_check_path(line + p, len - p, err, errlen) ||
	    path_unescape(line + p, len - p, &raw, err, errlen))
		return -1;
	if (rule_check_path(raw, strlen(raw), err, errlen)) {
		free(raw);
		return -1;
	}
	r->path = raw;
	r->optional = optional;
	r->mask = mask;
	r->file = NULL;
	r->line = 0;
	return 1;
}

char *rule_format(const struct rule *r)
{
	const char *opt = r->ignore_writers ? "," OPT_IGNORE_WRITERS : "";
	char *path = path_escape(r->path);
	size_t n = strlen(scope_name(r->scope)) + strlen(opt) +
		   strlen(path) + 2;
	char *s = xmalloc(n);

	if (r->mask)
		snprintf(s, n, "!%s", path);
	else
		snprintf(s, n, "%s%s %s", scope_name(r->scope), opt, path);
	free(path);
	return s;
}

/* Take the next line (without its '\n') off [*p, end); returns its length. */
static size_t next_line(const char **p, const char *end, const char **line)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);

	*line = *p;
	*p += nl ? n + 1 : n;
	return n;
}

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
}

static bool path_eq(const void *ctx, size_t pos)
{
	const struct rule *const *r = ctx;

	return strcmp(r[0][pos].path, r[1]->path) == 0;
}

static const struct rule *find_rule(const struct policy *p, const char *path)
{
	struct rule key = { .path = (char *)path };
	const struct rule *ctx[2] = { p->rule, &key };
	long pos = hindex_find(&p->by_path, hash_bytes(path, strlen(path)),
			       path_eq, ctx);

	return pos < 0 ? NULL : &p->rule[pos];
}

static void policy_append(struct policy *p, const struct rule *r,
			  size_t bytes)
{
	if ((p->n & (p->n - 1)) == 0)	/* 0, 1, 2, 4, ...: grow */
		p->rule = xrealloc(p->rule,
				   (p->n ? 2 * p->n : 1) * sizeof(*p->rule));
	hindex_add(&p->by_path, hash_bytes(r->path, strlen(r->path)), p->n);
	p->rule[p->n++] = *r;
	p->bytes += bytes;
}

size_t rule_bytes(const struct rule *r)
{
	char *k = rule_format(r);
	size_t n = strlen(k) + 1;

	free(k);
	return n;
}

/* Whether r may join p; else the reason in err and, for a limit, *stop. */
static int check_new_rule(const struct policy *p, const struct rule *r,
			  size_t bytes, bool *stop, char *err, size_t errlen)
{
	const struct rule *dup = find_rule(p, r->path);

	if (r->mask)
		snprintf(err, errlen, "a mask (!%s) is for policy files only",
			 path_short(r->path, strlen(r->path)));
	else if (dup && dup->file == r->file)
		snprintf(err, errlen, "a rule for %s is already on line %u",
			 path_short(r->path, strlen(r->path)), dup->line);
	else if (dup)
		snprintf(err, errlen, "a rule for %s is already in %s:%u",
			 path_short(r->path, strlen(r->path)),
			 dup->file ? esc(dup->file) : "?", dup->line);
	else if ((*stop = p->n >= POLICY_MAX_RULES))
		snprintf(err, errlen, "more than %d rules, the kernel's limit",
			 POLICY_MAX_RULES);
	else if ((*stop = p->bytes + bytes > POLICY_MAX_BYTES))
		snprintf(err, errlen, "the policy grows past %d bytes, the "
			 "kernel's limit", POLICY_MAX_BYTES);
	else
		return 0;
	return -1;
}

/* Add the parsed rule r (raw: unchecked); -1 (reason in err) if not. */
static int take_rule(struct policy *p, struct rule *r, bool raw, bool *stop,
		     char *err, size_t errlen)
{
	size_t bytes = rule_bytes(r);

	if (raw || check_new_rule(p, r, bytes, stop, err, errlen) == 0) {
		policy_append(p, r, bytes);
		return 0;
	}
	free(r->path);
	return -1;
}

int policy_add_lines(struct policy *p, const char *file, const char *buf,
		     size_t len, bool raw, policy_report_fn report,
		     void *ctx)
{
	const char *end = buf + len;
	unsigned int line = 0;
	int rc = 0;

	while (buf < end) {
		const char *text;
		size_t n = next_line(&buf, end, &text);
		struct rule r = { 0 };
		char err[512];
		bool stop = false;
		int kind = rule_parse_line(text, n, &r, err, sizeof(err));

		line++;
		if (kind == 0)
			continue;
		r.file = file;
		r.line = line;
		if (kind > 0 &&
		    take_rule(p, &r, raw, &stop, err, sizeof(err)) == 0)
			continue;
		if (!report(ctx, file, line, err) || stop)
			return -1;
		rc = 1;
	}
	return rc;
}

struct first_error {
	unsigned int *line;
	char *err;
	size_t errlen;
};

static bool stop_at_first(void *ctx, const char *file, unsigned int line,
			  const char *reason)
{
	const struct first_error *fe = ctx;

	(void)file;
	*fe->line = line;
	snprintf(fe->err, fe->errlen, "%s", reason);
	return false;
}

int policy_add_text(struct policy *p, const char *file, const char *buf,
		    size_t len, unsigned int *bad_line, char *err,
		    size_t errlen)
{
	struct first_error fe = { bad_line, err, errlen };

	return policy_add_lines(p, file, buf, len, false, stop_at_first,
				&fe) ? -1 : 0;
}

int policy_parse(const char *buf, size_t len, struct policy *p,
		 unsigned int *bad_line, char *err, size_t errlen)
{
	policy_init(p);
	if (policy_add_text(p, NULL, buf, len, bad_line, err, errlen) == 0)
		return 0;
	policy_free(p);
	return -1;
}

char *policy_serialize(const struct policy *p, size_t *len)
{
	size_t cap = 2, n = 0;
	char *s;

	for (size_t i = 0; i < p->n; i++)
		cap += 4 * strlen(p->rule[i].path) + 32;
	s = xmalloc(cap);
	for (size_t i = 0; i < p->n; i++) {
		char *line = rule_format(&p->rule[i]);

		n += (size_t)snprintf(s + n, cap - n, "%s\n", line);
		free(line);
	}
	if (n == 0)
		s[n++] = '\n';
	s[n] = '\0';
	*len = n;
	return s;
}

const struct rule *policy_find(const struct policy *p, const char *path)
{
	return find_rule(p, path);
}

void policy_keep(struct policy *p, const bool *keep)
{
	size_t n = 0;

	hindex_free(&p->by_path);
	p->bytes = 0;
	for (size_t i = 0; i < p->n; i++) {
		struct rule *r = &p->rule[i];

		if (!keep[i]) {
			free(r->path);
			free(r->canon);
			continue;
		}
		p->bytes += rule_bytes(r);
		hindex_add(&p->by_path, hash_bytes(r->path, strlen(r->path)), n);
		p->rule[n++] = *r;
	}
	p->n = n;
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->rule[i].path);
		free(p->rule[i].canon);
	}
	free(p->rule);
	hindex_free(&p->by_path);
	policy_init(p);
}

void kv_parse(const char *buf, size_t len, struct kvlist *l)
{
	const char *end = buf + len;

	l->kv = NULL;
	l->n = 0;
	while (buf < end) {
		const char *line, *sp, *v;
		size_t n = next_line(&buf, end, &line);

		if (n == 0)
			continue;
		sp = memchr(line, ' ', n);
		v = sp ? sp + 1 : line + n;
		l->kv = xrealloc(l->kv, (l->n + 1) * sizeof(*l->kv));
		l->kv[l->n].key = xstrndup(line, (size_t)((sp ? sp : v) - line));
		l->kv[l->n].value = xstrndup(v, (size_t)(line + n - v));
		l->n++;
	}
}

const char *kv_get(const struct kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->kv[i].key, key) == 0)
			return l->kv[i].value;
	return NULL;
}

void kv_free(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->kv[i].key);
		free(l->kv[i].value);
	}
	free(l->kv);
	l->kv = NULL;
	l->n = 0;
}

int changes_apply(const struct change *c, size_t n, policy_write_fn write,
		  void *ctx, struct apply_result *res)
{
	size_t i;

	res->err = 0;
	res->undo_err = 0;
	res->failed = n;
	for (i = 0; i < n; i++) {
		res->err = write(ctx, c[i].file, c[i].line, strlen(c[i].line));
		if (res->err)
			break;
	}
	if (!res->err)
		return 0;
	res->failed = i;
	while (i-- > 0) {
		int e = write(ctx, c[i].undo_file, c[i].undo_line,
			      strlen(c[i].undo_line));

		if (e && !res->undo_err)
			res->undo_err = e;
	}
	return res->err;
}
