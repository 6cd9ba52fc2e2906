// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the decision, its log and its counters
 *
 * Every hook that finds an operation it would refuse calls one of the
 * denywrite_refuse_*() functions, which apply the mode: in audit mode the
 * operation is logged, counted and allowed; in enforce mode it is logged,
 * counted and refused with ETXTBSY.  Records go through the audit
 * subsystem (AUDIT_AVC, as other LSMs) when the kernel has it, otherwise
 * to a rate-limited kernel log line.
 */

#define pr_fmt(fmt) "denywrite: " fmt

#include <linux/atomic.h>
#include <linux/audit.h>
#include <linux/lsm_audit.h>
#include <linux/printk.h>
#include <linux/sched.h>

#include "common.h"
#include "log.h"
#include "policy.h"

static atomic_long_t denied[DENYWRITE_OP_COUNT];
static atomic_long_t audited;

static const char *const op_names[DENYWRITE_OP_COUNT] = {
	[DENYWRITE_OP_WRITE] = "write",
	[DENYWRITE_OP_TRUNCATE] = "truncate",
	[DENYWRITE_OP_EXEC] = "exec",
	[DENYWRITE_OP_MMAP] = "mmap",
};

/**
 * denywrite_op_name - name of an operation, as logged and counted
 * @op: the operation
 *
 * Return: a static string.
 */
const char *denywrite_op_name(enum denywrite_op op)
{
	return op_names[op];
}

/**
 * denywrite_denied - number of operations refused in enforce mode
 * @op: the operation
 *
 * Return: the count since boot.
 */
long denywrite_denied(enum denywrite_op op)
{
	return atomic_long_read(&denied[op]);
}

/**
 * denywrite_audited - number of operations allowed by audit mode only
 *
 * Return: the count since boot.
 */
long denywrite_audited(void)
{
	return atomic_long_read(&audited);
}

struct denywrite_event {
	enum denywrite_op op;
	enum denywrite_mode mode;
	const struct denywrite_rule *rule;
};

#ifdef CONFIG_AUDIT
struct denywrite_audit {
	struct common_audit_data ad;
	const struct denywrite_event *event;
};

static void audit_pre(struct audit_buffer *ab, void *data)
{
	struct denywrite_audit *a = container_of(data, struct denywrite_audit,
						 ad);
	const struct denywrite_event *ev = a->event;

	audit_log_format(ab, "denywrite op=%s mode=%s",
			 denywrite_op_name(ev->op),
			 denywrite_mode_name(ev->mode));
}

static void audit_post(struct audit_buffer *ab, void *data)
{
	struct denywrite_audit *a = container_of(data, struct denywrite_audit,
						 ad);
	const struct denywrite_rule *rule = a->event->rule;

	if (!rule) {
		audit_log_format(ab, " rule=-");
		return;
	}
	audit_log_format(ab, " scope=%s%s rule=", denywrite_scope_name(rule->scope),
			 rule->flags & DENYWRITE_RULE_IGNORE_WRITERS ?
				"," DENYWRITE_IGNORE_WRITERS : "");
	audit_log_untrustedstring(ab, rule->name);
}

static void log_event(const struct denywrite_event *ev, struct file *file,
		      struct dentry *dentry)
{
	struct denywrite_audit a = { .event = ev };

	if (file) {
		a.ad.type = LSM_AUDIT_DATA_FILE;
		a.ad.u.file = file;
	} else {
		a.ad.type = LSM_AUDIT_DATA_DENTRY;
		a.ad.u.dentry = dentry;
	}
	common_lsm_audit(&a.ad, audit_pre, audit_post);
}
#else
static void log_event(const struct denywrite_event *ev, struct file *file,
		      struct dentry *dentry)
{
	pr_notice_ratelimited("op=%s mode=%s pid=%d comm=\"%s\" name=\"%pd\" rule=\"%s\"\n",
			      denywrite_op_name(ev->op),
			      denywrite_mode_name(ev->mode),
			      task_tgid_nr(current), current->comm,
			      file ? file->f_path.dentry : dentry,
			      ev->rule ? ev->rule->name : "-");
}
#endif /* CONFIG_AUDIT */

/* Apply the mode to an operation that the policy would refuse. */
static int decide(struct denywrite_event *ev, struct file *file,
		  struct dentry *dentry)
{
	ev->mode = denywrite_get_mode();
	if (ev->mode == DENYWRITE_MODE_OFF)
		return 0;
	if (ev->mode == DENYWRITE_MODE_ENFORCE)
		atomic_long_inc(&denied[ev->op]);
	else
		atomic_long_inc(&audited);
	log_event(ev, file, dentry);
	return ev->mode == DENYWRITE_MODE_ENFORCE ? -ETXTBSY : 0;
}

/**
 * denywrite_refuse_file - the policy would refuse @op on @file
 * @op: the operation
 * @file: the file being opened for writing, executed or mapped
 * @rule: the rule that covers @file, or NULL to look it up for the log
 *
 * Logs and counts the event according to the mode in force.
 *
 * Return: -ETXTBSY in enforce mode, else 0.
 */
int denywrite_refuse_file(enum denywrite_op op, struct file *file,
			  const struct denywrite_rule *rule)
{
	struct denywrite_event ev = { .op = op, .rule = rule };
	int idx, err;

	if (rule)
		return decide(&ev, file, NULL);
	idx = srcu_read_lock(&denywrite_policy_srcu);
	ev.rule = denywrite_policy_match(denywrite_policy_current(),
					 &file->f_path, DENYWRITE_SCOPE_ALL);
	err = decide(&ev, file, NULL);
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return err;
}

/**
 * denywrite_refuse_dentry - the policy would refuse @op on @dentry
 * @op: the operation
 * @dentry: the file being truncated
 *
 * Like denywrite_refuse_file(), for hooks that have no path; the rule for
 * the log is looked up within @dentry's filesystem only.
 *
 * Return: -ETXTBSY in enforce mode, else 0.
 */
int denywrite_refuse_dentry(enum denywrite_op op, struct dentry *dentry)
{
	struct denywrite_event ev = { .op = op };
	int idx, err;

	idx = srcu_read_lock(&denywrite_policy_srcu);
	ev.rule = denywrite_policy_match_dentry(denywrite_policy_current(),
						dentry, DENYWRITE_SCOPE_ALL);
	err = decide(&ev, NULL, dentry);
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return err;
}
