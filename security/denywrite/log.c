// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the log of refusals and changes, and the counters
 *
 * Every operation that the decision (decide.c) refuses in enforce mode, or
 * lets through in audit mode only, is counted and logged here.  Records go
 * through the audit subsystem (AUDIT_AVC, as other LSMs) when
 * the kernel has it, otherwise to a rate-limited kernel log line.  Their
 * first field, lsm=denywrite, lets ausearch and aureport tell them from
 * other LSMs' records.
 *
 * Changes of the mode and of the policy are audited too, as other LSMs
 * do: AUDIT_MAC_STATUS and AUDIT_MAC_POLICY_LOAD records say who made the
 * change, what it was and whether it succeeded.
 */

#define pr_fmt(fmt) "denywrite: " fmt

#include <crypto/sha2.h>
#include <linux/atomic.h>
#include <linux/audit.h>
#include <linux/cred.h>
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

	audit_log_format(ab, "lsm=" DENYWRITE_NAME " op=%s mode=%s",
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
	pr_notice_ratelimited("lsm=" DENYWRITE_NAME
			      " op=%s mode=%s pid=%d comm=\"%s\" name=\"%pd\" rule=\"%s\"\n",
			      denywrite_op_name(ev->op),
			      denywrite_mode_name(ev->mode),
			      task_tgid_nr(current), current->comm,
			      file ? file->f_path.dentry : dentry,
			      ev->rule ? ev->rule->name : "-");
}
#endif /* CONFIG_AUDIT */

/**
 * denywrite_log_event - count and log an operation the policy refuses
 * @ev: the operation, and the mode it was decided in (audit or enforce)
 * @file: the file it is done through, or NULL
 * @dentry: the file, when there is no @file
 */
void denywrite_log_event(const struct denywrite_event *ev, struct file *file,
			 struct dentry *dentry)
{
	if (ev->mode == DENYWRITE_MODE_ENFORCE)
		atomic_long_inc(&denied[ev->op]);
	else
		atomic_long_inc(&audited);
	log_event(ev, file, dentry);
}

#ifdef CONFIG_AUDIT
/* Who made a change: the fields every change record ends with. */
static void log_changer(struct audit_buffer *ab, int err)
{
	char comm[TASK_COMM_LEN];

	audit_log_format(ab, " pid=%d uid=%u auid=%u ses=%u comm=",
			 task_tgid_nr(current),
			 from_kuid(&init_user_ns, current_uid()),
			 from_kuid(&init_user_ns, audit_get_loginuid(current)),
			 audit_get_sessionid(current));
	audit_log_untrustedstring(ab, get_task_comm(comm, current));
	audit_log_format(ab, " res=%d", !err);
}

/**
 * denywrite_audit_mode - log a write to the mode file
 * @old: the mode before
 * @mode: the mode asked for, in force now if @err is 0
 * @err: 0, or why the mode did not change
 */
void denywrite_audit_mode(enum denywrite_mode old, enum denywrite_mode mode,
			  int err)
{
	struct audit_buffer *ab;

	ab = audit_log_start(audit_context(), GFP_KERNEL, AUDIT_MAC_STATUS);
	if (!ab)
		return;
	audit_log_format(ab, "lsm=" DENYWRITE_NAME " op=mode mode=%s old_mode=%s",
			 denywrite_mode_name(mode), denywrite_mode_name(old));
	log_changer(ab, err);
	audit_log_end(ab);
}

/**
 * denywrite_audit_policy - log a change of the policy
 * @op: "rules", "add" or "del": the file written
 * @old_count: the number of rules before
 * @policy: the policy in force now (the old one if @err), or NULL
 * @err: 0, or why the policy did not change
 *
 * The record names the new policy by the SHA-256 digest of the rules file,
 * as `sha256sum /sys/kernel/security/denywrite/rules` prints it.
 */
void denywrite_audit_policy(const char *op, size_t old_count,
			    const struct denywrite_policy *policy, int err)
{
	static const u8 empty[SHA256_DIGEST_SIZE] = {
		0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14,
		0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
		0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
		0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
	};
	struct audit_buffer *ab;

	ab = audit_log_start(audit_context(), GFP_KERNEL, AUDIT_MAC_POLICY_LOAD);
	if (!ab)
		return;
	audit_log_format(ab, "lsm=" DENYWRITE_NAME " op=%s rules=%zu old_rules=%zu policy=%*phN",
			 op, policy ? policy->count : 0, old_count,
			 SHA256_DIGEST_SIZE, policy ? policy->sha256 : empty);
	log_changer(ab, err);
	audit_log_end(ab);
}
#else
void denywrite_audit_mode(enum denywrite_mode old, enum denywrite_mode mode,
			  int err)
{
	pr_notice("lsm=" DENYWRITE_NAME " op=mode mode=%s old_mode=%s pid=%d res=%d\n",
		  denywrite_mode_name(mode), denywrite_mode_name(old),
		  task_tgid_nr(current), !err);
}

void denywrite_audit_policy(const char *op, size_t old_count,
			    const struct denywrite_policy *policy, int err)
{
	pr_notice("lsm=" DENYWRITE_NAME " op=%s rules=%zu old_rules=%zu pid=%d res=%d\n",
		  op, policy ? policy->count : 0, old_count,
		  task_tgid_nr(current), !err);
}
#endif /* CONFIG_AUDIT */
