// SPDX-License-Identifier: GPL-2.0
/*
 * load: policy files and the rules.d directories, checked as the kernel
 * will check them, then one write; --dry-run, --allow-empty, -q.
 */
#include "e2e.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

TEST(load_writes_the_whole_policy_and_says_how_much)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	char file[PATH_MAX];

	fake_default(&f);
	policy_file(file, sizeof(file), "# my policy\r\n\n  exec   /  \n"
		    "lib,ignore-writers\t/tmp\n   # end\n");
	NEEDS_CAP(&o, "load", file);
	EXPECT(&o, 0, "loaded 2 rules from 1 file\n", "", "load", file);
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /tmp\n");
	return 0;
}

TEST(load_quiet_prints_nothing)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = "exec /\n" };

	fake_default(&f);
	NEEDS_CAP(&o, "load", "-");
	EXPECT(&o, 0, "", "", "load", "-q", "-");
	CHECK_FAKE(&f, "rules", "exec /\n");
	return 0;
}

TEST(load_of_empty_input_is_refused_without_allow_empty)
{
	static const char *const inputs[] = { "", "# nothing\n\n" };
	struct fake f;

	fake_default(&f);
	for (size_t i = 0; i < 2; i++) {
		struct opts o = { .sfs = &f, .uid = -1, .input = inputs[i] };

		EXPECT(&o, 1, "", "denywritectl: load: no rules in 1 file: "
		       "refusing to clear the policy (--allow-empty does)\n",
		       "load", "-");
	}
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /usr/lib\n");
	return 0;
}

TEST(load_allow_empty_clears_the_rules)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = "# nothing\n" };

	fake_default(&f);
	NEEDS_CAP(&o, "load", "--allow-empty", "-");
	EXPECT(&o, 0, "loaded 0 rules from 1 file\n", "", "load",
	       "--allow-empty", "-");
	CHECK_FAKE(&f, "rules", "\n");
	return 0;
}

TEST(load_rejects_unknown_scope_with_file_and_line)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1,
			  .input = "exec /\n\n# c\nrun /usr/bin\n" };

	fake_default(&f);
	EXPECT(&o, 1, "", "denywritectl: load: <stdin>:4: unknown scope 'run' "
	       "(exec, lib or all)\n", "load", "--strict", "-");
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /usr/lib\n");
	return 0;
}

TEST(load_skips_bad_rules_and_loads_the_others_in_one_write)
{
	char dir[PATH_MAX / 4], text[2 * PATH_MAX], want[3 * PATH_MAX];
	char out[PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = text };

	make_target(dir, sizeof(dir));
	snprintf(text, sizeof(text), "exec /\nrun /usr/bin\nlib %s/missing\n"
		 "lib %s\nexec %s/.\n", dir, dir, dir);
	fake_default(&f);
	snprintf(want, sizeof(want), "denywritectl: load: <stdin>:2: unknown "
		 "scope 'run' (exec, lib or all) (rule skipped)\n"
		 "denywritectl: load: <stdin>:3: %s/missing: No such file or "
		 "directory (rule skipped)\n"
		 "denywritectl: load: <stdin>:5: %s/. is the same as %s on "
		 "line 4 (rule skipped)\n"
		 "denywritectl: load: 3 parts were skipped: the other rules are "
		 "valid\n", dir, dir, dir);
	snprintf(out, sizeof(out), "-lib,ignore-writers /usr/lib\n"
		 "+lib %s\nchecked 2 rules from 1 file (dry run: nothing "
		 "loaded)\n", dir);
	EXPECT(&o, 6, out, want, "load", "--dry-run", "-");
	NEEDS_CAP(&o, "load", "-");
	snprintf(want + strlen(want) - strlen("valid\n"), 32, "in force\n");
	EXPECT(&o, 6, "loaded 2 rules from 1 file\n", want, "load", "-");
	snprintf(want, sizeof(want), "exec /\nlib %s\n", dir);
	CHECK_FAKE(&f, "rules", want);
	return 0;
}

TEST(load_skips_an_optional_rule_whose_path_is_missing_silently)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1,
			  .input = "exec /\n-lib /nonexistent/lib\n"
				   "  -all /nonexistent/x\n" };

	fake_default(&f);
	EXPECT(&o, 0, "-lib,ignore-writers /usr/lib\nchecked 1 rule from 1 "
	       "file (dry run: nothing loaded)\n", "", "load", "--strict",
	       "--dry-run", "-");
	NEEDS_CAP(&o, "load", "-");
	EXPECT(&o, 0, "loaded 1 rule from 1 file\n", "", "load", "-");
	CHECK_FAKE(&f, "rules", "exec /\n");
	return 0;
}

TEST(load_of_a_missing_file_fails)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "",
	       "denywritectl: load: /nonexistent/p: No such file or "
	       "directory\n", "load", "--strict", "/nonexistent/p");
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1, .input = "exec /\n" }, 6,
	       "-lib,ignore-writers /usr/lib\n"
	       "checked 1 rule from 1 file (dry run: nothing loaded)\n",
	       "denywritectl: load: /nonexistent/p: No such file or "
	       "directory (file skipped)\n"
	       "denywritectl: load: 1 part was skipped: the other rules are "
	       "valid\n", "load", "-n", "/nonexistent/p", "-");
	return 0;
}

/*
 * n rules "exec DIR/NNNNNN/./." (pad bytes of "/.") on directories made
 * under a new scratch directory, from first on; malloc'd.
 */
static char *many_dirs(size_t first, size_t n, size_t pad)
{
	char dir[PATH_MAX / 2], sub[PATH_MAX];
	char *text = xmalloc(n * (pad + PATH_MAX / 2 + 16) + 1), *p = text;

	make_tmpdir(dir, sizeof(dir), "many");
	for (size_t i = first; i < first + n; i++) {
		snprintf(sub, sizeof(sub), "%s/%06zu", dir, i);
		if (mkdir(sub, 0755) != 0)
			abort();
		p += sprintf(p, "exec %s", sub);
		for (size_t k = 0; k + 1 < pad; k += 2)
			p += sprintf(p, "/.");
		*p++ = '\n';
	}
	*p = '\0';
	return text;
}

/* load of text must fail with stderr want, the fake rules unchanged. */
static int load_refused(char *why, size_t whylen, const char *text,
			const char *want)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = text };

	fake_default(&f);
	EXPECT(&o, 1, "", want, "load", "--strict", "-");
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /usr/lib\n");
	return 0;
}

TEST(load_stops_at_the_kernels_limits)
{
	static const struct {
		size_t rules, pad;
		const char *err;
	} cases[] = {
		/* rules of about 4050 bytes: the 17th passes 65536 */
		{ 20, 4000, "denywritectl: load: <stdin>:17: the policy grows "
		  "past 65536 bytes, the kernel's limit\n" },
		{ 1025, 0, "denywritectl: load: <stdin>:1025: more than 1024 "
		  "rules, the kernel's limit\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = many_dirs(0, cases[i].rules, cases[i].pad);
		int rc = load_refused(why, whylen, text, cases[i].err);

		free(text);
		if (rc)
			return rc;
	}
	return 0;
}

TEST(load_counts_the_limit_after_optional_and_overridden_rules)
{
	char a[PATH_MAX], b[PATH_MAX], *text = many_dirs(0, 1000, 0);
	char *more = xmalloc(strlen(text) + 100 * 64), *p, *q;
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	/* a: 1000 rules and 100 optional ones on missing paths; b: 24 of
	 * a's objects again, by other names: 1124 rules, 1000 loaded */
	p = stpcpy(more, text);
	for (int i = 0; i < 100; i++)
		p += sprintf(p, "-exec /nonexistent/%d\n", i);
	policy_file(a, sizeof(a), more);
	p = more;
	q = text;
	for (int i = 0; i < 24; i++) {
		char *nl = strchr(q, '\n');

		p += sprintf(p, "all %.*s/.\n", (int)(nl - q - 5), q + 5);
		q = nl + 1;
	}
	policy_file(b, sizeof(b), more);
	free(text);
	free(more);
	fake_init(&f, "capability", "");	/* not active: no diff */
	EXPECT(&o, 0, "checked 1000 rules from 2 files (dry run: nothing "
	       "loaded)\n", "", "load", "--strict", "--dry-run", a, b);
	fake_default(&f);
	NEEDS_CAP(&o, "load", a, b);
	EXPECT(&o, 0, "loaded 1000 rules from 2 files\n", "", "load", a, b);
	return 0;
}

/* How many lines s has. */
static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; (s = strchr(s, '\n')); s++)
		n++;
	return n;
}

TEST(load_keeps_the_admins_rules_when_vendor_files_pass_the_limit)
{
	char root[PATH_MAX / 4], vendor[PATH_MAX], want[4 * PATH_MAX];
	char *real, *text = many_dirs(0, 1030, 0), *got, *cut;
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	bool ok;

	make_tmpdir(root, sizeof(root), "root");
	real = realpath(root, NULL);
	snprintf(root, sizeof(root), "%s", real);
	free(real);
	snprintf(vendor, sizeof(vendor), "%s/usr/lib/" RULES_D
		 "/50-vendor.rules", root);
	tree_file(root, "usr/lib/" RULES_D "/50-vendor.rules", text);
	cut = strchr(text, '\n');
	for (int i = 1; i < 1021; i++)
		cut = strchr(cut + 1, '\n');
	cut[strcspn(cut + 1, "\n") + 1] = '\0';	/* line 1022 */
	for (size_t i = 0; i < 3; i++) {
		static const char *const names[][3] = {
			{ "etc", "05-admin", "exec" },
			{ "etc", "90-local", "lib" },
			{ "usr/lib", "60-other", "exec" },
		};
		char rel[128], rule[PATH_MAX];

		snprintf(rel, sizeof(rel), "data/%s/x", names[i][1]);
		tree_file(root, rel, "");
		snprintf(rel, sizeof(rel), "%s/" RULES_D "/%s.rules",
			 names[i][0], names[i][1]);
		snprintf(rule, sizeof(rule), "%s %s/data/%s\n", names[i][2],
			 root, names[i][1]);
		tree_file(root, rel, rule);
	}
	fake_default(&f);
	snprintf(want, sizeof(want), "denywritectl: load: %s:1022: more than "
		 "1024 rules, the kernel's limit\n", vendor);
	EXPECT(&o, 1, "", want, "load", "--strict", "--root", root);
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /usr/lib\n");
	NEEDS_CAP(&o, "load", "--root", root);
	snprintf(want, sizeof(want), "denywritectl: load: %s:1022: 9 rules "
		 "left out from this line on: more than 1024 rules, the "
		 "kernel's limit (rules skipped)\n"
		 "denywritectl: load: 9 parts were skipped: the other rules are "
		 "in force\n", vendor);
	EXPECT(&o, 6, "loaded 1024 rules from 4 files\n", want, "load",
	       "--root", root);
	got = fake_read(&f, "rules");
	snprintf(want, sizeof(want), "exec %s/data/05-admin\n", root);
	ok = strncmp(got, want, strlen(want)) == 0;
	snprintf(want, sizeof(want), "exec %s/data/60-other\nlib "
		 "%s/data/90-local\n", root, root);
	ok = ok && strlen(got) > strlen(want) &&
	     strcmp(got + strlen(got) - strlen(want), want) == 0 &&
	     count_lines(got) == 1024 && !strstr(got, strrchr(text, '\n'));
	snprintf(why, whylen, "rules: %zu lines, %.200s ... %s",
		 count_lines(got), got, got + (strlen(got) > 300 ?
					       strlen(got) - 300 : 0));
	free(got);
	free(text);
	return ok ? TEST_PASS : TEST_FAIL;
}

TEST(load_of_200000_rule_lines_stops_within_two_seconds)
{
	char *dirs = many_dirs(0, 1100, 0);
	char *text = xmalloc(strlen(dirs) + 198900 * 32 + 1), *p;
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = text };
	struct run r;
	int ok;

	/* 1100 rules, then 198900 optional ones on missing paths */
	p = stpcpy(text, dirs);
	for (size_t i = 0; i < 198900; i++)
		p += sprintf(p, "-exec /nonexistent/%06zu\n", i);
	free(dirs);
	fake_default(&f);
	run_tool(&r, &o, "load", "--dry-run", "-", (char *)NULL);
	free(text);
	stat_line("load_200000_rule_lines_ms", r.ms);
	ok = r.status == 6 && strstr(r.err, "<stdin>:1025: 76 rules left out "
				     "from this line on: more than 1024");
	snprintf(why, whylen, "exit %d in %.0f ms: %s", r.status, r.ms, r.err);
	run_free(&r);
	if (!ok)
		return TEST_FAIL;
	/* 573 and 581 ms on an idle 2-CPU host, 1142 ms beside a QEMU boot:
	 * every missing path is looked up, since the limit counts rules after
	 * their lookup. */
	CHECK(r.ms < time_limit(2000), "took %.0f ms", r.ms);
	return 0;
}

TEST(load_of_an_11_mb_200000_line_file_takes_under_a_second)
{
	size_t nlines = 200000, nrules = 1000;
	char dir[PATH_MAX], sub[PATH_MAX + 16], file[PATH_MAX + 8];
	char *text = xmalloc(nlines * 64 + 1), *p = text;	/* 55 a line */
	struct opts o = { .uid = -1 };
	struct run r;
	int ok;

	make_tmpdir(dir, sizeof(dir), "many");
	for (size_t i = 0; i < nlines; i++) {
		if (i % (nlines / nrules) == 0) {
			snprintf(sub, sizeof(sub), "%s/%zu", dir, i);
			if (mkdir(sub, 0755) != 0)
				abort();
			p += sprintf(p, "exec %s\n", sub);
		} else {
			p += sprintf(p, "# comment line %07zu, %30s\n", i, "");
		}
	}
	snprintf(file, sizeof(file), "%s/p", dir);
	write_file(file, text);
	stat_line("load_file_bytes", (double)(p - text));
	free(text);
	run_tool(&r, &o, "load", "--dry-run", file, (char *)NULL);
	stat_line("load_200000_lines_1000_rules_ms", r.ms);
	ok = r.status == 0 &&
	     !strcmp(r.out, "checked 1000 rules from 1 file (dry run: nothing "
		     "loaded)\n");
	snprintf(why, whylen, "exit %d in %.0f ms: %s%s", r.status, r.ms,
		 r.out, r.err);
	run_free(&r);
	if (!ok)
		return TEST_FAIL;
	CHECK(r.ms < time_limit(1000), "took %.0f ms", r.ms);
	return 0;
}

TEST(load_rejects_a_missing_path_naming_file_and_line)
{
	char file[PATH_MAX], want[2 * PATH_MAX];
	struct fake f;

	fake_default(&f);
	policy_file(file, sizeof(file), "exec /\n\nlib /nonexistent/lib\n");
	snprintf(want, sizeof(want), "denywritectl: load: %s:3: "
		 "/nonexistent/lib: No such file or directory\n", file);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "", want, "load",
	       "--strict", file);
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /usr/lib\n");
	return 0;
}

TEST(load_rejects_one_directory_named_twice)
{
	char dir[PATH_MAX], link[PATH_MAX + 8], text[3 * PATH_MAX];
	char want[4 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = text };

	make_target(dir, sizeof(dir));
	snprintf(link, sizeof(link), "%s.link", dir);
	CHECK(symlink(dir, link) == 0, "symlink");
	snprintf(text, sizeof(text), "exec %s\nlib %s/.\n", dir, link);
	snprintf(want, sizeof(want), "denywritectl: load: <stdin>:2: %s/. is "
		 "the same as %s on line 1\n", link, dir);
	fake_default(&f);
	EXPECT(&o, 1, "", want, "load", "--strict", "-");
	return 0;
}

TEST(load_warns_about_a_lib_rule_on_a_whole_tree)
{
	static const struct {
		const char *rule;
		const char *shown;	/* canonical */
	} cases[] = {
		{ "lib /", "lib /" },
		{ "all /etc/", "all /etc" },
		{ "lib /var", "lib /var" },
		{ "lib /usr/../home", "lib /home" },
	};
	char want[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct opts o = { .uid = -1, .input = cases[i].rule };

		snprintf(want, sizeof(want), "denywritectl: warning: <stdin>:1: "
			 "'%s': any user who can read a file there can block "
			 "in-place writes to it by mapping it executable; name "
			 "the library directories instead\n", cases[i].shown);
		EXPECT(&o, 0, "checked 1 rule from 1 file (dry run: nothing "
		       "loaded)\n", want, "load", "--check", "-");
	}
	EXPECT(&(struct opts){ .uid = -1, .input = "exec /\nlib /usr/lib\n" },
	       0, "checked 2 rules from 1 file (dry run: nothing loaded)\n",
	       "", "load", "--check", "-");
	return 0;
}

TEST(load_dry_run_needs_no_privilege_and_no_securityfs)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = "exec /\nlib /usr\n" };

	fake_init(&f, NULL, "exec /\n");	/* no lsm file: "unmounted" */
	if (geteuid() == 0)
		o.uid = 65534;
	else if (privileged())
		SKIP("privileged, and cannot drop to an unprivileged user");
	EXPECT(&o, 0, "checked 2 rules from 1 file (dry run: nothing loaded)\n",
	       "", "load", "-n", "-");
	CHECK_FAKE(&f, "rules", "exec /\n");
	return 0;
}

TEST(load_reads_several_files_as_one_policy)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_default(&f);
	policy_file(a, sizeof(a), "exec /\n");
	policy_file(b, sizeof(b), "lib /usr\n\nall /tmp\n");
	EXPECT(&o, 0, "-lib,ignore-writers /usr/lib\n+lib /usr\n+all /tmp\n"
	       "checked 3 rules from 2 files (dry run: nothing loaded)\n", "",
	       "load", "--dry-run", a, b);
	return 0;
}

TEST(load_lets_a_later_files_rule_for_one_object_override)
{
	char dir[PATH_MAX], link[PATH_MAX + 8], a[PATH_MAX], b[PATH_MAX];
	char text[2 * PATH_MAX], want[2 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	make_target(dir, sizeof(dir));
	snprintf(link, sizeof(link), "%s.link", dir);
	CHECK(symlink(dir, link) == 0, "symlink");
	fake_default(&f);
	snprintf(text, sizeof(text), "exec /\nlib %s\n", dir);
	policy_file(a, sizeof(a), text);
	snprintf(text, sizeof(text), "exec,ignore-writers /\nall %s\n", link);
	policy_file(b, sizeof(b), text);
	NEEDS_CAP(&o, "load", a, b);
	EXPECT(&o, 0, "loaded 2 rules from 2 files\n", "", "load", "--strict",
	       a, b);
	snprintf(want, sizeof(want), "exec,ignore-writers /\nall %s\n", link);
	CHECK_FAKE(&f, "rules", want);
	return 0;
}

/*
 * A system policy under a scratch root: files in usr/lib, run and etc
 * rules.d, some with the same names.  Returns the rules it must give, in
 * order, in want.
 */
static void rules_d_tree(char *root, size_t size, char *want, size_t wsize)
{
	static const struct {
		const char *dir;
		const char *name;
		const char *rule;	/* %s: the data directory */
	} files[] = {
		{ "usr/lib", "10-base.rules", "exec /\n" },
		{ "usr/lib", "20-lib.rules", "lib %s/lost\n" },
		{ "usr/lib", "30-x.rules", "all %s/lost\n" },
		{ "run", "30-x.rules", "exec %s/c\n" },
		{ "run", "40-run.rules", "lib %s/d\n" },
		{ "run", "20-lib.rules", "lib %s/lost\n" },
		{ "etc", "20-lib.rules", "lib %s/b\n" },
		{ "etc", "05-first.rules", "# first\nexec %s/a\n" },
		{ "usr/lib", "README", "not a rules file\n" },
		{ "usr/lib", ".hidden.rules", "bogus\n" },
	};
	static const char *const order[] = { "a", "", "b", "c", "d" };
	char data[PATH_MAX], rel[128], text[2 * PATH_MAX], *real;

	make_tmpdir(root, size, "root");
	real = realpath(root, NULL);
	snprintf(root, size, "%s", real);
	free(real);
	snprintf(data, sizeof(data), "%s/data", root);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/" RULES_D "/%s", files[i].dir,
			 files[i].name);
		snprintf(text, sizeof(text), files[i].rule, data);
		tree_file(root, rel, text);
	}
	for (size_t i = 0; i < 5; i++) {
		snprintf(rel, sizeof(rel), "data/%s/x", order[i]);
		if (*order[i])
			tree_file(root, rel, "");
	}
	snprintf(want, wsize, "exec %s/a\nexec /\nlib %s/b\nexec %s/c\n"
		 "lib %s/d\n", data, data, data, data);
}

TEST(load_merges_rules_d_by_name_etc_over_run_over_usr_lib)
{
	char root[PATH_MAX / 2], want[5 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_init(&f, "capability", "");	/* not active: no diff */
	rules_d_tree(root, sizeof(root), want, sizeof(want));
	EXPECT(&o, 0, "checked 5 rules from 5 files (dry run: nothing "
	       "loaded)\n", "", "load", "--dry-run", "--root", root);
	fake_default(&f);
	NEEDS_CAP(&o, "load", "--root", root);
	EXPECT(&o, 0, "loaded 5 rules from 5 files\n", "", "load", "--root",
	       root);
	CHECK_FAKE(&f, "rules", want);
	return 0;
}

TEST(load_of_rules_d_names_the_file_and_line_of_an_error)
{
	char root[PATH_MAX / 2], want[5 * PATH_MAX], file[PATH_MAX];
	struct fake f;

	fake_default(&f);
	rules_d_tree(root, sizeof(root), want, sizeof(want));
	snprintf(file, sizeof(file), "%s/run/" RULES_D "/40-run.rules", root);
	write_file(file, "exec /tmp\nbogus /\n");
	snprintf(want, sizeof(want), "denywritectl: load: %s:2: unknown scope "
		 "'bogus' (exec, lib or all)\n", file);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "", want, "load",
	       "--strict", "--root", root);
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /usr/lib\n");
	return 0;
}

TEST(load_of_rules_d_skips_a_directory_a_dangling_link_and_bad_lines)
{
	char root[PATH_MAX / 2], rules[5 * PATH_MAX], want[5 * PATH_MAX];
	char path[PATH_MAX], dangling[PATH_MAX], dir[PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_default(&f);
	rules_d_tree(root, sizeof(root), rules, sizeof(rules));
	snprintf(dir, sizeof(dir), "%s/etc/" RULES_D "/60-dir.rules", root);
	snprintf(dangling, sizeof(dangling), "%s/etc/" RULES_D "/70-gone.rules",
		 root);
	snprintf(path, sizeof(path), "%s/run/" RULES_D "/40-run.rules", root);
	CHECK(mkdir(dir, 0755) == 0 && symlink("/nonexistent", dangling) == 0,
	      "mkdir, symlink");
	write_file(path, "bogus /\n");
	snprintf(want, sizeof(want), "denywritectl: load: %s:1: unknown scope "
		 "'bogus' (exec, lib or all) (rule skipped)\n"
		 "denywritectl: load: %s: Is a directory (file skipped)\n"
		 "denywritectl: load: %s: No such file or directory (file "
		 "skipped)\n"
		 "denywritectl: load: 3 parts were skipped: the other rules are "
		 "in force\n", path, dir, dangling);
	NEEDS_CAP(&o, "load", "--root", root);
	EXPECT(&o, 6, "loaded 4 rules from 5 files\n", want, "load", "--root",
	       root);
	/* every good rule: the tree's but the one of 40-run.rules */
	*strrchr(rules, 'l') = '\0';
	*strrchr(rules, '\n') = '\0';
	strcat(rules, "\n");
	CHECK_FAKE(&f, "rules", rules);
	return 0;
}

TEST(load_without_rules_d_files_refuses_to_clear)
{
	char root[PATH_MAX];
	struct fake f;

	fake_default(&f);
	make_tmpdir(root, sizeof(root), "emptyroot");
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "",
	       "denywritectl: load: no rules in 0 files: refusing to clear the "
	       "policy (--allow-empty does)\n", "load", "--root", root);
	return 0;
}

TEST(diff_says_what_load_would_add_and_remove_and_exits_1)
{
	char dir[PATH_MAX / 4], link[PATH_MAX / 2], file[PATH_MAX];
	char text[PATH_MAX], want[PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	make_target(dir, sizeof(dir));
	snprintf(link, sizeof(link), "%s.link", dir);
	CHECK(symlink(dir, link) == 0, "symlink");
	snprintf(text, sizeof(text), "exec /\nlib %s\n", link);
	policy_file(file, sizeof(file), text);
	fake_init(&f, "denywrite", "exec /\nall /runtime\nexec /usr/lib\n");
	snprintf(want, sizeof(want), "-all /runtime\n-exec /usr/lib\n+lib %s\n",
		 dir);
	EXPECT(&o, 1, want, "", "diff", file);
	snprintf(want, sizeof(want), "{\"add\":[{\"scope\":\"lib\","
		 "\"ignore_writers\":false,\"path\":\"%s\"}],\"remove\":["
		 "{\"scope\":\"all\",\"ignore_writers\":false,\"path\":"
		 "\"/runtime\"},{\"scope\":\"exec\",\"ignore_writers\":false,"
		 "\"path\":\"/usr/lib\"}],\"skipped\":0}\n", dir);
	EXPECT(&o, 1, want, "", "diff", "--json", file);
	snprintf(text, sizeof(text), "exec /\nlib %s\n", dir);
	fake_file(&f, "rules", text);
	EXPECT(&o, 0, "", "", "diff", file);
	fake_file(&f, "rules", "exec /\n");
	fake_file(&f, "gone", text + strlen("exec /\n"));
	snprintf(want, sizeof(want), "+lib %s\n", dir);
	EXPECT(&o, 1, want, "", "diff", file);
	return 0;
}

TEST(diff_counts_rules_that_cannot_load_as_drift)
{
	char file[PATH_MAX], want[4 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	/* the kernel has the files' good rules: only the bad ones differ */
	policy_file(file, sizeof(file), "exec /\nlib,ignore-writers /usr/lib\n"
		    "run /x\n-exec /nonexistent\nexec /nonexistent/y\n");
	fake_default(&f);
	snprintf(want, sizeof(want), "denywritectl: diff: %s:3: unknown scope "
		 "'run' (exec, lib or all) (rule skipped)\n"
		 "denywritectl: diff: %s:5: /nonexistent/y: No such file or "
		 "directory (rule skipped)\n"
		 "denywritectl: diff: 2 parts cannot be loaded: load would skip "
		 "them\n", file, file);
	EXPECT(&o, 1, "", want, "diff", file);
	EXPECT(&o, 1, "{\"add\":[],\"remove\":[],\"skipped\":2}\n", want,
	       "diff", "--json", file);
	snprintf(want, sizeof(want), "denywritectl: diff: %s:3: unknown scope "
		 "'run' (exec, lib or all)\n", file);
	EXPECT(&o, 2, "", want, "diff", "--strict", file);
	policy_file(file, sizeof(file), "exec /\nlib,ignore-writers /usr/lib\n"
		    "-exec /nonexistent\n");
	EXPECT(&o, 0, "", "", "diff", "--strict", file);
	EXPECT(&o, 0, "{\"add\":[],\"remove\":[],\"skipped\":0}\n", "",
	       "diff", "--json", file);
	return 0;
}

TEST(load_counts_only_the_files_it_read)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = "exec /\n" };

	fake_init(&f, "capability", "");	/* not active: no diff */
	EXPECT(&o, 6, "checked 1 rule from 1 file (dry run: nothing loaded)\n",
	       "denywritectl: load: /nonexistent/p: No such file or "
	       "directory (file skipped)\n"
	       "denywritectl: load: 1 part was skipped: the other rules are "
	       "valid\n", "load", "-n", "/nonexistent/p", "-");
	return 0;
}

TEST(load_exits_6_when_partly_loaded_and_1_when_the_kernel_refuses)
{
	char rules[PATH_MAX + 32];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = "exec /\nrun /x\n" };

	fake_default(&f);
	NEEDS_CAP(&o, "load", "-");
	EXPECT(&o, 6, "loaded 1 rule from 1 file\n", "denywritectl: load: "
	       "<stdin>:2: unknown scope 'run' (exec, lib or all) (rule "
	       "skipped)\ndenywritectl: load: 1 part was skipped: the other "
	       "rules are in force\n", "load", "-");
	CHECK_FAKE(&f, "rules", "exec /\n");
	/* a rules file that takes no write: the kernel refuses it all */
	snprintf(rules, sizeof(rules), "%s/rules", f.dir);
	CHECK(unlink(rules) == 0 && mkdir(rules, 0755) == 0, "mkdir");
	EXPECT(&o, 1, "", "denywritectl: load: <stdin>:2: unknown scope 'run' "
	       "(exec, lib or all) (rule skipped)\ndenywritectl: load: the "
	       "kernel refused the policy: Is a directory\n", "load", "-");
	return 0;
}

TEST(list_sources_names_the_file_and_line_runtime_or_gone)
{
	char root[PATH_MAX / 2], rules[5 * PATH_MAX], want[8 * PATH_MAX];
	char d[PATH_MAX / 2 + 8];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	rules_d_tree(root, sizeof(root), rules, sizeof(rules));
	strcat(rules, "all /runtime\nexec,ignore-writers /usr\n");
	fake_init(&f, "denywrite", rules);
	fake_file(&f, "gone", "lib /mnt/usb\n");
	snprintf(d, sizeof(d), "%s/data", root);
	snprintf(want, sizeof(want),
		 "%s/etc/" RULES_D "/05-first.rules:2: exec %s/a\n"
		 "%s/usr/lib/" RULES_D "/10-base.rules:1: exec /\n"
		 "%s/etc/" RULES_D "/20-lib.rules:1: lib %s/b\n"
		 "%s/run/" RULES_D "/30-x.rules:1: exec %s/c\n"
		 "%s/run/" RULES_D "/40-run.rules:1: lib %s/d\n"
		 "runtime: all /runtime\n"
		 "runtime: exec,ignore-writers /usr\n"
		 "gone: lib /mnt/usb\n", root, d, root, root, d, root, d, root,
		 d);
	EXPECT(&o, 0, want, "", "list", "--sources", "--root", root);
	fake_file(&f, "rules", "exec /\n");
	EXPECT(&o, 0, "exec /\n# gone (its filesystem was unmounted): "
	       "lib /mnt/usb\n", "", "list");
	return 0;
}

TEST(add_and_del_persist_write_90_local_rules)
{
	char root[PATH_MAX / 4], dir[PATH_MAX / 4], local[PATH_MAX];
	char rules[PATH_MAX], want[2 * PATH_MAX], rel[64], got[2 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	make_tmpdir(root, sizeof(root), "persist");
	make_target(dir, sizeof(dir));
	snprintf(local, sizeof(local), "%s/etc/" RULES_D "/90-local.rules",
		 root);
	fake_default(&f);
	NEEDS_CAP(&o, "add", "--persist", dir);
	EXPECT(&o, 0, "", "", "add", "--persist", "--root", root, "--lib", dir);
	snprintf(want, sizeof(want), "lib %s\n", dir);
	CHECK_FAKE(&f, "add", want);
	CHECK(file_is(local, want, got, sizeof(got)), "90-local.rules: %s", got);
	write_file(local, "# mine\nexec /usr");
	EXPECT(&o, 0, "", "", "add", "--persist", "--root", root, "--lib", dir);
	snprintf(want, sizeof(want), "# mine\nexec /usr\nlib %s\n", dir);
	CHECK(file_is(local, want, got, sizeof(got)), "90-local.rules: %s", got);
	snprintf(rules, sizeof(rules), "exec /\nlib %s\nexec /usr\n", dir);
	fake_file(&f, "rules", rules);
	EXPECT(&o, 0, "", "", "del", "--persist", "--root", root, dir);
	CHECK(file_is(local, "# mine\nexec /usr\n", got, sizeof(got)),
	      "90-local.rules after del: %s", got);
	snprintf(rel, sizeof(rel), "usr/lib/" RULES_D "/50-default.rules");
	tree_file(root, rel, "exec /\n");
	snprintf(want, sizeof(want), "denywritectl: del: /: still in "
		 "%s/%s:1, which load reads: remove it there (or override it "
		 "in a later file)\n", root, rel);
	EXPECT(&o, 1, "", want, "del", "--persist", "--root", root, "/");
	return 0;
}

/* root/etc/denywrite/rules.d/90-local.rules in local; its directory made. */
static void local_rules(char *local, size_t size, const char *root)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "etc/" RULES_D "/90-local.rules");
	tree_file(root, rel, "");
	snprintf(local, size, "%s/%s", root, rel);
	if (unlink(local) != 0)
		abort();
}

#define N_PARALLEL 30

/* Start "add --persist --root root --lib dir" once the barrier opens. */
static pid_t start_persist(const char *root, const char *dir,
			   const struct fake *f, const int barrier[2])
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		/* serialised by the lock: 30 runs, each slow under valgrind */
		unsigned int secs = (unsigned int)(time_limit(20000) / 1000);
		struct opts o = { .sfs = f, .uid = -1, .timeout = secs };
		struct run r;
		char c;

		close(barrier[1]);
		if (read(barrier[0], &c, 1) != 0)
			_exit(125);
		run_tool(&r, &o, "add", "--persist", "--root", root, "--lib",
			 dir, (char *)NULL);
		_exit(r.status);
	}
	return pid;
}

TEST(persist_parallel_adds_all_kept)
{
	char root[PATH_MAX / 4], local[PATH_MAX], line[PATH_MAX];
	char dirs[N_PARALLEL][PATH_MAX / 4], *text;
	int status[N_PARALLEL], barrier[2], ok = 0, lost = 0;
	pid_t pid[N_PARALLEL];
	struct fake f;

	make_tmpdir(root, sizeof(root), "persist");
	local_rules(local, sizeof(local), root);
	fake_default(&f);
	if (!privileged())
		SKIP("needs CAP_MAC_ADMIN");
	CHECK(pipe(barrier) == 0, "pipe");
	for (int i = 0; i < N_PARALLEL; i++) {
		make_target(dirs[i], sizeof(dirs[i]));
		pid[i] = start_persist(root, dirs[i], &f, barrier);
	}
	close(barrier[1]);	/* all start at once */
	close(barrier[0]);
	for (int i = 0; i < N_PARALLEL; i++) {
		int st;

		waitpid(pid[i], &st, 0);
		status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	text = read_file(local);
	for (int i = 0; i < N_PARALLEL; i++) {
		snprintf(line, sizeof(line), "lib %.*s\n",
			 (int)sizeof(dirs[i]) - 1, dirs[i]);
		ok += status[i] == 0;
		lost += status[i] == 0 && (!text || !strstr(text, line));
	}
	free(text);
	CHECK(ok == N_PARALLEL && lost == 0, "%d of %d exited 0, %d of them "
	      "missing from 90-local.rules", ok, N_PARALLEL, lost);
	return 0;
}

/* The names in dir but "." and "..", each followed by a space, in buf. */
static void dir_names(const char *dir, char *buf, size_t size)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	*buf = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") &&
		    strcmp(names[i]->d_name, ".."))
			snprintf(buf + strlen(buf), size - strlen(buf), "%s ",
				 names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

TEST(persist_keeps_mode_and_owner_of_90_local_rules)
{
	char root[PATH_MAX / 4], dir[PATH_MAX / 4], local[PATH_MAX];
	char want[PATH_MAX], got[2 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	struct stat st;
	bool owner = geteuid() == 0;

	make_tmpdir(root, sizeof(root), "persist");
	make_target(dir, sizeof(dir));
	local_rules(local, sizeof(local), root);
	write_file(local, "# mine\n");
	CHECK(chmod(local, 0600) == 0, "chmod");
	CHECK(!owner || chown(local, 65534, 65534) == 0, "chown");
	fake_default(&f);
	NEEDS_CAP(&o, "add", "--persist", dir);
	EXPECT(&o, 0, "", "", "add", "--persist", "--root", root, "--lib", dir);
	snprintf(want, sizeof(want), "# mine\nlib %s\n", dir);
	CHECK(file_is(local, want, got, sizeof(got)), "90-local.rules: %s", got);
	CHECK(lstat(local, &st) == 0, "stat");
	CHECK((st.st_mode & 07777) == 0600, "mode %04o, want 0600",
	      (unsigned int)(st.st_mode & 07777));
	CHECK(!owner || (st.st_uid == 65534 && st.st_gid == 65534),
	      "owner %u:%u, want 65534:65534", (unsigned int)st.st_uid,
	      (unsigned int)st.st_gid);
	*strrchr(local, '/') = '\0';
	dir_names(local, got, sizeof(got));
	CHECK_STR(got, "90-local.rules ");
	return 0;
}

TEST(persist_writes_through_a_symlinked_90_local_rules)
{
	char root[PATH_MAX / 4], dir[PATH_MAX / 4], local[PATH_MAX];
	char shared[PATH_MAX / 4], target[PATH_MAX / 2], link[PATH_MAX];
	char want[PATH_MAX], got[2 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	struct stat st;
	ssize_t n;

	make_tmpdir(root, sizeof(root), "persist");
	make_tmpdir(shared, sizeof(shared), "shared");
	make_target(dir, sizeof(dir));
	local_rules(local, sizeof(local), root);
	snprintf(target, sizeof(target), "%s/local.rules", shared);
	write_file(target, "# shared\n");
	CHECK(symlink(target, local) == 0, "symlink");
	fake_default(&f);
	NEEDS_CAP(&o, "add", "--persist", dir);
	EXPECT(&o, 0, "", "", "add", "--persist", "--root", root, "--lib", dir);
	CHECK(lstat(local, &st) == 0 && S_ISLNK(st.st_mode),
	      "90-local.rules is no longer a symbolic link");
	n = readlink(local, link, sizeof(link) - 1);
	CHECK(n > 0, "readlink");
	link[n] = '\0';
	CHECK_STR(link, target);
	snprintf(want, sizeof(want), "# shared\nlib %s\n", dir);
	CHECK(file_is(target, want, got, sizeof(got)), "the link's target: %s",
	      got);
	dir_names(shared, got, sizeof(got));
	CHECK_STR(got, "local.rules ");
	*strrchr(local, '/') = '\0';
	dir_names(local, got, sizeof(got));
	CHECK_STR(got, "90-local.rules ");
	return 0;
}

TEST(persist_replaces_the_rule_for_the_same_object)
{
	char root[PATH_MAX / 4], dir[PATH_MAX / 4], link[PATH_MAX / 4 + 8];
	char local[PATH_MAX], text[2 * PATH_MAX], want[PATH_MAX];
	char got[2 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	make_tmpdir(root, sizeof(root), "persist");
	make_target(dir, sizeof(dir));
	snprintf(link, sizeof(link), "%s.link", dir);
	CHECK(symlink(dir, link) == 0, "symlink");
	local_rules(local, sizeof(local), root);
	fake_default(&f);
	NEEDS_CAP(&o, "add", "--persist", dir);
	/* add --persist --lib X, then a runtime del X (the fake's rules
	 * never had it), then add --persist --exec X */
	EXPECT(&o, 0, "", "", "add", "--persist", "--root", root, "--lib", dir);
	EXPECT(&o, 0, "", "", "add", "--persist", "--root", root, "--exec",
	       dir);
	snprintf(want, sizeof(want), "exec %s\n", dir);
	CHECK(file_is(local, want, got, sizeof(got)), "90-local.rules: %s", got);
	/* the same object by other names, optional or not: one line left,
	 * where the first was */
	snprintf(text, sizeof(text), "# mine\n-lib %s\nexec /usr\nall %s/\n",
		 link, dir);
	write_file(local, text);
	EXPECT(&o, 0, "", "", "add", "--persist", "--root", root, "--exec",
	       dir);
	snprintf(want, sizeof(want), "# mine\nexec %s\nexec /usr\n", dir);
	CHECK(file_is(local, want, got, sizeof(got)), "90-local.rules: %s", got);
	EXPECT(&(struct opts){ .uid = -1 }, 0, "checked 2 rules from 1 file "
	       "(dry run: nothing loaded)\n", "", "load", "--check", local);
	return 0;
}

/* etc/.../10-a.rules "exec DATA/a", usr/lib/.../20-b.rules "lib DATA/b". */
static void two_dir_tree(char *root, size_t size)
{
	char text[PATH_MAX], *real;

	make_tmpdir(root, size, "root");
	real = realpath(root, NULL);
	snprintf(root, size, "%s", real);
	free(real);
	tree_file(root, "data/a/x", "");
	tree_file(root, "data/b/x", "");
	snprintf(text, sizeof(text), "exec %s/data/a\n", root);
	tree_file(root, "etc/" RULES_D "/10-a.rules", text);
	snprintf(text, sizeof(text), "lib %s/data/b\n", root);
	tree_file(root, "usr/lib/" RULES_D "/20-b.rules", text);
}

/*
 * @bad under @root's rules.d tree fails load --strict with "@bad: @reason",
 * and a plain load skips it ("(@what skipped)") and loads the others.
 */
static int expect_part_skipped(char *why, size_t whylen, struct opts *o,
			       struct fake *f, const char *root,
			       const char *bad, const char *reason,
			       const char *what)
{
	char want[2 * PATH_MAX];

	fake_default(f);
	NEEDS_CAP(o, "load", "--root", root);
	snprintf(want, sizeof(want), "denywritectl: load: %s: %s\n", bad, reason);
	EXPECT(o, 1, "", want, "load", "--strict", "--root", root);
	CHECK_FAKE(f, "rules", "exec /\nlib,ignore-writers /usr/lib\n");
	snprintf(want, sizeof(want), "denywritectl: load: %s: %s (%s skipped)\n"
		 "denywritectl: load: 1 part was skipped: the other rules are "
		 "in force\n", bad, reason, what);
	EXPECT(o, 6, "loaded 2 rules from 2 files\n", want, "load", "--root",
	       root);
	snprintf(want, sizeof(want), "exec %s/data/a\nlib %s/data/b\n", root,
		 root);
	CHECK_FAKE(f, "rules", want);
	return 0;
}

TEST(load_skips_fifo_rules_file)
{
	char root[PATH_MAX / 4], fifo[PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .timeout = 5 };

	two_dir_tree(root, sizeof(root));
	snprintf(fifo, sizeof(fifo), "%s/etc/" RULES_D "/15-fifo.rules", root);
	CHECK(mkfifo(fifo, 0644) == 0, "mkfifo");
	return expect_part_skipped(why, whylen, &o, &f, root, fifo,
				   "not a regular file", "file");
}

TEST(load_skips_a_rules_d_that_is_not_a_directory_unless_strict)
{
	char root[PATH_MAX / 4], run[PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	two_dir_tree(root, sizeof(root));
	tree_file(root, "run/denywrite/rules.d", "not a directory\n");
	snprintf(run, sizeof(run), "%s/run/" RULES_D, root);
	return expect_part_skipped(why, whylen, &o, &f, root, run,
				   "Not a directory", "directory");
}

TEST(load_optional_rule_ignores_only_a_missing_path)
{
	char dir[PATH_MAX / 4], loop[PATH_MAX / 4 + 8], text[PATH_MAX];
	char want[2 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = text };

	make_target(dir, sizeof(dir));
	snprintf(loop, sizeof(loop), "%s/loop", dir);
	CHECK(symlink("loop", loop) == 0, "symlink");
	snprintf(text, sizeof(text), "exec /\n-lib %s/gone\n-lib %s\n"
		 "-all %s/bin/x\n", dir, loop, dir);
	snprintf(want, sizeof(want), "denywritectl: load: <stdin>:3: %s: Too "
		 "many levels of symbolic links\n", loop);
	fake_default(&f);
	EXPECT(&o, 1, "", want, "load", "--strict", "--dry-run", "-");
	snprintf(want, sizeof(want), "denywritectl: load: <stdin>:3: %s: Too "
		 "many levels of symbolic links (rule skipped)\n"
		 "denywritectl: load: <stdin>:4: %s/bin/x: Not a directory "
		 "(rule skipped)\n"
		 "denywritectl: load: 2 parts were skipped: the other rules are "
		 "valid\n", loop, dir);
	EXPECT(&o, 6, "-lib,ignore-writers /usr/lib\nchecked 1 rule from 1 "
	       "file (dry run: nothing loaded)\n", want, "load", "--dry-run",
	       "-");
	return 0;
}

/*
 * "The same rule" is the object (rules.h): of the rules for one object,
 * whatever names they use, the last file's stands, in the place of the
 * first; in one file the first stands and the others are errors, even
 * when a later file overrides the object.
 */
TEST(load_keeps_the_last_files_rule_for_an_object_in_the_place_of_the_first)
{
	char dir[PATH_MAX / 8], dir2[PATH_MAX / 8], link[PATH_MAX / 8 + 8];
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], text[PATH_MAX];
	char want[2 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	make_target(dir, sizeof(dir));
	make_target(dir2, sizeof(dir2));
	snprintf(link, sizeof(link), "%s.link", dir);
	CHECK(symlink(dir, link) == 0, "symlink");
	/* a names DIR, b its link, c DIR again: c's rule stands, where
	 * a's was */
	snprintf(text, sizeof(text), "exec %s\nexec %s\n", dir, dir2);
	policy_file(a, sizeof(a), text);
	snprintf(text, sizeof(text), "lib %s\n", link);
	policy_file(b, sizeof(b), text);
	snprintf(text, sizeof(text), "all %s\n", dir);
	policy_file(c, sizeof(c), text);
	fake_default(&f);
	NEEDS_CAP(&o, "load", a, b, c);
	EXPECT(&o, 0, "loaded 2 rules from 3 files\n", "", "load", "--strict",
	       a, b, c);
	snprintf(want, sizeof(want), "all %s\nexec %s\n", dir, dir2);
	CHECK_FAKE(&f, "rules", want);
	/* a's second rule for DIR is an error, though b overrides both */
	snprintf(text, sizeof(text), "exec %s\nlib %s\n", dir, link);
	policy_file(a, sizeof(a), text);
	snprintf(text, sizeof(text), "all %s\n", link);
	policy_file(b, sizeof(b), text);
	snprintf(want, sizeof(want), "denywritectl: load: %s:2: %s is the "
		 "same as %s on line 1 (rule skipped)\n"
		 "denywritectl: load: 1 part was skipped: the other rules are "
		 "in force\n", a, link, dir);
	EXPECT(&o, 6, "loaded 1 rule from 2 files\n", want, "load", a, b);
	snprintf(want, sizeof(want), "all %s\n", link);
	CHECK_FAKE(&f, "rules", want);
	return 0;
}

/*
 * A path named twice in one file is found where any two names of one
 * object are, once the rules are resolved: said in the order of the
 * lines with the paths that do not resolve, and --strict stops at the
 * first of them.
 */
TEST(load_says_the_rules_it_drops_in_the_order_of_their_lines)
{
	char dir[PATH_MAX / 4], text[2 * PATH_MAX], want[4 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = text };

	make_target(dir, sizeof(dir));
	snprintf(text, sizeof(text), "lib %s/missing\nexec %s\nexec %s\n"
		 "lib %s/.\n", dir, dir, dir, dir);
	fake_init(&f, "capability", "");	/* not active: no diff */
	snprintf(want, sizeof(want), "denywritectl: load: <stdin>:1: "
		 "%s/missing: No such file or directory\n", dir);
	EXPECT(&o, 1, "", want, "load", "--strict", "--dry-run", "-");
	snprintf(want, sizeof(want), "denywritectl: load: <stdin>:1: "
		 "%s/missing: No such file or directory (rule skipped)\n"
		 "denywritectl: load: <stdin>:3: a rule for %s is already on "
		 "line 2 (rule skipped)\n"
		 "denywritectl: load: <stdin>:4: %s/. is the same as %s on "
		 "line 2 (rule skipped)\n"
		 "denywritectl: load: 3 parts were skipped: the other rules are "
		 "valid\n", dir, dir, dir, dir);
	EXPECT(&o, 6, "checked 1 rule from 1 file (dry run: nothing "
	       "loaded)\n", want, "load", "--check", "-");
	return 0;
}

/*
 * Two hard links of a file are one object, so one rule: diff and list
 * --sources pair the kernel's rule by one name with the files' rule by
 * the other, add --persist edits the line of the other name, and del
 * --persist finds the rule still in another file by the other name.
 */
TEST(hard_links_of_a_file_are_one_rule_for_diff_sources_and_persist)
{
	char root[PATH_MAX / 4], dir[PATH_MAX / 4], bin[PATH_MAX / 4 + 8];
	char other[PATH_MAX / 4 + 8], local[PATH_MAX], vendor[PATH_MAX];
	char text[2 * PATH_MAX], want[4 * PATH_MAX], got[2 * PATH_MAX];
	char *real;
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	make_tmpdir(root, sizeof(root), "root");
	real = realpath(root, NULL);
	snprintf(root, sizeof(root), "%s", real);
	free(real);
	make_target(dir, sizeof(dir));
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	CHECK(link(bin, other) == 0, "link");
	snprintf(vendor, sizeof(vendor), "%s/usr/lib/" RULES_D "/50-x.rules",
		 root);
	snprintf(text, sizeof(text), "exec /\nexec %s\n", bin);
	tree_file(root, "usr/lib/" RULES_D "/50-x.rules", text);
	snprintf(text, sizeof(text), "exec /\nexec %s\n", other);
	fake_init(&f, "denywrite", text);
	EXPECT(&o, 0, "", "", "diff", "--root", root);
	snprintf(want, sizeof(want), "%s:1: exec /\n%s:2: exec %s\n", vendor,
		 vendor, other);
	EXPECT(&o, 0, want, "", "list", "--sources", "--root", root);
	/* 90-local.rules has the rule by the other name */
	local_rules(local, sizeof(local), root);
	snprintf(text, sizeof(text), "# mine\nlib %s\n", other);
	write_file(local, text);
	fake_default(&f);
	NEEDS_CAP(&o, "add", "--persist", bin);
	EXPECT(&o, 0, "", "", "add", "--persist", "--root", root, "--exec",
	       bin);
	snprintf(want, sizeof(want), "# mine\nexec %s\n", bin);
	CHECK(file_is(local, want, got, sizeof(got)), "90-local.rules: %s", got);
	snprintf(text, sizeof(text), "exec /\nexec %s\n", bin);
	fake_file(&f, "rules", text);
	snprintf(want, sizeof(want), "denywritectl: del: %s: still in %s:2, "
		 "which load reads: remove it there (or override it in a "
		 "later file)\n", bin, vendor);
	EXPECT(&o, 1, "", want, "del", "--persist", "--root", root, bin);
	CHECK(file_is(local, "# mine\n", got, sizeof(got)),
	      "90-local.rules after del: %s", got);
	return 0;
}

const struct test load_tests[] = {
	T(load_writes_the_whole_policy_and_says_how_much),
	T(load_quiet_prints_nothing),
	T(load_of_empty_input_is_refused_without_allow_empty),
	T(load_allow_empty_clears_the_rules),
	T(load_rejects_unknown_scope_with_file_and_line),
	T(load_skips_bad_rules_and_loads_the_others_in_one_write),
	T(load_skips_an_optional_rule_whose_path_is_missing_silently),
	T(load_of_a_missing_file_fails),
	T(load_stops_at_the_kernels_limits),
	T(load_counts_the_limit_after_optional_and_overridden_rules),
	T(load_keeps_the_admins_rules_when_vendor_files_pass_the_limit),
	T(load_of_200000_rule_lines_stops_within_two_seconds),
	T(load_of_an_11_mb_200000_line_file_takes_under_a_second),
	T(load_rejects_a_missing_path_naming_file_and_line),
	T(load_rejects_one_directory_named_twice),
	T(load_warns_about_a_lib_rule_on_a_whole_tree),
	T(load_dry_run_needs_no_privilege_and_no_securityfs),
	T(load_reads_several_files_as_one_policy),
	T(load_lets_a_later_files_rule_for_one_object_override),
	T(load_merges_rules_d_by_name_etc_over_run_over_usr_lib),
	T(load_of_rules_d_names_the_file_and_line_of_an_error),
	T(load_of_rules_d_skips_a_directory_a_dangling_link_and_bad_lines),
	T(load_without_rules_d_files_refuses_to_clear),
	T(diff_says_what_load_would_add_and_remove_and_exits_1),
	T(diff_counts_rules_that_cannot_load_as_drift),
	T(load_counts_only_the_files_it_read),
	T(load_exits_6_when_partly_loaded_and_1_when_the_kernel_refuses),
	T(add_and_del_persist_write_90_local_rules),
	T(list_sources_names_the_file_and_line_runtime_or_gone),
	T(persist_parallel_adds_all_kept),
	T(persist_keeps_mode_and_owner_of_90_local_rules),
	T(persist_writes_through_a_symlinked_90_local_rules),
	T(persist_replaces_the_rule_for_the_same_object),
	T(load_skips_fifo_rules_file),
	T(load_skips_a_rules_d_that_is_not_a_directory_unless_strict),
	T(load_optional_rule_ignores_only_a_missing_path),
	T(load_keeps_the_last_files_rule_for_an_object_in_the_place_of_the_first),
	T(load_says_the_rules_it_drops_in_the_order_of_their_lines),
	T(hard_links_of_a_file_are_one_rule_for_diff_sources_and_persist),
	{ NULL, NULL },
};
