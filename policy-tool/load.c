// SPDX-License-Identifier: GPL-2.0
/*
 * denywritectl load: read policy files (named, or the system's rules.d
 * directories), check them as the kernel will, and write them as one
 * policy in one write(2), which the kernel applies atomically.
 */
#include "commands.h"
#include "hash.h"
#include "json.h"
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
#define STR_(x) #x
#define STR(x) STR_(x)

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
	unsigned int tier;	/* its rules.d directory: 0 (/etc) for the
				 * highest priority; 0 for a named file */
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
	s->tier = 0;
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

/* How the bad parts of a policy are told and counted. */
struct checking {
	const char *cmd;	/* the command, for messages */
	bool strict;		/* the first one fails the whole load */
	bool quiet;		/* say nothing of them, nor warn */
	unsigned int skipped;	/* rules, files and directories skipped */
};

/*
 * A file or directory that cannot be read: with --strict it fails the
 * load (1, reported), else it is skipped (said unless quiet, counted).
 */
static int skip_part(struct checking *ck, const char *name, const char *why,
		     const char *what)
{
	if (ck->strict)
		return fail("%s: %s: %s", ck->cmd, esc(name), why);
	if (!ck->quiet)
		fail("%s: %s: %s (%s skipped)", ck->cmd, esc(name), why, what);
	ck->skipped++;
	return 0;
}

/*
 * Add the *.rules files of dir not overridden by a name in l already.  A
 * missing dir is none; one that cannot be read (not a directory, no
 * permission) is skipped, as a bad file is: the other directories are
 * still read.
 */
static int scan_dir(const char *dir, unsigned int tier, struct sources *l,
		    struct hindex *seen, struct checking *ck)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	if (n < 0)
		return errno == ENOENT ? 0 : skip_part(ck, dir, strerror(errno),
						       "directory");
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
			l->s[l->n - 1].tier = tier;
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

/* The system policy: rules.d files under root, merged by file name. */
static int collect_rules_d(const char *root, struct sources *l,
			   struct checking *ck)
{
	struct hindex seen = { 0 };
	char dir[PATH_MAX];
	int rc = 0;

	for (size_t i = 0; i < sizeof(rules_dirs) / sizeof(rules_dirs[0]) &&
	     !rc; i++) {
		snprintf(dir, sizeof(dir), "%s%s", root ? root : "",
			 rules_dirs[i]);
		rc = scan_dir(dir, (unsigned int)i, l, &seen, ck);
	}
	hindex_free(&seen);
	if (l->n > 1)
		qsort(l->s, l->n, sizeof(*l->s), by_base);
	return rc;
}

#define E_NOT_REGULAR (-1)	/* read_source: a FIFO, a socket, a device */

/*
 * Open a source: an fd, or -1 with the reason (an errno value or
 * E_NOT_REGULAR) in *err.  A rules.d file (regular_only) must be a
 * regular file, as systemd's configuration files must: it is opened
 * without blocking (a FIFO's open would wait for a writer forever) and
 * checked with fstat on that fd (no race with a rename).  A file named on
 * the command line may be a pipe (load <(...)), but not a directory.
 */
static int open_source(const struct source *s, bool regular_only, int *err)
{
	int flags = O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK : 0);
	struct stat st;
	int fd;

	*err = 0;
	if (!s->path)
		return 0;
	fd = open(s->path, flags);
	if (fd < 0 || fstat(fd, &st) != 0)
		*err = errno;
	else if (S_ISDIR(st.st_mode))
		*err = EISDIR;
	else if (regular_only && !S_ISREG(st.st_mode))
		*err = E_NOT_REGULAR;
	else if (regular_only && fcntl(fd, F_SETFL, 0) != 0)
		*err = errno;	/* blocking reads again */
	if (*err && fd >= 0)
		close(fd);
	return *err ? -1 : fd;
}

/* Read a source; 0, an errno value or E_NOT_REGULAR. */
static int read_source(const struct source *s, bool regular_only, char **buf,
		       size_t *len)
{
	int err, fd = open_source(s, regular_only, &err);

	if (fd < 0)
		return err;
	err = read_all(fd, POLICY_FILE_MAX, buf, len);
	if (fd != 0 && close(fd) != 0 && !err) {
		err = errno;
		free(*buf);
	}
	return err;
}

static const char *read_error(int err)
{
	return err == E_NOT_REGULAR ? "not a regular file" : strerror(err);
}

static bool report_line(void *ctx, const char *file, unsigned int line,
			const char *reason)
{
	struct checking *ck = ctx;

	if (ck->quiet) {
		ck->skipped++;
		return !ck->strict;
	}
	if (ck->strict) {
		fail("%s: %s:%u: %s", ck->cmd, esc(file), line, reason);
		return false;
	}
	fail("%s: %s:%u: %s (rule skipped)", ck->cmd, esc(file), line, reason);
	ck->skipped++;
	return true;
}

/*
 * Parse every source into p (only regular files if regular_only: the
 * rules.d directories'), counting in *nread those read; 1 (reported) if
 * it must stop.
 */
static int parse_sources(const struct sources *l, bool regular_only,
			 struct policy *p, struct checking *ck, size_t *nread)
{
	for (size_t i = 0; i < l->n; i++) {
		char *buf;
		size_t len;
		int err = read_source(&l->s[i], regular_only, &buf, &len);

		if (err && skip_part(ck, l->s[i].name, read_error(err), "file"))
			return 1;
		if (err)
			continue;
		++*nread;
		err = policy_add_lines(p, l->s[i].name, buf, len, true,
				       report_line, ck);
		free(buf);
		if (err < 0)	/* only report_line stops it: --strict */
			return 1;
	}
	return 0;
}

/* Where a rule came from, "file:line" (in a static buffer). */
static const char *origin(const struct rule *r)
{
	static char buf[PATH_MAX + 16];

	snprintf(buf, sizeof(buf), "%s:%u", r->file ? r->file : "?", r->line);
	return buf;
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

/* What resolving the rules keeps track of. */
struct resolving {
	struct object *obj;	/* of each rule */
	size_t *winner;		/* for the first rule of an object: the
				 * rule that names it now */
	bool *keep;
	struct hindex seen;
};

/* A rule that resolving drops: reported unless it is optional. */
static int drop(const struct policy *p, size_t i, struct resolving *rs,
		struct checking *ck, const char *reason)
{
	const struct rule *r = &p->rule[i];

	rs->keep[i] = false;
	if (!reason)
		return 0;
	return report_line(ck, r->file ? r->file : "?", r->line, reason) ? 0 : 1;
}

/* The rule i names the same object as rule first of an earlier file. */
static void override(size_t i, size_t first, struct resolving *rs)
{
	rs->keep[rs->winner[first]] = false;
	rs->winner[first] = i;
}

/* Resolve rule i as the kernel will; 1 (reported) to stop the load. */
static int resolve_rule(struct policy *p, size_t i, struct resolving *rs,
			struct checking *ck)
{
	struct rule *r = &p->rule[i];
	char reason[2 * PATH_MAX + 64];
	const void *ctx[2] = { rs->obj, &rs->obj[i] };
	struct stat st;
	uint64_t h;
	long first;

	r->canon = realpath(r->path, NULL);
	if (!r->canon || stat(r->canon, &st) != 0) {
		/* "-" allows a missing path, as in sysctl.d: no other error */
		if (r->optional && errno == ENOENT)
			return drop(p, i, rs, ck, NULL);
		snprintf(reason, sizeof(reason), "%s: %s", esc(r->path),
			 strerror(errno));
		return drop(p, i, rs, ck, reason);
	}
	rs->obj[i].dev = st.st_dev;
	rs->obj[i].ino = st.st_ino;
	h = hash_bytes(&rs->obj[i], sizeof(rs->obj[i]));
	first = hindex_find(&rs->seen, h, object_eq, ctx);
	if (first < 0) {
		hindex_add(&rs->seen, h, i);
		rs->winner[i] = i;
		return 0;
	}
	if (p->rule[rs->winner[first]].file != r->file) {
		override(i, (size_t)first, rs);
		return 0;
	}
	snprintf(reason, sizeof(reason), "%s is the same as %s on line %u",
		 esc(r->path), esc(p->rule[rs->winner[first]].path),
		 p->rule[rs->winner[first]].line);
	return drop(p, i, rs, ck, reason);
}

/*
 * Resolve every path (canon) and keep, of the rules that name one object,
 * the one of the last file; drop the rules the kernel would refuse.
 * Warnings for broad rules.  1 (reported) to stop the load.
 */
static int resolve_rules(struct policy *p, struct checking *ck)
{
	struct resolving rs = { 0 };
	int rc = 0;

	rs.obj = xcalloc(p->n, sizeof(*rs.obj));
	rs.winner = xcalloc(p->n, sizeof(*rs.winner));
	rs.keep = xcalloc(p->n, sizeof(*rs.keep));
	for (size_t i = 0; i < p->n; i++)
		rs.keep[i] = true;
	for (size_t i = 0; i < p->n && !rc; i++)
		rc = resolve_rule(p, i, &rs, ck);
	if (!rc)
		policy_keep(p, rs.keep);
	for (size_t i = 0; i < p->n && !rc && !ck->quiet; i++) {
		struct rule cr = p->rule[i];

		cr.path = cr.canon;
		if (rule_is_too_broad(&cr))
			warn_too_broad(&cr, origin(&p->rule[i]));
	}
	hindex_free(&rs.seen);
	free(rs.obj);
	free(rs.winner);
	free(rs.keep);
	return rc;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/*
 * The kernel's limits (POLICY_MAX_RULES, POLICY_MAX_BYTES) apply to what
 * is loaded: they are counted once the rules are resolved.  Past them,
 * the rules of the lowest priority are left out: those of /usr/lib's
 * files before /run's before /etc's, and in one directory (or of files
 * named) those of a file before those of a later one, which would
 * override it; in one file the last lines first.
 */
struct fitting {
	size_t *rank;		/* of each source: 0 for the highest priority */
	unsigned int *left_out;	/* rules of each source left out */
	unsigned int *first;	/* the line of the first of them */
	const char *reason;	/* the limit passed, or NULL */
};

struct ranked {
	unsigned long long key;	/* source rank, then line */
	size_t rule;
};

static int by_key(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* The source of l that rule r is from (l->n for none). */
static size_t source_of_rule(const struct sources *l, const struct rule *r)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->s[i].name == r->file)
			return i;
	return l->n;
}

/* Rank the sources of l into fit->rank: tier first, later names first. */
static void rank_sources(const struct sources *l, struct fitting *fit)
{
	size_t k = 0;

	for (unsigned int tier = 0; k < l->n; tier++)
		for (size_t i = l->n; i-- > 0;)
			if (l->s[i].tier == tier)
				fit->rank[i] = k++;
}

/* Whether rule r still fits after n rules of bytes bytes; else why not. */
static const char *over_limit(const struct rule *r, size_t n, size_t *bytes)
{
	size_t b = rule_bytes(r);

	if (n >= POLICY_MAX_RULES)
		return "more than " STR(POLICY_MAX_RULES) " rules, the kernel's "
		       "limit";
	if (*bytes + b > POLICY_MAX_BYTES)
		return "the policy grows past " STR(POLICY_MAX_BYTES) " bytes, "
		       "the kernel's limit";
	*bytes += b;
	return NULL;
}

/* Mark in keep the rules of p that fit, highest priority first. */
static void fit_rules(const struct policy *p, const struct sources *l,
		      struct fitting *fit, bool *keep)
{
	struct ranked *order = xcalloc(p->n, sizeof(*order));
	size_t bytes = 0, n = 0;

	for (size_t i = 0; i < p->n; i++) {
		size_t src = source_of_rule(l, &p->rule[i]);

		order[i].key = (unsigned long long)(src < l->n ?
						    fit->rank[src] : l->n)
			       << 32 | p->rule[i].line;
		order[i].rule = i;
	}
	qsort(order, p->n, sizeof(*order), by_key);
	for (size_t k = 0; k < p->n; k++) {
		size_t i = order[k].rule, src = source_of_rule(l, &p->rule[i]);

		if (!fit->reason)
			fit->reason = over_limit(&p->rule[i], n, &bytes);
		keep[i] = !fit->reason;
		n += keep[i];
		if (keep[i] || src == l->n)
			continue;
		if (!fit->left_out[src]++)
			fit->first[src] = p->rule[i].line;
	}
	free(order);
}

/* Say which rules are left out; 1 (reported) with --strict. */
static int report_left_out(const struct sources *l, const struct fitting *fit,
			   struct checking *ck)
{
	size_t worst = l->n;

	for (size_t i = 0; i < l->n; i++)
		if (fit->left_out[i] &&
		    (worst == l->n || fit->rank[i] < fit->rank[worst]))
			worst = i;
	if (ck->strict && worst < l->n)
		return fail("%s: %s:%u: %s", ck->cmd, esc(l->s[worst].name),
			    fit->first[worst], fit->reason);
	for (size_t i = 0; i < l->n; i++) {
		if (fit->left_out[i] && !ck->quiet)
			fail("%s: %s:%u: %u %s left out from this line on: %s "
			     "(rules skipped)", ck->cmd, esc(l->s[i].name),
			     fit->first[i], fit->left_out[i],
			     plural(fit->left_out[i], "rule", "rules"),
			     fit->reason);
		ck->skipped += fit->left_out[i];
	}
	return 0;
}

/* Keep of p what the kernel takes; 1 (reported) to stop the load. */
static int fit_limits(struct policy *p, const struct sources *l,
		      struct checking *ck)
{
	struct fitting fit = { 0 };
	bool *keep = xcalloc(p->n, sizeof(*keep));
	int rc;

	fit.rank = xcalloc(l->n, sizeof(*fit.rank));
	fit.left_out = xcalloc(l->n, sizeof(*fit.left_out));
	fit.first = xcalloc(l->n, sizeof(*fit.first));
	rank_sources(l, &fit);
	fit_rules(p, l, &fit, keep);
	rc = report_left_out(l, &fit, ck);
	if (!rc && fit.reason)
		policy_keep(p, keep);
	free(fit.rank);
	free(fit.left_out);
	free(fit.first);
	free(keep);
	return rc;
}

/*
 * Write p to the kernel; 0 or the exit code (reported).  The one command
 * that may mount securityfs: at boot, before anything else has.
 */
static int load_policy(struct dw *dw, const struct cli *c,
		       const struct policy *p)
{
	size_t len;
	char *buf;
	int err;

	dw->may_mount = true;
	err = dw_open_active(dw);

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

int file_policy_read(const struct cli *c, bool quiet,
		     struct file_policy *fp)
{
	struct checking ck = { .cmd = c->name, .strict = c->strict,
			       .quiet = quiet };
	int rc = 0;

	memset(fp, 0, sizeof(*fp));
	fp->files = xcalloc(1, sizeof(*fp->files));
	policy_init(&fp->p);
	for (int i = 0; i < c->nargs; i++)
		sources_add(fp->files, c->args[i]);
	if (c->nargs == 0)
		rc = collect_rules_d(c->root, fp->files, &ck);
	if (!rc)
		rc = parse_sources(fp->files, c->nargs == 0, &fp->p, &ck,
				   &fp->nfiles);
	if (!rc)
		rc = resolve_rules(&fp->p, &ck);
	if (!rc)
		rc = fit_limits(&fp->p, fp->files, &ck);
	fp->skipped = ck.skipped;
	return rc;
}

void file_policy_free(struct file_policy *fp)
{
	policy_free(&fp->p);
	sources_free(fp->files);
	free(fp->files);
}

/* What load did: "loaded N rules from M files", or JSON. */
static void load_report(struct dw *dw, const struct cli *c,
			const struct file_policy *fp)
{
	const struct policy *p = &fp->p;
	size_t n = fp->nfiles;
	struct json j;

	if (!c->json) {
		if (c->dry_run)
			dry_run_diff(dw, NULL, p);
		if (!c->quiet)
			printf("%s %zu %s from %zu %s%s\n",
			       c->dry_run ? "checked" : "loaded", p->n,
			       plural(p->n, "rule", "rules"), n,
			       plural(n, "file", "files"),
			       c->dry_run ? " (dry run: nothing loaded)" : "");
		return;
	}
	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_uint(&j, c->dry_run ? "checked" : "loaded", p->n);
	json_uint(&j, "files", n);
	json_uint(&j, "skipped", fp->skipped);
	if (c->dry_run)
		dry_run_diff(dw, &j, p);
	json_end(&j, '}');
}

static int load(struct dw *dw, const struct cli *c, struct file_policy *fp)
{
	int rc = file_policy_read(c, false, fp);

	if (rc)
		return rc;
	if (fp->p.n == 0 && !c->allow_empty)
		return fail("load: no rules in %zu %s: refusing to clear the "
			    "policy (--allow-empty does)", fp->nfiles,
			    plural(fp->nfiles, "file", "files"));
	if (!c->dry_run && (rc = load_policy(dw, c, &fp->p)) != 0)
		return rc;
	load_report(dw, c, fp);
	if (!fp->skipped)
		return 0;
	fail("load: %u %s skipped: the other rules %s", fp->skipped,
	     fp->skipped == 1 ? "part was" : "parts were",
	     c->dry_run ? "are valid" : "are in force");
	return EXIT_PARTIAL;	/* not 1: the kernel took the others */
}

int cmd_load(struct dw *dw, const struct cli *c)
{
	struct file_policy fp;
	int rc = load(dw, c, &fp);

	file_policy_free(&fp);
	return rc;
}
