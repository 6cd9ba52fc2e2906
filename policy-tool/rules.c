// SPDX-License-Identifier: GPL-2.0
/*
 * The rules-file model (rules.h): read policy files, named or the
 * system's rules.d directories, resolve their rules, merge the same rules
 * and keep what the kernel takes; and "the same rule".
 */
#include "rules.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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

static void sources_add(struct sources *l, const char *path)
{
	struct source *s;

	l->s = xrealloc(l->s, (l->n + 1) * sizeof(*l->s));
	s = &l->s[l->n++];
	memset(s, 0, sizeof(*s));
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
		free(l->s[i].rel);
		free(l->s[i].skipped);
		free(l->s[i].text);
	}
	free(l->s);
}

static bool base_eq(const void *ctx, size_t pos)
{
	const struct sources *l = ((const void *const *)ctx)[0];
	const char *base = ((const void *const *)ctx)[1];

	return strcmp(l->s[pos].base, base) == 0;
}

/* By name; of one name the lowest priority first, the file read last. */
static int by_base(const void *a, const void *b)
{
	const struct source *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	return c ? c : (x->tier < y->tier) - (x->tier > y->tier);
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
	int root_fd;		/* in_root: the root, open; else -1 */
	char *root_canon;	/* and its canonical path */
};

/*
 * Open path in the root ck->root_fd as if it were / (RESOLVE_IN_ROOT:
 * ".." and absolute symbolic links stay in it), or -1 (errno).
 */
static int open_in_root(const struct checking *ck, const char *path,
			int flags)
{
#ifdef SYS_openat2
	struct open_how how = { .flags = (unsigned int)flags | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT |
					   RESOLVE_NO_MAGICLINKS };

	return (int)syscall(SYS_openat2, ck->root_fd, path, &how, sizeof(how));
#else
	(void)ck;
	(void)path;
	(void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

/* Whether base in dirfd is a symbolic link to /dev/null (or is it). */
static bool is_null(const struct checking *ck, int dirfd, const char *base)
{
	char target[16];
	ssize_t n = readlinkat(dirfd, base, target, sizeof(target) - 1);
	struct stat st;

	if (n >= 0) {
		target[n] = '\0';
		if (strcmp(target, "/dev/null") == 0)
			return true;
	}
	/* an image's links are its own: not followed on this system */
	return ck->root_fd < 0 && fstatat(dirfd, base, &st, 0) == 0 &&
	       S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

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
 * Add base, a rules file of dir (rel in the root, tier its priority):
 * masked by the file of l at over, or (over < 0) the first of its name.
 */
static void add_found(struct sources *l, const char *dir, const char *rel,
		      const char *base, unsigned int tier, long over,
		      const struct checking *ck, int dirfd)
{
	char path[2 * PATH_MAX];
	struct source *s;

	snprintf(path, sizeof(path), "%s/%s", dir, base);
	sources_add(l, path);
	s = &l->s[l->n - 1];
	s->tier = tier;
	if (ck->root_fd >= 0) {
		snprintf(path, sizeof(path), "%s/%s", rel, base);
		s->rel = xstrdup(path);
	}
	if (over >= 0)
		s->masked_by = l->s[over].name;
	s->null = over < 0 && is_null(ck, dirfd, base);
}

/*
 * Add the *.rules files of dir (rel in the root): those of a name in l
 * already masked by it.  A missing dir is none; one that cannot be read
 * (not a directory, no permission) is skipped, as a bad file is: the
 * other directories are still read.
 */
static int scan_dir(const char *dir, const char *rel, unsigned int tier,
		    struct sources *l, struct hindex *seen,
		    struct checking *ck)
{
	int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC, n = -1;
	int fd = ck->root_fd >= 0 ? open_in_root(ck, rel, flags) :
		 open(dir, flags);
	struct dirent **names;

	if (fd >= 0)
		n = scandirat(fd, ".", &names, NULL, alphasort);
	if (n < 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		return err == ENOENT ? 0 : skip_part(ck, dir, strerror(err),
						     "directory");
	}
	for (int i = 0; i < n; i++) {
		const char *base = names[i]->d_name;
		const void *ctx[2] = { l, base };
		uint64_t h = hash_bytes(base, strlen(base));
		long over = is_rules_file(base) ?
			    hindex_find(seen, h, base_eq, ctx) : -2;

		if (over != -2)
			add_found(l, dir, rel, base, tier, over, ck, fd);
		if (over == -1)
			hindex_add(seen, h, l->n - 1);
		free(names[i]);
	}
	free(names);
	close(fd);
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
		rc = scan_dir(dir, rules_dirs[i], (unsigned int)i, l, &seen,
			      ck);
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
static int open_source(const struct source *s, bool regular_only,
		       const struct checking *ck, int *err)
{
	int flags = O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK : 0);
	struct stat st;
	int fd;

	*err = 0;
	if (!s->path)
		return 0;
	fd = s->rel ? open_in_root(ck, s->rel, flags) : open(s->path, flags);
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
static int read_source(const struct source *s, bool regular_only,
		       const struct checking *ck, char **buf, size_t *len)
{
	int err, fd = open_source(s, regular_only, ck, &err);

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
 * rules.d directories'), but those masked, counting in *nread those read
 * and keeping their text; 1 (reported) if it must stop.
 */
static int parse_sources(const struct sources *l, bool regular_only,
			 struct policy *p, struct checking *ck, size_t *nread)
{
	for (size_t i = 0; i < l->n; i++) {
		struct source *s = &l->s[i];
		int err;

		if (s->masked_by || s->null)
			continue;
		err = read_source(s, regular_only, ck, &s->text, &s->len);
		if (err) {
			s->text = NULL;
			s->len = 0;
			s->skipped = xstrdup(read_error(err));
		}
		if (err && skip_part(ck, s->name, read_error(err), "file"))
			return 1;
		if (err)
			continue;
		++*nread;
		err = policy_add_lines(p, s->name, s->text, s->len, true,
				       report_line, ck);
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

/* r as before any lookup: no object, no canonical path, no error. */
static void rule_forget(struct rule *r)
{
	free(r->canon);
	r->canon = NULL;
	r->resolved = false;
	r->dev = 0;
	r->ino = 0;
	r->lookup_err = 0;
}

/* r names the object st describes. */
static void rule_found(struct rule *r, const struct stat *st)
{
	r->resolved = true;
	r->dev = st->st_dev;
	r->ino = st->st_ino;
}

void rule_resolve(struct rule *r)
{
	struct stat st;

	rule_forget(r);
	r->canon = realpath(r->path, NULL);
	if (!r->canon || stat(r->canon, &st) != 0) {
		r->lookup_err = errno;
		return;
	}
	rule_found(r, &st);
}

bool rule_same(const struct rule *a, const struct rule *b)
{
	if (a->resolved != b->resolved)
		return false;
	if (a->resolved)
		return a->dev == b->dev && a->ino == b->ino;
	return strcmp(a->path, b->path) == 0;
}

uint64_t rule_same_hash(const struct rule *r)
{
	struct {
		dev_t dev;
		ino_t ino;
	} obj;

	if (!r->resolved)
		return hash_bytes(r->path, strlen(r->path));
	memset(&obj, 0, sizeof(obj));	/* no padding bytes hashed */
	obj.dev = r->dev;
	obj.ino = r->ino;
	return hash_bytes(&obj, sizeof(obj));
}

/*
 * rule_resolve in the root of ck, if any: the object r's path names
 * there, r->canon its path in the root (from /proc/self/fd).
 */
static void rule_resolve_in(struct rule *r, const struct checking *ck)
{
	size_t n = ck->root_fd >= 0 ? strlen(ck->root_canon) : 0;
	char link[64], buf[PATH_MAX];
	struct stat st;
	ssize_t len;
	int fd;

	if (ck->root_fd < 0) {
		rule_resolve(r);
		return;
	}
	rule_forget(r);
	fd = open_in_root(ck, r->path, O_PATH);
	r->lookup_err = fd < 0 ? errno : 0;
	if (fd < 0)
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, buf, sizeof(buf) - 1);
	if (len < 0 || fstat(fd, &st) != 0)
		r->lookup_err = errno;
	close(fd);
	if (r->lookup_err)
		return;
	buf[len] = '\0';
	if (n == 1)	/* the root is / */
		n = 0;
	if (strncmp(buf, ck->root_canon, n) != 0 ||
	    (buf[n] != '/' && buf[n] != '\0')) {
		r->lookup_err = EXDEV;	/* moved out of the root meanwhile */
		return;
	}
	r->canon = xstrdup(buf[n] ? buf + n : "/");
	rule_found(r, &st);
}

void policy_resolve(struct policy *p)
{
	for (size_t i = 0; i < p->n; i++)
		rule_resolve(&p->rule[i]);
}

void rule_index_init(struct rule_index *ix, const struct policy *p)
{
	ix->rule = p->rule;
	memset(&ix->h, 0, sizeof(ix->h));
}

void rule_index_add(struct rule_index *ix, size_t pos)
{
	hindex_add(&ix->h, rule_same_hash(&ix->rule[pos]), pos);
}

static bool same_eq(const void *ctx, size_t pos)
{
	const struct rule_index *ix = ((const void *const *)ctx)[0];
	const struct rule *r = ((const void *const *)ctx)[1];

	return rule_same(&ix->rule[pos], r);
}

long rule_index_find(const struct rule_index *ix, const struct rule *r)
{
	const void *ctx[2] = { ix, r };

	return hindex_find(&ix->h, rule_same_hash(r), same_eq, ctx);
}

void rule_index_free(struct rule_index *ix)
{
	hindex_free(&ix->h);
}

void warn_too_broad(const struct rule *r, const char *where)
{
	warn("%s%s'%s %s': any user who can read a file there can block "
	     "in-place writes to it by mapping it executable; name the "
	     "library directories instead", where ? esc(where) : "",
	     where ? ": " : "", scope_name(r->scope), esc(r->path));
}

#define NONE SIZE_MAX

/*
 * What merging the same rules keeps track of.  The lines are rules and
 * masks ("!PATH"), which are never kept.
 */
struct merging {
	struct rule_index first;	/* the first line of each object */
	size_t *winner;		/* of a first line: the same line that
				 * stands for it now, that of the last file;
				 * NONE for the others */
	size_t *dup_of;		/* of a line of the same file as the winner
				 * then: that winner; else NONE */
	size_t *by;		/* of a rule that a later file's line
				 * overrides or masks: that line; else NONE */
	bool *has_rule;		/* of a first line: a rule is among the
				 * object's lines so far */
	bool *masks_nothing;	/* of a mask: no earlier file has a rule for
				 * its object */
	bool *keep;
};

/*
 * Line i is for the object of the line first: of a later file it
 * overrides (or masks) the one that stands now; of the same file it is a
 * duplicate.
 */
static void merge(const struct policy *p, size_t i, size_t first,
		  struct merging *m)
{
	size_t w = m->winner[first];

	if (p->rule[w].file == p->rule[i].file) {
		m->dup_of[i] = w;
		m->keep[i] = false;
		return;
	}
	m->masks_nothing[i] = p->rule[i].mask && !m->has_rule[first];
	m->has_rule[first] |= !p->rule[i].mask;
	if (!p->rule[w].mask)
		m->by[w] = i;
	m->keep[w] = false;
	m->winner[first] = i;
}

/* Why line i, a duplicate of line w of its file, is dropped. */
static void dup_reason(const struct rule *r, const struct rule *w,
		       char *reason, size_t size)
{
	if (strcmp(r->path, w->path) == 0)
		snprintf(reason, size, "a %s for %s is already on line %u",
			 w->mask ? "mask" : "rule",
			 path_short(r->path, strlen(r->path)), w->line);
	else
		snprintf(reason, size, "%s is the same as %s%s on line %u",
			 esc(r->path), w->mask ? "!" : "", esc(w->path),
			 w->line);
}

/* Why mask r masks nothing. */
static void nothing_reason(const struct rule *r, char *reason, size_t size)
{
	snprintf(reason, size, "!%s masks no rule: no earlier file has a rule "
		 "for it%s%s%s", esc(r->path), r->resolved ? "" : " (",
		 r->resolved ? "" : strerror(r->lookup_err),
		 r->resolved ? "" : ")");
}

/*
 * Drop, and say in the order of the rules, those the kernel would
 * refuse: a second line for one object in one file, and a rule that
 * stands for its object but cannot be resolved (an optional rule whose
 * path is missing is left out silently, as sysctl.d's "-" allows); warn
 * of a mask that masks nothing (an error if strict).  1 (reported) to
 * stop.
 */
static int report_dropped(struct policy *p, struct merging *m,
			  struct checking *ck)
{
	char reason[2 * PATH_MAX + 64];

	for (size_t i = 0; i < p->n; i++) {
		const struct rule *r = &p->rule[i];

		if (m->masks_nothing[i] && !ck->strict) {
			nothing_reason(r, reason, sizeof(reason));
			if (!ck->quiet)
				warn("%s:%u: %s", esc(r->file ? r->file : "?"),
				     r->line, reason);
			continue;
		}
		if (m->masks_nothing[i]) {
			nothing_reason(r, reason, sizeof(reason));
		} else if (m->dup_of[i] != NONE) {
			dup_reason(r, &p->rule[m->dup_of[i]], reason,
				   sizeof(reason));
		} else if (m->keep[i] && !r->resolved) {
			m->keep[i] = false;
			if (r->optional && r->lookup_err == ENOENT)
				continue;
			snprintf(reason, sizeof(reason), "%s: %s",
				 esc(r->path), strerror(r->lookup_err));
		} else {
			continue;
		}
		if (!report_line(ck, r->file ? r->file : "?", r->line, reason))
			return 1;
	}
	return 0;
}

/* Put the rule that stands for each object in the place of its first. */
static void place_winners(struct policy *p, struct merging *m)
{
	for (size_t i = 0; i < p->n; i++) {
		size_t w = m->winner[i];
		struct rule r;

		if (w == NONE || w == i || !m->keep[w])
			continue;
		r = p->rule[i];
		p->rule[i] = p->rule[w];
		p->rule[w] = r;
		m->keep[i] = true;
		m->keep[w] = false;
	}
}

/* The rules that a later file's line overrides or masks, in order. */
static void record_fates(const struct policy *p, const struct merging *m,
			 struct file_policy *fp)
{
	fp->fates = xcalloc(p->n ? p->n : 1, sizeof(*fp->fates));
	for (size_t i = 0; i < p->n; i++) {
		const struct rule *by = m->by[i] != NONE ? &p->rule[m->by[i]] :
					NULL;
		struct rule_fate *f = &fp->fates[fp->nfates];

		if (!by)
			continue;
		f->kind = by->mask ? FATE_MASKED : FATE_OVERRIDDEN;
		f->file = p->rule[i].file;
		f->line = p->rule[i].line;
		f->by_file = by->file;
		f->by_line = by->line;
		fp->nfates++;
	}
}

/*
 * Resolve every rule and mask and keep, of the lines for the same object
 * (rule_same), the one of the last file, if it is a rule, in the place of
 * the first; drop the rules the kernel would refuse.  Warnings for broad
 * rules.  1 (reported) to stop the load.
 */
static int resolve_rules(struct file_policy *fp, struct checking *ck)
{
	struct policy *p = &fp->p;
	size_t n = p->n ? p->n : 1;
	struct merging m;
	int rc;

	m.winner = xcalloc(n, sizeof(*m.winner));
	m.dup_of = xcalloc(n, sizeof(*m.dup_of));
	m.by = xcalloc(n, sizeof(*m.by));
	m.has_rule = xcalloc(n, sizeof(*m.has_rule));
	m.masks_nothing = xcalloc(n, sizeof(*m.masks_nothing));
	m.keep = xcalloc(n, sizeof(*m.keep));
	for (size_t i = 0; i < p->n; i++)
		rule_resolve_in(&p->rule[i], ck);
	rule_index_init(&m.first, p);
	for (size_t i = 0; i < p->n; i++) {
		long first = rule_index_find(&m.first, &p->rule[i]);

		m.winner[i] = NONE;
		m.dup_of[i] = NONE;
		m.by[i] = NONE;
		m.keep[i] = !p->rule[i].mask;
		if (first >= 0) {
			merge(p, i, (size_t)first, &m);
			continue;
		}
		rule_index_add(&m.first, i);
		m.winner[i] = i;
		m.has_rule[i] = !p->rule[i].mask;
		m.masks_nothing[i] = p->rule[i].mask;
	}
	rc = report_dropped(p, &m, ck);
	if (!rc) {
		record_fates(p, &m, fp);
		place_winners(p, &m);
		policy_keep(p, m.keep);
	}
	for (size_t i = 0; i < p->n && !rc && !ck->quiet; i++) {
		struct rule cr = p->rule[i];

		cr.path = cr.canon;
		if (rule_is_too_broad(&cr))
			warn_too_broad(&cr, origin(&p->rule[i]));
	}
	rule_index_free(&m.first);
	free(m.winner);
	free(m.dup_of);
	free(m.by);
	free(m.has_rule);
	free(m.masks_nothing);
	free(m.keep);
	return rc;
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
 * Open the root of an image for in_root, in ck; 0 or 1 (reported).
 * RESOLVE_IN_ROOT is openat2(2)'s, Linux 5.6: without it nothing in the
 * root could be looked up as the image sees it, so it is an error, never
 * a lookup on this system instead.
 */
static int open_root(const char *root, struct checking *ck)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || !(ck->root_canon = realpath(root, NULL))) {
		if (fd >= 0)
			close(fd);
		return fail("%s: %s: %s", ck->cmd, esc(root), strerror(errno));
	}
	ck->root_fd = fd;
	fd = open_in_root(ck, "/", O_PATH);
	if (fd < 0)
		return fail("%s: %s: cannot look paths up inside it, "
			    "openat2(2) with RESOLVE_IN_ROOT (Linux 5.6) "
			    "failed: %s", ck->cmd, esc(root), strerror(errno));
	close(fd);
	return 0;
}

int file_policy_read(const struct policy_files *from, struct file_policy *fp)
{
	struct checking ck = { .cmd = from->cmd, .strict = from->strict,
			       .quiet = from->quiet, .root_fd = -1 };
	int rc = 0;

	memset(fp, 0, sizeof(*fp));
	fp->files = xcalloc(1, sizeof(*fp->files));
	policy_init(&fp->p);
	if (from->in_root && from->root)
		rc = open_root(from->root, &ck);
	for (size_t i = 0; i < from->n; i++)
		sources_add(fp->files, from->names[i]);
	if (!rc && from->n == 0)
		rc = collect_rules_d(from->root, fp->files, &ck);
	if (!rc)
		rc = parse_sources(fp->files, from->n == 0, &fp->p, &ck,
				   &fp->nfiles);
	if (!rc)
		rc = resolve_rules(fp, &ck);
	if (!rc)
		rc = fit_limits(&fp->p, fp->files, &ck);
	fp->skipped = ck.skipped;
	if (ck.root_fd >= 0)
		close(ck.root_fd);
	free(ck.root_canon);
	return rc;
}

void file_policy_free(struct file_policy *fp)
{
	policy_free(&fp->p);
	sources_free(fp->files);
	free(fp->files);
	free(fp->fates);
}
