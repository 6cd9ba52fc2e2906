// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: KUnit tests of the rule and policy parser and the rule index
 */

#include <kunit/test.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/limits.h>
#include <linux/mount.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "policy.h"

static int parse(struct kunit *test, const char *line,
		 struct denywrite_rule_spec *spec)
{
	char *copy = kunit_kstrdup(test, line, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copy);
	return denywrite_parse_rule(copy, spec);
}

static void parse_rule_valid(struct kunit *test)
{
	struct denywrite_rule_spec spec;

	KUNIT_EXPECT_EQ(test, parse(test, "exec /usr/bin", &spec), 0);
	KUNIT_EXPECT_EQ(test, spec.scope, DENYWRITE_SCOPE_EXEC);
	KUNIT_EXPECT_EQ(test, spec.flags, 0);
	KUNIT_EXPECT_STREQ(test, spec.path, "/usr/bin");

	KUNIT_EXPECT_EQ(test, parse(test, "lib\t/usr/lib", &spec), 0);
	KUNIT_EXPECT_EQ(test, spec.scope, DENYWRITE_SCOPE_LIB);
	KUNIT_EXPECT_STREQ(test, spec.path, "/usr/lib");

	KUNIT_EXPECT_EQ(test, parse(test, "all  \t /", &spec), 0);
	KUNIT_EXPECT_EQ(test, spec.scope, DENYWRITE_SCOPE_ALL);
	KUNIT_EXPECT_STREQ(test, spec.path, "/");

	KUNIT_EXPECT_EQ(test, parse(test, "exec,ignore-writers /a b", &spec),
			0);
	KUNIT_EXPECT_EQ(test, spec.flags, DENYWRITE_RULE_IGNORE_WRITERS);
	KUNIT_EXPECT_STREQ(test, spec.path, "/a b");
}

/* A backslash and three octal digits are one byte of the path. */
static void parse_rule_escapes(struct kunit *test)
{
	static const char *const bad[] = {
		"exec /a\\", "exec /a\\9", "exec /a\\12", "exec /a\\000",
		"exec /a\\400", "exec /a\\x41", "exec \\057a",
	};
	struct denywrite_rule_spec spec;
	size_t i;

	KUNIT_EXPECT_EQ(test, parse(test, "exec /a\\011b\\134\\040", &spec), 0);
	KUNIT_EXPECT_STREQ(test, spec.path, "/a\tb\\ ");
	KUNIT_EXPECT_EQ(test, parse(test, "lib /\\303\\251t\\351", &spec), 0);
	KUNIT_EXPECT_STREQ(test, spec.path, "/\xc3\xa9t\xe9");
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, parse(test, bad[i], &spec), -EINVAL,
				    "line \"%s\"", bad[i]);
}

/* What the rules file prints, the parser reads back as it was. */
static void rule_format_escapes(struct kunit *test)
{
	struct denywrite_rule rule = {
		.name = "/a\tb\\c\n ", .scope = DENYWRITE_SCOPE_LIB,
	};
	struct denywrite_rule_spec spec;
	char line[64];
	int len;

	len = denywrite_rule_format(&rule, line, sizeof(line));
	KUNIT_EXPECT_STREQ(test, line, "lib /a\\011b\\134c\\012\\040\n");
	KUNIT_EXPECT_EQ(test, len, strlen(line));
	line[len - 1] = '\0';
	KUNIT_EXPECT_EQ(test, denywrite_parse_rule(line, &spec), 0);
	KUNIT_EXPECT_STREQ(test, spec.path, rule.name);
	/* Cut short as snprintf() would, with the length it wanted. */
	KUNIT_EXPECT_EQ(test, denywrite_rule_format(&rule, line, 8), len);
	KUNIT_EXPECT_STREQ(test, line, "lib /a\\");
}

static void parse_rule_invalid(struct kunit *test)
{
	static const char *const bad[] = {
		"", " ", "exec", "exec ", "exec  ", "/usr", "foo /usr",
		"EXEC /usr", "exec usr", "exec ./usr", "exec /usr ",
		"exec /usr\t", "exec /usr\r", "exec /u\x01sr",
		"exec, /usr", ",ignore-writers /usr", "exec,bogus /usr",
		"exec,ignore-writers,ignore-writers /usr",
		"exec,ignore-writersx /usr", " exec /usr",
	};
	struct denywrite_rule_spec spec;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, parse(test, bad[i], &spec), -EINVAL,
				    "line \"%s\"", bad[i]);
}

static void parse_rule_path_length(struct kunit *test)
{
	struct denywrite_rule_spec spec;
	size_t prefix = strlen("exec ");
	char *line = kunit_kzalloc(test, prefix + PATH_MAX + 1, GFP_KERNEL);
	char *copy;

	KUNIT_ASSERT_NOT_NULL(test, line);
	memcpy(line, "exec /", prefix + 1);
	memset(line + prefix + 1, 'a', PATH_MAX - 1);

	line[prefix + PATH_MAX - 1] = '\0';	/* PATH_MAX - 1 bytes: fits */
	copy = kunit_kstrdup(test, line, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	KUNIT_EXPECT_EQ(test, denywrite_parse_rule(copy, &spec), 0);
	line[prefix + PATH_MAX - 1] = 'a';	/* PATH_MAX bytes: too long */
	KUNIT_EXPECT_EQ(test, denywrite_parse_rule(line, &spec),
			-ENAMETOOLONG);
}

static struct denywrite_policy *policy(struct kunit *test, const char *text)
{
	char *copy = kunit_kstrdup(test, text, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copy);
	return denywrite_policy_parse(copy);
}

static void policy_empty(struct kunit *test)
{
	static const char *const empty[] = { "", "\n", "\n\n \t\n", " " };
	struct denywrite_policy *p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(empty); i++) {
		p = policy(test, empty[i]);
		KUNIT_ASSERT_FALSE(test, IS_ERR(p));
		KUNIT_EXPECT_EQ(test, p->count, 0);
		denywrite_policy_free(p);
	}
}

static void policy_valid_and_formatted(struct kunit *test)
{
	struct denywrite_policy *p;
	char line[64];

	p = policy(test, "\nall,ignore-writers //\n\n");
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_ASSERT_EQ(test, p->count, 1);
	KUNIT_EXPECT_STREQ(test, p->rules[0].name, "/");
	denywrite_rule_format(&p->rules[0], line, sizeof(line));
	KUNIT_EXPECT_STREQ(test, line, "all,ignore-writers /\n");
	denywrite_policy_free(p);
}

/* "/" is the root rule: it holds nothing and needs no walk. */
static void policy_root_rule(struct kunit *test)
{
	struct denywrite_policy *p;

	p = policy(test, "exec /");
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_PTR_EQ(test, p->root, &p->rules[0]);
	KUNIT_EXPECT_NULL(test, p->rules[0].inode);
	KUNIT_EXPECT_EQ(test, p->scopes, DENYWRITE_SCOPE_EXEC);
	KUNIT_EXPECT_EQ(test, p->walk_scopes, 0);
	KUNIT_EXPECT_NULL(test, p->index);
	denywrite_policy_free(p);
}

static void policy_errors_change_nothing(struct kunit *test)
{
	struct denywrite_policy *p;

	/* Two rules for one object, whatever the name or scope. */
	p = policy(test, "exec /\nlib /.");
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(p), -EINVAL);
	/* A bad line after good ones: nothing leaks (kmemleak). */
	p = policy(test, "exec /\nexec /\x7f");
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(p), -EINVAL);
	/* Trailing garbage makes another path, which does not exist. */
	p = policy(test, "exec / garbage");
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(p), -ENOENT);
	p = policy(test, "exec /denywrite-kunit-no-such-path");
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(p), -ENOENT);
}

static void policy_too_many_rules(struct kunit *test)
{
	size_t n = 1100, i;
	char *text = kunit_kzalloc(test, n * 8 + 1, GFP_KERNEL);
	struct denywrite_policy *p;

	KUNIT_ASSERT_NOT_NULL(test, text);
	for (i = 0; i < n; i++)
		strcat(text, "exec /\n");
	p = denywrite_policy_parse(text);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(p), -E2BIG);
}

/* Blank lines are no rules: they do not count toward the limit. */
static void policy_blank_lines_do_not_count(struct kunit *test)
{
	size_t n = DENYWRITE_MAX_RULES + 100, i;
	char *text = kunit_kzalloc(test, 3 * n + 8, GFP_KERNEL);
	struct denywrite_policy *p;

	KUNIT_ASSERT_NOT_NULL(test, text);
	for (i = 0; i < n; i++)
		strcat(text, i % 2 ? "\n" : " \t\n");
	strcat(text, "exec /");
	p = denywrite_policy_parse(text);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_EQ(test, p->count, 1);
	denywrite_policy_free(p);
}

/*
 * A policy of @n rules on distinct fake inodes, the d_inode of
 * @dentries[i], named /r<i>, exec and lib in turn; it must go through
 * free_fake().
 */
static struct denywrite_policy *fake_policy(struct kunit *test, size_t n,
					    struct dentry *dentries,
					    char *inodes)
{
	struct denywrite_policy *p = denywrite_policy_alloc(n);
	size_t i;

	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	for (i = 0; i < n; i++) {
		struct denywrite_rule *r = &p->rules[i];

		r->inode = (struct inode *)(inodes + i * 64);
		dentries[i].d_inode = r->inode;
		r->name = kasprintf(GFP_KERNEL, "/r%zu", i);
		KUNIT_ASSERT_NOT_NULL(test, r->name);
		r->scope = i % 2 ? DENYWRITE_SCOPE_LIB : DENYWRITE_SCOPE_EXEC;
	}
	return p;
}

static void free_fake(struct denywrite_policy *p)
{
	size_t i;

	for (i = 0; i < p->count; i++)
		p->rules[i].inode = NULL;
	denywrite_policy_free(p);
}

/* Every rule is found by its object, whatever the number of rules. */
static void policy_index_finds_every_rule(struct kunit *test)
{
	size_t n = DENYWRITE_MAX_RULES, i;
	struct dentry *dentries = kunit_kcalloc(test, n + 1, sizeof(*dentries),
						GFP_KERNEL);
	char *inodes = kunit_kzalloc(test, (n + 1) * 64, GFP_KERNEL);
	struct denywrite_policy *p;

	KUNIT_ASSERT_NOT_NULL(test, dentries);
	KUNIT_ASSERT_NOT_NULL(test, inodes);
	p = fake_policy(test, n, dentries, inodes);
	KUNIT_ASSERT_EQ(test, denywrite_policy_finish(p), 0);
	KUNIT_EXPECT_EQ(test, p->walk_scopes, DENYWRITE_SCOPE_ALL);
	KUNIT_EXPECT_GE(test, 1UL << p->index_bits, 4 * n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, denywrite_policy_find(p, &dentries[i]),
				    &p->rules[i]);
	dentries[n].d_inode = (struct inode *)(inodes + n * 64);
	KUNIT_EXPECT_NULL(test, denywrite_policy_find(p, &dentries[n]));
	/* A rule whose filesystem went away matches nothing. */
	p->rules[0].gone = true;
	KUNIT_EXPECT_NULL(test, denywrite_policy_find(p, &dentries[0]));
	free_fake(p);
}

/*
 * The walk on a filesystem finds the nearest rule with the scope asked,
 * and passes over the rules of another scope.  The rules name
 * directories: the walk from the file starts at its parent.
 */
static void policy_walk_finds_the_nearest_rule(struct kunit *test)
{
	size_t n = DENYWRITE_MAX_RULES, i;
	struct dentry *dentries = kunit_kcalloc(test, n + 2, sizeof(*dentries),
						GFP_KERNEL);
	char *inodes = kunit_kzalloc(test, (n + 2) * 64, GFP_KERNEL);
	struct vfsmount *mnt = kunit_kzalloc(test, sizeof(*mnt), GFP_KERNEL);
	struct dentry *top, *file;
	struct denywrite_policy *p;
	struct path path = {};

	KUNIT_ASSERT_NOT_NULL(test, dentries);
	KUNIT_ASSERT_NOT_NULL(test, inodes);
	KUNIT_ASSERT_NOT_NULL(test, mnt);
	p = fake_policy(test, n, dentries, inodes);
	for (i = 0; i < n; i++)
		((struct inode *)(inodes + i * 64))->i_mode = S_IFDIR | 0755;
	KUNIT_ASSERT_EQ(test, denywrite_policy_finish(p), 0);
	KUNIT_EXPECT_EQ(test, p->file_scopes, 0);
	top = &dentries[n];
	top->d_parent = top;
	top->d_inode = (struct inode *)(inodes + n * 64);
	file = &dentries[n + 1];
	file->d_inode = (struct inode *)(inodes + (n + 1) * 64);
	path.dentry = file;
	rcu_read_lock();
	for (i = 0; i < n; i++) {
		u8 scope = p->rules[i].scope;

		dentries[i].d_parent = top;
		file->d_parent = &dentries[i];
		path.mnt = NULL;
		KUNIT_EXPECT_PTR_EQ(test,
				    denywrite_policy_walk_rcu(p, &path, scope),
				    &p->rules[i]);
		KUNIT_EXPECT_NULL(test,
				  denywrite_policy_walk_rcu(p, &path,
							    scope ^ DENYWRITE_SCOPE_ALL));
		/* With a mount, the walk goes on across mounts. */
		path.mnt = mnt;
		KUNIT_EXPECT_PTR_EQ(test,
				    denywrite_policy_walk_rcu(p, &path,
							      scope ^ DENYWRITE_SCOPE_ALL),
				    ERR_PTR(-EAGAIN));
	}
	rcu_read_unlock();
	free_fake(p);
}

/*
 * Two rules whose objects have one home slot in the index: the walk finds
 * the second one past the first (index_probe_on()).
 */
static void policy_walk_finds_a_rule_past_a_collision(struct kunit *test)
{
	size_t n = 1024, k;
	char *inodes = kunit_kzalloc(test, n * 64, GFP_KERNEL);
	struct dentry *dentries = kunit_kcalloc(test, 3, sizeof(*dentries),
						GFP_KERNEL);
	struct denywrite_policy *p;
	struct path path = {};
	u32 home;

	KUNIT_ASSERT_NOT_NULL(test, inodes);
	KUNIT_ASSERT_NOT_NULL(test, dentries);
	home = hash_ptr(inodes, DENYWRITE_INDEX_MIN_BITS);
	for (k = 1; k < n; k++)
		if (hash_ptr(inodes + k * 64, DENYWRITE_INDEX_MIN_BITS) == home)
			break;
	KUNIT_ASSERT_LT(test, k, n);
	p = fake_policy(test, 2, dentries, inodes);
	p->rules[1].inode = (struct inode *)(inodes + k * 64);
	dentries[1].d_inode = p->rules[1].inode;
	p->rules[0].inode->i_mode = S_IFDIR | 0755;
	p->rules[1].inode->i_mode = S_IFDIR | 0755;
	KUNIT_ASSERT_EQ(test, denywrite_policy_finish(p), 0);
	KUNIT_ASSERT_EQ(test, p->index_bits, DENYWRITE_INDEX_MIN_BITS);
	KUNIT_EXPECT_PTR_EQ(test, p->index[home], &p->rules[0]);
	dentries[1].d_parent = &dentries[1];
	dentries[2].d_parent = &dentries[1];
	path.dentry = &dentries[2];
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test,
			    denywrite_policy_walk_rcu(p, &path, p->rules[1].scope),
			    &p->rules[1]);
	rcu_read_unlock();
	free_fake(p);
}

/* A rule on a file that is not a directory covers it: the walk starts there. */
static void policy_walk_finds_a_rule_on_the_file_itself(struct kunit *test)
{
	struct dentry *dentries = kunit_kcalloc(test, 2, sizeof(*dentries),
						GFP_KERNEL);
	char *inodes = kunit_kzalloc(test, 2 * 64, GFP_KERNEL);
	struct denywrite_policy *p;
	struct path path = {};

	KUNIT_ASSERT_NOT_NULL(test, dentries);
	KUNIT_ASSERT_NOT_NULL(test, inodes);
	p = fake_policy(test, 1, dentries, inodes);
	((struct inode *)inodes)->i_mode = S_IFREG | 0755;
	KUNIT_ASSERT_EQ(test, denywrite_policy_finish(p), 0);
	KUNIT_EXPECT_EQ(test, p->file_scopes, p->rules[0].scope);
	dentries[1].d_inode = (struct inode *)(inodes + 64);
	dentries[1].d_inode->i_mode = S_IFDIR | 0755;
	dentries[1].d_flags = DCACHE_DIRECTORY_TYPE;
	dentries[1].d_parent = &dentries[1];
	dentries[0].d_parent = &dentries[1];
	path.dentry = &dentries[0];
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test,
			    denywrite_policy_walk_rcu(p, &path, p->rules[0].scope),
			    &p->rules[0]);
	rcu_read_unlock();
	free_fake(p);
}

/* A policy of one rule has an index of DENYWRITE_INDEX_MIN_BITS. */
static void policy_index_of_one_rule_has_room(struct kunit *test)
{
	struct dentry dentry = {};
	char *inodes = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct denywrite_policy *p;

	KUNIT_ASSERT_NOT_NULL(test, inodes);
	p = fake_policy(test, 1, &dentry, inodes);
	KUNIT_ASSERT_EQ(test, denywrite_policy_finish(p), 0);
	KUNIT_EXPECT_EQ(test, p->index_bits, DENYWRITE_INDEX_MIN_BITS);
	free_fake(p);
}

/* Two rules for one object, or of one name, are refused. */
static void policy_index_refuses_duplicates(struct kunit *test)
{
	struct dentry *dentries = kunit_kcalloc(test, 3, sizeof(*dentries),
						GFP_KERNEL);
	char *inodes = kunit_kzalloc(test, 4 * 64, GFP_KERNEL);
	struct denywrite_policy *p;

	KUNIT_ASSERT_NOT_NULL(test, dentries);
	KUNIT_ASSERT_NOT_NULL(test, inodes);
	p = fake_policy(test, 3, dentries, inodes);
	p->rules[2].inode = p->rules[0].inode;
	KUNIT_EXPECT_EQ(test, denywrite_policy_finish(p), -EEXIST);
	free_fake(p);

	p = fake_policy(test, 3, dentries, inodes);
	strscpy(p->rules[2].name, "/r1", 4);
	KUNIT_EXPECT_EQ(test, denywrite_policy_finish(p), -EEXIST);
	free_fake(p);
}

static struct kunit_case denywrite_policy_cases[] = {
	KUNIT_CASE(parse_rule_valid),
	KUNIT_CASE(parse_rule_invalid),
	KUNIT_CASE(parse_rule_path_length),
	KUNIT_CASE(parse_rule_escapes),
	KUNIT_CASE(rule_format_escapes),
	KUNIT_CASE(policy_empty),
	KUNIT_CASE(policy_valid_and_formatted),
	KUNIT_CASE(policy_root_rule),
	KUNIT_CASE(policy_index_finds_every_rule),
	KUNIT_CASE(policy_index_refuses_duplicates),
	KUNIT_CASE(policy_walk_finds_the_nearest_rule),
	KUNIT_CASE(policy_walk_finds_a_rule_past_a_collision),
	KUNIT_CASE(policy_walk_finds_a_rule_on_the_file_itself),
	KUNIT_CASE(policy_index_of_one_rule_has_room),
	KUNIT_CASE(policy_errors_change_nothing),
	KUNIT_CASE(policy_too_many_rules),
	KUNIT_CASE(policy_blank_lines_do_not_count),
	{}
};

static struct kunit_suite denywrite_policy_suite = {
	.name = "denywrite_policy",
	.test_cases = denywrite_policy_cases,
};

kunit_test_suite(denywrite_policy_suite);
