// SPDX-License-Identifier: GPL-2.0
/*
 * Masking a vendor's file or rule without copying it (a rules.d file
 * linked to /dev/null, a "!PATH" line), cat-config, and load --root IMAGE
 * --check: an image's policy checked offline, its paths resolved in it.
 */
#include "e2e.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LOADED "exec /\nlib,ignore-writers /usr/lib\n"	/* fake_default */

/* A symbolic link root/rel to target, its directories made. */
static void tree_link(const char *root, const char *rel, const char *target)
{
	char path[PATH_MAX];

	tree_file(root, rel, "");
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (unlink(path) != 0 || symlink(target, path) != 0)
		abort();
}

/* A new scratch directory, by its canonical path. */
static void scratch(char *dir, size_t size, const char *name)
{
	char *real;

	make_tmpdir(dir, size, name);
	real = realpath(dir, NULL);
	snprintf(dir, size, "%s", real);
	free(real);
}

/*
 * A rules.d file of the highest priority linked to /dev/null masks the
 * files of its name, as systemd's configuration files are masked, and so
 * does an empty one: neither is an error, and the link is not read.
 */
TEST(rules_d_file_linked_to_dev_null_masks_the_vendor_file)
{
	char root[PATH_MAX / 4], text[PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	scratch(root, sizeof(root), "root");
	tree_file(root, "data/a/x", "");
	snprintf(text, sizeof(text), "exec %s/data/a\n", root);
	tree_file(root, "usr/lib/" RULES_D "/50-vendor.rules", text);
	tree_file(root, "usr/lib/" RULES_D "/60-more.rules", "lib /usr\n");
	tree_file(root, "etc/" RULES_D "/10-base.rules", "exec /\n");
	tree_link(root, "etc/" RULES_D "/50-vendor.rules", "/dev/null");
	tree_file(root, "run/" RULES_D "/60-more.rules", "");
	fake_default(&f);
	NEEDS_CAP(&o, "load", "--root", root);
	EXPECT(&o, 0, "loaded 1 rule from 2 files\n", "", "load", "--strict",
	       "--root", root);
	CHECK_FAKE(&f, "rules", "exec /\n");
	return 0;
}

/*
 * "!PATH" in a later file masks the rule for the same object (rule_same:
 * here through a symbolic link) of an earlier file; load, diff and list
 * --sources all see the masked rule as not in the files.
 */
TEST(bang_line_masks_vendor_rule_for_same_object)
{
	char root[PATH_MAX / 4], text[PATH_MAX], want[2 * PATH_MAX];
	char link[PATH_MAX / 2];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	scratch(root, sizeof(root), "root");
	tree_file(root, "data/a/x", "");
	tree_file(root, "data/b/x", "");
	snprintf(link, sizeof(link), "%s/data/b.link", root);
	CHECK(symlink("b", link) == 0, "symlink");
	snprintf(text, sizeof(text), "exec %s/data/a\nlib %s/data/b\n", root,
		 root);
	tree_file(root, "usr/lib/" RULES_D "/50-vendor.rules", text);
	snprintf(text, sizeof(text), "# not on this host\n!%s\n", link);
	tree_file(root, "etc/" RULES_D "/90-local.rules", text);
	fake_default(&f);
	NEEDS_CAP(&o, "load", "--root", root);
	EXPECT(&o, 0, "loaded 1 rule from 2 files\n", "", "load", "--strict",
	       "--root", root);
	snprintf(want, sizeof(want), "exec %s/data/a\n", root);
	CHECK_FAKE(&f, "rules", want);
	/* the kernel has the vendor's rule: drift, and no file's rule */
	snprintf(text, sizeof(text), "exec %s/data/a\nlib %s/data/b\n", root,
		 root);
	fake_file(&f, "rules", text);
	snprintf(want, sizeof(want), "-lib %s/data/b\n", root);
	EXPECT(&o, 1, want, "", "diff", "--strict", "--root", root);
	snprintf(want, sizeof(want), "%s/usr/lib/" RULES_D "/50-vendor.rules:1: "
		 "exec %s/data/a\nruntime: lib %s/data/b\n", root, root, root);
	EXPECT(&o, 0, want, "", "list", "--sources", "--root", root);
	return 0;
}

/*
 * A file has one line an object: a "!" for a rule of its own file is a
 * second line for it, an error (the first line stands), whichever comes
 * first; a file never masks its own rules.
 */
TEST(bang_line_in_the_rules_own_file_is_an_error_and_the_first_line_stands)
{
	char dir[PATH_MAX / 4], text[PATH_MAX], want[4 * PATH_MAX];
	char out[PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = text };

	make_target(dir, sizeof(dir));
	fake_init(&f, "capability", "");	/* not active: no diff */
	snprintf(text, sizeof(text), "lib %s\n!%s\n", dir, dir);
	snprintf(want, sizeof(want), "denywritectl: load: <stdin>:2: a rule "
		 "for %s is already on line 1 (rule skipped)\n"
		 "denywritectl: load: 1 part was skipped: the other rules are "
		 "valid\n", dir);
	EXPECT(&o, 6, "checked 1 rule from 1 file (dry run: nothing "
	       "loaded)\n", want, "load", "--dry-run", "-");
	snprintf(text, sizeof(text), "!%s/.\nexec /\nlib %s\n", dir, dir);
	snprintf(want, sizeof(want), "denywritectl: warning: <stdin>:1: "
		 "!%s/. masks no rule: no earlier file has a rule for it\n"
		 "denywritectl: load: <stdin>:3: %s is the same as !%s/. on "
		 "line 1 (rule skipped)\n"
		 "denywritectl: load: 1 part was skipped: the other rules are "
		 "valid\n", dir, dir, dir);
	snprintf(out, sizeof(out), "checked 1 rule from 1 file (dry run: "
		 "nothing loaded)\n");
	EXPECT(&o, 6, out, want, "load", "--dry-run", "-");
	return 0;
}

/*
 * A "!" masks the rules of earlier files only, in load order (a later
 * file's rule overrides it, as it would a rule): one for which no
 * earlier file has a rule masks nothing, a warning, and with --strict an
 * error that fails the load.
 */
TEST(bang_line_that_masks_no_rule_warns_and_fails_with_strict)
{
	char dir[PATH_MAX / 4], a[PATH_MAX], b[PATH_MAX], text[PATH_MAX];
	char want[2 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	make_target(dir, sizeof(dir));
	snprintf(text, sizeof(text), "!%s\nexec /\n", dir);
	policy_file(a, sizeof(a), text);
	snprintf(text, sizeof(text), "lib %s\n", dir);
	policy_file(b, sizeof(b), text);
	fake_default(&f);
	snprintf(want, sizeof(want), "denywritectl: warning: %s:1: !%s masks "
		 "no rule: no earlier file has a rule for it\n", a, dir);
	NEEDS_CAP(&o, "load", a, b);
	EXPECT(&o, 0, "loaded 2 rules from 2 files\n", want, "load", a, b);
	/* b's rule stands, in the place of the object's first line */
	snprintf(want, sizeof(want), "lib %s\nexec /\n", dir);
	CHECK_FAKE(&f, "rules", want);
	fake_default(&f);
	snprintf(want, sizeof(want), "denywritectl: load: %s:1: !%s masks no "
		 "rule: no earlier file has a rule for it\n", a, dir);
	EXPECT(&o, 1, "", want, "load", "--strict", a, b);
	CHECK_FAKE(&f, "rules", LOADED);
	return 0;
}

/*
 * A path that does not resolve names no object: its "!" masks the rule
 * of the same path, byte for byte, that does not resolve either (so a
 * vendor's rule for a path this host lacks is silenced), and no other.
 */
TEST(bang_line_for_a_missing_path_masks_the_rule_written_the_same)
{
	char a[PATH_MAX], b[PATH_MAX], want[3 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_init(&f, "capability", "");	/* not active: no diff */
	policy_file(a, sizeof(a), "exec /\nlib /nonexistent/dw-vendor\n");
	policy_file(b, sizeof(b), "!/nonexistent/dw-vendor\n");
	EXPECT(&o, 0, "checked 1 rule from 2 files (dry run: nothing "
	       "loaded)\n", "", "load", "--strict", "--dry-run", a, b);
	policy_file(b, sizeof(b), "!/nonexistent/dw-vendor/.\n");
	snprintf(want, sizeof(want), "denywritectl: load: %s:2: "
		 "/nonexistent/dw-vendor: No such file or directory (rule "
		 "skipped)\n"
		 "denywritectl: warning: %s:1: !/nonexistent/dw-vendor/. masks "
		 "no rule: no earlier file has a rule for it (No such file or "
		 "directory)\n"
		 "denywritectl: load: 1 part was skipped: the other rules are "
		 "valid\n", a, b);
	EXPECT(&o, 6, "checked 1 rule from 2 files (dry run: nothing "
	       "loaded)\n", want, "load", "--dry-run", a, b);
	return 0;
}

/*
 * 90-local.rules has one line an object: add --persist puts its rule in
 * the place of a "!" for that object; del --persist leaves a "!", which
 * is no rule.
 */
TEST(add_persist_replaces_a_bang_line_for_the_object_and_del_persist_keeps_it)
{
	char root[PATH_MAX / 4], dir[PATH_MAX / 4], local[PATH_MAX];
	char text[PATH_MAX], want[PATH_MAX], got[2 * PATH_MAX];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	scratch(root, sizeof(root), "root");
	make_target(dir, sizeof(dir));
	snprintf(text, sizeof(text), "# mine\n!%s/.\nexec /\n", dir);
	tree_file(root, "etc/" RULES_D "/90-local.rules", text);
	snprintf(local, sizeof(local), "%s/etc/" RULES_D "/90-local.rules",
		 root);
	fake_default(&f);
	NEEDS_CAP(&o, "add", "--persist", dir);
	EXPECT(&o, 0, "", "", "add", "--persist", "--root", root, "--lib", dir);
	snprintf(want, sizeof(want), "# mine\nlib %s\nexec /\n", dir);
	CHECK(file_is(local, want, got, sizeof(got)), "after add: '%s'", got);
	write_file(local, text);
	fake_file(&f, "rules", "exec /\n");
	EXPECT(&o, 0, "", "", "del", "--persist", "--root", root, "/");
	snprintf(want, sizeof(want), "# mine\n!%s/.\n", dir);
	CHECK(file_is(local, want, got, sizeof(got)), "after del: '%s'", got);
	return 0;
}

/*
 * cat-config prints the files load reads, in load order, each after a
 * "# /path" line: those masked by name as "(masked by ...)", a link to
 * /dev/null as such, the rules a later file masks or overrides marked
 * with that file's line; with --root the paths are the image's (the "!"
 * names the vendor's directory through the image's absolute link /lib),
 * and load --root --check loads what it shows.
 */
/*
 * Whether openat2(2) works here.  valgrind 3.19 (make memcheck) does not
 * know it and answers ENOSYS: there a command that looks up in an image
 * must fail with its message, never look outside.
 */
static bool openat2_works(void)
{
	struct open_how how = { .flags = O_PATH, .resolve = RESOLVE_IN_ROOT };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Without openat2: the command fails with its message, and prints nothing. */
static int fails_without_openat2(const struct opts *o, const char *cmd,
				 const char *img, char *why, size_t whylen)
{
	struct run r;
	bool ok;

	if (strcmp(cmd, "load") == 0)
		run_tool(&r, o, cmd, "--check", "--root", img, (char *)NULL);
	else
		run_tool(&r, o, cmd, "--root", img, (char *)NULL);
	snprintf(why, whylen, "no openat2 here: %s exit %d, stdout '%s', "
		 "stderr '%s'", cmd, r.status, r.out, r.err);
	ok = r.status == 1 && !*r.out &&
	     strstr(r.err, "cannot look paths up inside it");
	run_free(&r);
	return ok ? 0 : TEST_FAIL;
}

TEST(cat_config_prints_files_in_load_order_marking_masked_files_and_rules)
{
	char root[PATH_MAX / 8], want[8 * PATH_MAX];
	char u[PATH_MAX / 4], r[PATH_MAX / 4], e[PATH_MAX / 4];
	struct opts o = { .uid = -1 };

	scratch(root, sizeof(root), "image");
	if (!openat2_works())
		return fails_without_openat2(&o, "cat-config", root, why, whylen);
	tree_file(root, "usr/lib/dw/x", "");
	tree_file(root, "opt/app/bin/x", "");
	tree_link(root, "lib", "/usr/lib");
	tree_file(root, "usr/lib/" RULES_D "/50-default.rules",
		  "# vendor\nexec /\nlib /usr/lib/dw\n-lib /opt/none\n");
	tree_file(root, "usr/lib/" RULES_D "/60-app.rules", "exec /opt/app\n");
	tree_file(root, "run/" RULES_D "/60-app.rules", "exec /opt/app/bin\n");
	tree_file(root, "usr/lib/" RULES_D "/70-old.rules", "exec /old\n");
	tree_link(root, "etc/" RULES_D "/70-old.rules", "/dev/null");
	tree_file(root, "etc/" RULES_D "/90-local.rules",
		  "!/lib/dw\nexec,ignore-writers /\n");
	snprintf(u, sizeof(u), "%s/usr/lib/" RULES_D, root);
	snprintf(r, sizeof(r), "%s/run/" RULES_D, root);
	snprintf(e, sizeof(e), "%s/etc/" RULES_D, root);
	snprintf(want, sizeof(want),
		 "# %s/50-default.rules\n"
		 "# vendor\n"
		 "# overridden by %s/90-local.rules:2: exec /\n"
		 "# masked by %s/90-local.rules:1: lib /usr/lib/dw\n"
		 "-lib /opt/none\n"
		 "\n# %s/60-app.rules (masked by %s/60-app.rules)\n"
		 "\n# %s/60-app.rules\n"
		 "exec /opt/app/bin\n"
		 "\n# %s/70-old.rules (masked by %s/70-old.rules)\n"
		 "\n# %s/70-old.rules (a link to /dev/null)\n"
		 "\n# %s/90-local.rules\n"
		 "!/lib/dw\n"
		 "exec,ignore-writers /\n", u, e, e, u, r, r, u, e, e, e);
	EXPECT(&o, 0, want, "", "cat-config", "--root", root);
	EXPECT(&o, 0, "exec,ignore-writers /\nexec /opt/app/bin\nchecked 2 "
	       "rules from 3 files (dry run: nothing loaded)\n", "", "load",
	       "--strict", "--check", "--root", root);
	return 0;
}

/*
 * load --root IMAGE --check: the rules.d directories, their files and
 * the rules' paths are looked up in IMAGE as if it were / (an absolute
 * link is the image's; ".." stops at its root), never on this system,
 * and never in securityfs: what would be loaded is printed, and the exit
 * status is a load's (6 parts skipped, 1 with --strict or no rules).
 */
TEST(load_root_check_resolves_paths_inside_the_image_and_never_escapes)
{
	char img[PATH_MAX / 8], host[PATH_MAX / 4], ups[64] = "";
	char text[PATH_MAX], want[4 * PATH_MAX], local[PATH_MAX / 2];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	scratch(img, sizeof(img), "image");
	if (!openat2_works()) {
		fake_default(&f);
		return fails_without_openat2(&o, "load", img, why, whylen);
	}
	/* beside the image, on this system only */
	snprintf(host, sizeof(host), "%s.secret", img);
	CHECK(mkdir(host, 0755) == 0, "mkdir %s", host);
	for (const char *p = img; *p; p++)
		if (*p == '/')
			strcat(ups, "/..");
	tree_file(img, "srv/app-dw7/lib/x", "");
	tree_link(img, "opt/app", "/srv/app-dw7");
	snprintf(text, sizeof(text), "..%s", strrchr(host, '/'));
	tree_link(img, "esc", text);		/* ../image.N.secret */
	tree_link(img, "abs", host);		/* this system's path */
	tree_file(img, "usr/share/dw/80-app.rules", "lib /opt/app/lib\n");
	tree_link(img, "etc/" RULES_D "/80-app.rules",
		  "/usr/share/dw/80-app.rules");
	snprintf(text, sizeof(text), "exec /opt/app\nexec %s%s\nexec /esc\n"
		 "exec /abs\n", ups, host);
	tree_file(img, "etc/" RULES_D "/90-local.rules", text);
	snprintf(local, sizeof(local), "%s/etc/" RULES_D "/90-local.rules",
		 img);
	fake_default(&f);
	snprintf(want, sizeof(want),
		 "denywritectl: load: %s:2: %s%s: No such file or directory "
		 "(rule skipped)\n"
		 "denywritectl: load: %s:3: /esc: No such file or directory "
		 "(rule skipped)\n"
		 "denywritectl: load: %s:4: /abs: No such file or directory "
		 "(rule skipped)\n"
		 "denywritectl: load: 3 parts were skipped: the other rules are "
		 "valid\n", local, ups, host, local, local);
	EXPECT(&o, 6, "lib /srv/app-dw7/lib\nexec /srv/app-dw7\nchecked 2 "
	       "rules from 2 files (dry run: nothing loaded)\n", want, "load",
	       "--check", "--root", img);
	snprintf(want, sizeof(want), "denywritectl: load: %s:2: %s%s: No such "
		 "file or directory\n", local, ups, host);
	EXPECT(&o, 1, "", want, "load", "--check", "--strict", "--root", img);
	tree_file(img, "etc/" RULES_D "/90-local.rules", "exec /opt/app\n");
	EXPECT(&o, 0, "{\"checked\":2,\"files\":2,\"skipped\":0,\"rules\":["
	       "{\"scope\":\"lib\",\"ignore_writers\":false,\"path\":"
	       "\"/srv/app-dw7/lib\"},{\"scope\":\"exec\",\"ignore_writers\":"
	       "false,\"path\":\"/srv/app-dw7\"}]}\n", "", "load", "--check",
	       "--json", "--root", img);
	CHECK_FAKE(&f, "rules", LOADED);
	return 0;
}

const struct test mask_tests[] = {
	T(rules_d_file_linked_to_dev_null_masks_the_vendor_file),
	T(bang_line_masks_vendor_rule_for_same_object),
	T(bang_line_in_the_rules_own_file_is_an_error_and_the_first_line_stands),
	T(bang_line_that_masks_no_rule_warns_and_fails_with_strict),
	T(bang_line_for_a_missing_path_masks_the_rule_written_the_same),
	T(add_persist_replaces_a_bang_line_for_the_object_and_del_persist_keeps_it),
	T(cat_config_prints_files_in_load_order_marking_masked_files_and_rules),
	T(load_root_check_resolves_paths_inside_the_image_and_never_escapes),
	{ NULL, NULL },
};
