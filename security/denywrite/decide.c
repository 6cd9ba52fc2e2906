// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the decision
 *
 * Every operation denywrite may refuse is decided here, in one step.  A
 * hook says what happens: a file is executed or mapped executable (under
 * which rule, if the hook knows it), or a protected file gets a writer.
 * The decision reads the mode once, protects the file or looks up the rule
 * that covers the written file, and applies the mode: off allows
 * everything, audit counts and logs what enforce would refuse and allows
 * it, enforce counts, logs and refuses it with ETXTBSY.
 *
 * A file being executed or mapped is protected in one call whatever the
 * mode: in audit mode the hold is taken even when writers are found, which
 * are then logged once; in enforce mode it is not taken then.  In audit
 * mode the writes through one file (its open for writing, then each write
 * through it) are one event, counted and logged once, so that a writer
 * cannot flood the log.
 */

#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/rcupdate.h>
#include <linux/srcu.h>

#include "common.h"
#include "decide.h"
#include "log.h"
#include "policy.h"
#include "protect.h"

/* The mode's verdict on @ev, an operation the policy refuses. */
static int verdict(const struct denywrite_event *ev, struct file *file,
		   struct dentry *dentry)
{
	if (ev->mode == DENYWRITE_MODE_OFF)
		return 0;
	if (ev->mode == DENYWRITE_MODE_AUDIT && file &&
	    ev->op == DENYWRITE_OP_WRITE && !denywrite_file_mark_audited(file))
		return 0;
	denywrite_log_event(ev, file, dentry);
	return ev->mode == DENYWRITE_MODE_ENFORCE ? -ETXTBSY : 0;
}

/*
 * The mode's verdict on @op under @rule, which found writers of @file.
 * Cold and out of line: the event it logs lives on its own stack, not on
 * the stack of every executable mapping (and its stack protector check).
 */
static noinline __cold int busy(enum denywrite_op op,
				enum denywrite_mode mode,
				const struct denywrite_rule *rule,
				struct file *file)
{
	struct denywrite_event ev = { .op = op, .mode = mode, .rule = rule };

	return verdict(&ev, file, NULL);
}

/*
 * Protect @file, covered by @rule, for @op: 0, -ETXTBSY if the mode
 * refuses it (writers were found), or another error of
 * denywrite_file_protect().  Inline: every executable mapping under a
 * rule comes here.  In the policy's SRCU section, where the mode is read:
 * the mode switches wait for it.
 */
static __always_inline int use(struct file *file,
			       const struct denywrite_rule *rule,
			       enum denywrite_op op, unsigned int hold)
{
	enum denywrite_mode mode = denywrite_get_mode();
	int err = denywrite_protect(file, rule->flags, mode, hold);

	return err == -ETXTBSY ? busy(op, mode, rule, file) : err;
}

/**
 * denywrite_use_covered - protect @file for @op, if a rule covers it
 * @file: a file being executed or mapped executable
 * @path: the path to match rules against
 * @scope: DENYWRITE_SCOPE_EXEC or DENYWRITE_SCOPE_LIB
 * @op: DENYWRITE_OP_EXEC or DENYWRITE_OP_MMAP
 * @hold: DENYWRITE_HOLD_TRANSIENT or 0
 *
 * The rule is looked up, and the hold taken, in an RCU read-side section,
 * which costs less than the policy's SRCU section: the walk on the file's
 * own filesystem, where most walks end, never sleeps, nor does the hold.
 * What may sleep (the walk across mounts, the log of a refusal) goes on
 * in the SRCU section, taken before the RCU one is left so that the
 * policy stays (see wait_for_readers() in policy.c); the mode is read
 * again there, in the section the hold is taken in.
 *
 * Files opened while a fanotify pre-content (HSM) group watches their
 * filesystem are never protected: see hooks.h.
 *
 * Return: 0, -ETXTBSY if the mode refuses it (writers were found), or
 * another error of denywrite_file_protect(); 0 if no rule covers @file.
 */
int denywrite_use_covered(struct file *file, const struct path *path,
			  u8 scope, enum denywrite_op op, unsigned int hold)
{
	const struct denywrite_policy *policy;
	const struct denywrite_rule *rule;
	enum denywrite_mode mode;
	int idx, err = 0;

	if (FMODE_FSNOTIFY_HSM(file->f_mode))
		return 0;
	rcu_read_lock();
	policy = denywrite_policy_current();
	rule = denywrite_policy_match_rcu(policy, path, scope);
	if (!IS_ERR(rule)) {
		mode = denywrite_get_mode();
		if (rule)
			err = denywrite_protect(file, rule->flags, mode, hold);
		if (likely(err != -ETXTBSY)) {
			rcu_read_unlock();
			return err;
		}
	}
	idx = srcu_read_lock(&denywrite_policy_srcu);
	rcu_read_unlock();
	if (IS_ERR(rule)) {
		rule = denywrite_policy_walk_mounts(policy, path, scope);
		if (rule)
			err = use(file, rule, op, hold);
	} else {
		err = busy(op, mode, rule, file);
	}
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return err;
}

/**
 * denywrite_busy_root - the verdict on a mapping that found writers
 * @file: the file mapped under the root rule alone
 * @mode: the mode the protection read
 *
 * The rule is looked up for the log: the root rule, unless another rule
 * came with a concurrent change of the policy.  Cold and out of line, for
 * denywrite_use_root().
 *
 * Return: -ETXTBSY if @mode refuses the mapping, else 0.
 */
int denywrite_busy_root(struct file *file, enum denywrite_mode mode)
{
	int idx, err;

	idx = srcu_read_lock(&denywrite_policy_srcu);
	err = busy(DENYWRITE_OP_MMAP, mode,
		   denywrite_policy_match(denywrite_policy_current(),
					  file_user_path(file),
					  DENYWRITE_SCOPE_LIB),
		   file);
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return err;
}

/**
 * denywrite_use_exec_open - protect a file the kernel opened to execute it
 * @file: the program, a #! or binfmt_misc interpreter, or the ELF
 *        interpreter
 *
 * Under a "lib" rule the hold stays for as long as the file is open (it is
 * mapped after exec's point of no return, where a refusal would kill the
 * process); under an "exec" rule only, it is transient until
 * bprm_check_security confirms that the file is the program or a #!
 * interpreter (see hook_exec.c).  The writers check is the exec rule's, if
 * there is one.
 *
 * Return: as denywrite_use().
 */
int denywrite_use_exec_open(struct file *file)
{
	const struct denywrite_policy *policy;
	const struct denywrite_rule *exec, *lib;
	int idx, err = 0;

	if (FMODE_FSNOTIFY_HSM(file->f_mode))
		return 0;
	idx = srcu_read_lock(&denywrite_policy_srcu);
	policy = denywrite_policy_current();
	exec = denywrite_policy_match(policy, &file->f_path,
				      DENYWRITE_SCOPE_EXEC);
	lib = denywrite_policy_match(policy, &file->f_path,
				     DENYWRITE_SCOPE_LIB);
	if (exec || lib)
		err = use(file, exec ?: lib, DENYWRITE_OP_EXEC,
			  lib ? 0 : DENYWRITE_HOLD_TRANSIENT);
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return err;
}

/*
 * Hold @file, if a rule covers @path for @scope, without a check of its
 * writers: a file open for writing gets a counted hold then.
 */
static void use_unchecked(struct file *file, const struct path *path,
			  u8 scope)
{
	const struct denywrite_rule *rule;
	enum denywrite_mode mode;
	int idx;

	if (FMODE_FSNOTIFY_HSM(file->f_mode))
		return;
	idx = srcu_read_lock(&denywrite_policy_srcu);
	/* In the section that the mode switches wait for. */
	mode = denywrite_get_mode();
	rule = mode == DENYWRITE_MODE_OFF ? NULL :
		denywrite_policy_match(denywrite_policy_current(), path, scope);
	if (rule)
		denywrite_file_protect(file, DENYWRITE_WRITERS_NONE,
				       denywrite_hold_kind(rule->flags, mode) &
				       DENYWRITE_HOLD_DENY);
	srcu_read_unlock(&denywrite_policy_srcu, idx);
}

/**
 * denywrite_use_late - protect @file without a decision
 * @file: a file that exec maps past its point of no return
 * @scope: DENYWRITE_SCOPE_EXEC or DENYWRITE_SCOPE_LIB
 *
 * Exec can no longer fail, so nothing is refused and the writers are not
 * checked: the hold only refuses the writes that come after it.
 */
void denywrite_use_late(struct file *file, u8 scope)
{
	use_unchecked(file, &file->f_path, scope);
}

/**
 * denywrite_use_backing - protect the backing file of a mapping
 * @file: the backing file that overlayfs or FUSE passthrough maps in
 *        place of a protected file
 *
 * Under a "lib" rule that covers the file the process mapped, the real
 * file is held as long as the mapping is there, whatever the opened file
 * does; exec's denial ("exec" rules) holds the opened file only, as
 * exec's own does.  The mapping is under way: nothing is refused, and the
 * writers are not checked.
 */
void denywrite_use_backing(struct file *file)
{
	use_unchecked(file, file_user_path(file), DENYWRITE_SCOPE_LIB);
}

/* The verdict on a writer of a protected file, with its rule for the log. */
static int refuse(enum denywrite_op op, struct file *file,
		  struct dentry *dentry, const struct path *path)
{
	struct denywrite_event ev = { .op = op, .mode = denywrite_get_mode() };
	int idx, err;

	if (ev.mode == DENYWRITE_MODE_OFF)
		return 0;
	idx = srcu_read_lock(&denywrite_policy_srcu);
	ev.rule = denywrite_policy_match(denywrite_policy_current(), path,
					 DENYWRITE_SCOPE_ALL);
	err = verdict(&ev, file, dentry);
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return err;
}

/**
 * denywrite_refuse_writer - @file writes a protected file
 * @file: the file, opened for writing or written through, or mapped shared
 *        writable
 *
 * Return: -ETXTBSY in enforce mode, else 0.
 */
int denywrite_refuse_writer(struct file *file)
{
	return refuse(DENYWRITE_OP_WRITE, file, NULL, file_user_path(file));
}

/**
 * denywrite_record_denied - the VFS refused a writer of a file we deny
 * @path: the file opened for writing or truncated
 * @truncate: a truncation (truncate(2), O_TRUNC of a file opened
 *            read-only), not an open for writing
 *
 * get_write_access() refused @path's inode, whose writes a denying hold
 * denies (among others, maybe: exec's, kernel_read_file()'s), before any
 * hook that decides: the refusal is counted and logged here.  The record
 * names the path of the file that holds the inode (the running program,
 * the mapped library) if its inode names one, else @path.  A denying hold
 * exists in enforce mode only, and a moment after the switch to audit:
 * nothing is recorded then.
 */
void denywrite_record_denied(const struct path *path, bool truncate)
{
	enum denywrite_op op = truncate ? DENYWRITE_OP_TRUNCATE :
					  DENYWRITE_OP_WRITE;
	struct file *file;

	if (denywrite_get_mode() != DENYWRITE_MODE_ENFORCE)
		return;
	file = denywrite_inode_get_holder(d_inode(path->dentry));
	if (file) {
		refuse(op, file, NULL, file_user_path(file));
		fput(file);
		return;
	}
	refuse(op, NULL, path->dentry, path);
}

/**
 * denywrite_refuse_truncate - @dentry, a protected file, is truncated
 * @dentry: the file
 *
 * The rule for the log is looked up within @dentry's filesystem only (and
 * the root rule): the hook has no path.
 *
 * Return: -ETXTBSY in enforce mode, else 0.
 */
int denywrite_refuse_truncate(struct dentry *dentry)
{
	struct path path = { .dentry = dentry };

	return refuse(DENYWRITE_OP_TRUNCATE, NULL, dentry, &path);
}
