// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: KUnit tests of holds and of mode off's end of them
 *
 * Run at boot, before the first exec: no file holds its inode yet, so the
 * protected count is the tests' own.  Each test may take holds whatever
 * the mode given at boot, and leaves holds allowed or not as the mode
 * wants, also when it fails.
 */

#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>
#include <linux/srcu.h>

#include "policy.h"
#include "protect.h"

static void restore_tracking(void *unused)
{
	if (denywrite_get_mode() == DENYWRITE_MODE_OFF)
		denywrite_protect_stop();
	else
		denywrite_protect_start();
}

static int protect_test_init(struct kunit *test)
{
	if (!denywrite_enabled)
		kunit_skip(test, "denywrite is not in lsm=");
	denywrite_protect_start();
	return kunit_add_action_or_reset(test, restore_tracking, NULL);
}

static void fput_action(void *file)
{
	fput(file);
}

/* A file on an internal tmpfs, put when the test ends. */
static struct file *new_file(struct kunit *test)
{
	struct file *file = shmem_file_setup("denywrite-test", PAGE_SIZE, 0);

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fput_action, file), 0);
	return file;
}

/* Another open file of @file's inode, put when the test ends. */
static struct file *reopen(struct kunit *test, struct file *file)
{
	struct file *other = dentry_open(&file->f_path, O_RDONLY, current_cred());

	KUNIT_ASSERT_FALSE(test, IS_ERR(other));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fput_action, other), 0);
	return other;
}

/* denywrite_file_protect() in the policy's SRCU section, as the hooks call it. */
static int protect_as(struct file *file, enum denywrite_writers writers,
		      unsigned int hold)
{
	int idx = srcu_read_lock(&denywrite_policy_srcu);
	int err = denywrite_file_protect(file, writers, hold);

	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return err;
}

static int protect(struct file *file)
{
	return protect_as(file, DENYWRITE_WRITERS_NONE, 0);
}

/*
 * Two files of one inode hold it each, in their own blobs; released in
 * turn, each drops its own.  The inode names a file that holds it until
 * that file's hold goes.
 */
static void holds_of_two_files_of_one_inode(struct kunit *test)
{
	struct file *a = new_file(test), *b = reopen(test, a);
	long before = denywrite_protected_inodes();

	KUNIT_EXPECT_EQ(test, protect(a), 0);
	KUNIT_EXPECT_EQ(test, protect(b), 0);
	KUNIT_EXPECT_EQ(test, protect(b), 0);
	KUNIT_EXPECT_TRUE(test, denywrite_file_is_protected(a));
	KUNIT_EXPECT_TRUE(test, denywrite_file_is_protected(b));
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&denywrite_inode(file_inode(a))->holders), 2);
	KUNIT_EXPECT_PTR_EQ(test, denywrite_inode(file_inode(a))->namer, b);
	denywrite_file_drop(b);
	KUNIT_EXPECT_FALSE(test, denywrite_file_is_protected(b));
	KUNIT_EXPECT_TRUE(test, denywrite_file_is_protected(a));
	KUNIT_EXPECT_NULL(test, denywrite_inode(file_inode(a))->namer);
	denywrite_file_drop(a);
	KUNIT_EXPECT_FALSE(test, denywrite_inode_protected(file_inode(b)));
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);
	/* A second release, as fput() makes after the test's: nothing. */
	denywrite_file_drop(a);
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);
}

/*
 * Mode off drops the holds in slots and table, and no hold is taken until
 * holds are allowed again.
 */
static void stop_drops_holds_and_takes_none(struct kunit *test)
{
	struct file *a = new_file(test), *b = reopen(test, a);
	long before = denywrite_protected_inodes();

	KUNIT_ASSERT_EQ(test, protect(a), 0);
	KUNIT_ASSERT_EQ(test, protect(b), 0);
	denywrite_protect_stop();
	KUNIT_EXPECT_FALSE(test, denywrite_inode_protected(file_inode(a)));
	KUNIT_EXPECT_FALSE(test, denywrite_file_is_protected(a));
	KUNIT_EXPECT_FALSE(test, denywrite_file_is_protected(b));
	KUNIT_EXPECT_NULL(test, denywrite_inode(file_inode(a))->namer);
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);

	/* A protector that passed its hook's mode test before the switch. */
	KUNIT_EXPECT_EQ(test, protect(a), 0);
	KUNIT_EXPECT_FALSE(test, denywrite_inode_protected(file_inode(a)));
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);

	/* Their releases find nothing to drop. */
	denywrite_file_drop(a);
	denywrite_file_drop(b);
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);

	denywrite_protect_start();
	KUNIT_EXPECT_EQ(test, protect(a), 0);
	KUNIT_EXPECT_TRUE(test, denywrite_file_is_protected(a));
	denywrite_file_drop(a);
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);
}

/*
 * Mode off drops audit marks, and no mark is taken until marks are allowed
 * again.
 */
static void stop_drops_marks_and_takes_none(struct kunit *test)
{
	struct file *a = new_file(test);

	KUNIT_EXPECT_TRUE(test, denywrite_file_mark_audited(a));
	KUNIT_EXPECT_FALSE(test, denywrite_file_mark_audited(a));
	denywrite_protect_stop();

	/* A writer audited while the mode goes off is logged, not marked. */
	KUNIT_EXPECT_TRUE(test, denywrite_file_mark_audited(a));
	KUNIT_EXPECT_TRUE(test, denywrite_file_mark_audited(a));

	/* Audit mode again: logged once more, then marked. */
	denywrite_protect_start();
	KUNIT_EXPECT_TRUE(test, denywrite_file_mark_audited(a));
	KUNIT_EXPECT_FALSE(test, denywrite_file_mark_audited(a));
}

struct cpu_protector {
	struct file *file;
	int err;
	struct completion done;
};

static int protect_on_cpu(void *arg)
{
	struct cpu_protector *p = arg;

	p->err = protect(p->file);
	complete(&p->done);
	return 0;
}

/*
 * Holds taken on every CPU, each going on its CPU's list of held files:
 * mode off finds and drops them all.
 */
static void stop_drops_holds_of_every_cpu(struct kunit *test)
{
	long before = denywrite_protected_inodes();
	struct cpu_protector *p;
	struct task_struct *task;
	int cpu, n = 0;

	p = kunit_kcalloc(test, nr_cpu_ids, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for_each_online_cpu(cpu) {
		p[cpu].file = new_file(test);
		init_completion(&p[cpu].done);
		task = kthread_create_on_cpu(protect_on_cpu, &p[cpu], cpu,
					     "denywrite-test/%u");
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		wake_up_process(task);
		wait_for_completion(&p[cpu].done);
		KUNIT_EXPECT_EQ(test, p[cpu].err, 0);
		KUNIT_EXPECT_EQ(test, denywrite_file(p[cpu].file)->cpu, cpu);
		n++;
	}
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before + n);
	denywrite_protect_stop();
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_FALSE(test, denywrite_file_is_protected(p[cpu].file));
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);
}

static int stop_in_thread(void *done)
{
	denywrite_protect_stop();
	complete(done);
	return 0;
}

/*
 * Mode off takes no filesystem's lock: a switch made while an unmount
 * holds a superblock's s_umount (a hung one: an unreachable NFS server)
 * drops the holds at once.
 */
static void stop_waits_for_no_superblock(struct kunit *test)
{
	struct file *a = new_file(test);
	struct super_block *sb = file_inode(a)->i_sb;
	DECLARE_COMPLETION_ONSTACK(done);
	struct task_struct *task;
	unsigned long left;

	KUNIT_ASSERT_EQ(test, protect(a), 0);
	down_write(&sb->s_umount);
	task = kthread_run(stop_in_thread, &done, "denywrite-stop");
	if (IS_ERR(task)) {
		up_write(&sb->s_umount);
		KUNIT_FAIL(test, "cannot start a thread: %ld", PTR_ERR(task));
		return;
	}
	left = wait_for_completion_timeout(&done, 5 * HZ);
	up_write(&sb->s_umount);
	if (!left)
		wait_for_completion(&done);
	KUNIT_EXPECT_NE_MSG(test, left, 0UL,
			    "mode off waited for a superblock's s_umount");
	KUNIT_EXPECT_FALSE(test, denywrite_file_is_protected(a));
}

/*
 * A truncating open (O_TRUNC, also with O_RDONLY) raised i_writecount just
 * before the check, as a new writer does: refused while a protector checks
 * the writers (a claim), not only once the file is held.  ftruncate()
 * through a file opened before is refused only by a hold.
 */
static void truncating_open_refused_while_protector_checks(struct kunit *test)
{
	const unsigned int open_trunc = ATTR_SIZE | ATTR_FILE | ATTR_OPEN;
	const unsigned int ftruncate = ATTR_SIZE | ATTR_FILE;
	struct file *a = new_file(test);
	struct inode *inode = file_inode(a);
	struct denywrite_inode *blob = denywrite_inode(inode);

	KUNIT_EXPECT_FALSE(test, denywrite_inode_truncate_denied(inode,
								 open_trunc));
	atomic_inc(&blob->claims);
	KUNIT_EXPECT_TRUE(test, denywrite_inode_truncate_denied(inode,
								open_trunc));
	KUNIT_EXPECT_TRUE(test, denywrite_inode_truncate_denied(inode,
								ATTR_SIZE));
	KUNIT_EXPECT_FALSE(test, denywrite_inode_truncate_denied(inode,
								 ftruncate));
	atomic_dec(&blob->claims);
	KUNIT_ASSERT_EQ(test, protect(a), 0);
	KUNIT_EXPECT_TRUE(test, denywrite_inode_truncate_denied(inode,
								ftruncate));
	denywrite_file_drop(a);
}

/* A count that would wrap refuses the hold and stays as it is. */
static void full_holders_count_refuses_hold(struct kunit *test)
{
	struct file *a = new_file(test);
	struct denywrite_inode *blob = denywrite_inode(file_inode(a));
	long before = denywrite_protected_inodes();

	atomic_set(&blob->holders, INT_MAX);
	KUNIT_EXPECT_EQ(test, protect(a), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), INT_MAX);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->claims), 0);
	KUNIT_EXPECT_FALSE(test, denywrite_file_is_protected(a));
	atomic_set(&blob->holders, 0);
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);
}

static void restore_mode(void *mode)
{
	WRITE_ONCE(denywrite_mode, (enum denywrite_mode)(uintptr_t)mode);
}

/* Enforce mode for the test, whatever the boot gave: denying holds. */
static void enforce_for_test(struct kunit *test)
{
	uintptr_t mode = denywrite_get_mode();

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_mode,
							(void *)mode), 0);
	WRITE_ONCE(denywrite_mode, DENYWRITE_MODE_ENFORCE);
}

static int protect_deny(struct file *file)
{
	return protect_as(file, DENYWRITE_WRITERS_CHECK, DENYWRITE_HOLD_DENY);
}

/*
 * A denying hold is exec's denial: i_writecount goes negative, so that
 * get_write_access() refuses new writers, and back when the file goes.
 * It counts in denials, never in holders (the hooks refuse nothing).
 */
static void denying_hold_denies_write_access(struct kunit *test)
{
	struct file *a = new_file(test), *b = reopen(test, a);
	struct inode *inode = file_inode(a);
	const struct denywrite_inode *blob = denywrite_inode(inode);
	long before = denywrite_protected_inodes();

	enforce_for_test(test);
	KUNIT_ASSERT_EQ(test, protect_deny(a), 0);
	KUNIT_EXPECT_EQ(test, protect_deny(a), 0);
	KUNIT_ASSERT_EQ(test, protect_deny(b), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&inode->i_writecount), -2);
	KUNIT_EXPECT_EQ(test, get_write_access(inode), -ETXTBSY);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->denials), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), 0);
	KUNIT_EXPECT_FALSE(test, denywrite_inode_protected(inode));
	KUNIT_EXPECT_TRUE(test, denywrite_file_is_protected(b));
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before + 1);
	denywrite_file_drop(a);
	denywrite_file_drop(b);
	KUNIT_EXPECT_EQ(test, atomic_read(&inode->i_writecount), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->denials), 0);
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);
}

/*
 * A file open for writing refuses a denying hold, and the refusal leaves
 * nothing: not on i_writecount (the writer's count is as it was), not in
 * the blob.  A protection that cannot fail holds it with a counted hold.
 */
static void refused_denying_hold_leaves_no_trace(struct kunit *test)
{
	struct file *a = new_file(test);
	struct inode *inode = file_inode(a);
	const struct denywrite_inode *blob = denywrite_inode(inode);

	enforce_for_test(test);
	KUNIT_ASSERT_EQ(test, get_write_access(inode), 0);
	KUNIT_EXPECT_EQ(test, protect_deny(a), -ETXTBSY);
	KUNIT_EXPECT_EQ(test, atomic_read(&inode->i_writecount), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->denials), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->claims), 0);
	KUNIT_EXPECT_FALSE(test, denywrite_file_is_protected(a));
	KUNIT_EXPECT_EQ(test, protect_as(a, DENYWRITE_WRITERS_NONE,
					 DENYWRITE_HOLD_DENY), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), 1);
	KUNIT_EXPECT_TRUE(test, denywrite_inode_protected(inode));
	denywrite_file_drop(a);
	put_write_access(inode);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), 0);
}

/*
 * The switch to audit mode makes denying holds counted ones: write access
 * comes back, the hooks count them.
 */
static void relax_makes_denying_holds_counted(struct kunit *test)
{
	struct file *a = new_file(test), *b = reopen(test, a);
	struct inode *inode = file_inode(a);
	const struct denywrite_inode *blob = denywrite_inode(inode);

	enforce_for_test(test);
	KUNIT_ASSERT_EQ(test, protect_deny(a), 0);
	KUNIT_ASSERT_EQ(test, protect_deny(b), 0);
	WRITE_ONCE(denywrite_mode, DENYWRITE_MODE_AUDIT);
	denywrite_protect_relax();
	KUNIT_EXPECT_EQ(test, atomic_read(&inode->i_writecount), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->denials), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), 2);
	/* Another protection of a held file changes nothing. */
	KUNIT_EXPECT_EQ(test, protect_deny(a), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&inode->i_writecount), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), 2);
	denywrite_file_drop(a);
	denywrite_file_drop(b);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), 0);
}

static struct kunit_case denywrite_protect_cases[] = {
	KUNIT_CASE(holds_of_two_files_of_one_inode),
	KUNIT_CASE(stop_drops_holds_and_takes_none),
	KUNIT_CASE(stop_drops_marks_and_takes_none),
	KUNIT_CASE(stop_drops_holds_of_every_cpu),
	KUNIT_CASE(stop_waits_for_no_superblock),
	KUNIT_CASE(truncating_open_refused_while_protector_checks),
	KUNIT_CASE(full_holders_count_refuses_hold),
	KUNIT_CASE(denying_hold_denies_write_access),
	KUNIT_CASE(refused_denying_hold_leaves_no_trace),
	KUNIT_CASE(relax_makes_denying_holds_counted),
	{}
};

static struct kunit_suite denywrite_protect_suite = {
	.name = "denywrite_protect",
	.init = protect_test_init,
	.test_cases = denywrite_protect_cases,
};

kunit_test_suite(denywrite_protect_suite);
