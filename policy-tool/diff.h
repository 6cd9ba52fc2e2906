/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Drift and provenance (diff.c): the files' rules against the kernel's,
 * a file's rule and a kernel's rule paired when they are the same rule
 * (rule_same, rules.h) of the same kind.  diff, and what load --dry-run
 * and list --sources print.
 */
#ifndef DENYWRITECTL_DIFF_H
#define DENYWRITECTL_DIFF_H

#include "cli.h"
#include "policy.h"
#include "sysfs.h"

struct json;

/* denywritectl diff. */
int cmd_diff(struct dw *dw, const struct cli *c);

/*
 * load --dry-run: print what would change against the kernel's rules, if
 * they can be read without mounting securityfs: as text, or as the
 * members "add" and "remove" of j's open object.  want is resolved (a
 * file_policy's).
 */
void dry_run_diff(struct dw *dw, struct json *j, const struct policy *want);

/*
 * list --sources: where each rule in force comes from (cur, the kernel's
 * rules, which it resolves: rule_resolve), and the gone rules.
 */
int list_sources(const struct cli *c, struct policy *cur,
		 const struct policy *gone);

/*
 * denywritectl cat-config: the rules files load reads, as read, in load
 * order, each after a "# /path" line; the files masked by name and the
 * rules masked or overridden marked.  Never touches securityfs.
 */
int cmd_cat_config(struct dw *dw, const struct cli *c);

#endif
