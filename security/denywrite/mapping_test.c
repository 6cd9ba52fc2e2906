// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: KUnit tests of which filesystems' mode bits a mapping trusts
 */

#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/magic.h>

#include "mapping.h"

/* A ->permission of a filesystem's own, as FUSE's or NFS's. */
static int own_permission(struct mnt_idmap *idmap, struct inode *inode,
			  int mask)
{
	return 0;
}

static const struct inode_operations no_permission_iops = {};
static const struct inode_operations generic_permission_iops = {
	.permission = generic_permission,
};

static const struct inode_operations own_permission_iops = {
	.permission = own_permission,
};

/* Are the mode bits trusted on a filesystem of @magic whose inodes have @iops? */
static bool trusted(struct kunit *test, unsigned long magic,
		    const struct inode_operations *iops)
{
	struct super_block *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	struct inode *inode = kunit_kzalloc(test, sizeof(*inode), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sb);
	KUNIT_ASSERT_NOT_NULL(test, inode);
	sb->s_magic = magic;
	inode->i_sb = sb;
	inode->i_op = iops;
	return denywrite_mode_decides_writes(inode);
}

static void generic_permission_trusted(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, trusted(test, EXT4_SUPER_MAGIC,
					&no_permission_iops));
	KUNIT_EXPECT_TRUE(test, trusted(test, TMPFS_MAGIC,
					&generic_permission_iops));
}

static void local_permission_of_its_own_trusted(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, trusted(test, BTRFS_SUPER_MAGIC,
					&own_permission_iops));
	KUNIT_EXPECT_TRUE(test, trusted(test, NILFS_SUPER_MAGIC,
					&own_permission_iops));
}

/* FUSE (0x65735546), NFS, SMB2 (0xfe534d42), overlayfs: asked elsewhere. */
static void server_or_stack_decides_not_trusted(struct kunit *test)
{
	static const unsigned long magics[] = {
		0x65735546, NFS_SUPER_MAGIC, 0xfe534d42, OVERLAYFS_SUPER_MAGIC,
		ECRYPTFS_SUPER_MAGIC, V9FS_MAGIC, CEPH_SUPER_MAGIC,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magics); i++)
		KUNIT_EXPECT_FALSE_MSG(test, trusted(test, magics[i],
						     &own_permission_iops),
				       "magic %#lx", magics[i]);
}

static struct kunit_case mapping_test_cases[] = {
	KUNIT_CASE(generic_permission_trusted),
	KUNIT_CASE(local_permission_of_its_own_trusted),
	KUNIT_CASE(server_or_stack_decides_not_trusted),
	{}
};

static struct kunit_suite denywrite_mapping_suite = {
	.name = "denywrite_mapping",
	.test_cases = mapping_test_cases,
};

kunit_test_suite(denywrite_mapping_suite);
