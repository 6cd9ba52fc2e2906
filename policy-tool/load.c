// SPDX-License-Identifier: GPL-2.0
/*
 * denywritectl load: read policy files (named, or the system's rules.d
 * directories: rules.c), check them as the kernel will, and write them as
 * one policy in one write(2), which the kernel applies atomically.
 * load --root IMAGE --check checks an image's policy offline: its paths
 * resolved in IMAGE, securityfs untouched, the rules it would load
 * printed.
 */
#include "diff.h"
#include "json.h"
#include "load.h"
#include "rules.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

/*
 * Write p to the kernel; 0 or the exit code (reported).  The one command
 * that may mount securityfs: at boot, before anything else has.
 */
static int load_policy(struct dw *dw, const struct cli *c,
		       const struct policy *p)
{
	size_t len;
	char *buf;
	int err;

	dw->may_mount = true;
	err = dw_open_active(dw);

	if (err)
		return err;
	if (dw_need_mac_admin(c->name))
		return 1;
	buf = policy_serialize(p, &len);
	err = dw_write(dw, "rules", buf, len);
	free(buf);
	if (err)
		return fail("load: the kernel refused the policy: %s",
			    dw_write_error(err, "rules"));
	return 0;
}

/* An image's check (offline): the rules as they would be loaded.  A
 * dry run with --root alone predicts load --root, which resolves on the
 * host. */
static bool offline(const struct cli *c)
{
	return c->check && c->root;
}

/* The rules of p as the kernel would show them (resolved), as text or
 * the member "rules" of j's open object. */
static void rules_report(struct json *j, const struct policy *p)
{
	if (j)
		json_begin(j, "rules", '[');
	for (size_t i = 0; i < p->n; i++) {
		struct rule r = p->rule[i];
		char *s;

		r.path = r.canon;
		if (j) {
			json_rule(j, NULL, &r);
			continue;
		}
		s = rule_format(&r);
		puts(s);
		free(s);
	}
	if (j)
		json_end(j, ']');
}

/* What load did: "loaded N rules from M files", or JSON. */
static void load_report(struct dw *dw, const struct cli *c,
			const struct file_policy *fp)
{
	const struct policy *p = &fp->p;
	size_t n = fp->nfiles;
	struct json j;

	if (!c->json) {
		if (offline(c))
			rules_report(NULL, p);
		else if (c->dry_run)
			dry_run_diff(dw, NULL, p);
		if (!c->quiet)
			printf("%s %zu %s from %zu %s%s\n",
			       c->dry_run ? "checked" : "loaded", p->n,
			       plural(p->n, "rule", "rules"), n,
			       plural(n, "file", "files"),
			       c->dry_run ? " (dry run: nothing loaded)" : "");
		return;
	}
	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_uint(&j, c->dry_run ? "checked" : "loaded", p->n);
	json_uint(&j, "files", n);
	json_uint(&j, "skipped", fp->skipped);
	if (offline(c))
		rules_report(&j, p);
	else if (c->dry_run)
		dry_run_diff(dw, &j, p);
	json_end(&j, '}');
}

static int load(struct dw *dw, const struct cli *c, struct file_policy *fp)
{
	struct policy_files from = { .cmd = c->name, .names = c->args,
				     .n = (size_t)c->nargs, .root = c->root,
				     .in_root = offline(c),
				     .strict = c->strict };
	int rc = file_policy_read(&from, fp);

	if (rc)
		return rc;
	if (fp->p.n == 0 && !c->allow_empty)
		return fail("load: no rules in %zu %s: refusing to clear the "
			    "policy (--allow-empty does)", fp->nfiles,
			    plural(fp->nfiles, "file", "files"));
	if (!c->dry_run && (rc = load_policy(dw, c, &fp->p)) != 0)
		return rc;
	load_report(dw, c, fp);
	if (!fp->skipped)
		return 0;
	fail("load: %u %s skipped: the other rules %s", fp->skipped,
	     fp->skipped == 1 ? "part was" : "parts were",
	     c->dry_run ? "are valid" : "are in force");
	return EXIT_PARTIAL;	/* not 1: the kernel took the others */
}

int cmd_load(struct dw *dw, const struct cli *c)
{
	struct file_policy fp;
	int rc = load(dw, c, &fp);

	file_policy_free(&fp);
	return rc;
}
