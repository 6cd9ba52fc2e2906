/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: rules and policies
 */

#ifndef _SECURITY_DENYWRITE_POLICY_H
#define _SECURITY_DENYWRITE_POLICY_H

#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/srcu.h>
#include <linux/types.h>

#define DENYWRITE_SCOPE_EXEC	BIT(0)	/* files run by execve */
#define DENYWRITE_SCOPE_LIB	BIT(1)	/* files mapped executable */
#define DENYWRITE_SCOPE_ALL	(DENYWRITE_SCOPE_EXEC | DENYWRITE_SCOPE_LIB)

/* Executing or mapping a covered file that is open for writing is allowed. */
#define DENYWRITE_RULE_IGNORE_WRITERS	BIT(0)
#define DENYWRITE_IGNORE_WRITERS	"ignore-writers"

/* Largest policy accepted in one write to securityfs. */
#define DENYWRITE_POLICY_MAX	65536
/* Upper bound on the number of rules in a policy. */
#define DENYWRITE_MAX_RULES	1024
/*
 * Longest line of the rules file: scope, option, blank, a path whose every
 * byte may be escaped (four bytes each), newline.
 */
#define DENYWRITE_RULE_LINE_MAX	(4 * PATH_MAX + 32)
/* At least 64 slots in a policy's index of its rules (1 << this). */
#define DENYWRITE_INDEX_MIN_BITS	6
/* The rules an unmount removed that the gone file lists, the newest. */
#define DENYWRITE_GONE_MAX	64

/**
 * struct denywrite_rule_spec - one parsed rule line, not yet resolved
 * @path: the PATH field, unescaped, pointing into the parsed line
 * @scope: DENYWRITE_SCOPE_* bits
 * @flags: DENYWRITE_RULE_* bits
 */
struct denywrite_rule_spec {
	const char *path;
	u8 scope;
	u8 flags;
};

/**
 * struct denywrite_rule - a rule of a policy
 * @inode: the object the rule covers, referenced for the rule's lifetime
 *         (not its dentry nor its mount: a rule never keeps a filesystem
 *         from being unmounted, see denywrite_policy_unmount()); NULL for
 *         the root rule, which covers every file
 * @name: the object's absolute path when the rule was made, as
 *        d_absolute_path() gives it (the same whatever chroot or mount
 *        namespace the writer was in), unescaped; "/" for the root rule
 * @scope: DENYWRITE_SCOPE_* bits
 * @flags: DENYWRITE_RULE_* bits
 * @gone: its filesystem went away: it matches nothing (set under the policy
 *        mutex, read by lookups)
 */
struct denywrite_rule {
	struct inode *inode;
	char *name;
	u8 scope;
	u8 flags;
	bool gone;
};

/**
 * struct denywrite_policy - an immutable set of rules
 * @root: the root rule, or NULL
 * @index: the other rules, by the address of their inode: an open
 *         addressing hash table of 1 << @index_bits slots, at most a
 *         quarter full and at least 1 << DENYWRITE_INDEX_MIN_BITS
 * @index_bits: log2 of the number of slots of @index
 * @scopes: union of the rules' scopes
 * @file_scopes: union of the scopes of the rules in @index whose object is
 *               not a directory; the walk from a file that is not a
 *               directory starts at its parent for another scope
 * @walk_scopes: union of the scopes of the rules in @index; a lookup for
 *               another scope needs no walk up the tree
 * @sha256: digest of the policy as the rules file prints it
 * @count: number of rules
 * @rules: the rules, in the order they were given
 *
 * A policy is never changed once published (but for the @gone mark of its
 * rules): writers build a new one and swap it in, readers use it inside
 * denywrite_policy_srcu read-side critical sections, or RCU ones for what
 * never sleeps: a lookup may sleep to cross mounts (see
 * denywrite_policy_walk()), and a writer frees a policy once readers of
 * both kinds are done with it.
 */
struct denywrite_policy {
	const struct denywrite_rule *root;
	const struct denywrite_rule **index;
	unsigned int index_bits;
	u8 scopes;
	u8 file_scopes;
	u8 walk_scopes;
	u8 sha256[32];
	size_t count;
	struct denywrite_rule rules[] __counted_by(count);
};

/**
 * struct denywrite_policy_change - what a change of the policy did
 * @old_count: the number of rules before
 * @count: the number of rules after (before, if it failed)
 * @sha256: the digest of the policy in force after it
 *
 * Noted when the change is published, for its audit record.
 */
struct denywrite_policy_change {
	size_t old_count;
	size_t count;
	u8 sha256[32];
};

extern struct srcu_struct denywrite_policy_srcu;
extern struct denywrite_policy __rcu *denywrite_policy_now;
extern u8 denywrite_policy_scopes_now;
extern u16 denywrite_policy_root_now;

/**
 * denywrite_policy_scopes - the scopes of the published policy
 *
 * A test before any lookup, for the hooks that run on every mapping: no
 * SRCU section, no walk, when no rule could cover the file.  It may be a
 * policy behind a concurrent swap, as a lookup that started first would.
 *
 * Return: the union of the scopes of the rules published now.
 */
static inline u8 denywrite_policy_scopes(void)
{
	return READ_ONCE(denywrite_policy_scopes_now);
}

/**
 * denywrite_policy_root_alone - does the root rule alone cover @scope now?
 * @scope: DENYWRITE_SCOPE_* bit
 * @flags: set to the root rule's DENYWRITE_RULE_* flags if it does
 *
 * When no rule but the root rule has @scope, every file is covered by the
 * root rule, and the hot path of executable mappings under the classic
 * "all /" policy needs no SRCU section and no lookup to know it.  As with
 * denywrite_policy_scopes(), it may be a policy behind a concurrent swap.
 *
 * Return: true if the root rule alone covers @scope.
 */
static inline bool denywrite_policy_root_alone(u8 scope, u8 *flags)
{
	u16 now = READ_ONCE(denywrite_policy_root_now);

	*flags = now >> 8;
	return now & scope;
}

/**
 * denywrite_policy_root - the root rule of @policy, if it has @scope
 * @policy: the policy
 * @scope: DENYWRITE_SCOPE_* bits the rule must have one of
 *
 * Return: the root rule, or NULL.
 */
static inline const struct denywrite_rule *
denywrite_policy_root(const struct denywrite_policy *policy, u8 scope)
{
	if (policy->root && (policy->root->scope & scope))
		return policy->root;
	return NULL;
}

/**
 * denywrite_policy_current - the published policy
 *
 * Call inside srcu_read_lock(&denywrite_policy_srcu) or rcu_read_lock().
 * Inline: every executable mapping under a rule other than the root rule
 * reads it.
 *
 * Return: the policy, or NULL before the first one is published.
 */
static inline struct denywrite_policy *denywrite_policy_current(void)
{
	return srcu_dereference_check(denywrite_policy_now,
				      &denywrite_policy_srcu,
				      rcu_read_lock_held());
}

const struct denywrite_rule *
denywrite_policy_walk(const struct denywrite_policy *policy,
		      const struct path *path, u8 scope);
const struct denywrite_rule *
denywrite_policy_walk_rcu(const struct denywrite_policy *policy,
			  const struct path *path, u8 scope);
const struct denywrite_rule *
denywrite_policy_walk_mounts(const struct denywrite_policy *policy,
			     const struct path *path, u8 scope);

/*
 * Does a lookup in @policy for @scope need a walk?  If not, @rule is set
 * to its answer: the root rule if it has @scope, else NULL.
 */
static inline bool denywrite_policy_walks(const struct denywrite_policy *policy,
					  u8 scope,
					  const struct denywrite_rule **rule)
{
	*rule = NULL;
	if (!policy || !(policy->scopes & scope))
		return false;
	if (policy->walk_scopes & scope)
		return true;
	*rule = denywrite_policy_root(policy, scope);
	return false;
}

/**
 * denywrite_policy_match - most specific rule covering @path
 * @policy: the policy, or NULL
 * @path: the file's path; with no @path->mnt, only the rules on the file's
 *        own filesystem are found (and the root rule)
 * @scope: DENYWRITE_SCOPE_* bits the rule must have one of
 *
 * The rule on the nearest ancestor with @scope (see
 * denywrite_policy_walk()), else the root rule if it has @scope.  Inline,
 * so that a policy where only the root rule has @scope (the classic
 * "exec /", "all /") costs no call and no walk.
 *
 * Context: may sleep.
 * Return: the rule, valid inside the caller's SRCU read-side section, or
 * NULL.
 */
static inline const struct denywrite_rule *
denywrite_policy_match(const struct denywrite_policy *policy,
		       const struct path *path, u8 scope)
{
	const struct denywrite_rule *rule;

	if (denywrite_policy_walks(policy, scope, &rule))
		return denywrite_policy_walk(policy, path, scope);
	return rule;
}

/**
 * denywrite_policy_match_rcu - denywrite_policy_match() without sleeping
 * @policy: the policy, or NULL
 * @path: the file's path
 * @scope: DENYWRITE_SCOPE_* bits the rule must have one of
 *
 * Context: in an RCU read-side section, where @policy was read.
 * Return: as denywrite_policy_match(), or ERR_PTR(-EAGAIN) if the walk
 * has to cross mounts (denywrite_policy_walk_rcu()).
 */
static inline const struct denywrite_rule *
denywrite_policy_match_rcu(const struct denywrite_policy *policy,
			   const struct path *path, u8 scope)
{
	const struct denywrite_rule *rule;

	if (denywrite_policy_walks(policy, scope, &rule))
		return denywrite_policy_walk_rcu(policy, path, scope);
	return rule;
}

int denywrite_parse_rule(char *line, struct denywrite_rule_spec *spec);
int denywrite_rule_format(const struct denywrite_rule *rule, char *buf,
			  size_t size);
const char *denywrite_scope_name(u8 scope);
int denywrite_policy_load(char *text, struct denywrite_policy_change *ch);
int denywrite_policy_add(char *line, struct denywrite_policy_change *ch);
int denywrite_policy_del(char *text, struct denywrite_policy_change *ch);
int denywrite_policy_unmount(struct super_block *sb,
			     struct denywrite_policy_change *ch);
int denywrite_policy_classic(void);
void denywrite_policy_gone_show(struct seq_file *m);
size_t denywrite_policy_gone_count(void);
#if IS_ENABLED(CONFIG_KUNIT)
struct denywrite_policy *denywrite_policy_alloc(size_t count);
int denywrite_policy_finish(struct denywrite_policy *policy);
void denywrite_policy_free(struct denywrite_policy *policy);
struct denywrite_policy *denywrite_policy_parse(char *text);
const struct denywrite_rule *
denywrite_policy_find(const struct denywrite_policy *policy,
		      const struct dentry *dentry);
#endif

#endif /* _SECURITY_DENYWRITE_POLICY_H */
