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
#include <sys/types.h>

#include "hash.h"

#define RULE_PATH_MAX 4095	/* bytes, without the NUL */
#define POLICY_MAX_BYTES 65536	/* the kernel's limit for one write to rules */
#define POLICY_MAX_RULES 1024	/* and for the number of rules in it */

enum scope {
	SCOPE_EXEC = 1,
	SCOPE_LIB = 2,
	SCOPE_ALL = SCOPE_EXEC | SCOPE_LIB,
};

struct rule {
	enum scope scope;
	bool ignore_writers;
	bool optional;		/* "-" before it in a policy file: the path
				 * may be missing */
	bool mask;		/* "!PATH" in a policy file: no rule, but
				 * the mask of the same rule of earlier
				 * files (rules.h); scope unset */
	char *path;		/* owned; the bytes of the path, unescaped */
	/* Set by rule_resolve (rules.h), for rule_same: */
	char *canon;		/* owned; the path resolved, or NULL */
	bool resolved;		/* it names an object, canon's */
	dev_t dev;		/* st_dev and */
	ino_t ino;		/* st_ino, if resolved */
	int lookup_err;		/* else the errno of its lookup */
	const char *file;	/* the policy file's name, not owned; or NULL */
	unsigned int line;	/* line in the policy file, 0 if none */
};

struct policy {
	struct rule *rule;
	size_t n;
	size_t bytes;		/* as policy_serialize writes it */
	struct hindex by_path;
};

const char *scope_name(enum scope scope);

/*
 * Parse one rule line (no newline; may contain anything, also NULs) in
 * the kernel's syntax, "[-]SCOPE[,OPTION] PATH", PATH with the kernel's
 * escapes (a backslash and 3 octal digits, see path_unescape), or a
 * policy file's mask, "!PATH" (r->mask).  Leading and trailing
 * whitespace is ignored.  Returns 1 and fills *r (the caller
 * frees r->path, the unescaped bytes) for a rule, 0 for a blank or '#'
 * comment line, -1 with a reason in err on a malformed line.
 */
int rule_parse_line(const char *line, size_t len, struct rule *r,
		    char *err, size_t errlen);

/*
 * Check a rule's path (len bytes, unescaped) as the kernel will:
 * absolute, at most RULE_PATH_MAX bytes.  0, or -1 with the reason in err.
 */
int rule_check_path(const char *path, size_t len, char *err, size_t errlen);

/*
 * Escapes, as in /proc/mounts: a backslash and 3 octal digits stand for
 * a byte.  The kernel prints a control character (0x01-0x1f, 0x7f), a
 * backslash and a trailing space so, and reads any byte so.
 * path_unescape decodes len bytes into a new string (*out), refusing a
 * literal control character and a backslash not followed by 3 octal
 * digits giving a byte 001-377 (-1, the reason in err): it reads what
 * the kernel and path_escape print.  path_escape gives a path in the one
 * dialect of denywritectl's output, esc()'s (which escapes more than the
 * kernel: bytes that are not UTF-8, invisible characters, a leading
 * space), malloc'd.
 */
int path_unescape(const char *p, size_t len, char **out, char *err,
		  size_t errlen);
char *path_escape(const char *raw);

/*
 * The first 64 of the len bytes of path, escaped (esc), with "..." if
 * there are more: a path quoted in a message about a line.
 */
const char *path_short(const char *path, size_t len);

/*
 * Whether r maps-executable-protects a tree that holds far more than
 * libraries ("/", "/etc", "/home", "/var", given canonical): any reader
 * that maps a file there executable blocks in-place writes to it.
 */
bool rule_is_too_broad(const struct rule *r);

/*
 * "SCOPE[,OPTION] PATH" without newline, the path escaped (path_escape):
 * what every command prints for a rule, what policy files hold and what
 * is written to the kernel; rule_parse_line reads it back ("!PATH" for
 * a mask).  malloc'd.
 */
char *rule_format(const struct rule *r);

/* The bytes r takes in a write to the kernel's rules file, with its
 * newline. */
size_t rule_bytes(const struct rule *r);

void policy_init(struct policy *p);

/*
 * Told about a bad line of a policy file (reason: why); returns whether
 * to go on (the line is skipped) or stop.
 */
typedef bool (*policy_report_fn)(void *ctx, const char *file,
				 unsigned int line, const char *reason);

/*
 * Parse the text of the policy file named `file` (kept by pointer in each
 * rule; NULL for none) and append its rules to p, in time linear in len.
 * Each bad line is reported: a malformed line, a path the kernel would
 * refuse and, unless raw, two lines of one path (in one file or in any of
 * the files added), which the kernel's rules file never has, and a rule
 * past the kernel's limits (POLICY_MAX_RULES, POLICY_MAX_BYTES), where
 * parsing stops.  With raw (the policy files that rules.c reads) every
 * well-formed rule is taken: which rules are the same (rule_same,
 * rules.h: by the object they name, which parsing cannot know) and the
 * limits are the caller's, on the rules resolved.  Returns 0 if no line
 * was bad, 1 if bad lines were skipped, -1 if it stopped (at a limit or
 * when report said so).
 */
int policy_add_lines(struct policy *p, const char *file, const char *buf,
		     size_t len, bool raw, policy_report_fn report,
		     void *ctx);

/*
 * policy_add_lines without raw that stops at the first bad line:
 * -1 with its 1-based number in *bad_line and the reason in err; p then
 * holds the rules before that line.
 */
int policy_add_text(struct policy *p, const char *file, const char *buf,
		    size_t len, unsigned int *bad_line, char *err,
		    size_t errlen);

/* Keep the rules i for which keep[i], in their order. */
void policy_keep(struct policy *p, const bool *keep);

/* policy_init and policy_add_text; on error p is left empty. */
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
