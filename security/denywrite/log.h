/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: the log of refusals and changes, and the counters
 */

#ifndef _SECURITY_DENYWRITE_LOG_H
#define _SECURITY_DENYWRITE_LOG_H

#include <linux/fs.h>

#include "common.h"

/**
 * enum denywrite_op - operations denywrite can refuse
 * @DENYWRITE_OP_WRITE: open for writing a protected file
 * @DENYWRITE_OP_TRUNCATE: change the size of a protected file
 * @DENYWRITE_OP_EXEC: execute a covered file that is open for writing
 * @DENYWRITE_OP_MMAP: map executable a covered file open for writing
 * @DENYWRITE_OP_COUNT: number of operations
 */
enum denywrite_op {
	DENYWRITE_OP_WRITE,
	DENYWRITE_OP_TRUNCATE,
	DENYWRITE_OP_EXEC,
	DENYWRITE_OP_MMAP,
	DENYWRITE_OP_COUNT,
};

struct denywrite_policy_change;
struct denywrite_rule;

/**
 * struct denywrite_event - an operation the policy refuses
 * @op: what was done
 * @mode: the mode it was decided in
 * @rule: the rule that covers the file, or NULL
 */
struct denywrite_event {
	enum denywrite_op op;
	enum denywrite_mode mode;
	const struct denywrite_rule *rule;
};

void denywrite_log_reset(void);
void denywrite_log_event(const struct denywrite_event *ev, struct file *file,
			 struct dentry *dentry);
const char *denywrite_op_name(enum denywrite_op op);
long denywrite_denied(enum denywrite_op op);
long denywrite_audited(void);
void denywrite_audit_mode(enum denywrite_mode old, enum denywrite_mode mode,
			  int err);
void denywrite_audit_change(const char *op,
			    const struct denywrite_policy_change *ch, int err);

#endif /* _SECURITY_DENYWRITE_LOG_H */
