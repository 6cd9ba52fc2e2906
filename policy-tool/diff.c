// SPDX-License-Identifier: GPL-2.0
/*
 * Drift and provenance: diff (what load would add and remove against the
 * kernel's rules), load --dry-run's diff, list --sources (which file and
 * line each rule in force comes from) and cat-config (the files as load
 * reads them).
 */
#include "diff.h"
#include "json.h"
#include "rules.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same_kind(const struct rule *a, const struct rule *b)
{
	return a->scope == b->scope && a->ignore_writers == b->ignore_writers;
}

/*
 * The kernel's rules (cur) paired with the files' (want): a kernel rule
 * and a file rule that are the same rule (rule_same) of the same kind,
 * each rule in one pair at most.
 */
struct pairing {
	const struct rule **src;	/* of each kernel rule: its file
					 * rule, or NULL */
	bool *in_kernel;	/* of each file rule: whether it is paired */
};

/* Pair cur, which this resolves, with want, resolved. */
static void pair(struct pairing *pr, struct policy *cur,
		 const struct policy *want)
{
	struct rule_index ix;

	pr->src = xcalloc(cur->n, sizeof(*pr->src));
	pr->in_kernel = xcalloc(want->n, sizeof(*pr->in_kernel));
	policy_resolve(cur);
	rule_index_init(&ix, want);
	for (size_t i = 0; i < want->n; i++)
		rule_index_add(&ix, i);
	for (size_t k = 0; k < cur->n; k++) {
		long i = rule_index_find(&ix, &cur->rule[k]);

		if (i < 0 || pr->in_kernel[i] ||
		    !same_kind(&want->rule[i], &cur->rule[k]))
			continue;
		pr->src[k] = &want->rule[i];
		pr->in_kernel[i] = true;
	}
	rule_index_free(&ix);
}

static void pairing_free(struct pairing *pr)
{
	free(pr->src);
	free(pr->in_kernel);
}

/* A file's rule as the kernel shows it: its resolved path. */
static struct rule resolved(const struct rule *r)
{
	struct rule cr = *r;

	cr.path = r->canon;
	return cr;
}

static void print_change(char sign, const struct rule *r)
{
	char *s = rule_format(r);

	printf("%c%s\n", sign, s);
	free(s);
}

/* The changes, "-" lines then "+" lines; how many. */
static size_t diff_text(struct policy *cur, const struct policy *want)
{
	struct pairing pr;
	size_t n = 0;

	pair(&pr, cur, want);
	for (size_t i = 0; i < cur->n; i++)
		if (!pr.src[i] && ++n)
			print_change('-', &cur->rule[i]);
	for (size_t i = 0; i < want->n; i++) {
		struct rule r = resolved(&want->rule[i]);

		if (!pr.in_kernel[i] && ++n)
			print_change('+', &r);
	}
	pairing_free(&pr);
	return n;
}

/* {"add":[...],"remove":[...]} members into an open object; how many. */
static size_t diff_json(struct json *j, struct policy *cur,
			const struct policy *want)
{
	struct pairing pr;
	size_t n = 0;

	pair(&pr, cur, want);
	json_begin(j, "add", '[');
	for (size_t i = 0; i < want->n; i++) {
		struct rule r = resolved(&want->rule[i]);

		if (!pr.in_kernel[i] && ++n)
			json_rule(j, NULL, &r);
	}
	json_end(j, ']');
	json_begin(j, "remove", '[');
	for (size_t i = 0; i < cur->n; i++)
		if (!pr.src[i] && ++n)
			json_rule(j, NULL, &cur->rule[i]);
	json_end(j, ']');
	pairing_free(&pr);
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

/* The policy of the files that c names, or of the rules.d directories. */
static int read_files(const struct cli *c, bool quiet, struct file_policy *fp)
{
	struct policy_files from = { .cmd = c->name, .names = c->args,
				     .n = (size_t)c->nargs, .root = c->root,
				     .strict = c->strict, .quiet = quiet };

	return file_policy_read(&from, fp);
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
	int rc = read_files(c, false, &fp);

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
			 const struct pairing *pr)
{
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_begin(&j, "rules", '[');
	for (size_t i = 0; i < cur->n; i++) {
		const struct rule *src = pr->src[i];

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

int list_sources(const struct cli *c, struct policy *cur,
		 const struct policy *gone)
{
	struct file_policy fp;
	struct pairing pr;
	int rc = read_files(c, true, &fp);

	if (rc) {
		file_policy_free(&fp);
		return rc;
	}
	pair(&pr, cur, &fp.p);
	if (c->json)
		sources_json(cur, gone, &pr);
	for (size_t i = 0; i < cur->n && !c->json; i++) {
		char *s = rule_format(&cur->rule[i]);

		printf("%s: %s\n", source_text(pr.src[i]), s);
		free(s);
	}
	for (size_t i = 0; i < gone->n && !c->json; i++) {
		char *s = rule_format(&gone->rule[i]);

		printf("gone: %s\n", s);
		free(s);
	}
	pairing_free(&pr);
	file_policy_free(&fp);
	return 0;
}

/*
 * A line of a file as it is, but for control characters (a tab aside),
 * which a policy file line may not hold: "\ooo", so that nothing printed
 * moves the terminal's cursor.
 */
static void put_line(const char *prefix, const char *line, size_t len)
{
	fputs(prefix, stdout);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)line[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			printf("\\%03o", ch);
		else
			putchar(ch);
	}
	putchar('\n');
}

/* One file's lines, the rules of fates (from *k on) marked. */
static void cat_file(const struct source *s, const struct file_policy *fp,
		     size_t *k)
{
	const char *p = s->text, *end = s->text + s->len;
	unsigned int line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const struct rule_fate *f = *k < fp->nfates ? &fp->fates[*k] :
					    NULL;
		char mark[PATH_MAX + 64] = "";

		line++;
		if (f && f->file == s->name && f->line == line) {
			snprintf(mark, sizeof(mark), "# %s by %s:%u: ",
				 f->kind == FATE_MASKED ? "masked" :
				 "overridden", esc(f->by_file), f->by_line);
			++*k;
		}
		put_line(mark, p, n);
		p += nl ? n + 1 : n;
	}
}

int cmd_cat_config(struct dw *dw, const struct cli *c)
{
	struct policy_files from = { .cmd = c->name, .root = c->root,
				     .in_root = c->root != NULL,
				     .quiet = true };
	struct file_policy fp;
	size_t k = 0;
	int rc = file_policy_read(&from, &fp);

	(void)dw;	/* the files only, never the kernel's */
	for (size_t i = 0; i < fp.files->n && !rc; i++) {
		const struct source *s = &fp.files->s[i];

		printf("%s# %s", i ? "\n" : "", esc(s->name));
		if (s->masked_by)
			printf(" (masked by %s)\n", esc(s->masked_by));
		else if (s->null)
			puts(" (a link to /dev/null)");
		else if (s->skipped)
			printf(" (skipped: %s)\n", s->skipped);
		else
			putchar('\n');
		if (s->text)
			cat_file(s, &fp, &k);
	}
	file_policy_free(&fp);
	return rc;
}
