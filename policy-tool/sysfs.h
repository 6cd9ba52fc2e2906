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
};

/*
 * Find securityfs (mounting it when it is the default one and we are root)
 * and check that denywrite is active.  Prints the error and returns 1 if
 * not.
 */
int dw_open(struct dw *dw);

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

/* Whether this process has CAP_MAC_ADMIN in its effective set. */
bool dw_may_change(void);

#endif
