// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: rule parser, policy objects and matching
 *
 * A rule names a directory or a file.  It covers its object and everything
 * beneath it, whichever path reaches the file: matching compares kernel
 * objects, never path strings.  From the file, it walks up the dentry tree
 * of the file's filesystem to that filesystem's root (so a bind mount of
 * any subdirectory, a chroot or another mount namespace still reaches the
 * rule's object), then crosses to the mount point in the parent mount and
 * goes on there (so a rule covers the filesystems mounted beneath it), up
 * to the top of the mount tree: see denywrite_policy_walk().
 *
 * The rule whose canonical path is "/" is the root rule.  It names no
 * object: it covers every file on the system, however it is reached,
 * including files that no walk from the namespace root reaches (memfd and
 * other internal mounts, detached and lazily unmounted trees, the old root
 * after a pivot_root).  "/" resolved in an initcall, in a chroot or after
 * a switch of the root is thus always the same rule, and a policy has at
 * most one rule of each canonical name.
 *
 * A lookup stays read-only.  Each policy indexes its other rules by the
 * address of their dentry, in an open addressing hash table built when
 * the policy is made, so each step of the walk costs one probe whatever
 * the number of rules; each filesystem is walked under RCU without taking
 * any reference; and a policy whose rules for a scope are all the root rule
 * needs no walk at all.  Nothing is written to memory shared with other
 * CPUs unless a rename or a mount change races with the walk.
 *
 * Policies are immutable once published.  A change parses into a new
 * policy, swaps the pointer under denywrite_policy_mutex, waits for an SRCU
 * grace period and frees the old one, so a reader always sees one whole
 * policy.  Rules pin their path (dentry and mount) for as long as they are
 * in a policy, like a working directory would.
 */

#include <crypto/sha2.h>
#include <kunit/visibility.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>

#include "policy.h"

DEFINE_SRCU(denywrite_policy_srcu);
static struct denywrite_policy __rcu *denywrite_policy;
static DEFINE_MUTEX(denywrite_policy_mutex);
/* The published policy's scopes; see denywrite_policy_scopes(). */
u8 denywrite_policy_scopes_now;
/*
 * The scopes that the published policy's root rule alone covers, and its
 * flags in the high byte; see denywrite_policy_root_alone().
 */
u16 denywrite_policy_root_now;

static const struct {
	const char *name;
	u8 scope;
} denywrite_scopes[] = {
	{ "exec", DENYWRITE_SCOPE_EXEC },
	{ "lib", DENYWRITE_SCOPE_LIB },
	{ "all", DENYWRITE_SCOPE_ALL },
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ASCII control characters only: UTF-8 paths are welcome. */
static bool has_control_char(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static int parse_scope(const char *word, u8 *scope)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(denywrite_scopes); i++) {
		if (!strcmp(word, denywrite_scopes[i].name)) {
			*scope = denywrite_scopes[i].scope;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * denywrite_scope_name - the word for a scope in the rule syntax
 * @scope: DENYWRITE_SCOPE_* bits of a rule
 *
 * Return: "exec", "lib" or "all".
 */
const char *denywrite_scope_name(u8 scope)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(denywrite_scopes); i++)
		if (denywrite_scopes[i].scope == scope)
			return denywrite_scopes[i].name;
	return "?";
}

/**
 * denywrite_parse_rule - parse one rule line
 * @line: the line, NUL-terminated, without its newline; modified in place
 * @spec: filled in on success; @spec->path points into @line
 *
 * The syntax is "SCOPE[,ignore-writers] PATH": SCOPE is exec, lib or all,
 * one run of spaces or tabs follows, and PATH is the rest of the line.  PATH
 * must be absolute, shorter than PATH_MAX, free of control characters and
 * must not end in white space.  Nothing is resolved here.
 *
 * Return: 0, -EINVAL on a syntax error, -ENAMETOOLONG on a too long path.
 */
int denywrite_parse_rule(char *line, struct denywrite_rule_spec *spec)
{
	char *path, *option;
	size_t len;

	path = line + strcspn(line, " \t");
	if (!*path)
		return -EINVAL;
	*path++ = '\0';
	while (is_blank(*path))
		path++;

	spec->flags = 0;
	option = strchr(line, ',');
	if (option) {
		*option++ = '\0';
		if (strcmp(option, DENYWRITE_IGNORE_WRITERS))
			return -EINVAL;
		spec->flags = DENYWRITE_RULE_IGNORE_WRITERS;
	}
	if (parse_scope(line, &spec->scope))
		return -EINVAL;

	len = strlen(path);
	if (path[0] != '/' || is_blank(path[len - 1]) || has_control_char(path))
		return -EINVAL;
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	spec->path = path;
	return 0;
}

/**
 * denywrite_rule_format - print a rule in the syntax the parser reads
 * @rule: the rule
 * @buf: where to print
 * @size: size of @buf
 *
 * Return: the length of the line including its newline, as snprintf().
 */
int denywrite_rule_format(const struct denywrite_rule *rule, char *buf,
			  size_t size)
{
	return snprintf(buf, size, "%s%s %s\n",
			denywrite_scope_name(rule->scope),
			rule->flags & DENYWRITE_RULE_IGNORE_WRITERS ?
				"," DENYWRITE_IGNORE_WRITERS : "",
			rule->name);
}

static bool rule_is_root(const struct denywrite_rule *rule)
{
	return !rule->path.dentry;
}

/*
 * Resolve the rule's path with the caller's credentials and root.  Objects
 * outside the directory tree (unlinked files, pipes reached through
 * /proc/PID/fd) have no canonical path and are refused.
 */
static int rule_init(struct denywrite_rule *rule,
		     const struct denywrite_rule_spec *spec)
{
	struct path path;
	char *buf, *name;
	int err;

	err = kern_path(spec->path, LOOKUP_FOLLOW, &path);
	if (err)
		return err;
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto out_put;
	}
	name = d_path(&path, buf, PATH_MAX);
	if (IS_ERR(name)) {
		err = PTR_ERR(name);
		goto out_free;
	}
	if (name[0] != '/' || d_unlinked(path.dentry)) {
		err = -ENOENT;
		goto out_free;
	}
	rule->name = kstrdup(name, GFP_KERNEL);
	if (!rule->name) {
		err = -ENOMEM;
		goto out_free;
	}
	kfree(buf);
	if (strcmp(rule->name, "/"))
		rule->path = path;
	else
		path_put(&path);
	rule->scope = spec->scope;
	rule->flags = spec->flags;
	return 0;

out_free:
	kfree(buf);
out_put:
	path_put(&path);
	return err;
}

static void rule_destroy(struct denywrite_rule *rule)
{
	path_put(&rule->path);
	kfree(rule->name);
}

static int rule_copy(struct denywrite_rule *dst,
		     const struct denywrite_rule *src)
{
	dst->name = kstrdup(src->name, GFP_KERNEL);
	if (!dst->name)
		return -ENOMEM;
	dst->path = src->path;
	path_get(&dst->path);
	dst->scope = src->scope;
	dst->flags = src->flags;
	return 0;
}

/**
 * denywrite_policy_alloc - allocate a policy of @count empty rules
 * @count: the number of rules
 *
 * Rules are zeroed until filled in, so a partly built policy can be freed.
 *
 * Return: the policy, ERR_PTR(-E2BIG) or ERR_PTR(-ENOMEM).
 */
VISIBLE_IF_KUNIT struct denywrite_policy *denywrite_policy_alloc(size_t count)
{
	struct denywrite_policy *policy;

	if (count > DENYWRITE_MAX_RULES)
		return ERR_PTR(-E2BIG);
	policy = kzalloc(struct_size(policy, rules, count), GFP_KERNEL);
	if (!policy)
		return ERR_PTR(-ENOMEM);
	policy->count = count;
	return policy;
}

/**
 * denywrite_policy_free - free a policy that no reader can see any more
 * @policy: the policy, or NULL
 */
void denywrite_policy_free(struct denywrite_policy *policy)
{
	size_t i;

	if (!policy)
		return;
	for (i = 0; i < policy->count; i++)
		rule_destroy(&policy->rules[i]);
	kfree(policy->index);
	kfree(policy);
}

/* The slot of @dentry in the index: its rule, or the empty slot for it. */
static const struct denywrite_rule **
index_slot(const struct denywrite_policy *policy, const struct dentry *dentry)
{
	u32 mask = (1U << policy->index_bits) - 1;
	u32 i = hash_ptr(dentry, policy->index_bits);

	while (policy->index[i] && policy->index[i]->path.dentry != dentry)
		i = (i + 1) & mask;
	return &policy->index[i];
}

/**
 * denywrite_policy_find - the rule on @dentry itself
 * @policy: an indexed policy (see denywrite_policy_finish())
 * @dentry: the object
 *
 * Return: the rule whose object is @dentry, or NULL; never the root rule.
 */
VISIBLE_IF_KUNIT const struct denywrite_rule *
denywrite_policy_find(const struct denywrite_policy *policy,
		      const struct dentry *dentry)
{
	return policy->index ? *index_slot(policy, dentry) : NULL;
}

/* Reject two rules of one canonical name, comparing name hashes first. */
static int check_names(const struct denywrite_policy *policy)
{
	size_t i, j;
	u32 *hash;
	int err = 0;

	hash = kmalloc_array(policy->count, sizeof(*hash), GFP_KERNEL);
	if (!hash)
		return -ENOMEM;
	for (i = 0; i < policy->count && !err; i++) {
		const char *name = policy->rules[i].name;

		hash[i] = full_name_hash(NULL, name, strlen(name));
		for (j = 0; j < i && !err; j++)
			if (hash[j] == hash[i] &&
			    !strcmp(policy->rules[j].name, name))
				err = -EEXIST;
	}
	kfree(hash);
	return err;
}

static int policy_digest(struct denywrite_policy *policy)
{
	struct sha256_state sctx;
	char *line;
	size_t i;

	line = kmalloc(DENYWRITE_RULE_LINE_MAX, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	sha256_init(&sctx);
	for (i = 0; i < policy->count; i++) {
		int len = denywrite_rule_format(&policy->rules[i], line,
						DENYWRITE_RULE_LINE_MAX);

		sha256_update(&sctx, line, len);
	}
	sha256_final(&sctx, policy->sha256);
	kfree(line);
	return 0;
}

/**
 * denywrite_policy_finish - index a filled-in policy before it is published
 * @policy: the policy, with every rule set
 *
 * Finds the root rule, builds the index of the others, and computes the
 * scopes and the digest.
 *
 * Return: 0, -EEXIST if two rules name one object or have one canonical
 * name, -ENOMEM.
 */
VISIBLE_IF_KUNIT int denywrite_policy_finish(struct denywrite_policy *policy)
{
	size_t i, n = 0;
	int err;

	err = check_names(policy);
	if (err)
		return err;
	for (i = 0; i < policy->count; i++) {
		const struct denywrite_rule *rule = &policy->rules[i];

		policy->scopes |= rule->scope;
		if (rule_is_root(rule)) {
			policy->root = rule;
		} else {
			policy->walk_scopes |= rule->scope;
			n++;
		}
	}
	if (n) {
		policy->index_bits = ilog2(roundup_pow_of_two(2 * n));
		policy->index = kcalloc(1U << policy->index_bits,
					sizeof(*policy->index), GFP_KERNEL);
		if (!policy->index)
			return -ENOMEM;
	}
	for (i = 0; i < policy->count; i++) {
		const struct denywrite_rule *rule = &policy->rules[i];
		const struct denywrite_rule **slot;

		if (rule_is_root(rule))
			continue;
		slot = index_slot(policy, rule->path.dentry);
		if (*slot)
			return -EEXIST;
		*slot = rule;
	}
	return policy_digest(policy);
}

static bool is_blank_line(const char *line)
{
	while (is_blank(*line))
		line++;
	return !*line;
}

/**
 * denywrite_policy_parse - build a policy from its text
 * @text: NUL-terminated rules, one per line; blank lines are skipped;
 *        modified in place
 *
 * Every PATH is resolved with the caller's credentials and root.  Two rules
 * for one object, or with one canonical name, are refused.
 *
 * Return: the new, unpublished policy, or an ERR_PTR(): -EINVAL for a
 * syntax error or a duplicate, -ENOENT (or another lookup error) for a path
 * that cannot be resolved, -E2BIG for too many rules, -ENOMEM.
 */
struct denywrite_policy *denywrite_policy_parse(char *text)
{
	struct denywrite_policy *policy;
	struct denywrite_rule_spec spec;
	size_t lines = 1, filled = 0;
	char *line;
	int err = 0;

	for (line = text; (line = strchr(line, '\n')); line++)
		lines++;
	policy = denywrite_policy_alloc(lines);
	if (IS_ERR(policy))
		return policy;

	while ((line = strsep(&text, "\n"))) {
		if (is_blank_line(line))
			continue;
		err = denywrite_parse_rule(line, &spec);
		if (!err)
			err = rule_init(&policy->rules[filled], &spec);
		if (err)
			break;
		filled++;
	}
	policy->count = filled;
	if (!err)
		err = denywrite_policy_finish(policy);
	if (err) {
		denywrite_policy_free(policy);
		return ERR_PTR(err == -EEXIST ? -EINVAL : err);
	}
	return policy;
}

/**
 * denywrite_policy_current - the published policy
 *
 * Call inside srcu_read_lock(&denywrite_policy_srcu).
 *
 * Return: the policy, or NULL before the first one is published.
 */
struct denywrite_policy *denywrite_policy_current(void)
{
	return srcu_dereference(denywrite_policy, &denywrite_policy_srcu);
}

static struct denywrite_policy *policy_locked(void)
{
	return rcu_dereference_protected(denywrite_policy,
					 lockdep_is_held(&denywrite_policy_mutex));
}

/* Publish @policy, wait for readers of the old one, free it. */
/* The value of denywrite_policy_root_now for @policy. */
static u16 policy_root_alone(const struct denywrite_policy *policy)
{
	if (!policy || !policy->root)
		return 0;
	return (policy->root->scope & ~policy->walk_scopes) |
	       policy->root->flags << 8;
}

static void policy_swap_locked(struct denywrite_policy *policy,
			       size_t *old_count)
{
	struct denywrite_policy *old;

	lockdep_assert_held(&denywrite_policy_mutex);
	old = rcu_replace_pointer(denywrite_policy, policy,
				  lockdep_is_held(&denywrite_policy_mutex));
	WRITE_ONCE(denywrite_policy_scopes_now, policy ? policy->scopes : 0);
	WRITE_ONCE(denywrite_policy_root_now, policy_root_alone(policy));
	*old_count = old ? old->count : 0;
	synchronize_srcu(&denywrite_policy_srcu);
	denywrite_policy_free(old);
}

/*
 * Index @policy, a changed copy of the published one (or an error from
 * making it), and publish it; freed if it cannot be indexed.
 */
static int policy_publish_locked(struct denywrite_policy *policy,
				 size_t *old_count)
{
	int err;

	if (IS_ERR(policy))
		return PTR_ERR(policy);
	err = denywrite_policy_finish(policy);
	if (err)
		denywrite_policy_free(policy);
	else
		policy_swap_locked(policy, old_count);
	return err;
}

/**
 * denywrite_policy_replace - publish a new policy, replacing the whole set
 * @policy: from denywrite_policy_parse(); ownership passes to the caller's
 *          successor, the old policy is freed after readers are done
 * @old_count: set to the number of rules of the old policy
 */
void denywrite_policy_replace(struct denywrite_policy *policy,
			      size_t *old_count)
{
	mutex_lock(&denywrite_policy_mutex);
	policy_swap_locked(policy, old_count);
	mutex_unlock(&denywrite_policy_mutex);
}

/* A copy of @old without @skip and with @extra zeroed rules at the end. */
static struct denywrite_policy *
policy_copy_except(const struct denywrite_policy *old, size_t extra,
		   const struct denywrite_rule *skip)
{
	size_t count = old ? old->count : 0;
	struct denywrite_policy *policy;
	size_t i, j = 0;

	policy = denywrite_policy_alloc(count + extra - !!skip);
	if (IS_ERR(policy))
		return policy;
	for (i = 0; i < count; i++) {
		if (&old->rules[i] == skip)
			continue;
		if (rule_copy(&policy->rules[j++], &old->rules[i])) {
			denywrite_policy_free(policy);
			return ERR_PTR(-ENOMEM);
		}
	}
	return policy;
}

/**
 * denywrite_policy_add - add one rule to the published policy
 * @line: one rule line, NUL-terminated; modified in place
 * @old_count: set to the number of rules before
 *
 * Return: 0, -EEXIST if a rule for the same object or with the same
 * canonical name exists, or the errors of denywrite_policy_parse().
 */
int denywrite_policy_add(char *line, size_t *old_count)
{
	struct denywrite_policy *policy;
	struct denywrite_rule_spec spec;
	struct denywrite_rule rule = {};
	int err;

	err = denywrite_parse_rule(line, &spec);
	if (err)
		return err;
	err = rule_init(&rule, &spec);
	if (err)
		return err;

	mutex_lock(&denywrite_policy_mutex);
	policy = policy_copy_except(policy_locked(), 1, NULL);
	if (!IS_ERR(policy)) {
		policy->rules[policy->count - 1] = rule;
		rule = (struct denywrite_rule){};
	}
	err = policy_publish_locked(policy, old_count);
	mutex_unlock(&denywrite_policy_mutex);
	rule_destroy(&rule);
	return err;
}

/**
 * denywrite_policy_del - remove the rule printed with PATH @name
 * @name: the canonical path, exactly as the rules file shows it
 * @old_count: set to the number of rules before
 *
 * Return: 0, -ENOENT if no rule has that path, -ENOMEM.
 */
int denywrite_policy_del(char *name, size_t *old_count)
{
	const struct denywrite_rule *victim = NULL;
	struct denywrite_policy *old, *policy;
	int err = 0;
	size_t i;

	mutex_lock(&denywrite_policy_mutex);
	old = policy_locked();
	for (i = 0; old && i < old->count && !victim; i++)
		if (!strcmp(old->rules[i].name, name))
			victim = &old->rules[i];
	if (!victim) {
		err = -ENOENT;
		goto out_unlock;
	}
	policy = policy_copy_except(old, 0, victim);
	err = policy_publish_locked(policy, old_count);
out_unlock:
	mutex_unlock(&denywrite_policy_mutex);
	return err;
}

/*
 * The rule on @dentry or on one of its ancestors in its filesystem, with
 * @scope, or NULL.  Unlocked, give up (ERR_PTR(-EAGAIN)) as soon as @seq
 * says a rename raced with the walk: a walk that sees renames half done
 * may see no end.
 */
static const struct denywrite_rule *
walk_dentries(const struct denywrite_policy *policy,
	      const struct dentry *dentry, u8 scope, unsigned int seq,
	      bool locked)
{
	const struct denywrite_rule *rule;
	unsigned int n = 0;

	for (;;) {
		rule = denywrite_policy_find(policy, dentry);
		if (rule && (rule->scope & scope))
			return rule;
		if (IS_ROOT(dentry))
			return NULL;
		dentry = READ_ONCE(dentry->d_parent);
		if (!locked && !(++n % 64) && read_seqretry(&rename_lock, seq))
			return ERR_PTR(-EAGAIN);
	}
}

/*
 * walk_dentries() under RCU without references, checked against
 * rename_lock as is_subdir() does; if a rename raced with it, again with
 * rename_lock held, so that it ends even under a storm of renames.  The
 * ancestors of @dentry, which the caller holds, stay while rename_lock is
 * held.
 */
static const struct denywrite_rule *
walk_filesystem(const struct denywrite_policy *policy,
		const struct dentry *dentry, u8 scope)
{
	const struct denywrite_rule *rule;
	unsigned int seq;

	rcu_read_lock();
	seq = read_seqbegin(&rename_lock);
	rule = walk_dentries(policy, dentry, scope, seq, false);
	if (!IS_ERR(rule) && !read_seqretry(&rename_lock, seq)) {
		rcu_read_unlock();
		return rule;
	}
	rcu_read_unlock();
	read_seqlock_excl(&rename_lock);
	rule = walk_dentries(policy, dentry, scope, 0, true);
	read_sequnlock_excl(&rename_lock);
	return rule;
}

/**
 * denywrite_policy_walk - most specific rule covering @path, by walking up
 * @policy: the policy
 * @path: the file's path; with no @path->mnt, only the rules on the file's
 *        own filesystem are found (and the root rule)
 * @scope: DENYWRITE_SCOPE_* bits the rule must have one of; some rule
 *         other than the root rule has one of them
 *
 * The slow path of denywrite_policy_match().  The walk visits the file and
 * its ancestors up to the root of its filesystem, past the root of a bind
 * mount (so that a bind mount of a subdirectory still reaches the rules
 * above it), then goes on from the mountpoint of the mount in its parent
 * mount, up to a mount that has no parent: the root of a mount namespace
 * or of a detached tree.  It takes the first rule found with @scope, else
 * the root rule if it has @scope.
 *
 * Each filesystem is walked by walk_filesystem(), which writes nothing to
 * memory shared with other CPUs unless a rename races with it.  Crossing to
 * the parent mount takes references (follow_up()); most walks end on the
 * file's own filesystem, at its rule or at the root, and cross nothing.
 *
 * Context: may sleep.
 * Return: the rule, valid inside the caller's SRCU read-side section, or
 * NULL.
 */
const struct denywrite_rule *
denywrite_policy_walk(const struct denywrite_policy *policy,
		      const struct path *path, u8 scope)
{
	const struct denywrite_rule *rule;
	struct path p = *path;
	bool crossed = false;

	for (;;) {
		rule = walk_filesystem(policy, p.dentry, scope);
		if (rule || !p.mnt)
			break;
		if (!crossed) {
			path_get(&p);
			crossed = true;
		} else {
			cond_resched();
		}
		if (!follow_up(&p))
			break;
	}
	if (crossed)
		path_put(&p);
	return rule ?: denywrite_policy_root(policy, scope);
}
