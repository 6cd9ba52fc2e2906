// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: rule parser, policy objects and matching
 *
 * A rule names a directory or a file: an object, held by its inode.  It
 * covers its object and everything beneath it, whichever path reaches the
 * file: matching compares kernel objects, never path strings.  From the
 * file, it walks up the dentry tree of the file's filesystem to that
 * filesystem's root (so a bind mount of any subdirectory, a chroot or
 * another mount namespace still reaches the rule's object), then crosses
 * to the mount point in the parent mount and goes on there (so a rule
 * covers the filesystems mounted beneath it), up to the top of the mount
 * tree: see denywrite_policy_walk().  A file that the kernel reached by a
 * file handle (open_by_handle_at()) may have a dentry disconnected from
 * its parent directory: the walk goes on from its mount, and the rules
 * between that mount's root and the file do not cover it.
 *
 * A rule is named by the absolute path of its object when it was made,
 * as d_absolute_path() gives it: the path from the root of the mount
 * namespace the object is in, whatever chroot the writer is in.  What no
 * such root reaches (a detached or lazily unmounted tree, an open_tree()
 * clone, memfd and other internal mounts, an unlinked file) has no name and
 * cannot be a rule: ENOENT.  Nor can what is not under the writer's root
 * (/proc/PID/root of a container, whose names are that tree's, where "/"
 * would be the root rule; a path out of a chroot): EXDEV.  A policy has
 * at most one rule of each object and of each name.  In the text formats,
 * a name's control characters and backslashes, and a trailing space, are
 * a backslash and three octal digits, as in /proc/mounts:
 * denywrite_rule_format(), and denywrite_parse_rule() for the other way.
 *
 * The rule whose name is "/" is the root rule.  It names no object: it
 * covers every file on the system, however it is reached, including files
 * that no walk from the namespace root reaches (memfd and other internal
 * mounts, detached and lazily unmounted trees, the old root after a
 * pivot_root).  "/" resolved in an initcall, or after a switch of the root,
 * is thus always the same rule, and the boot policy needs no root mounted.
 *
 * A rule references its object's inode, never its dentry or its mount, so
 * that it never keeps a filesystem from being unmounted.  When a
 * filesystem goes away, the rules on it are removed from the policy (see
 * denywrite_policy_unmount()) and listed as gone until the next write of
 * the whole policy.  A change keeps the mounts of the paths it resolved
 * referenced until it is published, so that an unmount that comes after
 * finds its rules.
 *
 * A lookup stays read-only.  Each policy indexes its other rules by the
 * address of their inode, in an open addressing hash table built when the
 * policy is made, at most a quarter full, so each step of the walk costs
 * one probe whatever the number of rules; each filesystem is walked under
 * RCU without taking any reference; and a policy whose rules for a scope
 * are all the root rule needs no walk at all.  Nothing is written to
 * memory shared with other CPUs unless a rename or a mount change races
 * with the walk.
 *
 * Policies are immutable once published.  A change resolves its paths
 * first, without a lock (so that a hung automount blocks nothing else),
 * then makes a new policy under denywrite_policy_mutex, swaps the pointer,
 * waits for an RCU grace period and an SRCU one (wait_for_readers()) and
 * frees the old one, so a reader always sees one whole policy.
 */

#include <crypto/sha2.h>
#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
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
/* The published policy; see denywrite_policy_current(). */
struct denywrite_policy __rcu *denywrite_policy_now;
static DEFINE_MUTEX(denywrite_policy_mutex);
/* The published policy's scopes; see denywrite_policy_scopes(). */
u8 denywrite_policy_scopes_now;
/*
 * The scopes that the published policy's root rule alone covers, and its
 * flags in the high byte; see denywrite_policy_root_alone().
 */
u16 denywrite_policy_root_now;
/*
 * The rules unmounts removed since the last load, as the rules file would
 * print them: the newest DENYWRITE_GONE_MAX in a ring, and how many there
 * were.  Under denywrite_policy_mutex.
 */
static char *gone[DENYWRITE_GONE_MAX];
static size_t gone_count;

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
static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static bool has_control_char(const char *s)
{
	for (; *s; s++)
		if (is_control(*s))
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

/*
 * Replace the escapes of @s in place: a backslash and three octal digits
 * are one byte, 001 to 377.  -EINVAL for any other backslash.
 */
static int unescape(char *s)
{
	char *out = s;
	unsigned int c;

	while (*s) {
		if (*s != '\\') {
			*out++ = *s++;
			continue;
		}
		if (!isodigit(s[1]) || !isodigit(s[2]) || !isodigit(s[3]))
			return -EINVAL;
		c = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
		if (!c || c > 0xff)
			return -EINVAL;
		*out++ = c;
		s += 4;
	}
	*out = '\0';
	return 0;
}

/**
 * denywrite_parse_rule - parse one rule line
 * @line: the line, NUL-terminated, without its newline; modified in place
 * @spec: filled in on success; @spec->path points into @line
 *
 * The syntax is "SCOPE[,ignore-writers] PATH": SCOPE is exec, lib or all,
 * one run of spaces or tabs follows, and PATH is the rest of the line.  PATH
 * must be absolute, free of control characters, must not end in white
 * space, and its escapes (a backslash and three octal digits) must give a
 * path shorter than PATH_MAX.  Nothing is resolved here.
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
	if (path[0] != '/' || is_blank(path[len - 1]) || has_control_char(path) ||
	    unescape(path))
		return -EINVAL;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	spec->path = path;
	return 0;
}

/* Text written into a buffer of @size bytes, as snprintf() would. */
struct text {
	char *buf;
	size_t size;
	size_t len;
};

static void text_putc(struct text *t, char c)
{
	if (t->len + 1 < t->size)
		t->buf[t->len] = c;
	t->len++;
}

static void text_puts(struct text *t, const char *s)
{
	while (*s)
		text_putc(t, *s++);
}

/* @name, with its control characters, backslashes and last space escaped. */
static void text_put_name(struct text *t, const char *name)
{
	unsigned char c;

	for (; (c = *name); name++) {
		if (is_control(c) || c == '\\' || (c == ' ' && !name[1])) {
			text_putc(t, '\\');
			text_putc(t, '0' + (c >> 6));
			text_putc(t, '0' + ((c >> 3) & 7));
			text_putc(t, '0' + (c & 7));
		} else {
			text_putc(t, c);
		}
	}
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
	struct text t = { .buf = buf, .size = size };

	text_puts(&t, denywrite_scope_name(rule->scope));
	if (rule->flags & DENYWRITE_RULE_IGNORE_WRITERS)
		text_puts(&t, "," DENYWRITE_IGNORE_WRITERS);
	text_putc(&t, ' ');
	text_put_name(&t, rule->name);
	text_putc(&t, '\n');
	if (size)
		buf[min(t.len, size - 1)] = '\0';
	return t.len;
}

static bool rule_is_root(const struct denywrite_rule *rule)
{
	return !strcmp(rule->name, "/");
}

/*
 * Is @path under the writer's root?  Another mount namespace's tree,
 * reached through /proc/PID/root or a descriptor passed over, is not,
 * even when its root is mounted where the writer's is (every namespace's
 * tree hangs from its copy of rootfs): its names are its own, its "/" is
 * not the writer's, its /usr/lib another directory than the one the
 * writer's /usr/lib names.  Nor is what lies outside a chrooted writer's
 * root.  The copy of a tree that unshare(CLONE_NEWNS) makes holds the
 * writer's root and everything under it.
 */
static bool in_writer_tree(const struct path *path)
{
	struct path root;
	bool under;

	get_fs_root(current->fs, &root);
	under = path_is_under(path, &root);
	path_put(&root);
	return under;
}

/*
 * The name of the object at @path: its absolute path from the root of its
 * mount namespace; -ENOENT if no such root reaches it, -EXDEV if it is
 * not under the writer's root (a container's "/" would be the root rule).
 */
static int object_name(const struct path *path, char **name)
{
	char *buf, *p;
	int err = 0;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	p = d_absolute_path(path, buf, PATH_MAX);
	if (IS_ERR(p)) {
		err = PTR_ERR(p) == -EINVAL ? -ENOENT : PTR_ERR(p);
	} else if (p[0] != '/' || d_unlinked(path->dentry)) {
		err = -ENOENT;
	} else if (!in_writer_tree(path)) {
		err = -EXDEV;
	} else {
		*name = kstrdup(p, GFP_KERNEL);
		if (!*name)
			err = -ENOMEM;
	}
	kfree(buf);
	return err;
}

/*
 * Resolve @spec with the caller's credentials and root into @rule.  The
 * path stays referenced in @pin, for the caller to put once the policy
 * that holds the rule is published.
 */
static int rule_resolve(struct denywrite_rule *rule,
			const struct denywrite_rule_spec *spec, struct path *pin)
{
	int err;

	err = kern_path(spec->path, LOOKUP_FOLLOW, pin);
	if (err)
		return err;
	err = object_name(pin, &rule->name);
	if (err) {
		path_put(pin);
		*pin = (struct path){};
		return err;
	}
	if (!rule_is_root(rule)) {
		rule->inode = d_inode(pin->dentry);
		ihold(rule->inode);
	}
	rule->scope = spec->scope;
	rule->flags = spec->flags;
	return 0;
}

static void rule_destroy(struct denywrite_rule *rule)
{
	iput(rule->inode);
	kfree(rule->name);
}

static int rule_copy(struct denywrite_rule *dst,
		     const struct denywrite_rule *src)
{
	dst->name = kstrdup(src->name, GFP_KERNEL);
	if (!dst->name)
		return -ENOMEM;
	dst->inode = src->inode;
	if (dst->inode)
		ihold(dst->inode);
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
 *
 * Context: may sleep (puts the rules' inodes).
 */
VISIBLE_IF_KUNIT void denywrite_policy_free(struct denywrite_policy *policy)
{
	size_t i;

	if (!policy)
		return;
	for (i = 0; i < policy->count; i++)
		rule_destroy(&policy->rules[i]);
	kvfree(policy->index);
	kfree(policy);
}

/* The slot of @inode in the index: its rule, or the empty slot for it. */
static const struct denywrite_rule **
index_slot(const struct denywrite_policy *policy, const struct inode *inode)
{
	u32 mask = (1U << policy->index_bits) - 1;
	u32 i = hash_ptr(inode, policy->index_bits);

	while (policy->index[i] && READ_ONCE(policy->index[i]->inode) != inode)
		i = (i + 1) & mask;
	return &policy->index[i];
}

/*
 * The rule on @inode, whose home slot in the index holds another rule's:
 * out of line, as such a collision is rare in an index a quarter full.
 */
static noinline const struct denywrite_rule *
index_probe_on(const struct denywrite_policy *policy, const struct inode *inode)
{
	return *index_slot(policy, inode);
}

/*
 * The rule whose object is @inode in @policy's index, gone or not, or
 * NULL.  Inline, as the walk calls it at each directory: its home slot is
 * read here, and most often empty; the probe on is index_probe_on().
 */
static __always_inline const struct denywrite_rule *
index_lookup(const struct denywrite_policy *policy, const struct inode *inode)
{
	const struct denywrite_rule *rule;

	rule = policy->index[hash_ptr(inode, policy->index_bits)];
	if (unlikely(rule) && READ_ONCE(rule->inode) != inode)
		rule = index_probe_on(policy, inode);
	return rule;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * denywrite_policy_find - the rule on @dentry's object itself
 * @policy: an indexed policy (see denywrite_policy_finish())
 * @dentry: the object
 *
 * The index alone, for the KUnit tests, read as the walk reads it
 * (index_lookup()).
 *
 * Return: the rule whose object is @dentry's inode, or NULL; never the
 * root rule, nor a rule whose filesystem went away.
 */
const struct denywrite_rule *
denywrite_policy_find(const struct denywrite_policy *policy,
		      const struct dentry *dentry)
{
	const struct inode *inode = d_inode_rcu(dentry);
	const struct denywrite_rule *rule;

	if (!policy->index || !inode)
		return NULL;
	rule = index_lookup(policy, inode);
	return rule && !READ_ONCE(rule->gone) ? rule : NULL;
}
#endif

/* Reject two rules of one name, comparing name hashes first. */
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
 * Return: 0, -EEXIST if two rules name one object or have one name,
 * -ENOMEM.
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
			if (!S_ISDIR(rule->inode->i_mode))
				policy->file_scopes |= rule->scope;
			n++;
		}
	}
	if (n) {
		policy->index_bits = max(ilog2(roundup_pow_of_two(n)) + 2,
					 DENYWRITE_INDEX_MIN_BITS);
		policy->index = kvcalloc(1U << policy->index_bits,
					 sizeof(*policy->index), GFP_KERNEL);
		if (!policy->index)
			return -ENOMEM;
	}
	for (i = 0; i < policy->count; i++) {
		const struct denywrite_rule *rule = &policy->rules[i];
		const struct denywrite_rule **slot;

		if (rule_is_root(rule))
			continue;
		slot = index_slot(policy, rule->inode);
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

/* Put the paths a change resolved, once it is published (or failed). */
static void pins_put(struct path *pins, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		path_put(&pins[i]);
	kfree(pins);
}

/*
 * Build a policy from its text, and the paths it resolved: see
 * denywrite_policy_load().  *@pins holds *@count paths to put.
 */
static struct denywrite_policy *policy_parse(char *text, struct path **pins,
					     size_t *count)
{
	struct denywrite_policy *policy;
	struct denywrite_rule_spec spec;
	size_t lines = 0, filled = 0;
	char *line, *rest;
	int err = 0;

	*pins = NULL;
	*count = 0;
	for (rest = text; (line = rest);) {
		rest = strchr(line, '\n');
		if (rest)
			*rest = '\0';
		lines += !is_blank_line(line);
		if (rest)
			*rest++ = '\n';
	}
	policy = denywrite_policy_alloc(lines);
	if (IS_ERR(policy))
		return policy;
	*pins = kcalloc(lines, sizeof(**pins), GFP_KERNEL);
	if (lines && !*pins) {
		kfree(policy);
		return ERR_PTR(-ENOMEM);
	}
	while ((line = strsep(&text, "\n"))) {
		if (is_blank_line(line))
			continue;
		err = denywrite_parse_rule(line, &spec);
		if (!err)
			err = rule_resolve(&policy->rules[filled], &spec,
					   &(*pins)[filled]);
		if (err)
			break;
		filled++;
	}
	policy->count = filled;
	*count = filled;
	if (!err)
		err = denywrite_policy_finish(policy);
	if (err) {
		denywrite_policy_free(policy);
		pins_put(*pins, filled);
		*pins = NULL;
		*count = 0;
		return ERR_PTR(err == -EEXIST ? -EINVAL : err);
	}
	return policy;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * denywrite_policy_parse - build a policy from its text
 * @text: NUL-terminated rules, one per line; modified in place
 *
 * As denywrite_policy_load() parses, without publishing: for the tests.
 *
 * Return: the new, unpublished policy, or an ERR_PTR().
 */
struct denywrite_policy *denywrite_policy_parse(char *text)
{
	struct denywrite_policy *policy;
	struct path *pins;
	size_t count;

	policy = policy_parse(text, &pins, &count);
	if (!IS_ERR(policy))
		pins_put(pins, count);
	return policy;
}
#endif

static struct denywrite_policy *policy_locked(void)
{
	return rcu_dereference_protected(denywrite_policy_now,
					 lockdep_is_held(&denywrite_policy_mutex));
}

/* The value of denywrite_policy_root_now for @policy. */
static u16 policy_root_alone(const struct denywrite_policy *policy)
{
	if (!policy || !policy->root)
		return 0;
	return (policy->root->scope & ~policy->walk_scopes) |
	       policy->root->flags << 8;
}

/* Note in @ch the policy in force now. */
static void change_note_locked(struct denywrite_policy_change *ch)
{
	const struct denywrite_policy *policy;
	static const u8 empty[SHA256_DIGEST_SIZE] = {
		0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14,
		0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
		0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
		0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
	};

	lockdep_assert_held(&denywrite_policy_mutex);
	policy = policy_locked();
	ch->count = policy ? policy->count : 0;
	memcpy(ch->sha256, policy ? policy->sha256 : empty, sizeof(ch->sha256));
}

/* A change that failed before it took the lock: the policy is as it was. */
static int change_failed(struct denywrite_policy_change *ch, int err)
{
	mutex_lock(&denywrite_policy_mutex);
	change_note_locked(ch);
	ch->old_count = ch->count;
	mutex_unlock(&denywrite_policy_mutex);
	return err;
}

/*
 * Wait until no reader can see a policy unpublished before: both kinds of
 * read-side section, RCU first.  A reader that goes on from an RCU
 * section to sleep takes the SRCU section before it leaves the RCU one
 * (denywrite_use_covered()): once the RCU grace period is over, every
 * reader of the old policy is either done or in an SRCU section that
 * began before synchronize_srcu() was called, which waits for it.
 */
static void wait_for_readers(void)
{
	synchronize_rcu();
	synchronize_srcu(&denywrite_policy_srcu);
}

/* Publish @policy, wait for readers of the old one, free it. */
static void policy_swap_locked(struct denywrite_policy *policy,
			       struct denywrite_policy_change *ch)
{
	struct denywrite_policy *old;

	lockdep_assert_held(&denywrite_policy_mutex);
	old = rcu_replace_pointer(denywrite_policy_now, policy,
				  lockdep_is_held(&denywrite_policy_mutex));
	WRITE_ONCE(denywrite_policy_scopes_now, policy ? policy->scopes : 0);
	WRITE_ONCE(denywrite_policy_root_now, policy_root_alone(policy));
	ch->old_count = old ? old->count : 0;
	change_note_locked(ch);
	if (!old)
		return;
	wait_for_readers();
	denywrite_policy_free(old);
}

/*
 * Index @policy, a changed copy of the published one (or an error from
 * making it), and publish it; freed if it cannot be indexed.
 */
static int policy_publish_locked(struct denywrite_policy *policy,
				 struct denywrite_policy_change *ch)
{
	int err = PTR_ERR_OR_ZERO(policy);

	lockdep_assert_held(&denywrite_policy_mutex);
	if (!err) {
		err = denywrite_policy_finish(policy);
		if (err)
			denywrite_policy_free(policy);
		else
			policy_swap_locked(policy, ch);
	}
	if (err) {
		change_note_locked(ch);
		ch->old_count = ch->count;
	}
	return err;
}

static void gone_clear_locked(void)
{
	size_t i;

	lockdep_assert_held(&denywrite_policy_mutex);
	for (i = 0; i < ARRAY_SIZE(gone); i++) {
		kfree(gone[i]);
		gone[i] = NULL;
	}
	gone_count = 0;
}

/**
 * denywrite_policy_load - replace the whole policy
 * @text: NUL-terminated rules, one per line; blank lines are skipped;
 *        modified in place
 * @ch: set to what the change did
 *
 * Every PATH is resolved with the caller's credentials and root, before
 * any lock is taken.  The list of gone rules starts afresh.
 *
 * Return: 0, -EINVAL for a syntax error or two rules for one object or of
 * one name, -ENOENT (or another lookup error) for a path that cannot be
 * resolved or has no name, -E2BIG for more than DENYWRITE_MAX_RULES rules,
 * -ENOMEM.
 */
int denywrite_policy_load(char *text, struct denywrite_policy_change *ch)
{
	struct denywrite_policy *policy;
	struct path *pins;
	size_t count;

	policy = policy_parse(text, &pins, &count);
	if (IS_ERR(policy))
		return change_failed(ch, PTR_ERR(policy));
	mutex_lock(&denywrite_policy_mutex);
	policy_swap_locked(policy, ch);
	gone_clear_locked();
	mutex_unlock(&denywrite_policy_mutex);
	pins_put(pins, count);
	return 0;
}

/*
 * A copy of @old without @skip and without the rules that are gone, with
 * @extra zeroed rules at the end.
 */
static struct denywrite_policy *
policy_copy_except(const struct denywrite_policy *old, size_t extra,
		   const struct denywrite_rule *skip)
{
	size_t count = old ? old->count : 0, kept = 0;
	struct denywrite_policy *policy;
	size_t i, j = 0;

	for (i = 0; i < count; i++)
		kept += &old->rules[i] != skip && !old->rules[i].gone;
	policy = denywrite_policy_alloc(kept + extra);
	if (IS_ERR(policy))
		return policy;
	for (i = 0; i < count; i++) {
		if (&old->rules[i] == skip || old->rules[i].gone)
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
 * @ch: set to what the change did
 *
 * Return: 0, -EEXIST if a rule for the same object or with the same name
 * exists, or the errors of denywrite_policy_load().
 */
int denywrite_policy_add(char *line, struct denywrite_policy_change *ch)
{
	struct denywrite_policy *policy;
	struct denywrite_rule_spec spec;
	struct denywrite_rule rule = {};
	struct path pin = {};
	int err;

	err = denywrite_parse_rule(line, &spec);
	if (!err)
		err = rule_resolve(&rule, &spec, &pin);
	if (err)
		return change_failed(ch, err);

	mutex_lock(&denywrite_policy_mutex);
	policy = policy_copy_except(policy_locked(), 1, NULL);
	if (!IS_ERR(policy)) {
		policy->rules[policy->count - 1] = rule;
		rule = (struct denywrite_rule){};
	}
	err = policy_publish_locked(policy, ch);
	mutex_unlock(&denywrite_policy_mutex);
	rule_destroy(&rule);
	path_put(&pin);
	return err;
}

/**
 * denywrite_policy_del - remove one rule of the published policy
 * @text: a PATH as the rules file prints it (escaped); modified in place
 * @ch: set to what the change did
 *
 * The rule on the object that PATH resolves to, with the caller's
 * credentials and root; else the rule named PATH (its object may be gone,
 * or moved).
 *
 * Return: 0, -ENOENT if there is no such rule, -EINVAL for a bad escape,
 * -ENOMEM.
 */
int denywrite_policy_del(char *text, struct denywrite_policy_change *ch)
{
	const struct denywrite_rule *victim = NULL;
	struct denywrite_policy *old, *policy;
	const struct inode *inode = NULL;
	struct path path = {};
	bool root = false;
	char *name = NULL;
	int err = 0;
	size_t i;

	if (unescape(text))
		return change_failed(ch, -EINVAL);
	if (text[0] == '/' && !kern_path(text, LOOKUP_FOLLOW, &path)) {
		if (!object_name(&path, &name)) {
			root = !strcmp(name, "/");
			inode = d_inode(path.dentry);
			kfree(name);
		}
	}

	mutex_lock(&denywrite_policy_mutex);
	old = policy_locked();
	for (i = 0; old && i < old->count && !victim; i++) {
		const struct denywrite_rule *rule = &old->rules[i];

		if (inode && !rule->gone &&
		    (root ? rule_is_root(rule) : rule->inode == inode))
			victim = rule;
	}
	for (i = 0; old && i < old->count && !victim; i++)
		if (!old->rules[i].gone && !strcmp(old->rules[i].name, text))
			victim = &old->rules[i];
	if (victim) {
		policy = policy_copy_except(old, 0, victim);
		err = policy_publish_locked(policy, ch);
	} else {
		err = -ENOENT;
		change_note_locked(ch);
		ch->old_count = ch->count;
	}
	mutex_unlock(&denywrite_policy_mutex);
	path_put(&path);
	return err;
}

/* Is @rule on @sb, and still there? */
static bool rule_on(const struct denywrite_rule *rule,
		    const struct super_block *sb)
{
	const struct inode *inode = READ_ONCE(rule->inode);

	return inode && inode->i_sb == sb && !READ_ONCE(rule->gone);
}

/* Has the published policy a rule on @sb? */
static bool policy_has_rules_on(const struct super_block *sb)
{
	const struct denywrite_policy *policy;
	bool found = false;
	size_t i;
	int idx;

	idx = srcu_read_lock(&denywrite_policy_srcu);
	policy = denywrite_policy_current();
	for (i = 0; policy && i < policy->count && !found; i++)
		found = rule_on(&policy->rules[i], sb);
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return found;
}

/* Keep @rule's line in the gone list. */
static void gone_add_locked(const struct denywrite_rule *rule)
{
	size_t slot = gone_count++ % DENYWRITE_GONE_MAX;
	int len = denywrite_rule_format(rule, NULL, 0);

	lockdep_assert_held(&denywrite_policy_mutex);
	kfree(gone[slot]);
	gone[slot] = kmalloc(len + 1, GFP_KERNEL);
	if (gone[slot])
		denywrite_rule_format(rule, gone[slot], len + 1);
}

/**
 * denywrite_policy_unmount - remove the rules on a filesystem going away
 * @sb: the filesystem, being shut down (sb_delete)
 * @ch: set to what the change did, if it removed any rule
 *
 * A rule references only its object's inode, so its filesystem can be
 * unmounted; the inode must be put before the filesystem is gone.  The
 * rules on @sb are marked gone first, so that no lookup matches them once
 * their inodes are free, then a policy without them is published (or,
 * if it cannot be made, the inodes are put once no lookup can use them).
 * They are listed in the gone file until the next load.
 *
 * Return: the number of rules removed.
 */
int denywrite_policy_unmount(struct super_block *sb,
			     struct denywrite_policy_change *ch)
{
	struct denywrite_policy *old, *policy;
	int removed = 0;
	size_t i;

	/* A change publishes its rules before it lets their mounts go. */
	if (!policy_has_rules_on(sb))
		return 0;
	mutex_lock(&denywrite_policy_mutex);
	old = policy_locked();
	for (i = 0; old && i < old->count; i++) {
		struct denywrite_rule *rule = &old->rules[i];

		if (!rule_on(rule, sb))
			continue;
		WRITE_ONCE(rule->gone, true);
		gone_add_locked(rule);
		removed++;
	}
	/* A change published before we took the lock may have none left. */
	if (!removed) {
		mutex_unlock(&denywrite_policy_mutex);
		return 0;
	}
	policy = policy_copy_except(old, 0, NULL);
	if (!IS_ERR(policy) && !denywrite_policy_finish(policy)) {
		policy_swap_locked(policy, ch);
	} else {
		if (!IS_ERR(policy))
			denywrite_policy_free(policy);
		change_note_locked(ch);
		ch->old_count = ch->count;
		wait_for_readers();
		for (i = 0; i < old->count; i++) {
			struct denywrite_rule *rule = &old->rules[i];

			if (rule->gone && rule->inode &&
			    rule->inode->i_sb == sb) {
				iput(rule->inode);
				WRITE_ONCE(rule->inode, NULL);
			}
		}
	}
	mutex_unlock(&denywrite_policy_mutex);
	return removed;
}

/**
 * denywrite_policy_gone_show - print the rules unmounts removed
 * @m: where to print, in the rules syntax, the oldest first
 *
 * The newest DENYWRITE_GONE_MAX since the last load.
 */
void denywrite_policy_gone_show(struct seq_file *m)
{
	size_t i, n;

	mutex_lock(&denywrite_policy_mutex);
	n = min_t(size_t, gone_count, DENYWRITE_GONE_MAX);
	for (i = gone_count - n; i < gone_count; i++)
		if (gone[i % DENYWRITE_GONE_MAX])
			seq_puts(m, gone[i % DENYWRITE_GONE_MAX]);
	mutex_unlock(&denywrite_policy_mutex);
}

/**
 * denywrite_policy_gone_count - how many rules unmounts removed
 *
 * Return: their number since the last load.
 */
size_t denywrite_policy_gone_count(void)
{
	size_t n;

	mutex_lock(&denywrite_policy_mutex);
	n = gone_count;
	mutex_unlock(&denywrite_policy_mutex);
	return n;
}

/**
 * denywrite_policy_classic - publish the classic policy, "exec /"
 *
 * The root rule names no object: this needs no root mounted, and runs when
 * the LSM is initialised, before the first exec.
 *
 * Return: 0 or -ENOMEM.
 */
int __init denywrite_policy_classic(void)
{
	struct denywrite_policy *policy = denywrite_policy_alloc(1);
	struct denywrite_policy_change ch;
	int err;

	if (IS_ERR(policy))
		return PTR_ERR(policy);
	policy->rules[0].name = kstrdup("/", GFP_KERNEL);
	policy->rules[0].scope = DENYWRITE_SCOPE_EXEC;
	err = policy->rules[0].name ? denywrite_policy_finish(policy) : -ENOMEM;
	if (err) {
		denywrite_policy_free(policy);
		return err;
	}
	mutex_lock(&denywrite_policy_mutex);
	policy_swap_locked(policy, &ch);
	mutex_unlock(&denywrite_policy_mutex);
	return 0;
}

/*
 * The rule on @dentry or on one of its ancestors in its filesystem, with
 * @scope, or NULL.  Unlocked, give up (ERR_PTR(-EAGAIN)) as soon as @seq
 * says a rename raced with the walk: a walk that sees renames half done
 * may see no end.  Inline, as walk_filesystem() is: they are the hot path
 * of every executable mapping under a "lib" rule.  The caller walks only
 * a policy with an index (see denywrite_policy_match()), at most a quarter
 * full: at a directory that no rule names, which is every step but the
 * last, the probe most often finds an empty slot at once.
 */
static __always_inline const struct denywrite_rule *
walk_dentries(const struct denywrite_policy *policy,
	      const struct dentry *dentry, u8 scope, unsigned int seq,
	      bool locked)
{
	const struct denywrite_rule *rule;
	const struct dentry *parent;
	unsigned int n = 0;

	/*
	 * No rule of @scope names a file that is not a directory: the walk
	 * from such a file (every file executed or mapped) starts at its
	 * parent.
	 */
	if (!(policy->file_scopes & scope) && !d_is_dir(dentry))
		dentry = READ_ONCE(dentry->d_parent);
	for (;;) {
		const struct inode *inode = d_inode_rcu(dentry);

		rule = inode ? index_lookup(policy, inode) : NULL;
		if (unlikely(rule) && !READ_ONCE(rule->gone) &&
		    (rule->scope & scope))
			return rule;
		parent = READ_ONCE(dentry->d_parent);
		if (parent == dentry)
			return NULL;
		dentry = parent;
		if (!locked && !(++n % 64) && read_seqretry(&rename_lock, seq))
			return ERR_PTR(-EAGAIN);
	}
}

/* The walk of a filesystem again, after a rename raced with it. */
static noinline const struct denywrite_rule *
walk_filesystem_locked(const struct denywrite_policy *policy,
		       const struct dentry *dentry, u8 scope)
{
	const struct denywrite_rule *rule;

	read_seqlock_excl(&rename_lock);
	rule = walk_dentries(policy, dentry, scope, 0, true);
	read_sequnlock_excl(&rename_lock);
	return rule;
}

/*
 * walk_dentries() under the caller's RCU read-side section, without
 * references, checked against rename_lock as is_subdir() does; if a
 * rename raced with it, again with rename_lock held, so that it ends even
 * under a storm of renames.  The ancestors of @dentry, which the caller
 * holds, stay while rename_lock is held.
 */
static __always_inline const struct denywrite_rule *
walk_filesystem(const struct denywrite_policy *policy,
		const struct dentry *dentry, u8 scope)
{
	const struct denywrite_rule *rule;
	unsigned int seq;

	seq = read_seqbegin(&rename_lock);
	rule = walk_dentries(policy, dentry, scope, seq, false);
	if (!IS_ERR(rule) && !read_seqretry(&rename_lock, seq))
		return rule;
	return walk_filesystem_locked(policy, dentry, scope);
}

/*
 * The walk on from the root of @path's filesystem: from the mountpoint of
 * each mount in its parent mount, up to a mount that has no parent.
 * Crossing takes references (follow_up()), so each filesystem is walked
 * in an RCU read-side section of its own.  Out of line: the walk of the
 * file's own filesystem, where most walks end, needs no copy of the path
 * on its stack, nor the stack protector's check that goes with it.
 */
static noinline const struct denywrite_rule *
walk_mounts(const struct denywrite_policy *policy, const struct path *path,
	    u8 scope)
{
	const struct denywrite_rule *rule = NULL;
	struct path p = *path;

	path_get(&p);
	while (follow_up(&p)) {
		rcu_read_lock();
		rule = walk_filesystem(policy, p.dentry, scope);
		rcu_read_unlock();
		if (rule)
			break;
		cond_resched();
	}
	path_put(&p);
	return rule;
}

/**
 * denywrite_policy_walk_rcu - the walk of denywrite_policy_walk() on the
 *                             file's own filesystem
 * @policy: the policy
 * @path: the file's path
 * @scope: DENYWRITE_SCOPE_* bits the rule must have one of; some rule
 *         other than the root rule has one of them
 *
 * The part of the walk that never sleeps: the file and its ancestors up to
 * the root of its filesystem, where most walks end, at the file's rule or
 * at the root.  Each filesystem is walked by walk_filesystem(), which
 * writes nothing to memory shared with other CPUs unless a rename races
 * with it.
 *
 * Context: in an RCU read-side section (or the policy's SRCU section and
 * an RCU one).
 * Return: the rule, NULL if none covers the file (@path has no mount, and
 * the root rule does not have @scope), or ERR_PTR(-EAGAIN) if the walk
 * has to go on across mounts: denywrite_policy_walk_mounts().
 */
const struct denywrite_rule *
denywrite_policy_walk_rcu(const struct denywrite_policy *policy,
			  const struct path *path, u8 scope)
{
	const struct denywrite_rule *rule;

	rule = walk_filesystem(policy, path->dentry, scope);
	if (rule)
		return rule;
	if (path->mnt)
		return ERR_PTR(-EAGAIN);
	return denywrite_policy_root(policy, scope);
}

/**
 * denywrite_policy_walk_mounts - the rest of denywrite_policy_walk()
 * @policy: the policy
 * @path: the file's path, whose own filesystem has no rule with @scope
 *        on the file or its ancestors (denywrite_policy_walk_rcu())
 * @scope: DENYWRITE_SCOPE_* bits the rule must have one of
 *
 * Context: may sleep; in the policy's SRCU read-side section.
 * Return: the rule, valid inside the caller's SRCU read-side section, or
 * NULL.
 */
const struct denywrite_rule *
denywrite_policy_walk_mounts(const struct denywrite_policy *policy,
			     const struct path *path, u8 scope)
{
	return walk_mounts(policy, path, scope) ?:
	       denywrite_policy_root(policy, scope);
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
 * the root rule if it has @scope.  Crossing to the parent mount takes
 * references; most walks end on the file's own filesystem, at its rule or
 * at the root, and cross nothing.
 *
 * Context: may sleep; in the policy's SRCU read-side section.
 * Return: the rule, valid inside the caller's SRCU read-side section, or
 * NULL.
 */
const struct denywrite_rule *
denywrite_policy_walk(const struct denywrite_policy *policy,
		      const struct path *path, u8 scope)
{
	const struct denywrite_rule *rule;

	rcu_read_lock();
	rule = denywrite_policy_walk_rcu(policy, path, scope);
	rcu_read_unlock();
	if (IS_ERR(rule))
		rule = denywrite_policy_walk_mounts(policy, path, scope);
	return rule;
}
