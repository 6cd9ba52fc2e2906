// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the securityfs interface, /sys/kernel/security/denywrite/
 */

#define pr_fmt(fmt) "denywrite: " fmt

#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mnt_idmapping.h>
#include <linux/namei.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "common.h"
#include "log.h"
#include "policy.h"
#include "protect.h"

/**
 * DOC: securityfs interface
 *
 * /sys/kernel/security/denywrite/ holds these files.  Writes to mode,
 * rules, add and del need CAP_MAC_ADMIN in the initial user namespace,
 * both of the writer and of the credentials that opened the file, checked
 * on every write (EPERM); everyone may read.  Each write must be one
 * write(2) at offset 0 (a second write on the same file is at a later
 * offset: EINVAL); one trailing newline is ignored, and a write of nothing
 * changes nothing.  Every change of the mode or the policy that passes
 * that check is audited, whether it succeeds or not; the paths of a change
 * are resolved before anything is locked, so a change of the mode never
 * waits for a path lookup.  Rules use the syntax "SCOPE[,ignore-writers]
 * PATH", SCOPE being exec, lib or all; the rule whose PATH is "/" covers
 * every file on the system.  A rule is named by the absolute path of its
 * object, whatever chroot its writer was in; in PATH, a backslash and
 * three octal digits stand for a byte, and the files print control
 * characters, backslashes and a trailing space that way.
 *
 * mode (0644)
 *	Reads "off", "audit" or "enforce".  Writing one of them switches
 *	the mode for the very next operation; anything else is EINVAL.
 *
 * For the other files, a write longer than the file takes is E2BIG: more
 * than 65536 bytes for rules, a rule line for add, an escaped path for
 * del, PATH_MAX for query.
 *
 * rules (0644)
 *	Reads the rule set, one rule per line; empty when there are no
 *	rules.  A write replaces the whole set atomically: readers see the
 *	old or the new set, never a mix, and a failed write changes nothing.
 *	Blank lines are skipped; a write of only a newline clears the set.
 *	EINVAL for a syntax error, or two rules for one object or of one
 *	name; ENOENT for a path that does not exist or that the root of no
 *	mount namespace reaches (an unlinked file, a detached mount); E2BIG
 *	for more than 65536 bytes or 1024 rules.  It also empties gone.
 *
 * add (0200)
 *	Adds one rule.  EEXIST if a rule names the same object or has the
 *	same name already.
 *
 * del (0200)
 *	Removes the rule on the object the written PATH resolves to, else
 *	the rule that rules prints with that PATH.  ENOENT if there is none.
 *
 * gone (0444)
 *	The rules removed because their filesystem was unmounted since the
 *	last write to rules, in the rules syntax, the oldest first; the
 *	newest 64 of them.
 *
 * stats (0444)
 *	"key value" lines: rules (number of rules), protected (inodes
 *	protected now), denied_write, denied_truncate, denied_exec,
 *	denied_mmap (operations refused in enforce mode, by kind), audited
 *	(operations allowed only because of audit mode) and gone (rules
 *	removed by unmounts since the last write to rules).
 *
 * query (0666)
 *	Answers "why is this file busy?".  Open it read-write, write a path
 *	(resolved with the writer's credentials; the empty path is ENOENT,
 *	as for open(2)), then read "key value"
 *	lines: protected (1 if writes are refused now), holders (open files
 *	holding the protection), writers (files open for writing), exec-rule
 *	and lib-rule (the rule that covers the file if executed, or if
 *	mapped executable, or "-").  Who runs, maps or writes a file is not
 *	everyone's business: a caller who neither owns the file nor may
 *	write it, and has no CAP_SYS_PTRACE, reads "-" for protected,
 *	holders and writers.
 */

/*
 * Copy one write from userspace, NUL-terminated, without NULs inside and
 * without its trailing newline.
 */
static char *copy_write(const char __user *buf, size_t count, loff_t *ppos,
			size_t max)
{
	char *text;

	if (*ppos != 0)
		return ERR_PTR(-EINVAL);
	if (count > max)
		return ERR_PTR(-E2BIG);
	text = memdup_user_nul(buf, count);
	if (IS_ERR(text))
		return text;
	if (strlen(text) != count) {
		kfree(text);
		return ERR_PTR(-EINVAL);
	}
	if (count && text[count - 1] == '\n')
		text[count - 1] = '\0';
	return text;
}

/*
 * A write that changes the mode or the policy: the writer and the opener
 * of the file must both have CAP_MAC_ADMIN, so that a privileged program
 * cannot be made to write through a file an unprivileged one opened.
 */
static char *copy_policy_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos, size_t max)
{
	if (!capable(CAP_MAC_ADMIN) ||
	    !file_ns_capable(file, &init_user_ns, CAP_MAC_ADMIN))
		return ERR_PTR(-EPERM);
	return copy_write(buf, count, ppos, max);
}

/* Serialises changes of the mode with their audit records. */
static DEFINE_MUTEX(mode_change_lock);

static ssize_t mode_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	char text[16];
	int len;

	len = scnprintf(text, sizeof(text), "%s\n",
			denywrite_mode_name(denywrite_get_mode()));
	return simple_read_from_buffer(buf, count, ppos, text, len);
}

static ssize_t mode_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	enum denywrite_mode old, mode;
	char *text;
	int err;

	if (!count)
		return 0;
	text = copy_policy_write(file, buf, count, ppos, 16);
	if (text == ERR_PTR(-E2BIG))
		return -EINVAL;	/* no mode is that long */
	if (IS_ERR(text))
		return PTR_ERR(text);
	mutex_lock(&mode_change_lock);
	old = denywrite_get_mode();
	err = denywrite_mode_parse(text, &mode);
	if (err)
		mode = old;
	denywrite_set_mode(mode);
	denywrite_audit_mode(old, mode, err);
	if (!err)
		denywrite_log_reset();
	mutex_unlock(&mode_change_lock);
	kfree(text);
	if (err)
		return err;
	*ppos = count;
	return count;
}

static const struct file_operations mode_fops = {
	.read = mode_read,
	.write = mode_write,
	.llseek = generic_file_llseek,
};

static int rules_show(struct seq_file *m, void *v)
{
	const struct denywrite_policy *policy;
	char *line;
	size_t i;
	int idx;

	line = kmalloc(DENYWRITE_RULE_LINE_MAX, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	idx = srcu_read_lock(&denywrite_policy_srcu);
	policy = denywrite_policy_current();
	for (i = 0; policy && i < policy->count; i++) {
		denywrite_rule_format(&policy->rules[i], line,
				      DENYWRITE_RULE_LINE_MAX);
		seq_puts(m, line);
	}
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	kfree(line);
	return 0;
}

static int rules_open(struct inode *inode, struct file *file)
{
	return single_open(file, rules_show, NULL);
}

/* The number of rules in force now. */
static size_t rule_count(void)
{
	const struct denywrite_policy *policy;
	size_t count;
	int idx;

	idx = srcu_read_lock(&denywrite_policy_srcu);
	policy = denywrite_policy_current();
	count = policy ? policy->count : 0;
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return count;
}

/*
 * A write that makes one change to the published policy, and its record,
 * which says what the change did (see denywrite_policy_change).
 */
static ssize_t change_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos, size_t max,
			    const char *op,
			    int (*change)(char *, struct denywrite_policy_change *))
{
	struct denywrite_policy_change ch;
	char *text;
	int err;

	if (!count)
		return 0;
	text = copy_policy_write(file, buf, count, ppos, max);
	if (IS_ERR(text))
		return PTR_ERR(text);
	err = change(text, &ch);
	denywrite_audit_change(op, &ch, err);
	if (!err)
		denywrite_log_reset();
	kfree(text);
	if (err)
		return err;
	*ppos = count;
	return count;
}

static ssize_t rules_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	return change_write(file, buf, count, ppos, DENYWRITE_POLICY_MAX,
			    "rules", denywrite_policy_load);
}

static const struct file_operations rules_fops = {
	.open = rules_open,
	.read = seq_read,
	.write = rules_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static ssize_t add_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	return change_write(file, buf, count, ppos, DENYWRITE_RULE_LINE_MAX,
			    "add", denywrite_policy_add);
}

static const struct file_operations add_fops = {
	.write = add_write,
	.llseek = generic_file_llseek,
};

static ssize_t del_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	return change_write(file, buf, count, ppos, 4 * PATH_MAX, "del",
			    denywrite_policy_del);
}

static const struct file_operations del_fops = {
	.write = del_write,
	.llseek = generic_file_llseek,
};

static int gone_show(struct seq_file *m, void *v)
{
	denywrite_policy_gone_show(m);
	return 0;
}

static int gone_open(struct inode *inode, struct file *file)
{
	return single_open(file, gone_show, NULL);
}

static const struct file_operations gone_fops = {
	.open = gone_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int stats_show(struct seq_file *m, void *v)
{
	enum denywrite_op op;

	seq_printf(m, "rules %zu\n", rule_count());
	seq_printf(m, "protected %ld\n", denywrite_protected_inodes());
	for (op = 0; op < DENYWRITE_OP_COUNT; op++)
		seq_printf(m, "denied_%s %ld\n", denywrite_op_name(op),
			   denywrite_denied(op));
	seq_printf(m, "audited %ld\n", denywrite_audited());
	seq_printf(m, "gone %zu\n", denywrite_policy_gone_count());
	return 0;
}

static int stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, stats_show, NULL);
}

static const struct file_operations stats_fops = {
	.open = stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/* The answer of the last query written on an open query file. */
struct query_answer {
	struct mutex lock;	/* serialises writes and reads on one file */
	char *text;
	size_t len;
};

static int query_open(struct inode *inode, struct file *file)
{
	struct query_answer *answer;

	answer = kzalloc(sizeof(*answer), GFP_KERNEL);
	if (!answer)
		return -ENOMEM;
	mutex_init(&answer->lock);
	file->private_data = answer;
	return 0;
}

static int query_release(struct inode *inode, struct file *file)
{
	struct query_answer *answer = file->private_data;

	kfree(answer->text);
	kfree(answer);
	return 0;
}

#define QUERY_ANSWER_MAX	(2 * DENYWRITE_RULE_LINE_MAX + 128)

/*
 * May the caller learn who runs, maps or writes the file at @path?  Yes
 * for a file it owns, or may write by its mode (it could try to open it
 * for writing), and with CAP_SYS_PTRACE, with which /proc tells it about
 * every process.
 */
static bool may_inspect(const struct path *path)
{
	struct mnt_idmap *idmap = mnt_idmap(path->mnt);
	const struct inode *inode = d_backing_inode(path->dentry);
	umode_t mode = inode->i_mode;

	/* Its owner, anyone if others may write it, its group if it may. */
	if (vfsuid_eq_kuid(i_uid_into_vfsuid(idmap, inode), current_fsuid()) ||
	    (mode & 0002) ||
	    ((mode & 0020) &&
	     vfsgid_in_group_p(i_gid_into_vfsgid(idmap, inode))))
		return true;
	return ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE);
}

static int query_answer(const struct path *path, char *buf, size_t size)
{
	const struct denywrite_policy *policy;
	struct inode *inode = d_backing_inode(path->dentry);
	const struct denywrite_inode *blob = denywrite_inode(inode);
	int holders = atomic_read(&blob->holders) + atomic_read(&blob->denials);
	const struct denywrite_rule *rule;
	int len, idx;
	size_t i;

	if (may_inspect(path))
		len = scnprintf(buf, size,
				"protected %d\nholders %d\nwriters %d\n",
				holders > 0, holders,
				max(atomic_read(&inode->i_writecount), 0));
	else
		len = scnprintf(buf, size, "protected -\nholders -\nwriters -\n");
	idx = srcu_read_lock(&denywrite_policy_srcu);
	policy = denywrite_policy_current();
	for (i = 0; i < 2; i++) {
		u8 scope = i ? DENYWRITE_SCOPE_LIB : DENYWRITE_SCOPE_EXEC;

		rule = denywrite_policy_match(policy, path, scope);
		len += scnprintf(buf + len, size - len, "%s-rule ",
				 i ? "lib" : "exec");
		if (rule)
			len += denywrite_rule_format(rule, buf + len,
						     size - len);
		else
			len += scnprintf(buf + len, size - len, "-\n");
	}
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return min_t(size_t, len, size - 1);
}

static ssize_t query_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	struct query_answer *answer = file->private_data;
	struct path path;
	char *name, *text;
	int err;

	name = copy_write(buf, count, ppos, PATH_MAX);
	if (IS_ERR(name))
		return PTR_ERR(name);
	/* As open(""): kern_path() would take "" for the working directory. */
	err = *name ? kern_path(name, LOOKUP_FOLLOW, &path) : -ENOENT;
	kfree(name);
	if (err)
		return err;
	text = kmalloc(QUERY_ANSWER_MAX, GFP_KERNEL);
	if (!text) {
		path_put(&path);
		return -ENOMEM;
	}
	mutex_lock(&answer->lock);
	kfree(answer->text);
	answer->text = text;
	answer->len = query_answer(&path, text, QUERY_ANSWER_MAX);
	mutex_unlock(&answer->lock);
	path_put(&path);
	return count;
}

static ssize_t query_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct query_answer *answer = file->private_data;
	ssize_t ret;

	mutex_lock(&answer->lock);
	ret = answer->text ? simple_read_from_buffer(buf, count, ppos,
						     answer->text,
						     answer->len) : -EINVAL;
	mutex_unlock(&answer->lock);
	return ret;
}

static const struct file_operations query_fops = {
	.open = query_open,
	.read = query_read,
	.write = query_write,
	.release = query_release,
	.llseek = generic_file_llseek,
};

static const struct {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
} denywrite_files[] = {
	{ "mode", 0644, &mode_fops },
	{ "rules", 0644, &rules_fops },
	{ "add", 0200, &add_fops },
	{ "del", 0200, &del_fops },
	{ "gone", 0444, &gone_fops },
	{ "stats", 0444, &stats_fops },
	{ "query", 0666, &query_fops },
};

static int __init denywrite_fs_init(void)
{
	struct dentry *dir, *file;
	size_t i;

	if (!denywrite_enabled)
		return 0;
	dir = securityfs_create_dir(DENYWRITE_NAME, NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	for (i = 0; i < ARRAY_SIZE(denywrite_files); i++) {
		file = securityfs_create_file(denywrite_files[i].name,
					      denywrite_files[i].mode, dir,
					      NULL, denywrite_files[i].fops);
		if (IS_ERR(file)) {
			securityfs_recursive_remove(dir);
			pr_err("cannot create securityfs files: %ld\n",
			       PTR_ERR(file));
			return PTR_ERR(file);
		}
	}
	return 0;
}
fs_initcall(denywrite_fs_init);
