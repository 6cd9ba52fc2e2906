// SPDX-License-Identifier: GPL-2.0
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define SECURITYFS_MAGIC 0x73636673
#define READ_MAX (16u << 20)	/* no securityfs file of ours is larger */
#define QUERY_MAX 32768		/* an answer has 3 paths of < 4096 bytes */

static int build_path(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s/%s", a, b);

	return n < 0 || (size_t)n >= size ? ENAMETOOLONG : 0;
}

static int read_path(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err, cerr;

	if (fd < 0)
		return errno;
	err = read_all(fd, READ_MAX, buf, len);
	cerr = close(fd) ? errno : 0;
	if (!err && cerr) {
		free(*buf);
		err = cerr;
	}
	return err;
}

static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",\n");

		if (len == n && strncmp(p, word, n) == 0)
			return true;
		p += len;
		p += strspn(p, ",\n");
	}
	return false;
}

/* Whether securityfs is mounted on path (a fake tree never is). */
static bool is_securityfs(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == SECURITYFS_MAGIC;
}

/*
 * Make sure root/lsm can be read, mounting securityfs if we may (load,
 * as root, on the default mount point; no other command): 0, 1
 * (reported) on an error, EXIT_UNKNOWN (reported) if we cannot tell
 * whether denywrite is active, EXIT_INACTIVE if the kernel has no lsm
 * file (no LSM stacking).
 */
static int find_securityfs(const struct dw *dw, const char *lsm, bool custom)
{
	struct stat st;

	if (stat(lsm, &st) == 0)
		return 0;
	if (dw->probe)
		return EXIT_UNKNOWN;
	if (errno != ENOENT) {
		fail("%s: %s", esc(lsm), strerror(errno));
		return EXIT_UNKNOWN;
	}
	if (!custom && is_securityfs(dw->root))
		return EXIT_INACTIVE;
	if (custom || !dw->may_mount || geteuid() != 0) {
		fail("cannot tell whether denywrite is active: securityfs is "
		     "not mounted: mount -t securityfs securityfs %s",
		     esc(dw->root));
		return EXIT_UNKNOWN;
	}
	if (mount("securityfs", dw->root, "securityfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
		fail("cannot tell whether denywrite is active: mount securityfs "
		     "on %s: %s", esc(dw->root), strerror(errno));
		return EXIT_UNKNOWN;
	}
	return 0;
}

int dw_open(struct dw *dw)
{
	const char *env = getenv(SECURITYFS_ENV);
	bool custom = env && *env;
	char lsm[PATH_MAX], *list;
	size_t len;
	struct stat st;
	int err;

	dw->active = false;
	if (snprintf(dw->root, sizeof(dw->root), "%s",
		     custom ? env : SECURITYFS_DEFAULT) >= (int)sizeof(dw->root) ||
	    build_path(dw->dir, sizeof(dw->dir), dw->root, "denywrite") ||
	    build_path(lsm, sizeof(lsm), dw->root, "lsm"))
		return fail("%s: %s", SECURITYFS_ENV, strerror(ENAMETOOLONG));
	err = find_securityfs(dw, lsm, custom);
	if (err)
		return err;
	err = read_path(lsm, &list, &len);
	if (err == ENOENT)	/* a kernel without LSM stacking support */
		return EXIT_INACTIVE;
	if (err && !dw->probe)
		fail("cannot tell whether denywrite is active: %s: %s",
		     esc(lsm), strerror(err));
	if (err)
		return EXIT_UNKNOWN;
	dw->active = list_has(list, "denywrite") && stat(dw->dir, &st) == 0 &&
		     S_ISDIR(st.st_mode);
	free(list);
	return dw->active ? 0 : EXIT_INACTIVE;
}

int dw_open_active(struct dw *dw)
{
	int rc = dw_open(dw);

	if (rc == EXIT_INACTIVE)
		fail("denywrite is not active: boot with lsm=...,denywrite");
	return rc;
}

int dw_read(const struct dw *dw, const char *name, char **buf, size_t *len)
{
	char path[PATH_MAX];
	int err = build_path(path, sizeof(path), dw->dir, name);

	return err ? err : read_path(path, buf, len);
}

int dw_write(const struct dw *dw, const char *name, const char *buf,
	     size_t len)
{
	char path[PATH_MAX];
	int fd, err = build_path(path, sizeof(path), dw->dir, name);

	if (err)
		return err;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = write_once(fd, buf, len);
	if (close(fd) != 0 && !err)
		err = errno;
	return err;
}

int dw_write_line(void *ctx, const char *name, const char *line, size_t len)
{
	char *buf = xmalloc(len + 2);
	int err;

	memcpy(buf, line, len);
	buf[len] = '\n';
	buf[len + 1] = '\0';
	err = dw_write(ctx, name, buf, len + 1);
	free(buf);
	return err;
}

int dw_query(const struct dw *dw, const char *path, char **buf, size_t *len)
{
	char qpath[PATH_MAX];
	int fd, err = build_path(qpath, sizeof(qpath), dw->dir, "query");

	if (err)
		return err;
	fd = open(qpath, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = write_once(fd, path, strlen(path));
	if (!err)
		err = read_all_from_start(fd, QUERY_MAX, buf, len);
	if (close(fd) != 0 && !err) {
		err = errno;
		free(*buf);
	}
	return err;
}

int dw_read_mode(const struct dw *dw, char *mode, size_t size)
{
	char *buf;
	size_t len;
	int err = dw_read(dw, "mode", &buf, &len);

	if (err)
		return fail("%s/mode: %s", esc(dw->dir), strerror(err));
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(mode, size, "%s", buf);
	free(buf);
	return 0;
}

int dw_read_rules(const struct dw *dw, struct policy *p)
{
	char *buf, err[256];
	size_t len;
	unsigned int line;
	int e = dw_read(dw, "rules", &buf, &len);

	if (e)
		return fail("%s/rules: %s", esc(dw->dir), strerror(e));
	e = policy_parse(buf, len, p, &line, err, sizeof(err));
	free(buf);
	if (e)
		return fail("%s/rules:%u: unexpected line: %s", esc(dw->dir),
			    line, err);
	return 0;
}

static bool go_on(void *ctx, const char *file, unsigned int line,
		  const char *reason)
{
	(void)ctx;
	(void)file;
	(void)line;
	(void)reason;
	return true;
}

int dw_read_gone(const struct dw *dw, struct policy *p)
{
	char *buf;
	size_t len;
	int e = dw_read(dw, "gone", &buf, &len);

	policy_init(p);
	if (e == ENOENT)	/* a kernel whose rules pin their mounts */
		return 0;
	if (e)
		return fail("%s/gone: %s", esc(dw->dir), strerror(e));
	policy_add_lines(p, NULL, buf, len, false, go_on, NULL);
	free(buf);
	return 0;
}

int dw_read_kv(const struct dw *dw, const char *name, struct kvlist *l)
{
	char *buf;
	size_t len;
	int err = dw_read(dw, name, &buf, &len);

	if (err)
		return fail("%s/%s: %s", esc(dw->dir), name, strerror(err));
	kv_parse(buf, len, l);
	free(buf);
	return 0;
}

bool dw_may_change(void)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (!caps)
		return false;
	if (cap_get_flag(caps, CAP_MAC_ADMIN, CAP_EFFECTIVE, &v) != 0)
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

int dw_need_mac_admin(const char *cmd)
{
	if (dw_may_change())
		return 0;
	return fail("%s: changing the policy needs CAP_MAC_ADMIN", cmd);
}

const char *dw_write_error(int err, const char *name)
{
	switch (err) {
	case EPERM:
		return "changing the policy needs CAP_MAC_ADMIN";
	case EEXIST:
		return "a rule for this path is already present";
	case ENOENT:
		if (strcmp(name, "del") == 0)
			return "not present in the policy";
		if (strcmp(name, "rules") == 0)
			return "a path in the policy does not exist";
		return strerror(err);
	case EXDEV:
		return "the path leads into another mount namespace's tree: "
		       "name it by a path of this one";
	case E2BIG:
		return "the policy is too large for the kernel";
	case ENAMETOOLONG:
		return "path too long (at most 4095 bytes)";
	default:
		return strerror(err);
	}
}
