// SPDX-License-Identifier: GPL-2.0
/* End-to-end runs of the commands other than load and why. */
#include "e2e.h"

#include <elf.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

TEST(version_and_help_print_to_stdout)
{
	struct run r;
	int ok;

	EXPECT(&(struct opts){ .uid = -1 }, 0,
	       "denywritectl " PROGRAM_VERSION "\n", "", "--version");
	run_tool(&r, &(struct opts){ .uid = -1 }, "-h", (char *)NULL);
	ok = r.status == 0 && strncmp(r.out, "Usage:\n", 7) == 0 &&
	     strstr(r.out, "denywritectl(8)") && !*r.err;
	run_free(&r);
	CHECK(ok, "help output");
	return 0;
}

TEST(each_command_has_its_own_help)
{
	static const char *const cmds[] = {
		"status", "mode", "add", "del", "clear", "list", "load", "save",
		"why", "stats", "diff", "log",
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct run r;
		char want[64];
		int ok;

		snprintf(want, sizeof(want), "Usage:\n denywritectl %s", cmds[i]);
		run_tool(&r, &(struct opts){ .uid = -1 }, cmds[i], "--help",
			 (char *)NULL);
		ok = r.status == 0 && !strncmp(r.out, want, strlen(want)) &&
		     strstr(r.out, "\nSee denywritectl(8).\n") && !*r.err;
		snprintf(why, whylen, "%s --help: exit %d: %s%s", cmds[i],
			 r.status, r.out, r.err);
		run_free(&r);
		if (!ok)
			return TEST_FAIL;
	}
	return 0;
}

TEST(mode_save_and_load_print_json)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = "exec /\nlib /usr\n" };

	fake_default(&f);
	EXPECT(&o, 0, "{\"mode\":\"enforce\"}\n", "", "mode", "--json");
	EXPECT(&o, 0, "{\"rules\":[{\"scope\":\"exec\",\"ignore_writers\":"
	       "false,\"path\":\"/\"},{\"scope\":\"lib\",\"ignore_writers\":"
	       "true,\"path\":\"/usr/lib\"}],\"gone\":[]}\n", "", "save", "-j");
	EXPECT(&o, 0, "{\"checked\":2,\"files\":1,\"skipped\":0,\"add\":"
	       "[{\"scope\":\"lib\",\"ignore_writers\":false,\"path\":"
	       "\"/usr\"}],\"remove\":[{\"scope\":\"lib\",\"ignore_writers\":"
	       "true,\"path\":\"/usr/lib\"}]}\n", "", "load", "--dry-run",
	       "--json", "-");
	NEEDS_CAP(&o, "load", "-");
	EXPECT(&o, 0, "{\"loaded\":2,\"files\":1,\"skipped\":0}\n", "",
	       "load", "--json", "-");
	return 0;
}

TEST(usage_errors_exit_2_with_hint_line)
{
	struct opts o = { .uid = -1 };

	EXPECT(&o, 2, "", "denywritectl: unknown command 'sttaus'\n" HINT,
	       "sttaus");
	EXPECT(&o, 2, "", "denywritectl: add: --lib and --exec conflict\n"
	       HINT, "add", "--lib", "--exec", "/");
	EXPECT(&o, 2, "", "denywritectl: del: missing path\n" HINT, "del");
	return 0;
}

TEST(status_says_not_active_and_exits_3_without_denywrite)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_init(&f, "capability,landlock,denywrite-not\n", "");
	EXPECT(&o, 3, "active:    no\n", "", "status");
	EXPECT(&o, 3, "{\"active\":false}\n", "", "status", "--json");
	EXPECT(&o, 3, "", "denywritectl: denywrite is not active: boot with "
	       "lsm=...,denywrite\n", "list");
	return 0;
}

TEST(commands_exit_3_when_the_denywrite_directory_is_missing)
{
	static const char *const cmds[] = { "list", "save", "stats", "mode" };
	struct fake f;
	char path[PATH_MAX + 8];

	fake_init(&f, "denywrite", "");
	snprintf(path, sizeof(path), "%s/gone", f.root);
	CHECK(rename(f.dir, path) == 0, "rename");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 3, "",
		       "denywritectl: denywrite is not active: boot with "
		       "lsm=...,denywrite\n", cmds[i]);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 3, "active:    no\n",
	       "", "status");
	return 0;
}

TEST(status_exits_4_when_it_cannot_tell_and_says_why)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	char want[PATH_MAX + 128];

	fake_init(&f, NULL, "");
	snprintf(want, sizeof(want), "denywritectl: cannot tell whether "
		 "denywrite is active: securityfs is not mounted: "
		 "mount -t securityfs securityfs %s\n", f.root);
	EXPECT(&o, 4, "active:    unknown\n", want, "status");
	EXPECT(&o, 4, "{\"active\":null}\n", want, "status", "--json");
	EXPECT(&o, 4, "", want, "list");
	return 0;
}

TEST(status_reports_mode_rules_and_counters)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0,
	       "active:    yes\n"
	       "mode:      enforce\n"
	       "rules:     2\n"
	       "policy:    7bc7be322cdbcedc500c23bcb2faa0a1f0d11555ca41094a449a19acf3b974ed\n"
	       "protected: 5 files\n"
	       "denied:    write 3, truncate 1, exec 0, mmap 4\n"
	       "audited:   7\n", "", "status");
	return 0;
}

TEST(status_says_how_many_rules_went_with_their_filesystem)
{
	struct fake f;

	fake_default(&f);
	fake_file(&f, "stats", FAKE_STATS "gone 1\n");
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0,
	       "active:    yes\n"
	       "mode:      enforce\n"
	       "rules:     2\n"
	       "policy:    7bc7be322cdbcedc500c23bcb2faa0a1f0d11555ca41094a449a19acf3b974ed\n"
	       "protected: 5 files\n"
	       "denied:    write 3, truncate 1, exec 0, mmap 4\n"
	       "audited:   7\n"
	       "gone:      1 rule (its filesystem was unmounted)\n", "", "status");
	fake_file(&f, "stats", FAKE_STATS "gone 70\n");
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0, "{\"active\":true,"
	       "\"mode\":\"enforce\",\"policy\":\"7bc7be322cdbcedc500c23bcb2faa0a1f0d11555ca41094a449a19acf3b974ed\",\"rules\":2,"
	       "\"protected\":5,\"denied_write\":3,\"denied_truncate\":1,"
	       "\"denied_exec\":0,\"denied_mmap\":4,\"audited\":7,"
	       "\"gone\":70}\n", "", "status", "--json");
	return 0;
}

TEST(status_json_is_one_object)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0,
	       "{\"active\":true,\"mode\":\"enforce\",\"policy\":"
	       "\"7bc7be322cdbcedc500c23bcb2faa0a1f0d11555ca41094a449a19acf3b974ed\",\"rules\":2,"
	       "\"protected\":5,\"denied_write\":3,\"denied_truncate\":1,"
	       "\"denied_exec\":0,\"denied_mmap\":4,\"audited\":7}\n", "",
	       "--json", "status");
	return 0;
}

TEST(status_fails_on_stats_without_a_counter)
{
	struct fake f;
	char want[PATH_MAX + 64];

	fake_default(&f);
	fake_file(&f, "stats", "rules 2\nprotected 5\n");
	snprintf(want, sizeof(want),
		 "denywritectl: %s/stats: no 'denied_write' line\n", f.dir);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "", want, "status");
	return 0;
}

/*
 * status's policy: is the digest of the rules file as the kernel's audit
 * records give it, that is as sha256sum prints it: checked against
 * sha256sum itself, for an empty file, a short one, one of 60 bytes (its
 * length goes in a second block), one of more than 64 bytes and one of a
 * path with a byte that is no UTF-8.
 */
TEST(status_policy_is_the_sha256sum_of_the_rules_file)
{
	static const char *const rules[] = {
		"",
		"exec /\n",
		"exec /opt/" "0123456789012345678901234567890123456789012345678\n",
		"exec /\nlib,ignore-writers /usr/lib\nlib /opt/a-directory-name-"
		"long-enough-for-a-second-block/lib\n",
		"exec /srv/caf\xe9" "\nlib /usr/lib\n",
	};
	struct fake f;
	struct run r;
	char cmd[PATH_MAX + 64], sum[65], want[128];

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const char *line;
		FILE *p;
		size_t n;
		int ok;

		fake_init(&f, "capability,denywrite", rules[i]);
		snprintf(cmd, sizeof(cmd), "sha256sum <'%s/rules'", f.dir);
		p = popen(cmd, "r");
		CHECK(p, "popen sha256sum");
		n = fread(sum, 1, 64, p);
		sum[n] = '\0';
		CHECK(pclose(p) == 0 && n == 64, "rules %zu: %s failed",
		      i, cmd);
		snprintf(want, sizeof(want), "\npolicy:    %s\n", sum);
		run_tool(&r, &(struct opts){ .sfs = &f, .uid = -1 }, "status",
			 (char *)NULL);
		line = strstr(r.out, "\npolicy:    ");
		snprintf(why, whylen, "rules %zu: exit %d, stdout '%s', stderr "
			 "'%s', want sha256sum's %s", i, r.status, r.out, r.err,
			 sum);
		ok = r.status == 0 && !*r.err && line &&
		     strncmp(line, want, strlen(want)) == 0;
		run_free(&r);
		if (!ok)
			return TEST_FAIL;
	}
	return 0;
}

TEST(stats_prints_counters_as_key_value_lines_or_json)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_default(&f);
	EXPECT(&o, 0, FAKE_STATS, "", "stats");
	EXPECT(&o, 0, "{\"rules\":2,\"protected\":5,\"denied_write\":3,"
	       "\"denied_truncate\":1,\"denied_exec\":0,\"denied_mmap\":4,"
	       "\"audited\":7}\n", "", "stats", "-j");
	return 0;
}

TEST(mode_prints_current_mode)
{
	struct fake f;

	fake_default(&f);
	fake_file(&f, "mode", "audit\n");
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0, "audit\n", "",
	       "mode");
	return 0;
}

TEST(mode_set_writes_the_mode_file)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_default(&f);
	NEEDS_CAP(&o, "mode", "off");
	EXPECT(&o, 0, "", "", "mode", "off");
	CHECK_FAKE(&f, "mode", "off\n");
	return 0;
}

TEST(list_prints_rules_in_load_syntax)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0,
	       "exec /\nlib,ignore-writers /usr/lib\n", "", "list");
	return 0;
}

TEST(list_json_prints_a_rules_array)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0,
	       "{\"rules\":[{\"scope\":\"exec\",\"ignore_writers\":false,"
	       "\"path\":\"/\"},{\"scope\":\"lib\",\"ignore_writers\":true,"
	       "\"path\":\"/usr/lib\"}],\"gone\":[]}\n", "", "list", "--json");
	fake_file(&f, "rules", "");
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0,
	       "{\"rules\":[],\"gone\":[]}\n", "", "-j", "list");
	return 0;
}

TEST(save_prints_header_then_rules)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0,
	       "# denywrite policy, saved by denywritectl\n"
	       "exec /\nlib,ignore-writers /usr/lib\n", "", "save");
	return 0;
}

TEST(save_then_load_writes_the_same_rules)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	struct run r;

	fake_init(&f, "denywrite", "exec /\nlib /tmp\n");
	run_tool(&r, &o, "save", (char *)NULL);
	CHECK(r.status == 0, "save failed: %s", r.err);
	o.input = r.out;
	fake_file(&f, "rules", "");
	if (!privileged()) {
		run_free(&r);
		SKIP("load needs CAP_MAC_ADMIN");
	}
	EXPECT(&o, 0, "loaded 2 rules from 1 file\n", "", "load", "-");
	run_free(&r);
	CHECK_FAKE(&f, "rules", "exec /\nlib /tmp\n");
	return 0;
}

TEST(add_writes_the_canonical_rule_to_the_add_file)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	char dir[PATH_MAX], arg[PATH_MAX + 16], want[PATH_MAX + 32];

	fake_default(&f);
	make_target(dir, sizeof(dir));
	snprintf(arg, sizeof(arg), "%s/../%s/./bin", dir, strrchr(dir, '/') + 1);
	NEEDS_CAP(&o, "add", arg);
	EXPECT(&o, 0, "", "", "add", "-q", "--lib", "--ignore-writers", arg);
	snprintf(want, sizeof(want), "lib,ignore-writers %s/bin\n", dir);
	CHECK_FAKE(&f, "add", want);
	EXPECT(&o, 0, "", NOTE("add"), "add", dir);
	snprintf(want, sizeof(want), "all %s\n", dir);
	CHECK_FAKE(&f, "add", want);
	return 0;
}

TEST(add_rejects_a_missing_path_without_writing)
{
	struct fake f;
	char dir[PATH_MAX], missing[PATH_MAX + 16], want[PATH_MAX + 96];

	fake_default(&f);
	make_target(dir, sizeof(dir));
	snprintf(missing, sizeof(missing), "%s/nope", dir);
	snprintf(want, sizeof(want), "denywritectl: add: %s: No such file or "
		 "directory\n", missing);
	return refused(why, whylen, &f, "add", want, "add", dir, missing,
		       (char *)NULL);
}

TEST(add_rejects_a_rule_already_present)
{
	struct fake f;
	char dir[PATH_MAX], bin[PATH_MAX + 8], rules[PATH_MAX + 16];
	char want[PATH_MAX + 96];

	make_target(dir, sizeof(dir));
	fake_default(&f);
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(rules, sizeof(rules), "exec %s\n", bin);
	fake_file(&f, "rules", rules);
	snprintf(want, sizeof(want), "denywritectl: add: %s: a rule for "
		 "this path is already present\n", bin);
	return refused(why, whylen, &f, "add", want, "add", dir, bin,
		       (char *)NULL);
}

TEST(add_rejects_a_path_named_twice)
{
	struct fake f;
	char dir[PATH_MAX], want[2 * PATH_MAX + 96], other[PATH_MAX + 8];

	make_target(dir, sizeof(dir));
	fake_default(&f);
	snprintf(other, sizeof(other), "%s/.", dir);
	snprintf(want, sizeof(want), "denywritectl: add: %s (%s): named more "
		 "than once\n", other, dir);
	return refused(why, whylen, &f, "add", want, "add", dir, other,
		       (char *)NULL);
}

TEST(del_writes_the_canonical_path_to_the_del_file)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	char dir[PATH_MAX], rules[PATH_MAX + 16], arg[PATH_MAX + 8];

	make_target(dir, sizeof(dir));
	fake_default(&f);
	snprintf(rules, sizeof(rules), "exec /\nall %s\n", dir);
	fake_file(&f, "rules", rules);
	snprintf(arg, sizeof(arg), "%s/", dir);
	NEEDS_CAP(&o, "del", arg);
	EXPECT(&o, 0, "", NOTE("del"), "del", arg);
	snprintf(rules, sizeof(rules), "%s\n", dir);
	CHECK_FAKE(&f, "del", rules);
	return 0;
}

TEST(del_of_a_vanished_path_uses_the_string_as_given)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_init(&f, "denywrite", "exec /\nexec /gone/away\n");
	NEEDS_CAP(&o, "del", "/gone/away");
	EXPECT(&o, 0, "", "", "del", "--quiet", "/gone/away");
	CHECK_FAKE(&f, "del", "/gone/away\n");
	return 0;
}

TEST(del_rejects_an_absent_rule_before_deleting_any)
{
	struct fake f;

	fake_init(&f, "denywrite", "exec /\nexec /gone/away\n");
	return refused(why, whylen, &f, "del", "denywritectl: del: /not/there: "
		       "not present in the policy\n", "del", "/gone/away",
		       "/not/there", (char *)NULL);
}

TEST(clear_writes_a_newline_to_rules)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_default(&f);
	NEEDS_CAP(&o, "clear", (char *)NULL);
	EXPECT(&o, 0, "", "", "clear");
	CHECK_FAKE(&f, "rules", "\n");
	return 0;
}

TEST(list_and_save_print_paths_in_one_escape_dialect)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_init(&f, "denywrite", "exec /opt/caf\xe9\nlib /opt/a\\134b\n"
		  "exec /opt/t\\011 \\040\n");
	EXPECT(&o, 0, "exec /opt/caf\\351\nlib /opt/a\\134b\n"
	       "exec /opt/t\\011 \\040\n", "", "list");
	EXPECT(&o, 0, "{\"rules\":[{\"scope\":\"exec\",\"ignore_writers\":"
	       "false,\"path\":[47,111,112,116,47,99,97,102,233]},{\"scope\":"
	       "\"lib\",\"ignore_writers\":false,\"path\":\"/opt/a\\\\b\"},"
	       "{\"scope\":\"exec\",\"ignore_writers\":false,\"path\":"
	       "\"/opt/t\\t  \"}],\"gone\":[]}\n", "", "list", "--json");
	EXPECT(&o, 0, "# denywrite policy, saved by denywritectl\n"
	       "exec /opt/caf\\351\nlib /opt/a\\134b\nexec /opt/t\\011 \\040\n",
	       "", "save");
	return 0;
}

TEST(del_takes_what_list_prints)
{
	static const struct {
		const char *kernel;	/* as the kernel prints the path */
		const char *listed;	/* as list prints it, and del
					 * writes it (the kernel decodes it) */
	} cases[] = {
		{ "/opt/a\\134b", "/opt/a\\134b" },
		{ "/opt/\xff\xfe", "/opt/\\377\\376" },
		{ "/opt/t\\011x\\040", "/opt/t\\011x\\040" },
		{ "/opt/\xe2\x80\xae" "evil", "/opt/\\342\\200\\256" "evil" },
		{ "/opt/\xef\xbb\xbf", "/opt/\\357\\273\\277" },
		{ "/opt/my app", "/opt/my app" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake f;
		struct opts o = { .sfs = &f, .uid = -1 };
		char rules[256], want[256];

		snprintf(rules, sizeof(rules), "exec /\nlib %s\n",
			 cases[i].kernel);
		fake_init(&f, "denywrite", rules);
		snprintf(want, sizeof(want), "exec /\nlib %s\n",
			 cases[i].listed);
		EXPECT(&o, 0, want, "", "list");
		NEEDS_CAP(&o, "del", cases[i].listed);
		EXPECT(&o, 0, "", "", "del", "-q", cases[i].listed);
		snprintf(want, sizeof(want), "%s\n", cases[i].listed);
		CHECK_FAKE(&f, "del", want);
	}
	return 0;
}

TEST(add_escapes_control_characters_and_a_trailing_blank)
{
	static const struct {
		const char *name;
		const char *kernel;
	} cases[] = {
		{ "blank ", "blank\\040" },
		{ "ctl\x01", "ctl\\001" },
		{ "tab\tx", "tab\\011x" },
		{ "back\\slash", "back\\134slash" },
	};
	char dir[PATH_MAX], path[PATH_MAX + 16], want[PATH_MAX + 64];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	make_target(dir, sizeof(dir));
	fake_default(&f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, cases[i].name);
		CHECK(mkdir(path, 0755) == 0, "mkdir");
		NEEDS_CAP(&o, "add", path);
		EXPECT(&o, 0, "", "", "add", "-q", "--exec", path);
		snprintf(want, sizeof(want), "exec %s/%s\n", dir,
			 cases[i].kernel);
		CHECK_FAKE(&f, "add", want);
	}
	return 0;
}

TEST(add_warns_about_a_lib_rule_on_a_whole_tree)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_init(&f, "denywrite", "");
	NEEDS_CAP(&o, "add", "--lib", "/var");
	EXPECT(&o, 0, "", "denywritectl: warning: 'lib /var': any user who can "
	       "read a file there can block in-place writes to it by mapping "
	       "it executable; name the library directories instead\n", "add",
	       "-q", "--lib", "/var");
	CHECK_FAKE(&f, "add", "lib /var\n");
	return 0;
}

/* What the bash completion offers for the words of line (the last is
 * being completed), in out, with the bash-completion package's library
 * (policy-tool/deps.sh check installs it). */
static const char completion_lib[] = "/usr/share/bash-completion/bash_completion";

static int complete_line(const char *line, char *out, size_t size)
{
	char script[3 * PATH_MAX], file[PATH_MAX + 64];
	FILE *p;
	size_t n;

	dist_path(file, sizeof(file), "denywritectl.bash-completion");
	snprintf(script, sizeof(script), "bash -c '. %s; . %s; "
		 "COMP_LINE=\"%s\"; "
		 "COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<<\"$COMP_LINE\"; "
		 "case $COMP_LINE in *\" \") COMP_WORDS+=(\"\");; esac; "
		 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _denywritectl; "
		 "echo \"${COMPREPLY[*]}\"'",
		 completion_lib, file, line);
	p = popen(script, "r");
	if (!p)
		return -1;
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return pclose(p) == 0 ? 0 : -1;
}

/* A line, and what the completion offers for its last word. */
struct completion {
	const char *line;
	const char *want;
};

static int completions_are(const struct completion *cases, size_t n,
			   char *why, size_t whylen)
{
	char got[1024];

	if (access(completion_lib, R_OK))
		SKIP("no %s here", completion_lib);
	for (size_t i = 0; i < n; i++) {
		CHECK(complete_line(cases[i].line, got, sizeof(got)) == 0,
		      "'%s': bash failed", cases[i].line);
		CHECK(strcmp(got, cases[i].want) == 0, "'%s': got '%s', want "
		      "'%s'", cases[i].line, got, cases[i].want);
	}
	return 0;
}

TEST(bash_completion_offers_commands_options_modes_and_paths)
{
	static const struct completion cases[] = {
		{ "denywritectl s", "status save stats" },
		{ "denywritectl d", "del diff" },
		{ "denywritectl list --s", "--sources" },
		{ "denywritectl why --p", "--pids" },
		{ "denywritectl log --f", "--follow --file" },
		{ "denywritectl load --st", "--strict" },
		{ "denywritectl add --p", "--persist" },
		{ "denywritectl mode ", "off audit enforce" },
		{ "denywritectl mode a", "audit" },
		{ "denywritectl add --i", "--ignore-writers" },
		{ "denywritectl load --d", "--dry-run" },
		{ "denywritectl --j", "--json" },
		{ "denywritectl why /us", "/usr" },
	};
	return completions_are(cases, sizeof(cases) / sizeof(cases[0]), why,
			       whylen);
}

TEST(bash_completion_offers_cat_config_and_its_root_option)
{
	static const struct completion cases[] = {
		{ "denywritectl ca", "cat-config" },
		{ "denywritectl c", "clear cat-config" },
		{ "denywritectl cat-config -", "--root -h --help" },
	};
	return completions_are(cases, sizeof(cases) / sizeof(cases[0]), why,
			       whylen);
}

TEST(bash_completion_offers_rule_paths_quoted_for_del)
{
	static const struct {
		const char *line;
		const char *want;
	} cases[] = {
		{ "denywritectl del /opt/m", "/opt/my\\ app" },
		{ "denywritectl del /opt/a", "/opt/a\\\\134b" },
	};
	char got[1024], path[PATH_MAX + 64], dir[PATH_MAX], link[PATH_MAX + 16];
	const char *old = getenv("PATH");
	struct fake f;
	int rc = TEST_PASS;

	if (access(completion_lib, R_OK))
		SKIP("no %s here", completion_lib);
	fake_init(&f, "denywrite", "exec /\nlib /opt/my app\nall /opt/a\\134b\n"
		  "# not a rule\n");
	/* the tool under test as "denywritectl" on PATH, as installed */
	make_tmpdir(dir, sizeof(dir), "bin");
	snprintf(link, sizeof(link), "%s/denywritectl", dir);
	CHECK(symlink(test_tool, link) == 0, "symlink");
	snprintf(path, sizeof(path), "%s:%s", dir, old ? old : "/usr/bin:/bin");
	setenv("DENYWRITE_SECURITYFS", f.root, 1);
	setenv("PATH", path, 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && !rc; i++) {
		if (complete_line(cases[i].line, got, sizeof(got)) ||
		    strcmp(got, cases[i].want) != 0)
			rc = TEST_FAIL;
		snprintf(why, whylen, "'%s': got '%s', want '%s'",
			 cases[i].line, got, cases[i].want);
	}
	unsetenv("DENYWRITE_SECURITYFS");
	if (old)
		setenv("PATH", old, 1);
	return rc;
}

/* Whether the shell's completion script (policy-tool/dist) parses, and
 * names every command. */
static int check_completion(char *why, size_t whylen, const char *shell,
			    const char *name)
{
	static const char *const cmds[] = {
		"status", "mode", "add", "del", "clear", "list", "load", "diff",
		"save", "why", "stats", "log", "sources", "persist", "pids",
		"since", "strict", "follow", "wide",
	};
	char file[PATH_MAX + 64], cmd[2 * PATH_MAX];
	char *text;

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null", shell);
	if (system(cmd) != 0)
		SKIP("no %s here", shell);
	dist_path(file, sizeof(file), name);
	snprintf(cmd, sizeof(cmd), "%s -n '%s'", shell, file);
	CHECK(system(cmd) == 0, "%s -n %s failed", shell, file);
	text = read_file(file);
	CHECK(text, "no %s", file);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strstr(text, cmds[i])) {
			free(text);
			CHECK(false, "%s does not name %s", name, cmds[i]);
		}
	}
	free(text);
	return 0;
}

TEST(zsh_completion_parses_and_names_every_command)
{
	return check_completion(why, whylen, "zsh", "_denywritectl");
}

TEST(fish_completion_parses_and_names_every_command)
{
	return check_completion(why, whylen, "fish", "denywritectl.fish");
}

/* A file of policy-tool/dist (generated by make), malloc'd, or NULL. */
static char *dist_file(const char *name)
{
	char path[PATH_MAX + 64];

	return read_file(dist_path(path, sizeof(path), name));
}

TEST(denywrite_service_loads_the_policy_early_like_systemd_sysctl)
{
	static const char *const lines[] = {
		"DefaultDependencies=no\n",
		"After=local-fs.target\n",
		"Before=sysinit.target shutdown.target\n",
		"ConditionPathIsDirectory=/sys/kernel/security/denywrite\n",
		"Type=oneshot\n",
		"RemainAfterExit=yes\n",
		"ExecStart=" SBIN_DIR "/denywritectl load\n",
		"ExecReload=" SBIN_DIR "/denywritectl load\n",
		"WantedBy=sysinit.target\n",
	};
	char *unit = dist_file("denywrite.service");

	CHECK(unit, "no dist/denywrite.service (make builds it)");
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (!strstr(unit, lines[i])) {
			free(unit);
			CHECK(false, "no line %s", lines[i]);
		}
	}
	free(unit);
	return 0;
}

TEST(default_policy_is_valid_and_names_the_multiarch_libraries)
{
	char *rules = dist_file("50-default.rules");
	struct opts o = { .uid = -1, .input = rules };
	struct run r;
	int ok;

	CHECK(rules, "no dist/50-default.rules (make builds it)");
	ok = strstr(rules, "\nexec /\n") && strstr(rules, "\nlib /usr/lib/");
	run_tool(&r, &o, "load", "--dry-run", "-", (char *)NULL);
	free(rules);
	snprintf(why, whylen, "exit %d: %s%s", r.status, r.out, r.err);
	ok = ok && r.status == 0 && !*r.err &&
	     !strcmp(r.out, "checked 2 rules from 1 file (dry run: nothing "
		     "loaded)\n");
	run_free(&r);
	return ok ? TEST_PASS : TEST_FAIL;
}

/* Whether the ELF file at path asks for a program interpreter (PT_INTERP):
 * a dynamic binary. */
static bool has_interpreter(const char *path)
{
	char *elf = read_file(path);
	const Elf64_Ehdr *eh = (const void *)elf;
	bool found = false;

	for (int i = 0; elf && i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(elf + eh->e_phoff +
						      (size_t)i * eh->e_phentsize);

		found |= ph->p_type == PT_INTERP;
	}
	free(elf);
	return found;
}

TEST(the_default_build_is_dynamic_since_it_calls_nss)
{
	CHECK(has_interpreter(test_tool), "%s is static: getpwuid (NSS) in a "
	      "static binary needs the very glibc it was linked with",
	      test_tool);
	return 0;
}

/*
 * version.sh in a scratch git repository, each step's version sorted by
 * dpkg against the others: builds before the tag v0.2 (VERSION 0.2)
 * sort before the release 0.2, the build of the tag is 0.2, builds after
 * it sort after it; a build of a shallow clone, which sees no tag and
 * cannot count the commits, sorts before the release of its VERSION
 * (and, once VERSION is 0.3, after 0.2); successive builds, full or
 * shallow, sort in their order; a copy outside git gives VERSION.
 */
#define VERSION_SCRIPT							\
	"set -e; cd \"$1\"; mkdir t; cp \"$2\" t/version.sh; "		\
	"echo 0.2 >t/VERSION; git init -q; "				\
	"commit() { echo \"$1\" >t/f; git add t; "			\
	"GIT_COMMITTER_DATE=\"@$2 +0000\" GIT_AUTHOR_DATE=\"@$2 +0000\" " \
	"git -c user.name=t -c user.email=t@t commit -qm \"$1\"; }; "	\
	"shallow() { rm -rf s; git clone -q --depth 1 \"file://$PWD\" s; " \
	"s/t/version.sh; }; "						\
	"lt() { dpkg --compare-versions \"$1\" lt \"$2\" || "		\
	"{ echo \"$3: $1 does not sort before $2\"; exit 1; }; }; "	\
	"commit 1 1800000000; a=$(t/version.sh); "			\
	"commit 2 1800000000; b=$(t/version.sh); "			\
	"lt \"$a\" \"$b\" 'two successive builds'; "			\
	"lt \"$b\" 0.2 'a build before the tag and the release'; "	\
	"git tag v0.2; r=$(t/version.sh); "				\
	"[ \"$r\" = 0.2 ] || { echo \"the tag's build: $r\"; exit 1; }; " \
	"commit 3 1800000100; p=$(t/version.sh); "			\
	"lt \"$r\" \"$p\" 'the release and a build after it'; "	\
	"commit 4 1800000200; q=$(t/version.sh); "			\
	"lt \"$p\" \"$q\" 'two successive builds after the release'; "	\
	"s1=$(shallow); lt \"$s1\" 0.2 'a shallow build and the release'; " \
	"echo 0.3 >t/VERSION; commit 5 1800000300; s2=$(shallow); "	\
	"lt 0.2 \"$s2\" 'the last release and a shallow build'; "	\
	"lt \"$s2\" 0.3 'a shallow build and the release of VERSION'; " \
	"commit 6 1800000400; s3=$(shallow); "				\
	"lt \"$s2\" \"$s3\" 'two successive shallow builds'; "		\
	"d=$(mktemp -d); cp -R t \"$d/\"; c=$(\"$d/t/version.sh\"); "	\
	"rm -rf \"$d\"; [ \"$c\" = 0.3 ] || { echo \"copy: $c\"; exit 1; }; " \
	"echo \"$a $b $r $p $q $s1 $s2 $s3\""

TEST(versions_sort_release_post_release_shallow_and_successive_builds)
{
	static const char *const want[] = {
		"0.2~dev.1.g", "0.2~dev.2.g", "0.2", "0.2+1.g", "0.2+2.g",
		"0.2~dev.0.20270115080320.g", "0.3~dev.0.20270115080500.g",
		"0.3~dev.0.20270115080640.g",
	};
	char dir[PATH_MAX], src[PATH_MAX + 64], script[PATH_MAX + 16];
	char cmd[4 * PATH_MAX], out[1024] = "", *save = NULL, *v, *last;
	FILE *p;
	size_t n;

	if (system("command -v git >/dev/null && command -v dpkg >/dev/null"))
		SKIP("no git or dpkg here");
	make_tmpdir(dir, sizeof(dir), "git");
	dist_path(src, sizeof(src), "../version.sh");
	snprintf(script, sizeof(script), "%s.sh", dir);
	write_file(script, VERSION_SCRIPT "\n");
	snprintf(cmd, sizeof(cmd), "sh '%s' '%s' '%s' 2>&1", script, dir, src);
	p = popen(cmd, "r");
	CHECK(p, "popen");
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	CHECK(pclose(p) == 0, "versions: %s", out);
	while (n > 0 && out[n - 1] == '\n')
		out[--n] = '\0';
	last = strrchr(out, '\n');	/* git may have said something first */
	v = strtok_r(last ? last + 1 : out, " ", &save);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		size_t len = strlen(want[i]);
		bool whole = want[i][len - 1] != 'g';

		CHECK(v && !strncmp(v, want[i], len) && (!whole || !v[len]),
		      "version %zu is '%s', want %s%s", i + 1, v ? v : "",
		      want[i], whole ? "" : "HASH");
		v = strtok_r(NULL, " ", &save);
	}
	return 0;
}

TEST(unprivileged_user_can_read_but_not_change_the_policy)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = "exec /\n" };

	if (privileged()) {
		if (geteuid() != 0)
			SKIP("privileged, and cannot drop to an unprivileged user");
		o.uid = 65534;
	}
	fake_default(&f);
	EXPECT(&o, 0, "exec /\nlib,ignore-writers /usr/lib\n", "", "list");
	EXPECT(&o, 0, "enforce\n", "", "mode");
	EXPECT(&o, 1, "", "denywritectl: mode: " CAP_MSG "\n", "mode",
	       "enforce");
	EXPECT(&o, 1, "", "denywritectl: add: " CAP_MSG "\n", "add", "/");
	EXPECT(&o, 1, "", "denywritectl: del: " CAP_MSG "\n", "del", "/");
	EXPECT(&o, 1, "", "denywritectl: clear: " CAP_MSG "\n", "clear");
	EXPECT(&o, 1, "", "denywritectl: load: " CAP_MSG "\n", "load", "-");
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /usr/lib\n");
	CHECK_FAKE(&f, "mode", "enforce\n");
	return 0;
}

TEST(a_write_error_on_stdout_fails)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1,
			       .stdout_path = "/dev/full" }, 1, "",
	       "denywritectl: write error: No space left on device\n",
	       "status");
	return 0;
}

TEST(denywrite_service_times_out_a_hung_load)
{
	char *unit = dist_file("denywrite.service");
	bool ok = unit && strstr(unit, "\nTimeoutStartSec=30s\n");

	free(unit);
	CHECK(ok, "no line TimeoutStartSec=30s in dist/denywrite.service");
	return 0;
}

/*
 * The maintainer scripts of the package make deb builds, run with stubs
 * of systemctl, deb-systemd-helper and deb-systemd-invoke that log their
 * arguments ($1 the control directory, $2 the scratch directory): "dpkg
 * -i" of a first installation (preinst install, postinst configure) and
 * of an upgrade from 0.1 (preinst upgrade 0.1, postinst configure 0.1,
 * and an aborted one, postinst abort-upgrade 0.1), and the next upgrade's
 * prerm upgrade.  /run/systemd/system, which the scripts test for, is a
 * directory of the scratch one in their copies.
 */
#define MAINTSCRIPTS							\
	"set -e; c=$1; d=$2; mkdir \"$d/bin\" \"$d/run\"; "		\
	"for s in systemctl deb-systemd-helper deb-systemd-invoke; do "	\
	"printf '#!/bin/sh\\necho \"%s $*\" >>\"$LOG\"\\n' \"$s\" "	\
	">\"$d/bin/$s\"; chmod +x \"$d/bin/$s\"; done; "		\
	"for f in preinst postinst prerm; do [ ! -e \"$c/$f\" ] || "	\
	"sed \"s|/run/systemd/system|$d/run|g\" \"$c/$f\" >\"$d/$f\"; done; " \
	"run() { log=$1; s=$2; shift 2; [ -e \"$d/$s\" ] || return 0; "	\
	"LOG=$d/$log PATH=$d/bin:$PATH DPKG_ROOT= sh \"$d/$s\" \"$@\" || " \
	"{ echo \"$s $*: exit $?\"; exit 1; }; }; "			\
	"run install preinst install; run install postinst configure ''; " \
	"run upgrade preinst upgrade 0.1; run upgrade postinst configure 0.1; " \
	"run upgrade postinst abort-upgrade 0.1; "			\
	"run upgrade prerm upgrade 99; "				\
	"touch \"$d/install\" \"$d/upgrade\""

/*
 * An upgrade of the package keeps the policy in force: its maintainer
 * scripts never stop, start or restart denywrite.service then (a start
 * runs "denywritectl load", which replaces the rules added at runtime),
 * while a first installation enables it and starts it.  The package is
 * built as make deb builds it, without running these tests again
 * (nocheck) and without lintian (the package build that runs this has
 * none); its scripts are taken out with dpkg-deb -e.
 */
TEST(package_upgrade_never_stops_or_restarts_the_service)
{
	char dir[PATH_MAX], mkdeb[PATH_MAX], cmd[6 * PATH_MAX + 256];
	char *log;
	const char *bad = NULL;
	int ok;

	if (system("command -v dpkg-buildpackage >/dev/null && "
		   "command -v dh >/dev/null && command -v dpkg-deb >/dev/null"))
		SKIP("no dpkg-buildpackage, dh or dpkg-deb here");
	make_tmpdir(dir, sizeof(dir), "deb");
	dist_path(mkdeb, sizeof(mkdeb), "mkdeb.sh");
	snprintf(cmd, sizeof(cmd), "DEB_BUILD_OPTIONS=nocheck "
		 "DEB_BUILD_PROFILES=nocheck MKDEB_LINTIAN=no '%s' '%s/out' "
		 ">'%s/mkdeb.log' 2>&1 && dpkg-deb -e '%s'/out/denywrite-tools_*.deb "
		 "'%s/ctl'", mkdeb, dir, dir, dir, dir);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "%s/mkdeb.log", dir);
		log = read_file(cmd);
		snprintf(why, whylen, "the package build failed: %s",
			 log ? log : "(no log)");
		free(log);
		return TEST_FAIL;
	}
	snprintf(cmd, sizeof(cmd), "%s/maintscripts.sh", dir);
	write_file(cmd, MAINTSCRIPTS);
	snprintf(cmd, sizeof(cmd), "sh '%s/maintscripts.sh' '%s/ctl' '%s'",
		 dir, dir, dir);
	CHECK(system(cmd) == 0, "running the maintainer scripts failed");
	snprintf(cmd, sizeof(cmd), "%s/install", dir);
	log = read_file(cmd);
	CHECK(log, "no log of the installation");
	ok = strstr(log, "deb-systemd-helper enable denywrite.service\n") &&
	     strstr(log, "deb-systemd-invoke start denywrite.service\n");
	snprintf(why, whylen, "a first installation neither enables nor "
		 "starts denywrite.service: %s", log);
	free(log);
	if (!ok)
		return TEST_FAIL;
	snprintf(cmd, sizeof(cmd), "%s/upgrade", dir);
	log = read_file(cmd);
	CHECK(log, "no log of the upgrade");
	/* Any deb-systemd-invoke (start, stop, restart, try-restart...),
	 * any systemctl but a daemon-reload. */
	for (const char *l = log, *end; *l && !bad; l = end + (*end == '\n')) {
		end = l + strcspn(l, "\n");
		if (!strncmp(l, "deb-systemd-invoke ", 19) ||
		    (!strncmp(l, "systemctl ", 10) &&
		     strncmp(l, "systemctl --system daemon-reload\n", 33)))
			bad = l;
	}
	snprintf(why, whylen, "an upgrade runs '%.*s': %s",
		 bad ? (int)strcspn(bad, "\n") : 0, bad ? bad : "", log);
	free(log);
	return bad ? TEST_FAIL : 0;
}

#define SECURITYFS_MAGIC 0x73636673
#define SYS_SECURITY "/sys/kernel/security"
#define NOT_MOUNTED "denywritectl: cannot tell whether denywrite is " \
	"active: securityfs is not mounted: mount -t securityfs securityfs " \
	SYS_SECURITY "\n"

/*
 * In a private mount namespace where SYS_SECURITY is an empty tmpfs (so
 * securityfs is not mounted there), run each read-only command as root:
 * none may mount securityfs.  In a child, which writes why it failed to
 * out; exit 0 (pass), 1 (fail) or 77 (cannot set it up: skip).
 */
static void no_mount_child(int out)
{
	static const char *const cmds[][3] = {
		{ "status" }, { "list" }, { "list", "--sources" }, { "save" },
		{ "stats" }, { "mode" }, { "diff", "-" }, { "why", "/" },
	};
	char why[4096] = "";
	struct statfs sf;
	struct run r;

	if (unshare(CLONE_NEWNS) != 0 ||
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", SYS_SECURITY, "tmpfs", MS_NOSUID | MS_NODEV |
		  MS_NOEXEC, "size=16k,mode=0755") != 0)
		_exit(77);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		bool is_why = !strcmp(cmds[i][0], "why"), ok;
		bool mounted;

		run_tool(&r, &(struct opts){ .uid = -1, .timeout = 10 },
			 cmds[i][0], cmds[i][1], (char *)NULL);
		mounted = statfs(SYS_SECURITY, &sf) == 0 &&
			  sf.f_type == SECURITYFS_MAGIC;
		ok = !mounted && r.status == (is_why ? 0 : 4) &&
		     !strcmp(r.err, NOT_MOUNTED);
		snprintf(why, sizeof(why), "%s %s: %sexit %d, stderr '%s' "
			 "(want '%s')", cmds[i][0], cmds[i][1] ? cmds[i][1] : "",
			 mounted ? "mounted securityfs, " : "", r.status, r.err,
			 NOT_MOUNTED);
		run_free(&r);
		if (!ok) {
			if (write(out, why, strlen(why)) < 0)
				_exit(1);
			_exit(1);
		}
	}
	_exit(0);
}

TEST(read_only_commands_never_mount_securityfs)
{
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	if (geteuid() != 0)
		SKIP("needs root, to make a mount namespace");
	CHECK(pipe(fds) == 0, "pipe");
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(fds[0]);
		no_mount_child(fds[1]);
	}
	close(fds[1]);
	n = read(fds[0], why, whylen - 1);
	why[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child died");
	if (WEXITSTATUS(st) == 77)
		SKIP("cannot make a mount namespace with a tmpfs on "
		     SYS_SECURITY);
	return WEXITSTATUS(st) == 0 ? TEST_PASS : TEST_FAIL;
}

const struct test e2e_tests[] = {
	T(version_and_help_print_to_stdout),
	T(usage_errors_exit_2_with_hint_line),
	T(each_command_has_its_own_help),
	T(mode_save_and_load_print_json),
	T(status_says_not_active_and_exits_3_without_denywrite),
	T(commands_exit_3_when_the_denywrite_directory_is_missing),
	T(status_exits_4_when_it_cannot_tell_and_says_why),
	T(status_reports_mode_rules_and_counters),
	T(status_says_how_many_rules_went_with_their_filesystem),
	T(status_json_is_one_object),
	T(status_fails_on_stats_without_a_counter),
	T(status_policy_is_the_sha256sum_of_the_rules_file),
	T(stats_prints_counters_as_key_value_lines_or_json),
	T(mode_prints_current_mode),
	T(mode_set_writes_the_mode_file),
	T(list_prints_rules_in_load_syntax),
	T(list_json_prints_a_rules_array),
	T(save_prints_header_then_rules),
	T(save_then_load_writes_the_same_rules),
	T(add_writes_the_canonical_rule_to_the_add_file),
	T(add_rejects_a_missing_path_without_writing),
	T(add_rejects_a_rule_already_present),
	T(add_rejects_a_path_named_twice),
	T(del_writes_the_canonical_path_to_the_del_file),
	T(del_of_a_vanished_path_uses_the_string_as_given),
	T(del_rejects_an_absent_rule_before_deleting_any),
	T(clear_writes_a_newline_to_rules),
	T(list_and_save_print_paths_in_one_escape_dialect),
	T(del_takes_what_list_prints),
	T(add_escapes_control_characters_and_a_trailing_blank),
	T(add_warns_about_a_lib_rule_on_a_whole_tree),
	T(bash_completion_offers_commands_options_modes_and_paths),
	T(bash_completion_offers_cat_config_and_its_root_option),
	T(bash_completion_offers_rule_paths_quoted_for_del),
	T(zsh_completion_parses_and_names_every_command),
	T(fish_completion_parses_and_names_every_command),
	T(denywrite_service_loads_the_policy_early_like_systemd_sysctl),
	T(default_policy_is_valid_and_names_the_multiarch_libraries),
	T(the_default_build_is_dynamic_since_it_calls_nss),
	T(versions_sort_release_post_release_shallow_and_successive_builds),
	T(unprivileged_user_can_read_but_not_change_the_policy),
	T(a_write_error_on_stdout_fails),
	T(denywrite_service_times_out_a_hung_load),
	T(package_upgrade_never_stops_or_restarts_the_service),
	T(read_only_commands_never_mount_securityfs),
	{ NULL, NULL },
};
