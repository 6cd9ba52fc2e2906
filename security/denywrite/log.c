// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the log of refusals and changes, and the counters
 *
 * Every operation that the decision (decide.c) refuses in enforce mode, or
 * lets through in audit mode only, is counted and logged here.  The
 * records are limited per file and user: at most LOG_PER_FILE of them in a
 * minute, the first after a gap saying how many were left out
 * (suppressed=N); and at most LOG_BURST in any LOG_BURST_INTERVAL for all
 * files and users together, so that a user cycling through many files
 * cannot flood the log either.  Of those, the users of one bucket of a
 * table hashed by user may take LOG_USER_BURST, half: one user's flood
 * leaves the other users' records room.  Under auditd's "-f 2" a flood of records
 * could panic the machine; a few a minute per file and user cannot.  A
 * change of the mode or of the policy starts the limits afresh, for what
 * is refused then is news.  The counters count every operation.
 *
 * Records go through the audit subsystem (AUDIT_AVC, as other LSMs) when
 * the kernel has it, otherwise to a kernel log line.  Their first field,
 * lsm=denywrite, lets ausearch and aureport tell them from other LSMs'
 * records.
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
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/lsm_audit.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>

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

/* Refusal records of one file by one user: LOG_PER_FILE a LOG_INTERVAL. */
#define LOG_PER_FILE		5
#define LOG_INTERVAL		(60 * HZ)
/* Refusal records of all files and users: LOG_BURST a LOG_BURST_INTERVAL. */
#define LOG_BURST		100
#define LOG_BURST_INTERVAL	(10 * HZ)
/* The share of LOG_BURST of the users hashed to one bucket. */
#define LOG_USER_BURST		(LOG_BURST / 2)
#define LOG_USER_BITS		6
#define LOG_SLOTS_BITS		8

/*
 * The records of one file and user, in a table hashed by both.  A file is
 * its filesystem, inode number and generation: an inode's address, and on
 * most filesystems its number, come back for the next file made.
 */
struct log_slot {
	const struct super_block *sb;
	unsigned long ino;
	u32 generation;
	kuid_t uid;
	unsigned long start;
	unsigned int count;
	unsigned int suppressed;
};

static DEFINE_SPINLOCK(log_lock);
static struct log_slot log_slots[1 << LOG_SLOTS_BITS];
static unsigned long burst_start;
static unsigned int burst_count;
static unsigned int user_burst[1 << LOG_USER_BITS];

/*
 * May a record of a refusal of @inode to the current user go now?  If so,
 * *@suppressed is the number of its records left out before it.  A slot
 * another file or user took starts afresh: at worst a record too many.
 */
static bool log_allowed(const struct inode *inode, unsigned int *suppressed)
{
	kuid_t uid = current_uid();
	unsigned long key = (unsigned long)inode->i_sb ^ inode->i_ino ^
			    inode->i_generation ^ __kuid_val(uid);
	struct log_slot *slot = &log_slots[hash_long(key, LOG_SLOTS_BITS)];
	unsigned int *user = &user_burst[hash_32(__kuid_val(uid),
						 LOG_USER_BITS)];
	unsigned long now = jiffies;
	bool allowed;

	spin_lock(&log_lock);
	if (slot->sb != inode->i_sb || slot->ino != inode->i_ino ||
	    slot->generation != inode->i_generation ||
	    !uid_eq(slot->uid, uid)) {
		*slot = (struct log_slot){
			.sb = inode->i_sb, .ino = inode->i_ino,
			.generation = inode->i_generation, .uid = uid,
			.start = now,
		};
	}
	if (time_after_eq(now, slot->start + LOG_INTERVAL)) {
		slot->start = now;
		slot->count = 0;
	}
	if (time_after_eq(now, burst_start + LOG_BURST_INTERVAL)) {
		burst_start = now;
		burst_count = 0;
		memset(user_burst, 0, sizeof(user_burst));
	}
	allowed = slot->count < LOG_PER_FILE && burst_count < LOG_BURST &&
		  *user < LOG_USER_BURST;
	if (allowed) {
		*suppressed = slot->suppressed;
		slot->suppressed = 0;
		slot->count++;
		burst_count++;
		(*user)++;
	} else {
		slot->suppressed++;
	}
	spin_unlock(&log_lock);
	return allowed;
}

#ifdef CONFIG_AUDIT
struct denywrite_audit {
	struct common_audit_data ad;
	const struct denywrite_event *event;
	unsigned int suppressed;
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
	} else {
		audit_log_format(ab, " scope=%s%s rule=",
				 denywrite_scope_name(rule->scope),
				 rule->flags & DENYWRITE_RULE_IGNORE_WRITERS ?
					"," DENYWRITE_IGNORE_WRITERS : "");
		audit_log_untrustedstring(ab, rule->name);
	}
	if (a->suppressed)
		audit_log_format(ab, " suppressed=%u", a->suppressed);
}

static void log_event(const struct denywrite_event *ev, struct file *file,
		      struct dentry *dentry, unsigned int suppressed)
{
	struct denywrite_audit a = { .event = ev, .suppressed = suppressed };

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
		      struct dentry *dentry, unsigned int suppressed)
{
	pr_notice("lsm=" DENYWRITE_NAME
		  " op=%s mode=%s pid=%d comm=\"%s\" name=\"%pd\" rule=\"%s\" suppressed=%u\n",
		  denywrite_op_name(ev->op), denywrite_mode_name(ev->mode),
		  task_tgid_nr(current), current->comm,
		  file ? file->f_path.dentry : dentry,
		  ev->rule ? ev->rule->name : "-", suppressed);
}
#endif /* CONFIG_AUDIT */

/**
 * denywrite_log_reset - start the limits of the records afresh
 *
 * Called after a change of the mode or of the policy.
 */
void denywrite_log_reset(void)
{
	spin_lock(&log_lock);
	memset(log_slots, 0, sizeof(log_slots));
	memset(user_burst, 0, sizeof(user_burst));
	burst_count = 0;
	spin_unlock(&log_lock);
}

/**
 * denywrite_log_event - count and log an operation the policy refuses
 * @ev: the operation, and the mode it was decided in (audit or enforce)
 * @file: the file it is done through, or NULL
 * @dentry: the file, when there is no @file
 */
void denywrite_log_event(const struct denywrite_event *ev, struct file *file,
			 struct dentry *dentry)
{
	unsigned int suppressed;

	if (ev->mode == DENYWRITE_MODE_ENFORCE)
		atomic_long_inc(&denied[ev->op]);
	else
		atomic_long_inc(&audited);
	if (log_allowed(file ? file_inode(file) : d_backing_inode(dentry),
			&suppressed))
		log_event(ev, file, dentry, suppressed);
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
 * denywrite_audit_change - log a change of the policy
 * @op: "rules", "add" or "del": the file written; or "unmount"
 * @ch: what the change did
 * @err: 0, or why the policy did not change
 *
 * The record names the policy in force after the change by the SHA-256
 * digest of the rules file, as `sha256sum .../denywrite/rules` prints it.
 */
void denywrite_audit_change(const char *op,
			    const struct denywrite_policy_change *ch, int err)
{
	struct audit_buffer *ab;

	ab = audit_log_start(audit_context(), GFP_KERNEL, AUDIT_MAC_POLICY_LOAD);
	if (!ab)
		return;
	audit_log_format(ab, "lsm=" DENYWRITE_NAME " op=%s rules=%zu old_rules=%zu policy=%*phN",
			 op, ch->count, ch->old_count, SHA256_DIGEST_SIZE,
			 ch->sha256);
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

void denywrite_audit_change(const char *op,
			    const struct denywrite_policy_change *ch, int err)
{
	pr_notice("lsm=" DENYWRITE_NAME " op=%s rules=%zu old_rules=%zu pid=%d res=%d\n",
		  op, ch->count, ch->old_count, task_tgid_nr(current), !err);
}
#endif /* CONFIG_AUDIT */
