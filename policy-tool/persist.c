// SPDX-License-Identifier: GPL-2.0
/*
 * add --persist and del --persist: the change made in the kernel is also
 * written to the administrator's policy file, 90-local.rules in
 * /etc/denywrite/rules.d, so that the next load keeps it.
 */
#include "commands.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCAL_RULES "90-local.rules"

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

/* The file's text (empty if it does not exist); 0 or errno. */
static int read_text(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0 && errno == ENOENT) {
		*buf = xstrdup("");
		*len = 0;
		return 0;
	}
	if (fd < 0)
		return errno;
	err = read_all(fd, 64u << 20, buf, len);
	close(fd);
	return err;
}

/* Replace path's contents with text, through a new file renamed over it. */
static int write_text(const char *path, const char *text, size_t len)
{
	char tmp[PATH_MAX + 8];
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	if (write(fd, text, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	if (fsync(fd) != 0 && !err)
		err = errno;
	if (close(fd) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err)
		unlink(tmp);
	return err;
}

/* Whether the line is a rule for one of the n raw paths in gone. */
static bool names_one_of(const char *line, size_t len, char **gone, size_t n)
{
	char err[256], *canon;
	struct rule r;
	bool hit = false;

	if (rule_parse_line(line, len, &r, err, sizeof(err)) != 1)
		return false;
	canon = realpath(r.path, NULL);
	for (size_t i = 0; i < n && !hit; i++)
		hit = strcmp(r.path, gone[i]) == 0 ||
		      (canon && strcmp(canon, gone[i]) == 0);
	free(canon);
	free(r.path);
	return hit;
}

/* text without the lines that are rules for the paths in gone. */
static char *without(const char *text, size_t len, char **gone, size_t n,
		     size_t *outlen)
{
	char *out = xmalloc(len + 1), *o = out;
	const char *end = text + len;

	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t l = nl ? (size_t)(nl - text) + 1 : (size_t)(end - text);

		if (!names_one_of(text, nl ? l - 1 : l, gone, n)) {
			memcpy(o, text, l);
			o += l;
		}
		text += l;
	}
	*outlen = (size_t)(o - out);
	return out;
}

/* Add lines (rules in the kernel's syntax) at the end of the file. */
static int append_rules(const char *path, char *const *lines, size_t n)
{
	char *text, *all;
	size_t len, cap;
	int err = read_text(path, &text, &len);

	if (err)
		return err;
	cap = len + 2;
	for (size_t i = 0; i < n; i++)
		cap += strlen(lines[i]) + 1;
	all = xmalloc(cap);
	memcpy(all, text, len);
	if (len && text[len - 1] != '\n')
		all[len++] = '\n';
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(all + len, "%s\n", lines[i]);
	err = write_text(path, all, len);
	free(all);
	free(text);
	return err;
}

/* Remove the rules for the paths in gone from the file. */
static int remove_rules(const char *path, char **gone, size_t n)
{
	char *text, *kept;
	size_t len, klen;
	int err = read_text(path, &text, &len);

	if (err)
		return err;
	kept = without(text, len, gone, n, &klen);
	err = klen == len ? 0 : write_text(path, kept, klen);
	free(kept);
	free(text);
	return err;
}

/* del --persist: a rule that another file of the policy still has. */
static int still_in_files(const struct cli *c, char **gone, size_t n)
{
	struct cli sys = *c;
	struct file_policy fp;
	int rc = 0;

	sys.nargs = 0;
	sys.strict = false;
	file_policy_read(&sys, true, &fp);
	for (size_t i = 0; i < fp.p.n; i++)
		for (size_t k = 0; k < n; k++)
			if (fp.p.rule[i].canon &&
			    strcmp(fp.p.rule[i].canon, gone[k]) == 0)
				rc = fail("del: %s: still in %s:%u, which load "
					  "reads: remove it there (or override "
					  "it in a later file)", esc(gone[k]),
					  esc(fp.p.rule[i].file),
					  fp.p.rule[i].line);
	file_policy_free(&fp);
	return rc;
}

int persist_changes(const struct cli *c, const struct change *ch, size_t n)
{
	char path[PATH_MAX + 32], why[256];
	char **items = xcalloc(n, sizeof(*items));
	int err = local_file(c, path, sizeof(path)), rc = 0;

	for (size_t i = 0; i < n; i++) {
		if (c->cmd == CMD_ADD)
			items[i] = xstrdup(ch[i].line);
		else if (path_unescape(ch[i].line, strlen(ch[i].line),
				       &items[i], why, sizeof(why)))
			items[i] = xstrdup(ch[i].line);
	}
	if (!err)
		err = c->cmd == CMD_ADD ? append_rules(path, items, n) :
					  remove_rules(path, items, n);
	if (err)
		rc = fail("%s: the kernel's rules are changed, but writing %s "
			  "failed: %s", c->name, esc(path), strerror(err));
	else if (c->cmd == CMD_DEL)
		rc = still_in_files(c, items, n);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	return rc;
}
