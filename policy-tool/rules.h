/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules-file model: the policy that the policy files make, and what
 * makes two rules the same.  load, diff, persist and the commands use it;
 * it uses none of them, only the parser (policy.h, which also formats a
 * rule line: rule_format) and the helpers below it.
 *
 * The policy files are those named, or the *.rules files of the rules.d
 * directories merged by name (/etc over /run over /usr/lib: the file of
 * the highest priority masks the others of its name, and a symbolic link
 * to /dev/null or an empty file so masks them with nothing) and read in
 * the order of their names: the load order.  Each rule is resolved to the
 * object it names.  Of the lines for the same object (rule_same), rules
 * and masks ("!PATH"), the one of the last file stands, as a later
 * sysctl.d file overrides a setting: a rule, in the place of the first
 * of them, or a mask, and the object has no rule.  A file has one line an
 * object: a second one in a file is an error (the first stands), be it a
 * rule or a mask, so a file never masks its own rules.  A mask for which
 * no earlier file has a rule masks nothing: a warning, an error with
 * strict.  An optional rule ("-") whose path is missing is left out
 * silently.  Past the kernel's limits the rules of the lowest priority
 * are left out.
 */
#ifndef DENYWRITECTL_RULES_H
#define DENYWRITECTL_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "policy.h"

/*
 * "The same rule", the one meaning of every comparison of two rules:
 * load's merging of the files' rules (and its error for two in one
 * file), diff's, load --dry-run's and list --sources' pairing of the
 * files' rules with the kernel's, and --persist's edit of the lines of
 * 90-local.rules and its look at the other files.
 *
 * Two rules are the same when they name the same object: their paths,
 * resolved, have the same st_dev and st_ino.  So is it for the kernel,
 * which keys its rules by inode and takes one rule an object: a symbolic
 * link, "dir/.", a hard link or a bind mount is another name of the same
 * rule.  A rule whose path cannot be resolved (missing, as an optional
 * rule's may be, or any other lookup error) names no object: it is the
 * same as another rule whose path cannot be resolved either and is the
 * same bytes, as written (a path that does not resolve has no canonical
 * form), and never the same as one that resolves.  Scope and option are
 * not part of it: "exec /x" and "lib /x" are the same rule, of two kinds
 * (diff, for one, compares the kinds of the rules it pairs).
 *
 * rule_resolve looks r's path up as the kernel will (realpath(3), then
 * stat(2)) and sets r->canon and either r->resolved, r->dev and r->ino or
 * r->lookup_err.  rule_same needs both rules resolved so; rule_same_hash
 * is equal for rules that are the same (for struct hindex).
 */
void rule_resolve(struct rule *r);
bool rule_same(const struct rule *a, const struct rule *b);
uint64_t rule_same_hash(const struct rule *r);

/* rule_resolve every rule of p. */
void policy_resolve(struct policy *p);

/*
 * The rules of one policy by what they name: the rule that is the same
 * as another (rule_same), in O(1).  The rules must be resolved and stay
 * where they are while the index is used.
 */
struct rule_index {
	const struct rule *rule;	/* the policy's */
	struct hindex h;
};

/* An empty index of p's rules; rule_index_add indexes them. */
void rule_index_init(struct rule_index *ix, const struct policy *p);
void rule_index_add(struct rule_index *ix, size_t pos);
/* The position of the first rule indexed that is the same as r, or -1. */
long rule_index_find(const struct rule_index *ix, const struct rule *r);
void rule_index_free(struct rule_index *ix);

/* The files a policy is read from, and what becomes of their bad parts. */
struct policy_files {
	const char *cmd;	/* the command, for messages */
	char *const *names;	/* the files named ("-": standard input), */
	size_t n;		/* or none (0): the rules.d directories */
	const char *root;	/* the rules.d directories under it; NULL: / */
	bool in_root;		/* with root: an image's policy, offline:
				 * the rules.d directories, their files and
				 * the rules' paths are resolved in root as
				 * if it were / (openat2's RESOLVE_IN_ROOT:
				 * absolute symbolic links and ".." never
				 * leave it), not as this system sees them */
	bool strict;		/* the first bad part fails it all */
	bool quiet;		/* bad parts are counted, not said; no
				 * warnings */
};

/* One policy file, in load order (cat-config shows them all). */
struct source {
	char *name;	/* for messages: the path, or "<stdin>" */
	char *path;	/* to open; NULL for standard input */
	char *rel;	/* in_root: its path in the root; else NULL */
	const char *base;	/* the file name, in path */
	unsigned int tier;	/* its rules.d directory: 0 (/etc) for the
				 * highest priority; 0 for a named file */
	const char *masked_by;	/* the name of the file of the same name of
				 * a higher priority, which masks it (it is
				 * not read); or NULL */
	bool null;		/* a symbolic link to /dev/null: masks the
				 * files of its name, read as empty */
	char *skipped;		/* why it could not be read, or NULL */
	char *text;		/* what was read, len bytes; or NULL */
	size_t len;
};

struct sources {
	struct source *s;
	size_t n;
};

/*
 * A rule line of the files that does not stand: overridden by a rule for
 * the same object of a later file, or masked by a mask ("!PATH") of one.
 */
enum rule_fate_kind { FATE_OVERRIDDEN, FATE_MASKED };

struct rule_fate {
	enum rule_fate_kind kind;
	const char *file;	/* the rule's, as in struct rule */
	unsigned int line;
	const char *by_file;	/* the line that overrides or masks it */
	unsigned int by_line;
};

/*
 * The policy of the files: parsed, each rule resolved (rule_resolve), the
 * same rules merged and masked, bad parts skipped (counted in skipped,
 * and said on stderr unless quiet) or, with strict, failing it.  0, or
 * the exit code (reported).  file_policy_free frees it either way.
 */
struct file_policy {
	struct policy p;	/* its rules' file point into files */
	struct sources *files;	/* every file, masked ones too */
	size_t nfiles;		/* those read (not skipped) */
	unsigned int skipped;
	struct rule_fate *fates;	/* the rules overridden or masked, */
	size_t nfates;			/* in the order of the files' lines */
};

int file_policy_read(const struct policy_files *from, struct file_policy *fp);
void file_policy_free(struct file_policy *fp);

/* The warning for a rule_is_too_broad rule; where is "file:line" or NULL. */
void warn_too_broad(const struct rule *r, const char *where);

#endif
