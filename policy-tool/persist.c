// SPDX-License-Identifier: GPL-2.0
/*
 * add --persist and del --persist: the change made in the kernel is also
 * written to the administrator's policy file, 90-local.rules in
 * /etc/denywrite/rules.d, so that the next load keeps it.  add edits the
 * line of the same rule (rule_same: for the same object) rather than
 * appending a second one (two rules for one object in one file would
 * fail the next load).
 */
#include "persist.h"
#include "rules.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCAL_RULES "90-local.rules"
#define LOCAL_PATH_MAX (PATH_MAX + 32)

/* Reasons of persist's own, besides errno values. */
#define E_NOT_REGULAR (-1)	/* 90-local.rules is no regular file */
#define E_DANGLING (-2)		/* it is a link to a missing file */

/* The path of 90-local.rules (under c->root) in buf; its directory made. */
static int local_file(const struct cli *c, char *buf, size_t size)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s" SYSCONF_RULES_DIR,
		 c->root ? c->root : "");
	snprintf(buf, size, "%s/" LOCAL_RULES, dir);
	for (char *p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return errno;
		*p = '/';
	}
	return mkdir(dir, 0755) != 0 && errno != EEXIST ? errno : 0;
}

/*
 * The file that persist writes: 90-local.rules, or the target of the
 * symbolic link of that name (which stays a link), with its directory
 * open and locked (flock) for the whole read, edit and rename, so that
 * concurrent add/del --persist are serialised and none is lost.
 */
struct local {
	char path[LOCAL_PATH_MAX];	/* the file (a link's target) */
	int dirfd;		/* its directory, locked; -1 if not open */
	bool exists;
	struct stat st;		/* its mode and owner, if it exists */
};

/* The file that the link path names (path itself unless it is a link):
 * a link is written through, to its target, and stays a link. */
static int resolve_link(const char *path, char *out, size_t size)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : errno;
	if (!S_ISLNK(st.st_mode))
		return 0;
	real = realpath(path, NULL);
	if (!real)
		return errno == ENOENT ? E_DANGLING : errno;
	snprintf(out, size, "%s", real);
	free(real);
	return 0;
}

/* Open and lock the directory of l->path, then stat the file. */
static int local_open(struct local *l, const char *path)
{
	char dir[LOCAL_PATH_MAX];
	int err;

	l->dirfd = -1;
	snprintf(l->path, sizeof(l->path), "%s", path);
	err = resolve_link(path, l->path, sizeof(l->path));
	if (err)
		return err;
	snprintf(dir, sizeof(dir), "%s", l->path);
	*strrchr(dir, '/') = '\0';
	l->dirfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (l->dirfd < 0)
		return errno;
	while (flock(l->dirfd, LOCK_EX) != 0)
		if (errno != EINTR)
			return errno;
	l->exists = stat(l->path, &l->st) == 0;
	if (!l->exists)
		return errno == ENOENT ? 0 : errno;
	return S_ISREG(l->st.st_mode) ? 0 : E_NOT_REGULAR;
}

/* Unlock (closing the directory). */
static void local_close(struct local *l)
{
	if (l->dirfd >= 0)
		close(l->dirfd);
	l->dirfd = -1;
}

/* The file's text (empty if it does not exist); 0 or errno. */
static int read_text(const struct local *l, char **buf, size_t *len)
{
	int fd, err;

	if (!l->exists) {
		*buf = xstrdup("");
		*len = 0;
		return 0;
	}
	fd = open(l->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = read_all(fd, 64u << 20, buf, len);
	close(fd);
	return err;
}

/* Write all of buf, retrying short writes and EINTR; 0 or errno. */
static int write_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		if (w == 0)
			return EIO;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Give the new file fd the mode and owner of the file it replaces. */
static int keep_attributes(int fd, const struct local *l)
{
	if (!l->exists)
		return fchmod(fd, 0644) != 0 ? errno : 0;
	if (fchown(fd, l->st.st_uid, l->st.st_gid) != 0)
		return errno;
	return fchmod(fd, l->st.st_mode & 07777) != 0 ? errno : 0;
}

/*
 * Replace the file's contents with text: a new file (a unique name in
 * the same directory, that load ignores), written, synced, with the old
 * file's mode and owner, renamed over it; then the directory synced.
 */
static int write_text(const struct local *l, const char *text, size_t len)
{
	char tmp[LOCAL_PATH_MAX + 16], *base = strrchr(l->path, '/') + 1;
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", (int)(base - l->path),
		 l->path, base);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = keep_attributes(fd, l);
	if (!err)
		err = write_full(fd, text, len);
	if (!err && fsync(fd) != 0)
		err = errno;
	if (close(fd) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, l->path) != 0)
		err = errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	return fsync(l->dirfd) != 0 ? errno : 0;
}

/* The index of the one of the n rules (resolved) whose rule the line
 * is (rule_same), or -1; a mask ("!PATH") only if masks. */
static long same_as_one_of(const char *line, size_t len,
			   const struct rule *rules, size_t n, bool masks)
{
	char err[256];
	struct rule r = { 0 };
	long hit = -1;

	if (rule_parse_line(line, len, &r, err, sizeof(err)) != 1)
		return -1;
	if (r.mask && !masks) {
		free(r.path);
		return -1;
	}
	rule_resolve(&r);
	for (size_t i = 0; i < n && hit < 0; i++)
		if (rule_same(&r, &rules[i]))
			hit = (long)i;
	free(r.canon);
	free(r.path);
	return hit;
}

/* Append l bytes of s at *o (a buffer large enough). */
static void put(char **o, const char *s, size_t l)
{
	memcpy(*o, s, l);
	*o += l;
}

/*
 * text with the lines of the n rules edited: for add (lines not NULL),
 * the first line of the same rule as rules[k] (rule_same), a mask
 * ("!PATH") too, becomes lines[k], in its place, and lines[k] is appended
 * if there was none; for del, they go, but a mask, which stays.  Any
 * other line of that rule goes too, so that the file has one for each
 * object.
 */
static char *edit(const char *text, size_t len, const struct rule *rules,
		  char *const *lines, size_t n, size_t *outlen)
{
	size_t cap = len + 2;
	bool *placed = xcalloc(n ? n : 1, sizeof(*placed));
	const char *end = text + len;
	char *out, *o;

	for (size_t i = 0; lines && i < n; i++)
		cap += strlen(lines[i]) + 1;
	out = o = xmalloc(cap);
	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t l = nl ? (size_t)(nl - text) + 1 : (size_t)(end - text);
		long k = same_as_one_of(text, nl ? l - 1 : l, rules, n,
					lines != NULL);

		if (k < 0)
			put(&o, text, l);
		if (k >= 0 && lines && !placed[k]) {
			put(&o, lines[k], strlen(lines[k]));
			put(&o, "\n", 1);
		}
		if (k >= 0)
			placed[k] = true;
		text += l;
	}
	for (size_t i = 0; lines && i < n; i++) {
		if (placed[i])
			continue;
		if (o > out && o[-1] != '\n')
			put(&o, "\n", 1);
		put(&o, lines[i], strlen(lines[i]));
		put(&o, "\n", 1);
	}
	free(placed);
	*outlen = (size_t)(o - out);
	return out;
}

/* Edit the lines of the rules in the locked file (see edit()). */
static int edit_rules(const struct local *l, const struct rule *rules,
		      char *const *lines, size_t n)
{
	char *text, *out;
	size_t len, olen;
	int err = read_text(l, &text, &len);

	if (err)
		return err;
	out = edit(text, len, rules, lines, n, &olen);
	if (!l->exists && !lines)
		err = 0;	/* del: no file, nothing to remove */
	else if (!l->exists || olen != len || memcmp(out, text, len) != 0)
		err = write_text(l, out, olen);
	free(out);
	free(text);
	return err;
}

/* del --persist: a rule that another file of the policy still has. */
static int still_in_files(const struct cli *c, const struct rule *gone,
			  size_t n)
{
	struct policy_files from = { .cmd = c->name, .root = c->root,
				     .quiet = true };
	struct file_policy fp;
	int rc = 0;

	file_policy_read(&from, &fp);
	for (size_t i = 0; i < fp.p.n; i++)
		for (size_t k = 0; k < n; k++)
			if (rule_same(&fp.p.rule[i], &gone[k]))
				rc = fail("del: %s: still in %s:%u, which load "
					  "reads: remove it there (or override "
					  "it in a later file)",
					  esc(gone[k].path),
					  esc(fp.p.rule[i].file),
					  fp.p.rule[i].line);
	file_policy_free(&fp);
	return rc;
}

/* The rule of change i, resolved: for the path add resolved, the path
 * del took. */
static void rule_of(const struct cli *c, const struct change *ch,
		    struct rule *r)
{
	const char *esc_path = c->cmd == CMD_ADD ? ch->undo_line : ch->line;
	char why[256];

	memset(r, 0, sizeof(*r));
	if (path_unescape(esc_path, strlen(esc_path), &r->path, why,
			  sizeof(why)))
		r->path = xstrdup(esc_path);
	rule_resolve(r);
}

/* Why persisting failed, in words. */
static const char *persist_error(int err)
{
	if (err == E_NOT_REGULAR)
		return "not a regular file";
	if (err == E_DANGLING)
		return "a symbolic link to a missing file";
	return strerror(err);
}

/* Edit the file at path (locked), whose real name goes to shown. */
static int persist_file(const struct cli *c, const char *path,
			const struct rule *rules, char *const *lines, size_t n,
			char *shown, size_t size)
{
	struct local l;
	int err = local_open(&l, path);

	snprintf(shown, size, "%s", l.path);
	if (!err)
		err = edit_rules(&l, rules, c->cmd == CMD_ADD ? lines : NULL,
				 n);
	local_close(&l);
	return err;
}

int persist_changes(const struct cli *c, const struct change *ch, size_t n)
{
	char path[LOCAL_PATH_MAX], shown[LOCAL_PATH_MAX];
	struct rule *rules = xcalloc(n, sizeof(*rules));
	char **lines = xcalloc(n, sizeof(*lines));
	int err = local_file(c, path, sizeof(path)), rc = 0;

	snprintf(shown, sizeof(shown), "%s", path);
	for (size_t i = 0; i < n; i++) {
		rule_of(c, &ch[i], &rules[i]);
		lines[i] = ch[i].line;
	}
	if (!err)
		err = persist_file(c, path, rules, lines, n, shown,
				   sizeof(shown));
	if (err)
		rc = fail("%s: the kernel's rules are changed, but writing %s "
			  "failed: %s", c->name, esc(shown),
			  persist_error(err));
	else if (c->cmd == CMD_DEL)
		rc = still_in_files(c, rules, n);
	for (size_t i = 0; i < n; i++) {
		free(rules[i].path);
		free(rules[i].canon);
	}
	free(rules);
	free(lines);
	return rc;
}
