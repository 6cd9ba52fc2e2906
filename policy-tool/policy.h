/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rule and policy-file parsing (pure functions, no I/O), the "key value"
 * answers of the stats and query files, and applying a list of single-rule
 * changes with rollback.
 */
#ifndef DENYWRITECTL_POLICY_H
#define DENYWRITECTL_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#define RULE_PATH_MAX 4095	/* bytes, without the NUL */
#define POLICY_MAX_BYTES 65536	/* the kernel's limit for one write to rules */

enum scope {
	SCOPE_EXEC = 1,
	SCOPE_LIB = 2,
	SCOPE_ALL = SCOPE_EXEC | SCOPE_LIB,
};

struct rule {
	enum scope scope;
	bool ignore_writers;
	char *path;		/* owned */
	unsigned int line;	/* line in the policy file, 0 if none */
};

struct policy {
	struct rule *rule;
	size_t n;
};

const char *scope_name(enum scope scope);

/*
 * Parse one rule line (no newline; may contain anything, also NULs).
 * Leading and trailing whitespace is ignored.  Returns 1 and fills *r (the
 * caller frees r->path) for a rule, 0 for a blank or '#' comment line, -1
 * with a reason in err on a malformed line.
 */
int rule_parse_line(const char *line, size_t len, struct rule *r,
		    char *err, size_t errlen);

/* "SCOPE[,OPTION] PATH" without newline; malloc'd. */
char *rule_format(const struct rule *r);

/*
 * Parse a policy file.  On error returns -1 with the 1-based line number of
 * the first bad line in *bad_line and the reason in err, and p is empty.
 * Two rules with the same path are an error.
 */
int policy_parse(const char *buf, size_t len, struct policy *p,
		 unsigned int *bad_line, char *err, size_t errlen);

/* The whole set as the kernel's rules file takes it ("\n" for no rules). */
char *policy_serialize(const struct policy *p, size_t *len);

const struct rule *policy_find(const struct policy *p, const char *path);
void policy_free(struct policy *p);

/* "key value" lines, as read from stats and query. */
struct kv {
	char *key;
	char *value;
};

struct kvlist {
	struct kv *kv;
	size_t n;
};

/* Never fails; lines without a space get an empty value. */
void kv_parse(const char *buf, size_t len, struct kvlist *l);
const char *kv_get(const struct kvlist *l, const char *key);
void kv_free(struct kvlist *l);

/*
 * One write of line to file, undone by a write of undo_line to undo_file.
 */
struct change {
	const char *file;
	char *line;
	const char *undo_file;
	char *undo_line;
};

/* Writes buf to the named policy file; returns 0 or an errno value. */
typedef int (*policy_write_fn)(void *ctx, const char *file, const char *buf,
			       size_t len);

struct apply_result {
	size_t failed;	/* index of the change that failed */
	int err;	/* its errno, 0 if all were applied */
	int undo_err;	/* errno of the first failed undo, 0 if none */
};

/*
 * Apply the changes in order.  If one fails, undo the ones already applied
 * (last first) so that nothing is half-applied.  Returns res->err.
 */
int changes_apply(const struct change *c, size_t n, policy_write_fn write,
		  void *ctx, struct apply_result *res);

#endif
