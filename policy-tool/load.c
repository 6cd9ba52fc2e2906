// SPDX-License-Identifier: GPL-2.0
/*
 * denywritectl load: read policy files (named, or the system's rules.d
 * directories), check them as the kernel will, and write them as one
 * policy in one write(2), which the kernel applies atomically.
 */
#include "commands.h"
#include "hash.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POLICY_FILE_MAX (64u << 20)
#define RULES_SUFFIX ".rules"

/* Highest priority first: /etc overrides /run overrides /usr/lib. */
static const char *const rules_dirs[] = {
	SYSCONF_RULES_DIR,		/* /etc/denywrite/rules.d */
	"/run/denywrite/rules.d",
	LIB_RULES_DIR,			/* /usr/lib/denywrite/rules.d */
};

struct source {
	char *name;	/* for messages: the path, or "<stdin>" */
	char *path;	/* to open; NULL for standard input */
	const char *base;	/* the file name, in path */
};

struct sources {
	struct source *s;
	size_t n;
};

static void sources_add(struct sources *l, const char *path)
{
	struct source *s;

	l->s = xrealloc(l->s, (l->n + 1) * sizeof(*l->s));
	s = &l->s[l->n++];
	if (strcmp(path, "-") == 0) {
		s->name = xstrdup("<stdin>");
		s->path = NULL;
		s->base = s->name;
		return;
	}
	s->name = xstrdup(path);
	s->path = xstrdup(path);
	s->base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
}

static void sources_free(struct sources *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->s[i].name);
		free(l->s[i].path);
	}
	free(l->s);
}

static bool base_eq(const void *ctx, size_t pos)
{
	const struct sources *l = ((const void *const *)ctx)[0];
	const char *base = ((const void *const *)ctx)[1];

	return strcmp(l->s[pos].base, base) == 0;
}

static int by_base(const void *a, const void *b)
{
	const struct source *x = a, *y = b;

	return strcmp(x->base, y->base);
}

static bool is_rules_file(const char *name)
{
	size_t n = strlen(name), k = strlen(RULES_SUFFIX);

	return name[0] != '.' && n > k && strcmp(name + n - k, RULES_SUFFIX) == 0;
}

/* Add the *.rules files of dir not overridden by a name in l already. */
static int scan_dir(const char *dir, struct sources *l, struct hindex *seen)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	if (n < 0)
		return errno == ENOENT ? 0 : fail("load: %s: %s", esc(dir),
						  strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *base = names[i]->d_name;
		const void *ctx[2] = { l, base };
		uint64_t h = hash_bytes(base, strlen(base));

		if (is_rules_file(base) &&
		    hindex_find(seen, h, base_eq, ctx) < 0) {
			char path[2 * PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s", dir, base);
			hindex_add(seen, h, l->n);
			sources_add(l, path);
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

/* The system policy: rules.d files under root, merged by file name. */
static int collect_rules_d(const char *root, struct sources *l)
{
	struct hindex seen = { 0 };
	char dir[PATH_MAX];
	int rc = 0;

	for (size_t i = 0; i < sizeof(rules_dirs) / sizeof(rules_dirs[0]) &&
	     !rc; i++) {
		snprintf(dir, sizeof(dir), "%s%s", root ? root : "",
			 rules_dirs[i]);
		rc = scan_dir(dir, l, &seen);
	}
	hindex_free(&seen);
	if (l->n > 1)
		qsort(l->s, l->n, sizeof(*l->s), by_base);
	return rc;
}

static int read_source(const struct source *s, char **buf, size_t *len)
{
	int fd = s->path ? open(s->path, O_RDONLY | O_CLOEXEC) : 0;
	int err;

	if (fd < 0)
		return errno;
	err = read_all(fd, POLICY_FILE_MAX, buf, len);
	if (fd != 0 && close(fd) != 0 && !err) {
		err = errno;
		free(*buf);
	}
	return err;
}

/* Parse every source into p; 1 (reported) on the first error. */
static int parse_sources(const struct sources *l, struct policy *p)
{
	for (size_t i = 0; i < l->n; i++) {
		char *buf, reason[512];
		unsigned int line;
		size_t len;
		int err = read_source(&l->s[i], &buf, &len);

		if (err)
			return fail("load: %s: %s", esc(l->s[i].name),
				    strerror(err));
		err = policy_add_text(p, l->s[i].name, buf, len, &line, reason,
				      sizeof(reason));
		free(buf);
		if (err)
			return fail("load: %s:%u: %s", esc(l->s[i].name), line,
				    reason);
	}
	return 0;
}

/* Where a rule came from, "file:line" (escaped, in a ring buffer). */
static const char *origin(const struct rule *r)
{
	char buf[PATH_MAX + 16];

	snprintf(buf, sizeof(buf), "%s:%u", r->file ? r->file : "?", r->line);
	return esc(buf);
}

struct object {
	dev_t dev;
	ino_t ino;
};

static bool object_eq(const void *ctx, size_t pos)
{
	const struct object *o = ((const void *const *)ctx)[0];
	const struct object *key = ((const void *const *)ctx)[1];

	return o[pos].dev == key->dev && o[pos].ino == key->ino;
}

/* Resolve rule i as the kernel will; 1 (reported) if it would refuse it. */
static int resolve_rule(const struct policy *p, size_t i, struct object *obj,
			struct hindex *seen)
{
	const struct rule *r = &p->rule[i];
	char *canon = realpath(r->path, NULL);
	struct rule cr = *r;
	struct stat st;
	const void *ctx[2] = { obj, &obj[i] };
	uint64_t h;
	long dup;

	if (!canon || stat(canon, &st) != 0) {
		int rc = fail("load: %s: %s: %s", origin(r), esc(r->path),
			      strerror(errno));

		free(canon);
		return rc;
	}
	obj[i].dev = st.st_dev;
	obj[i].ino = st.st_ino;
	cr.path = canon;
	if (rule_is_too_broad(&cr))
		warn_too_broad(&cr, origin(r));
	free(canon);
	h = hash_bytes(&obj[i], sizeof(obj[i]));
	dup = hindex_find(seen, h, object_eq, ctx);
	if (dup >= 0 && p->rule[dup].file == r->file)
		return fail("load: %s: %s is the same as %s on line %u",
			    origin(r), esc(r->path), esc(p->rule[dup].path),
			    p->rule[dup].line);
	if (dup >= 0)
		return fail("load: %s: %s is the same as %s in %s", origin(r),
			    esc(r->path), esc(p->rule[dup].path),
			    origin(&p->rule[dup]));
	hindex_add(seen, h, i);
	return 0;
}

/* Every path exists and names another object; warnings for broad rules. */
static int resolve_rules(const struct policy *p)
{
	struct object *obj = xcalloc(p->n, sizeof(*obj));
	struct hindex seen = { 0 };
	int rc = 0;

	for (size_t i = 0; i < p->n && !rc; i++)
		rc = resolve_rule(p, i, obj, &seen);
	hindex_free(&seen);
	free(obj);
	return rc;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Write p to the kernel; 0 or the exit code (reported). */
static int load_policy(struct dw *dw, const struct cli *c,
		       const struct policy *p)
{
	size_t len;
	char *buf;
	int err = dw_open_active(dw);

	if (err)
		return err;
	if (need_mac_admin(c))
		return 1;
	buf = policy_serialize(p, &len);
	err = dw_write(dw, "rules", buf, len);
	free(buf);
	if (err)
		return fail("load: the kernel refused the policy: %s",
			    write_error(err, "rules"));
	return 0;
}

static int load(struct dw *dw, const struct cli *c, const struct sources *l,
		struct policy *p)
{
	int rc = parse_sources(l, p);

	if (rc || (rc = resolve_rules(p)) != 0)
		return rc;
	if (p->n == 0 && !c->allow_empty)
		return fail("load: no rules in %zu %s: refusing to clear the "
			    "policy (--allow-empty does)", l->n,
			    plural(l->n, "file", "files"));
	if (!c->dry_run && (rc = load_policy(dw, c, p)) != 0)
		return rc;
	if (!c->quiet)
		printf("%s %zu %s from %zu %s%s\n",
		       c->dry_run ? "checked" : "loaded", p->n,
		       plural(p->n, "rule", "rules"), l->n,
		       plural(l->n, "file", "files"),
		       c->dry_run ? " (dry run: nothing loaded)" : "");
	return 0;
}

int cmd_load(struct dw *dw, const struct cli *c)
{
	struct sources l = { 0 };
	struct policy p;
	int rc = 0;

	policy_init(&p);
	for (int i = 0; i < c->nargs; i++)
		sources_add(&l, c->args[i]);
	if (c->nargs == 0)
		rc = collect_rules_d(c->root, &l);
	if (!rc)
		rc = load(dw, c, &l, &p);
	policy_free(&p);
	sources_free(&l);
	return rc;
}
