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
 * goes on there (so "/" covers the filesystems mounted below it).
 *
 * Policies are immutable once published.  A change parses into a new
 * policy, swaps the pointer under denywrite_policy_mutex, waits for an SRCU
 * grace period and frees the old one, so a reader always sees one whole
 * policy.  Rules pin their path (dentry and mount) for as long as they are
 * in a policy, like a working directory would.
 */

#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "policy.h"

/* Upper bound on the number of rules in a policy. */
#define DENYWRITE_MAX_RULES	1024

DEFINE_SRCU(denywrite_policy_srcu);
static struct denywrite_policy __rcu *denywrite_policy;
static DEFINE_MUTEX(denywrite_policy_mutex);

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

static int rule_init(struct denywrite_rule *rule,
		     const struct denywrite_rule_spec *spec)
{
	char *buf, *name;
	int err;

	err = kern_path(spec->path, LOOKUP_FOLLOW, &rule->path);
	if (err)
		return err;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto out_put;
	}
	name = d_path(&rule->path, buf, PATH_MAX);
	if (IS_ERR(name)) {
		err = PTR_ERR(name);
		goto out_free;
	}
	rule->name = kstrdup(name, GFP_KERNEL);
	if (!rule->name) {
		err = -ENOMEM;
		goto out_free;
	}
	kfree(buf);
	rule->scope = spec->scope;
	rule->flags = spec->flags;
	return 0;

out_free:
	kfree(buf);
out_put:
	path_put(&rule->path);
	rule->path = (struct path){};
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

/* Rules are zeroed until filled in, so a partly built policy can be freed. */
static struct denywrite_policy *policy_alloc(size_t count)
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
	kfree(policy);
}

/* The rule for @dentry among the first @count, if it has a bit of @scope. */
static const struct denywrite_rule *
find_object(const struct denywrite_policy *policy, size_t count,
	    const struct dentry *dentry, u8 scope)
{
	size_t i;

	for (i = 0; i < count; i++) {
		const struct denywrite_rule *rule = &policy->rules[i];

		if ((rule->scope & scope) && rule->path.dentry == dentry)
			return rule;
	}
	return NULL;
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
 * for one object are refused.
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
	policy = policy_alloc(lines);
	if (IS_ERR(policy))
		return policy;

	while ((line = strsep(&text, "\n"))) {
		struct denywrite_rule *rule = &policy->rules[filled];

		if (is_blank_line(line))
			continue;
		err = denywrite_parse_rule(line, &spec);
		if (err)
			break;
		err = rule_init(rule, &spec);
		if (err)
			break;
		filled++;
		if (find_object(policy, filled - 1, rule->path.dentry,
				DENYWRITE_SCOPE_ALL)) {
			err = -EINVAL;
			break;
		}
	}
	policy->count = filled;
	if (err) {
		denywrite_policy_free(policy);
		return ERR_PTR(err);
	}
	return policy;
}

static void policy_update_scopes(struct denywrite_policy *policy)
{
	size_t i;

	policy->scopes = 0;
	for (i = 0; i < policy->count; i++)
		policy->scopes |= policy->rules[i].scope;
}

/**
 * denywrite_policy_current - the published policy
 *
 * Call inside srcu_read_lock(&denywrite_policy_srcu).
 *
 * Return: the policy, or NULL when there are no rules.
 */
struct denywrite_policy *denywrite_policy_current(void)
{
	return srcu_dereference(denywrite_policy, &denywrite_policy_srcu);
}

/* Publish @policy, wait for readers of the old one, free it. */
static void policy_swap_locked(struct denywrite_policy *policy)
{
	struct denywrite_policy *old;

	lockdep_assert_held(&denywrite_policy_mutex);
	if (policy && !policy->count) {
		denywrite_policy_free(policy);
		policy = NULL;
	}
	if (policy)
		policy_update_scopes(policy);
	old = rcu_replace_pointer(denywrite_policy, policy,
				  lockdep_is_held(&denywrite_policy_mutex));
	synchronize_srcu(&denywrite_policy_srcu);
	denywrite_policy_free(old);
}

/**
 * denywrite_policy_replace - publish a new policy, replacing the whole set
 * @policy: from denywrite_policy_parse(); ownership passes to the caller's
 *          successor, the old policy is freed after readers are done
 */
void denywrite_policy_replace(struct denywrite_policy *policy)
{
	mutex_lock(&denywrite_policy_mutex);
	policy_swap_locked(policy);
	mutex_unlock(&denywrite_policy_mutex);
}

static struct denywrite_policy *
policy_copy_except(const struct denywrite_policy *old, size_t extra,
		   const struct denywrite_rule *skip)
{
	size_t count = old ? old->count : 0;
	struct denywrite_policy *policy;
	size_t i, j = 0;

	policy = policy_alloc(count + extra - !!skip);
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
 *
 * Return: 0, -EEXIST if a rule for the same object exists, or the errors
 * of denywrite_policy_parse().
 */
int denywrite_policy_add(char *line)
{
	struct denywrite_policy *old, *policy;
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
	old = rcu_dereference_protected(denywrite_policy,
					lockdep_is_held(&denywrite_policy_mutex));
	if (old && find_object(old, old->count, rule.path.dentry,
			       DENYWRITE_SCOPE_ALL)) {
		err = -EEXIST;
		goto out_unlock;
	}
	policy = policy_copy_except(old, 1, NULL);
	if (IS_ERR(policy)) {
		err = PTR_ERR(policy);
		goto out_unlock;
	}
	policy->rules[policy->count - 1] = rule;
	rule = (struct denywrite_rule){};
	policy_swap_locked(policy);
out_unlock:
	mutex_unlock(&denywrite_policy_mutex);
	rule_destroy(&rule);
	return err;
}

/**
 * denywrite_policy_del - remove the rule printed with PATH @name
 * @name: the canonical path, exactly as the rules file shows it
 *
 * Return: 0, -ENOENT if no rule has that path, -ENOMEM.
 */
int denywrite_policy_del(char *name)
{
	struct denywrite_policy *old, *policy;
	const struct denywrite_rule *victim = NULL;
	int err = 0;
	size_t i;

	mutex_lock(&denywrite_policy_mutex);
	old = rcu_dereference_protected(denywrite_policy,
					lockdep_is_held(&denywrite_policy_mutex));
	for (i = 0; old && i < old->count && !victim; i++)
		if (!strcmp(old->rules[i].name, name))
			victim = &old->rules[i];
	if (!victim) {
		err = -ENOENT;
		goto out_unlock;
	}
	policy = policy_copy_except(old, 0, victim);
	if (IS_ERR(policy)) {
		err = PTR_ERR(policy);
		goto out_unlock;
	}
	policy_swap_locked(policy);
out_unlock:
	mutex_unlock(&denywrite_policy_mutex);
	return err;
}

/**
 * denywrite_policy_match_dentry - most specific rule above @dentry
 * @policy: the policy, or NULL
 * @dentry: where to start
 * @scope: DENYWRITE_SCOPE_* bits the rule must have one of
 *
 * Walks up the dentry tree of @dentry's filesystem only, under RCU and
 * rename_lock; it does not sleep.
 *
 * Return: the rule, valid inside the caller's SRCU read-side section, or
 * NULL.
 */
const struct denywrite_rule *
denywrite_policy_match_dentry(const struct denywrite_policy *policy,
			      struct dentry *dentry, u8 scope)
{
	const struct denywrite_rule *rule;
	struct dentry *d;
	unsigned int seq;

	if (!policy || !(policy->scopes & scope))
		return NULL;
	rcu_read_lock();
	do {
		seq = read_seqbegin(&rename_lock);
		for (d = dentry;; d = READ_ONCE(d->d_parent)) {
			rule = find_object(policy, policy->count, d, scope);
			if (rule || IS_ROOT(d))
				break;
		}
	} while (read_seqretry(&rename_lock, seq));
	rcu_read_unlock();
	return rule;
}

/**
 * denywrite_policy_match - most specific rule covering @start
 * @policy: the policy, or NULL
 * @start: the file's path
 * @scope: DENYWRITE_SCOPE_* bits the rule must have one of
 *
 * Walks the dentry tree of each filesystem up to its root, then crosses to
 * the parent mount, up to the root of the mount namespace.  May sleep.
 *
 * Return: the rule, valid inside the caller's SRCU read-side section, or
 * NULL.
 */
const struct denywrite_rule *
denywrite_policy_match(const struct denywrite_policy *policy,
		       const struct path *start, u8 scope)
{
	const struct denywrite_rule *rule;
	struct path path;

	if (!policy || !(policy->scopes & scope))
		return NULL;
	path = *start;
	path_get(&path);
	for (;;) {
		rule = denywrite_policy_match_dentry(policy, path.dentry, scope);
		if (rule || !follow_up(&path))
			break;
	}
	path_put(&path);
	return rule;
}
