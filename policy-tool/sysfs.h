/* SPDX-License-Identifier: GPL-2.0 */
/* Access to the denywrite files in securityfs. */
#ifndef DENYWRITECTL_SYSFS_H
#define DENYWRITECTL_SYSFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

#define SECURITYFS_DEFAULT "/sys/kernel/security"
#define SECURITYFS_ENV "DENYWRITE_SECURITYFS"

struct dw {
	char root[PATH_MAX];	/* securityfs mount point */
	char dir[PATH_MAX];	/* root/denywrite */
	bool active;		/* denywrite is in root/lsm */
	bool probe;		/* dw_open: never mount, say nothing */
	bool may_mount;		/* dw_open: mount securityfs if need be
				 * (load only; never with probe) */
};

/*
 * Find securityfs, mounting it (nosuid,nodev,noexec) when dw->may_mount
 * is set (load), it is the default one, not mounted, and we are root;
 * then read root/lsm.  Every other command only reads what is mounted: if
 * securityfs is not, it says so.  Returns
 * 0 if denywrite is active, EXIT_INACTIVE (and dw->active false) if
 * securityfs is there but denywrite is not, EXIT_UNKNOWN if that cannot
 * be told (securityfs not mounted and not mountable, lsm unreadable:
 * said on stderr), or prints the error and returns 1.  Only commands
 * that need the kernel call it.
 */
int dw_open(struct dw *dw);

/*
 * dw_open for a command that cannot work without denywrite: when it is
 * not active, says so (boot with lsm=...,denywrite) and returns
 * EXIT_INACTIVE.
 */
int dw_open_active(struct dw *dw);

/* Read dir/name into a new NUL-terminated buffer.  0 or errno. */
int dw_read(const struct dw *dw, const char *name, char **buf, size_t *len);

/* One write(2) of buf to dir/name.  0 or errno. */
int dw_write(const struct dw *dw, const char *name, const char *buf,
	     size_t len);

/* dw_write of line + "\n"; matches policy_write_fn (ctx is the dw). */
int dw_write_line(void *dw, const char *name, const char *line, size_t len);

/* Ask the query file about an absolute path.  0 or errno. */
int dw_query(const struct dw *dw, const char *path, char **buf, size_t *len);

/*
 * The read helpers below print "denywritectl: <file>: <why>" on failure
 * and return 1.
 */
int dw_read_mode(const struct dw *dw, char *mode, size_t size);
int dw_read_rules(const struct dw *dw, struct policy *p);
int dw_read_kv(const struct dw *dw, const char *name, struct kvlist *l);
/* The rules gone with their filesystem (empty without a gone file). */
int dw_read_gone(const struct dw *dw, struct policy *p);

/* Whether this process has CAP_MAC_ADMIN in its effective set. */
bool dw_may_change(void);

/* For command cmd, which changes the policy: 0, or 1 (reported) without
 * CAP_MAC_ADMIN. */
int dw_need_mac_admin(const char *cmd);

/* Why a write to the file name of the denywrite directory failed (err),
 * in words. */
const char *dw_write_error(int err, const char *name);

#endif
