// SPDX-License-Identifier: GPL-2.0
/* Rule lines, policy files, key/value answers and rollback. */
#include "test.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

struct parsed_policy {
	struct policy p;
	unsigned int line;
	char err[256];
	int rc;
};

static void parse_policy(struct parsed_policy *pp, const char *text)
{
	memset(pp, 0, sizeof(*pp));
	pp->rc = policy_parse(text, strlen(text), &pp->p, &pp->line, pp->err,
			      sizeof(pp->err));
}

/* Check that text is refused on line `line` with reason `reason`. */
static int check_refused(char *why, size_t whylen, const char *text,
			 unsigned int line, const char *reason)
{
	struct parsed_policy pp;

	parse_policy(&pp, text);
	CHECK(pp.rc == -1, "accepted");
	CHECK(pp.line == line, "line %u, want %u", pp.line, line);
	CHECK(pp.p.n == 0 && pp.p.rule == NULL, "rules left after error");
	CHECK_STR(pp.err, reason);
	return 0;
}

/* Check that text is accepted with exactly the paths given (NULL-ended). */
static int check_paths(char *why, size_t whylen, const char *text, ...)
{
	struct parsed_policy pp;
	const char *want;
	size_t i = 0;
	va_list ap;
	int rc = 0;

	parse_policy(&pp, text);
	CHECK(pp.rc == 0, "refused: line %u: %s", pp.line, pp.err);
	va_start(ap, text);
	for (; (want = va_arg(ap, const char *)) != NULL && !rc; i++) {
		if (i >= pp.p.n || strcmp(pp.p.rule[i].path, want) != 0) {
			snprintf(why, whylen, "rule %zu: got '%s', want '%s'",
				 i + 1, i < pp.p.n ? pp.p.rule[i].path : "",
				 want);
			rc = 1;
		}
	}
	va_end(ap);
	if (!rc && i != pp.p.n) {
		snprintf(why, whylen, "%zu rules, want %zu", pp.p.n, i);
		rc = 1;
	}
	policy_free(&pp.p);
	return rc;
}

TEST(rule_parses_scope_option_and_path)
{
	char err[128];
	struct rule r;

	CHECK(rule_parse_line("lib,ignore-writers /usr/lib", 27, &r, err,
			      sizeof(err)) == 1, "not a rule: %s", err);
	CHECK(r.scope == SCOPE_LIB && r.ignore_writers, "scope/option");
	CHECK_STR(r.path, "/usr/lib");
	free(r.path);
	return 0;
}

TEST(rule_format_prints_load_syntax)
{
	struct rule r = { .scope = SCOPE_EXEC, .ignore_writers = true,
			  .path = "/opt/my app" };
	char *s = rule_format(&r);
	int ok = strcmp(s, "exec,ignore-writers /opt/my app") == 0;

	CHECK(ok, "got '%s'", s);
	free(s);
	return 0;
}

TEST(load_parses_valid_policy)
{
	struct parsed_policy pp;

	parse_policy(&pp, "exec /\nlib /usr/lib\nall,ignore-writers /opt\n");
	CHECK(pp.rc == 0, "refused: line %u: %s", pp.line, pp.err);
	CHECK(pp.p.n == 3, "%zu rules", pp.p.n);
	CHECK(pp.p.rule[0].scope == SCOPE_EXEC, "rule 1 scope");
	CHECK(pp.p.rule[1].scope == SCOPE_LIB, "rule 2 scope");
	CHECK(pp.p.rule[2].scope == SCOPE_ALL &&
	      pp.p.rule[2].ignore_writers, "rule 3");
	CHECK(pp.p.rule[2].line == 3, "rule 3 line %u", pp.p.rule[2].line);
	CHECK_STR(pp.p.rule[1].path, "/usr/lib");
	policy_free(&pp.p);
	return 0;
}

TEST(load_skips_comments_and_blank_lines)
{
	return check_paths(why, whylen, "# denywrite policy\n\n   \t\n"
			   "  # indented comment\nexec /\n\n", "/",
			   (char *)NULL);
}

TEST(load_accepts_leading_and_trailing_whitespace)
{
	return check_paths(why, whylen, "  exec \t /usr/bin \t \nlib\t/lib  ",
			   "/usr/bin", "/lib", (char *)NULL);
}

TEST(load_keeps_spaces_inside_path)
{
	return check_paths(why, whylen, "exec /opt/My Apps/bin\n",
			   "/opt/My Apps/bin", (char *)NULL);
}

TEST(load_accepts_crlf_line_endings)
{
	return check_paths(why, whylen, "# saved on windows\r\nexec /\r\n\r\n"
			   "lib /usr/lib\r\n", "/", "/usr/lib", (char *)NULL);
}

TEST(load_accepts_missing_final_newline)
{
	return check_paths(why, whylen, "exec /", "/", (char *)NULL);
}

TEST(load_rejects_unknown_scope_with_line_number)
{
	return check_refused(why, whylen, "exec /\n# c\nrun /usr/bin\n", 3,
			     "unknown scope 'run' (exec, lib or all)");
}

TEST(load_rejects_unknown_option_with_line_number)
{
	return check_refused(why, whylen, "\nlib,ignore-readers /usr/lib\n", 2,
			     "unknown option 'ignore-readers' (only ignore-writers)");
}

TEST(load_rejects_empty_and_repeated_options)
{
	if (check_refused(why, whylen, "exec, /\n", 1,
			  "unknown option '' (only ignore-writers)"))
		return 1;
	return check_refused(why, whylen,
			     "exec,ignore-writers,ignore-writers /\n", 1,
			     "unknown option 'ignore-writers,ignore-writers' "
			     "(only ignore-writers)");
}

TEST(load_rejects_relative_path)
{
	return check_refused(why, whylen, "exec /\nlib usr/lib\n", 2,
			     "path 'usr/lib' is not absolute");
}

TEST(load_rejects_missing_path)
{
	if (check_refused(why, whylen, "exec\n", 1, "missing path"))
		return 1;
	return check_refused(why, whylen, "exec /\nall  \t \n", 2,
			     "missing path");
}

TEST(load_rejects_nul_byte)
{
	static const char text[] = "exec /\nexec /us\0r\n";
	struct policy p;
	unsigned int line = 0;
	char err[128];

	CHECK(policy_parse(text, sizeof(text) - 1, &p, &line, err,
			   sizeof(err)) == -1, "accepted");
	CHECK(line == 2, "line %u", line);
	CHECK_STR(err, "NUL byte in line");
	return 0;
}

/* "exec /aaa...a" with a path of n bytes. */
static char *long_rule(size_t n)
{
	char *s = malloc(n + 8);

	if (!s)
		abort();
	memcpy(s, "exec /", 6);
	memset(s + 6, 'a', n - 1);
	s[n + 5] = '\n';
	s[n + 6] = '\0';
	return s;
}

TEST(load_accepts_path_of_4095_bytes)
{
	struct parsed_policy pp;
	char *text = long_rule(4095);

	parse_policy(&pp, text);
	free(text);
	CHECK(pp.rc == 0, "refused: %s", pp.err);
	CHECK(strlen(pp.p.rule[0].path) == 4095, "length %zu",
	      strlen(pp.p.rule[0].path));
	policy_free(&pp.p);
	return 0;
}

TEST(load_rejects_path_of_4096_bytes_or_more)
{
	char *text = long_rule(4096);
	int rc = check_refused(why, whylen, text, 1,
			       "path too long (4096 bytes, at most 4095)");

	free(text);
	if (rc)
		return rc;
	text = long_rule(70000);
	rc = check_refused(why, whylen, text, 1,
			   "path too long (70000 bytes, at most 4095)");
	free(text);
	return rc;
}

TEST(load_rejects_duplicate_path_naming_first_line)
{
	return check_refused(why, whylen, "exec /usr\n\nlib /usr\n", 3,
			     "a rule for /usr is already on line 1");
}

TEST(load_rejects_paths_the_kernel_would_refuse)
{
	static const struct {
		const char *text;
		const char *reason;
	} cases[] = {
		{ "exec /a\tb\n",
		  "path '/a\\011b' has a control character (byte 3): write it "
		  "as \\011" },
		{ "exec /x\x01\n",
		  "path '/x\\001' has a control character (byte 3): write it "
		  "as \\001" },
		{ "lib /del\x7f\n",
		  "path '/del\\177' has a control character (byte 5): write it "
		  "as \\177" },
		{ "exec /a\\b\n",
		  "path '/a\\134b': a backslash must be followed by 3 octal "
		  "digits (byte 3; \\134 is a backslash)" },
		{ "exec /a\\000\n",
		  "path '/a\\134000': a backslash must be followed by 3 octal "
		  "digits (byte 3; \\134 is a backslash)" },
		{ "exec /a\\08\n",
		  "path '/a\\13408': a backslash must be followed by 3 octal "
		  "digits (byte 3; \\134 is a backslash)" },
		{ "exec \x1b[2J\n", "path '\\033[2J' is not absolute" },
		{ "exec \\057x\n", "path '\\134057x' is not absolute" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (check_refused(why, whylen, cases[i].text, 1,
				  cases[i].reason))
			return 1;
	return 0;
}

TEST(load_decodes_the_kernels_escapes)
{
	return check_paths(why, whylen, "exec /a\\011b\nlib /c\\134d\n"
			   "all /e\\040\nexec /f\\377\\012\n-exec /g\\101\n",
			   "/a\tb", "/c\\d", "/e ", "/f\xff\n", "/gA",
			   (char *)NULL);
}

TEST(path_escape_writes_controls_backslash_and_a_trailing_space)
{
	static const struct {
		const char *raw;
		const char *kernel;
	} cases[] = {
		{ "/opt/x ", "/opt/x\\040" },
		{ "/opt/my app", "/opt/my app" },
		{ "/a\tb\nc\x7f", "/a\\011b\\012c\\177" },
		{ "/a\\b", "/a\\134b" },
		{ "/caf\xc3\xa9\xe9", "/caf\xc3\xa9\\351" },
		{ "/\xe2\x80\xae" "x", "/\\342\\200\\256x" },
		{ "/a b", "/a b" },
		{ "/  ", "/ \\040" },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *k = path_escape(cases[i].raw), *back = NULL;
		int ok = strcmp(k, cases[i].kernel) == 0 &&
			 path_unescape(k, strlen(k), &back, err,
				       sizeof(err)) == 0 &&
			 strcmp(back, cases[i].raw) == 0;

		snprintf(why, whylen, "case %zu: '%s' back '%s'", i, k,
			 back ? back : err);
		free(k);
		free(back);
		if (!ok)
			return TEST_FAIL;
	}
	CHECK(rule_check_path("/opt/x ", 7, err, sizeof(err)) == 0,
	      "trailing space refused: %s", err);
	return 0;
}

TEST(lib_rules_on_whole_trees_are_too_broad)
{
	static const struct {
		enum scope scope;
		const char *path;
		bool broad;
	} cases[] = {
		{ SCOPE_LIB, "/", true },
		{ SCOPE_ALL, "/etc", true },
		{ SCOPE_LIB, "/home", true },
		{ SCOPE_ALL, "/var", true },
		{ SCOPE_EXEC, "/", false },
		{ SCOPE_LIB, "/usr/lib", false },
		{ SCOPE_LIB, "/var/lib", false },
		{ SCOPE_ALL, "/etcetera", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rule r = { .scope = cases[i].scope,
				  .path = (char *)cases[i].path };

		CHECK(rule_is_too_broad(&r) == cases[i].broad, "%s %s",
		      scope_name(r.scope), r.path);
	}
	return 0;
}

TEST(policy_of_several_files_names_the_first_file_of_a_duplicate)
{
	static const char a[] = "exec /\nlib /usr\n", b[] = "\nall /usr\n";
	struct policy p;
	unsigned int line = 0;
	char err[256];

	policy_init(&p);
	CHECK(policy_add_text(&p, "a.rules", a, strlen(a), &line, err,
			      sizeof(err)) == 0, "a refused: %s", err);
	CHECK(policy_add_text(&p, "b.rules", b, strlen(b), &line, err,
			      sizeof(err)) == -1, "b accepted");
	policy_free(&p);
	CHECK(line == 2, "line %u", line);
	CHECK_STR(err, "a rule for /usr is already in a.rules:2");
	return 0;
}

TEST(policy_of_200000_lines_parses_in_linear_time)
{
	size_t n = 200000;
	char *text = malloc(n * 24 + 1), *p = text;
	struct parsed_policy pp;
	double t;

	CHECK(text, "malloc");
	for (size_t i = 0; i < n; i++)
		p += i % 200 ? sprintf(p, "# comment %zu\n", i) :
			       sprintf(p, "exec /r%zu\n", i);
	t = now_ms();
	parse_policy(&pp, text);
	t = now_ms() - t;
	free(text);
	stat_line("parse_200000_lines_1000_rules_ms", t);
	CHECK(pp.rc == 0 && pp.p.n == 1000, "rc %d, %zu rules: %s", pp.rc,
	      pp.p.n, pp.err);
	policy_free(&pp.p);
	CHECK(t < time_limit(1000), "took %.0f ms", t);
	return 0;
}

TEST(serialize_round_trips_through_parse)
{
	static const char text[] = "exec /\nlib,ignore-writers /usr/lib\n";
	struct parsed_policy pp;
	char *out;
	size_t len;
	int same;

	parse_policy(&pp, "  exec   /\n# x\nlib,ignore-writers\t/usr/lib \n");
	CHECK(pp.rc == 0, "refused: %s", pp.err);
	out = policy_serialize(&pp.p, &len);
	same = len == strlen(text) && strcmp(out, text) == 0;
	policy_free(&pp.p);
	CHECK(same, "got '%s'", out);
	free(out);
	return 0;
}

TEST(serialize_of_no_rules_is_a_newline)
{
	struct parsed_policy pp;
	char *out;
	size_t len;
	int ok;

	parse_policy(&pp, "# nothing\n\n");
	CHECK(pp.rc == 0 && pp.p.n == 0, "refused or rules: %s", pp.err);
	out = policy_serialize(&pp.p, &len);
	ok = len == 1 && strcmp(out, "\n") == 0;
	free(out);
	CHECK(ok, "not a single newline");
	return 0;
}

TEST(kv_parses_stats_and_query_answers)
{
	static const char text[] =
		"path /usr/lib/libc.so.6\nprotected 1\nexec-rule all /\n"
		"lib-rule -\n\nflag\n";
	struct kvlist l;
	const char *v;

	kv_parse(text, strlen(text), &l);
	CHECK(l.n == 5, "%zu entries", l.n);
	v = kv_get(&l, "exec-rule");
	CHECK(v && strcmp(v, "all /") == 0, "exec-rule '%s'", v ? v : "");
	v = kv_get(&l, "flag");
	CHECK(v && *v == '\0', "flag");
	CHECK(kv_get(&l, "holders") == NULL, "holders found");
	kv_free(&l);
	return 0;
}

/* A policy_write_fn that records the calls and fails the fail_at-th one. */
struct recorder {
	char log[512];
	int calls;
	int fail_at;	/* 1-based; 0 never */
	int undo_fail;	/* fail every undo too */
};

static int record(void *ctx, const char *file, const char *buf, size_t len)
{
	struct recorder *r = ctx;
	size_t n = strlen(r->log);

	r->calls++;
	snprintf(r->log + n, sizeof(r->log) - n, "%s<%.*s>;", file, (int)len,
		 buf);
	if (r->calls == r->fail_at)
		return EINVAL;
	if (r->undo_fail && r->calls > r->fail_at && r->fail_at)
		return EIO;
	return 0;
}

static const struct change changes[] = {
	{ "add", "all /a", "del", "/a" },
	{ "add", "all /b", "del", "/b" },
	{ "add", "all /c", "del", "/c" },
};

TEST(changes_apply_writes_every_change_in_order)
{
	struct recorder r = { .fail_at = 0 };
	struct apply_result res;

	CHECK(changes_apply(changes, 3, record, &r, &res) == 0, "failed");
	CHECK_STR(r.log, "add<all /a>;add<all /b>;add<all /c>;");
	return 0;
}

TEST(changes_apply_undoes_earlier_changes_when_one_fails)
{
	struct recorder r = { .fail_at = 3 };
	struct apply_result res;

	CHECK(changes_apply(changes, 3, record, &r, &res) == EINVAL,
	      "no EINVAL");
	CHECK(res.failed == 2 && res.undo_err == 0, "failed %zu undo %d",
	      res.failed, res.undo_err);
	CHECK_STR(r.log, "add<all /a>;add<all /b>;add<all /c>;del</b>;del</a>;");
	return 0;
}

TEST(changes_apply_reports_a_failed_undo)
{
	struct recorder r = { .fail_at = 2, .undo_fail = 1 };
	struct apply_result res;

	CHECK(changes_apply(changes, 3, record, &r, &res) == EINVAL,
	      "no EINVAL");
	CHECK(res.failed == 1 && res.undo_err == EIO, "failed %zu undo %d",
	      res.failed, res.undo_err);
	return 0;
}

const struct test policy_tests[] = {
	T(rule_parses_scope_option_and_path),
	T(rule_format_prints_load_syntax),
	T(load_parses_valid_policy),
	T(load_skips_comments_and_blank_lines),
	T(load_accepts_leading_and_trailing_whitespace),
	T(load_keeps_spaces_inside_path),
	T(load_accepts_crlf_line_endings),
	T(load_accepts_missing_final_newline),
	T(load_rejects_unknown_scope_with_line_number),
	T(load_rejects_unknown_option_with_line_number),
	T(load_rejects_empty_and_repeated_options),
	T(load_rejects_relative_path),
	T(load_rejects_missing_path),
	T(load_rejects_nul_byte),
	T(load_accepts_path_of_4095_bytes),
	T(load_rejects_path_of_4096_bytes_or_more),
	T(load_rejects_duplicate_path_naming_first_line),
	T(load_rejects_paths_the_kernel_would_refuse),
	T(load_decodes_the_kernels_escapes),
	T(path_escape_writes_controls_backslash_and_a_trailing_space),
	T(lib_rules_on_whole_trees_are_too_broad),
	T(policy_of_several_files_names_the_first_file_of_a_duplicate),
	T(policy_of_200000_lines_parses_in_linear_time),
	T(serialize_round_trips_through_parse),
	T(serialize_of_no_rules_is_a_newline),
	T(kv_parses_stats_and_query_answers),
	T(changes_apply_writes_every_change_in_order),
	T(changes_apply_undoes_earlier_changes_when_one_fails),
	T(changes_apply_reports_a_failed_undo),
	{ NULL, NULL },
};
