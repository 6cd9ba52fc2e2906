/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The denywritectl commands.  Each prints its output to stdout and any
 * failure as one line on stderr, and returns the exit code (0 or 1).
 */
#ifndef DENYWRITECTL_COMMANDS_H
#define DENYWRITECTL_COMMANDS_H

#include "cli.h"
#include "sysfs.h"

int cmd_status(struct dw *dw, const struct cli *c);
int cmd_mode(struct dw *dw, const struct cli *c);
int cmd_add(struct dw *dw, const struct cli *c);
int cmd_del(struct dw *dw, const struct cli *c);
int cmd_clear(struct dw *dw, const struct cli *c);
int cmd_list(struct dw *dw, const struct cli *c);
int cmd_load(struct dw *dw, const struct cli *c);	/* load.c */
int cmd_save(struct dw *dw, const struct cli *c);
int cmd_stats(struct dw *dw, const struct cli *c);
int cmd_why(struct dw *dw, const struct cli *c);	/* why.c */

int cmd_diff(struct dw *dw, const struct cli *c);	/* diff.c */
int cmd_log(struct dw *dw, const struct cli *c);	/* log.c */

/*
 * The policy that load reads (load.c): the files named (c->args) or the
 * rules.d directories (under c->root), parsed and resolved (each rule's
 * canon set), bad parts skipped (counted in skipped, and said on stderr
 * unless quiet) or, with c->strict, failing it.  0, or the exit code
 * (reported).  file_policy_free frees it either way.
 */
struct file_policy {
	struct policy p;	/* its rules' file point into files */
	struct sources *files;
	size_t nfiles;		/* those read (not skipped) */
	unsigned int skipped;
};

int file_policy_read(const struct cli *c, bool quiet,
		     struct file_policy *fp);
void file_policy_free(struct file_policy *fp);

/*
 * load --dry-run: print what would change against the kernel's rules, if
 * they can be read without mounting securityfs: as text, or as the
 * members "add" and "remove" of j's open object (diff.c).
 */
struct json;
void dry_run_diff(struct dw *dw, struct json *j, const struct policy *want);

/* list --sources: where each rule in force comes from (diff.c). */
int list_sources(const struct cli *c, const struct policy *cur,
		 const struct policy *gone);

/*
 * add/del --persist (persist.c): after the n changes were made in the
 * kernel, write them to 90-local.rules too.  0 or 1 (reported).
 */
int persist_changes(const struct cli *c, const struct change *ch, size_t n);

/* Shared by the commands. */
int need_mac_admin(const struct cli *c);	/* 0, or 1 (reported) */
const char *write_error(int err, const char *file);
/* The warning for a rule_is_too_broad rule; where is "file:line" or NULL. */
void warn_too_broad(const struct rule *r, const char *where);

#endif
