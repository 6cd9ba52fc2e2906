// SPDX-License-Identifier: GPL-2.0
/*
 * Drift and provenance: diff (what load would add and remove against the
 * kernel's rules), load --dry-run's diff, and list --sources (which file
 * and line each rule in force comes from).
 */
#include "commands.h"
#include "json.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rule of want whose resolved path is path, or NULL. */
static const struct rule *find_canon(const struct policy *want,
				     const char *path)
{
	for (size_t i = 0; i < want->n; i++)
		if (want->rule[i].canon && strcmp(want->rule[i].canon, path) == 0)
			return &want->rule[i];
	return NULL;
}

static bool same_kind(const struct rule *a, const struct rule *b)
{
	return a->scope == b->scope && a->ignore_writers == b->ignore_writers;
}

/* The rule of the files that is the kernel's rule k, or NULL. */
static const struct rule *source_of(const struct policy *want,
				    const struct rule *k)
{
	const struct rule *r = find_canon(want, k->path);

	return r && same_kind(r, k) ? r : NULL;
}

/* A file's rule as the kernel shows it: its resolved path. */
static struct rule resolved(const struct rule *r)
{
	struct rule cr = *r;

	cr.path = r->canon;
	return cr;
}

/* Whether the kernel has the file's rule r as it is. */
static bool in_kernel(const struct policy *cur, const struct rule *r)
{
	const struct rule *k = policy_find(cur, r->canon);

	return k && same_kind(k, r);
}

static void print_change(char sign, const struct rule *r)
{
	char *s = rule_format(r);

	printf("%c%s\n", sign, s);
	free(s);
}

/* The changes, "-" lines then "+" lines; how many. */
static size_t diff_text(const struct policy *cur, const struct policy *want)
{
	size_t n = 0;

	for (size_t i = 0; i < cur->n; i++)
		if (!source_of(want, &cur->rule[i]) && ++n)
			print_change('-', &cur->rule[i]);
	for (size_t i = 0; i < want->n; i++) {
		struct rule r = resolved(&want->rule[i]);

		if (!in_kernel(cur, &want->rule[i]) && ++n)
			print_change('+', &r);
	}
	return n;
}

/* {"add":[...],"remove":[...]} members into an open object; how many. */
static size_t diff_json(struct json *j, const struct policy *cur,
			const struct policy *want)
{
	size_t n = 0;

	json_begin(j, "add", '[');
	for (size_t i = 0; i < want->n; i++) {
		struct rule r = resolved(&want->rule[i]);

		if (!in_kernel(cur, &want->rule[i]) && ++n)
			json_rule(j, NULL, &r);
	}
	json_end(j, ']');
	json_begin(j, "remove", '[');
	for (size_t i = 0; i < cur->n; i++)
		if (!source_of(want, &cur->rule[i]) && ++n)
			json_rule(j, NULL, &cur->rule[i]);
	json_end(j, ']');
	return n;
}

void dry_run_diff(struct dw *dw, struct json *j, const struct policy *want)
{
	struct policy cur;

	dw->probe = true;
	if (dw_open(dw) != 0 || dw_read_rules(dw, &cur))
		return;
	if (j)
		diff_json(j, &cur, want);
	else
		diff_text(&cur, want);
	policy_free(&cur);
}

/*
 * What load would change: 0 if nothing, 1 if something would, or if the
 * files hold parts load would skip (said on stderr, and counted as
 * "skipped" in JSON): they are drift too, the files do not say what the
 * kernel would have.  2 on trouble, which with --strict such a part is.
 */
int cmd_diff(struct dw *dw, const struct cli *c)
{
	struct file_policy fp;
	struct policy cur;
	struct json j;
	size_t n;
	int rc = file_policy_read(c, false, &fp);

	if (!rc)
		rc = dw_open_active(dw);
	if (!rc && dw_read_rules(dw, &cur))
		rc = 1;
	if (rc) {
		file_policy_free(&fp);
		return rc == 1 ? EXIT_USAGE : rc;	/* diff's trouble */
	}
	json_init(&j, stdout);
	if (c->json) {
		json_begin(&j, NULL, '{');
		n = diff_json(&j, &cur, &fp.p);
		json_uint(&j, "skipped", fp.skipped);
		json_end(&j, '}');
	} else {
		n = diff_text(&cur, &fp.p);
	}
	if (fp.skipped)
		fail("diff: %u %s cannot be loaded: load would skip %s",
		     fp.skipped, fp.skipped == 1 ? "part" : "parts",
		     fp.skipped == 1 ? "it" : "them");
	n += fp.skipped;
	policy_free(&cur);
	file_policy_free(&fp);
	return n ? 1 : 0;
}

/* "FILE:LINE" of the file rule that is k, or "runtime"; escaped. */
static const char *source_text(const struct rule *src)
{
	char buf[PATH_MAX + 16];

	if (!src)
		return "runtime";
	snprintf(buf, sizeof(buf), "%s:%u", src->file ? src->file : "?",
		 src->line);
	return esc(buf);
}

static void sources_json(const struct policy *cur, const struct policy *gone,
			 const struct policy *want)
{
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_begin(&j, "rules", '[');
	for (size_t i = 0; i < cur->n; i++) {
		const struct rule *src = source_of(want, &cur->rule[i]);

		json_begin(&j, NULL, '{');
		json_rule_members(&j, &cur->rule[i]);
		json_string(&j, "file", src ? src->file : NULL);
		if (src)
			json_uint(&j, "line", src->line);
		else
			json_string(&j, "line", NULL);
		json_end(&j, '}');
	}
	json_end(&j, ']');
	json_begin(&j, "gone", '[');
	for (size_t i = 0; i < gone->n; i++)
		json_rule(&j, NULL, &gone->rule[i]);
	json_end(&j, ']');
	json_end(&j, '}');
}

int list_sources(const struct cli *c, const struct policy *cur,
		 const struct policy *gone)
{
	struct file_policy fp;
	int rc = file_policy_read(c, true, &fp);

	if (rc) {
		file_policy_free(&fp);
		return rc;
	}
	if (c->json)
		sources_json(cur, gone, &fp.p);
	for (size_t i = 0; i < cur->n && !c->json; i++) {
		char *s = rule_format(&cur->rule[i]);

		printf("%s: %s\n", source_text(source_of(&fp.p, &cur->rule[i])),
		       s);
		free(s);
	}
	for (size_t i = 0; i < gone->n && !c->json; i++) {
		char *s = rule_format(&gone->rule[i]);

		printf("gone: %s\n", s);
		free(s);
	}
	file_policy_free(&fp);
	return 0;
}
