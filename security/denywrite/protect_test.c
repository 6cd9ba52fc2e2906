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
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>

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

static int protect(struct file *file)
{
	return denywrite_file_protect(file, DENYWRITE_WRITERS_NONE, 0);
}

/*
 * Two files of one inode: the first hold in the inode's slot, the other in
 * the table; released in turn, each drops its own.
 */
static void holds_in_slot_and_table(struct kunit *test)
{
	struct file *a = new_file(test), *b = reopen(test, a);
	long before = denywrite_protected_inodes();

	KUNIT_EXPECT_EQ(test, protect(a), 0);
	KUNIT_EXPECT_EQ(test, protect(b), 0);
	KUNIT_EXPECT_EQ(test, protect(b), 0);
	KUNIT_EXPECT_TRUE(test, denywrite_file_is_protected(a));
	KUNIT_EXPECT_TRUE(test, denywrite_file_is_protected(b));
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before + 1);
	denywrite_file_release(a);
	KUNIT_EXPECT_FALSE(test, denywrite_file_is_protected(a));
	KUNIT_EXPECT_TRUE(test, denywrite_file_is_protected(b));
	denywrite_file_release(b);
	KUNIT_EXPECT_FALSE(test, denywrite_inode_protected(file_inode(b)));
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
	KUNIT_EXPECT_FALSE(test, denywrite_file_held(a));
	KUNIT_EXPECT_FALSE(test, denywrite_file_held(b));
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);

	/* A protector that passed its hook's mode test before the switch. */
	KUNIT_EXPECT_EQ(test, protect(a), 0);
	KUNIT_EXPECT_FALSE(test, denywrite_inode_protected(file_inode(a)));
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);

	/* Their releases find nothing to drop. */
	denywrite_file_release(a);
	denywrite_file_release(b);
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);

	denywrite_protect_start();
	KUNIT_EXPECT_EQ(test, protect(a), 0);
	KUNIT_EXPECT_TRUE(test, denywrite_file_is_protected(a));
	denywrite_file_release(a);
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);
}

/*
 * Mode off drops audit marks, and no mark is taken until marks are allowed
 * again.
 */
static void stop_drops_marks_and_takes_none(struct kunit *test)
{
	struct file *a = new_file(test);
	const struct denywrite_inode *blob = denywrite_inode(file_inode(a));

	KUNIT_EXPECT_TRUE(test, denywrite_file_mark_audited(a));
	KUNIT_EXPECT_FALSE(test, denywrite_file_mark_audited(a));
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->marks), 1);
	denywrite_protect_stop();
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->marks), 0);

	/* A writer audited while the mode goes off is logged, not marked. */
	KUNIT_EXPECT_TRUE(test, denywrite_file_mark_audited(a));
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->marks), 0);
	denywrite_file_release(a);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->marks), 0);
}

struct sweep_probe {
	struct file *file;
	bool held;
	struct completion ran;
};

/* What a task that preempts the sweep finds. */
static int sweep_probe(void *arg)
{
	struct sweep_probe *probe = arg;

	probe->held = denywrite_file_held(probe->file);
	complete(&probe->ran);
	return 0;
}

/*
 * The sweep of mode off gives the CPU up when it is wanted: a real-time
 * task woken on this CPU just before the sweep runs before the sweep
 * reaches a held file behind the first inode of the list, and the sweep
 * then goes on and drops that file's hold.
 */
static void sweep_yields_and_goes_on(struct kunit *test)
{
	struct file *held = new_file(test);
	struct sweep_probe probe = { .file = held };
	struct task_struct *task;
	long before = denywrite_protected_inodes();

	/* New inodes go to the head of the list: this one comes first. */
	new_file(test);
	KUNIT_ASSERT_EQ(test, protect(held), 0);
	KUNIT_ASSERT_EQ(test, denywrite_protected_inodes(), before + 1);
	init_completion(&probe.ran);
	task = kthread_create(sweep_probe, &probe, "denywrite-probe");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	migrate_disable();
	kthread_bind(task, smp_processor_id());
	sched_set_fifo(task);
	/* Leave the preemption pending for the sweep's first inode. */
	preempt_disable();
	wake_up_process(task);
	preempt_enable_no_resched();
	denywrite_sweep_sb(file_inode(held)->i_sb);
	wait_for_completion(&probe.ran);
	migrate_enable();
	KUNIT_EXPECT_TRUE_MSG(test, probe.held,
			      "the sweep kept the CPU until it had dropped the hold");
	KUNIT_EXPECT_FALSE(test, denywrite_file_held(held));
	KUNIT_EXPECT_EQ(test, denywrite_protected_inodes(), before);
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
	denywrite_file_release(a);
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
	KUNIT_EXPECT_EQ(test, blob->slot, 0UL);
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
	return denywrite_file_protect(file, DENYWRITE_WRITERS_CHECK,
				      DENYWRITE_HOLD_DENY);
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
	denywrite_file_release(a);
	denywrite_file_release(b);
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
	KUNIT_EXPECT_EQ(test, blob->slot, 0UL);
	KUNIT_EXPECT_EQ(test, denywrite_file_protect(a, DENYWRITE_WRITERS_NONE,
						     DENYWRITE_HOLD_DENY), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), 1);
	KUNIT_EXPECT_TRUE(test, denywrite_inode_protected(inode));
	denywrite_file_release(a);
	put_write_access(inode);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), 0);
}

/*
 * The switch to audit mode makes denying holds, in a slot and in the
 * table, counted ones: write access comes back, the hooks count them.
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
	/* A protector that read enforce mode before the switch. */
	KUNIT_EXPECT_EQ(test, protect_deny(a), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&inode->i_writecount), 0);
	denywrite_file_release(a);
	denywrite_file_release(b);
	KUNIT_EXPECT_EQ(test, atomic_read(&blob->holders), 0);
}

static struct kunit_case denywrite_protect_cases[] = {
	KUNIT_CASE(holds_in_slot_and_table),
	KUNIT_CASE(stop_drops_holds_and_takes_none),
	KUNIT_CASE(stop_drops_marks_and_takes_none),
	KUNIT_CASE(sweep_yields_and_goes_on),
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
