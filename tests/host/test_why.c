// SPDX-License-Identifier: GPL-2.0
/*
 * why: the kernel's answer (a fake query file) and the processes found in
 * the real /proc, the classic kernel, what an unprivileged user sees, and
 * escaping.
 */
#include "e2e.h"

#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define ANSWER_RUNNING "protected 1\nholders 1\nwriters 0\n" \
	"exec-rule exec /\nlib-rule -\n"
#define ENFORCE_ADVICE "advice: Writes and truncation are refused (ETXTBSY) " \
	"while a process executes or maps it. To replace it, write a new file " \
	"and rename(2) it over this one (as install(1) does); the running " \
	"processes keep the old copy.\n"

/* Our user's name, as why shows it for our processes. */
static const char *my_name(void)
{
	static char buf[64];
	const struct passwd *pw = getpwuid(geteuid());

	if (pw)
		snprintf(buf, sizeof(buf), "%s", pw->pw_name);
	else
		snprintf(buf, sizeof(buf), "%d", (int)geteuid());
	return esc(buf);
}

/* A fake securityfs whose query file answers about path. */
static void fake_answer(struct fake *f, const char *lsm, const char *path,
			const char *answer)
{
	char query[PATH_MAX + 512], qpath[PATH_MAX + 32];

	fake_init(f, lsm, "exec /\nlib,ignore-writers /usr/lib\n");
	/* The tool writes the path at offset 0, then reads from offset 0. */
	snprintf(query, sizeof(query), "%s\n%s", path, answer);
	fake_file(f, "query", query);
	snprintf(qpath, sizeof(qpath), "%s/query", f->dir);
	chmod(qpath, 0666);	/* as the kernel's */
}

/* Run "why PATH [OPT]" as uid against a query answer. */
static void why_run(struct run *r, const char *lsm, const char *path,
		    const char *answer, const char *opt, int uid)
{
	struct fake f;

	fake_answer(&f, lsm, path, answer);
	run_tool(r, &(struct opts){ .sfs = &f, .uid = uid }, "why", path, opt,
		 (char *)NULL);
}

/* Run "why" on a running copy of sleep (gone after); its pid and path. */
static pid_t why_running(struct run *r, const char *answer, const char *opt,
			 char *path, size_t size)
{
	char dir[PATH_MAX];
	pid_t pid;

	make_target(dir, sizeof(dir));
	pid = start_sleeper(dir, path, size);
	why_run(r, "denywrite", path, answer, opt, -1);
	stop(pid);
	return pid;
}

TEST(why_names_the_process_executing_a_file)
{
	char path[PATH_MAX], want[3 * PATH_MAX];
	struct run r;
	pid_t pid = why_running(&r, ANSWER_RUNNING, NULL, path, sizeof(path));

	snprintf(want, sizeof(want),
		 "path:                 %s\n"
		 "mode:                 enforce\n"
		 "protected:            yes (1 holder)\n"
		 "writers:              0\n"
		 "if executed:          exec /\n"
		 "if mapped executable: no rule\n"
		 "processes:\n"
		 "  pid %d, user %s, executing: sleeper 60\n", path, (int)pid,
		 my_name());
	return check_success(why, whylen, &r, want, false);
}

TEST(why_names_the_writer_that_makes_exec_fail)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], want[3 * PATH_MAX + 1024];
	struct run r;
	pid_t pid;

	make_target(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/bin", dir);
	pid = start_writer(path);
	why_run(&r, "denywrite", path, "protected 0\nholders 0\nwriters 1\n"
		"exec-rule exec /\nlib-rule -\n", NULL, -1);
	stop(pid);
	snprintf(want, sizeof(want),
		 "path:                 %s\n"
		 "mode:                 enforce\n"
		 "protected:            no (0 holders)\n"
		 "writers:              1\n"
		 "if executed:          exec /\n"
		 "if mapped executable: no rule\n"
		 "processes:\n"
		 "  pid %d, user %s, open for writing (fd 3): sleep 60\n",
		 path, (int)pid, my_name());
	if (check_success(why, whylen, &r, want, false))
		return TEST_FAIL;
	why_run(&r, "denywrite", path, "protected 0\nholders 0\nwriters 1\n"
		"exec-rule exec /\nlib-rule -\n", NULL, -1);
	CHECK(strstr(r.out, "advice: Not protected now: writes are allowed. "
		     "While a process executes it, writes will be refused "
		     "(ETXTBSY). It is open for writing now, so executing or "
		     "mapping it is refused (ETXTBSY) until the writers close "
		     "it. No process") != NULL, "advice without a writer: %s",
	      r.out);
	run_free(&r);
	return 0;
}

TEST(why_json_has_rules_as_objects_and_holders_with_how)
{
	char path[PATH_MAX], want[3 * PATH_MAX];
	struct run r;
	pid_t pid = why_running(&r, "protected 1\nholders 2\nwriters 0\n"
				"exec-rule all,ignore-writers /\n"
				"lib-rule lib /usr/lib\n", "-j", path,
				sizeof(path));

	snprintf(want, sizeof(want),
		 "{\"path\":\"%s\",\"active\":true,\"mode\":\"enforce\","
		 "\"protected\":true,\"holders\":2,\"writers\":0,"
		 "\"exec_rule\":{\"scope\":\"all\",\"ignore_writers\":true,"
		 "\"path\":\"/\"},\"lib_rule\":{\"scope\":\"lib\","
		 "\"ignore_writers\":false,\"path\":\"/usr/lib\"},"
		 "\"processes\":[{\"pid\":%d,\"uid\":%d,", path, (int)pid,
		 (int)geteuid());
	CHECK(strstr(r.out, "\"argv\":[\"sleeper\",\"60\"],\"comm\":\"sleeper\","
		     "\"holds\":[{\"how\":\"executing\"}]}],"
		     "\"uninspected_processes\":") != NULL, "holder: %s", r.out);
	return check_success(why, whylen, &r, want, false);
}

/* why on an idle file (dir/bin, one writer we cannot see) gives advice. */
static int check_idle_advice(char *why, size_t whylen, const char *exec_rule,
			     const char *advice)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], answer[128];
	char want[PATH_MAX + 1024];
	struct run r;

	make_target(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/bin", dir);
	snprintf(answer, sizeof(answer), "protected 0\nholders 0\nwriters 1\n"
		 "exec-rule %s\nlib-rule -\n", exec_rule ? exec_rule : "-");
	why_run(&r, "denywrite", path, answer, NULL, -1);
	snprintf(want, sizeof(want),
		 "path:                 %s\n"
		 "mode:                 enforce\n"
		 "protected:            no (0 holders)\n"
		 "writers:              1\n"
		 "if executed:          %s\n"
		 "if mapped executable: no rule\n"
		 "processes:            none found\n", path,
		 exec_rule ? exec_rule : "no rule");
	CHECK(strstr(r.out, advice) != NULL, "no '%s' in: %s", advice, r.out);
	return check_success(why, whylen, &r, want, false);
}

TEST(why_on_an_uncovered_file_says_writes_are_not_refused)
{
	return check_idle_advice(why, whylen, NULL, "\nadvice: Writes to this "
				 "file are not refused by denywrite.\n");
}

TEST(why_on_a_covered_idle_file_with_ignore_writers_does_not_warn)
{
	return check_idle_advice(why, whylen, "exec,ignore-writers /",
		"\nadvice: Not protected now: writes are allowed. While a "
		"process executes it, writes will be refused (ETXTBSY).\n");
}

TEST(why_on_a_missing_file_fails_with_the_path_escaped)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 5, "",
	       "denywritectl: why: /nonexistent/x\\033[2J\\012: No such file or "
	       "directory\n", "why", "/nonexistent/x\x1b[2J\n");
	return 0;
}

TEST(why_escapes_control_characters_in_paths_and_command_lines)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], want[3 * PATH_MAX];
	struct run r;
	pid_t pid;
	int ok;

	make_target(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/busy\x1b[0m\nFAKE", dir);
	pid = start_sleeper_at(path, "evil\nprotected:            no\x1b[2J");
	why_run(&r, "denywrite", path, ANSWER_RUNNING, NULL, -1);
	snprintf(want, sizeof(want), "path:                 %s/busy\\033[0m"
		 "\\012FAKE\n", dir);
	ok = strncmp(r.out, want, strlen(want)) == 0;
	snprintf(want, sizeof(want), ", executing: evil\\012protected:            "
		 "no\\033[2J 60\n");
	ok = ok && strstr(r.out, want) && !strchr(r.out, '\x1b') &&
	     !strstr(r.out, "\nprotected:            no\n") &&
	     !strstr(r.out, "\nFAKE");
	snprintf(why, whylen, "not escaped: %s", esc(r.out));
	run_free(&r);
	if (!ok) {
		stop(pid);
		return TEST_FAIL;
	}
	why_run(&r, "denywrite", path, ANSWER_RUNNING, "--json", -1);
	ok = strstr(r.out, "\\u001b[0m\\nFAKE\",") &&
	     strstr(r.out, "\"comm\":\"busy\\u001b[0m\\nFAKE\"") &&
	     strstr(r.out, "\"argv\":[\"evil\\nprotected:            "
		    "no\\u001b[2J\",\"60\"]");
	snprintf(why, whylen, "json: %s", esc(r.out));
	run_free(&r);
	stop(pid);
	return ok ? TEST_PASS : TEST_FAIL;
}

TEST(why_json_gives_a_non_utf8_path_as_bytes)
{
	char dir[PATH_MAX], path[PATH_MAX + 8];
	struct run r;
	int ok;

	make_target(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/\xe9", dir);
	write_file(path, "");
	why_run(&r, "denywrite", path, "protected 0\nholders 0\nwriters 0\n"
		"exec-rule -\nlib-rule -\n", "--json", -1);
	/* ".../\xe9" ends in the bytes '/' (47) and 0xe9 (233) */
	ok = r.status == 0 && strncmp(r.out, "{\"path\":[47,", 12) == 0 &&
	     strstr(r.out, ",47,233],\"active\":true,");
	CHECK(ok, "got %s", r.out);
	run_free(&r);
	why_run(&r, "denywrite", path, "protected 0\nholders 0\nwriters 0\n"
		"exec-rule -\nlib-rule -\n", NULL, -1);
	ok = strstr(r.out, "/\\351\n") != NULL;
	CHECK(ok, "text: %s", esc(r.out));
	run_free(&r);
	return 0;
}

TEST(why_on_a_classic_kernel_lists_executor_and_writer)
{
	char dir[PATH_MAX], path[PATH_MAX], data[PATH_MAX + 8];
	char want[3 * PATH_MAX];
	struct run r;
	pid_t pid, writer;

	make_target(dir, sizeof(dir));
	pid = start_sleeper(dir, path, sizeof(path));
	snprintf(data, sizeof(data), "%s/bin", dir);
	writer = start_writer(data);
	why_run(&r, "capability,landlock", path, "", NULL, -1);
	snprintf(want, sizeof(want),
		 "path:                 %s\n"
		 "denywrite:            not active (the kernel's built-in "
		 "ETXTBSY applies)\n"
		 "processes:\n"
		 "  pid %d, user %s, executing: sleeper 60\n", path, (int)pid,
		 my_name());
	CHECK(strstr(r.out, "The processes executing it are listed above."),
	      "advice: %s", r.out);
	if (check_success(why, whylen, &r, want, false))
		goto out;
	why_run(&r, "capability,landlock", data, "", "-j", -1);
	/* null when a process could not be inspected: it may execute it */
	snprintf(want, sizeof(want),
		 "{\"path\":\"%s\",\"active\":false,\"mode\":null,"
		 "\"protected\":%s,\"holders\":null,\"writers\":null,"
		 "\"exec_rule\":null,\"lib_rule\":null,\"processes\":[{\"pid\":"
		 "%d,\"uid\":%d,\"user\":\"%s\",\"argv\":[\"sleep\",\"60\"],"
		 "\"comm\":\"sleep\",\"holds\":[{\"how\":\"open_write\","
		 "\"fd\":3}]}],", data,
		 strstr(r.out, "\"uninspected_processes\":0,") ? "false" : "null",
		 (int)writer, (int)geteuid(), my_name());
	if (check_success(why, whylen, &r, want, false))
		goto out;
	stop(pid);
	stop(writer);
	return 0;
out:
	stop(pid);
	stop(writer);
	return TEST_FAIL;
}

TEST(why_as_an_unprivileged_user_says_what_it_could_not_inspect)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct run r;
	pid_t pid;
	int ok;

	if (geteuid() != 0)
		SKIP("needs root to run a process nobody may not inspect");
	make_target(dir, sizeof(dir));
	pid = start_sleeper(dir, path, sizeof(path));
	why_run(&r, "denywrite", path, ANSWER_RUNNING, NULL, 65534);
	stop(pid);
	ok = r.status == 0 &&
	     strstr(r.out, "\nprocesses:            none found\n"
		    "not inspected:        ") &&
	     strstr(r.out, " you may not inspect (run as root to see them)\n"
		    ENFORCE_ADVICE);
	snprintf(why, whylen, "exit %d: %s%s", r.status, r.out, r.err);
	run_free(&r);
	return ok ? TEST_PASS : TEST_FAIL;
}

#define NOT_YOURS "unknown (you may not inspect this file's users)"

TEST(why_says_unknown_when_the_kernel_will_not_tell_this_user)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], want[PATH_MAX + 512];
	struct run r;
	int ok;

	make_target(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/bin", dir);
	why_run(&r, "denywrite", path, "protected -\nholders -\nwriters -\n"
		"exec-rule exec /\nlib-rule -\n", NULL, -1);
	snprintf(want, sizeof(want),
		 "path:                 %s\n"
		 "mode:                 enforce\n"
		 "protected:            " NOT_YOURS "\n"
		 "writers:              " NOT_YOURS "\n"
		 "if executed:          exec /\n", path);
	if (check_success(why, whylen, &r, want, false))
		return TEST_FAIL;
	why_run(&r, "denywrite", path, "protected -\nholders -\nwriters -\n"
		"exec-rule exec /\nlib-rule -\n", "--json", -1);
	ok = strstr(r.out, ",\"protected\":null,\"holders\":null,"
		    "\"writers\":null,") != NULL;
	snprintf(why, whylen, "json: %s", r.out);
	run_free(&r);
	return ok ? TEST_PASS : TEST_FAIL;
}

TEST(why_without_securityfs_scans_proc_and_says_the_kernel_view_is_missing)
{
	char dir[PATH_MAX], path[PATH_MAX], want[3 * PATH_MAX];
	struct fake f;
	struct run r;
	pid_t pid;
	int ok;

	make_target(dir, sizeof(dir));
	pid = start_sleeper(dir, path, sizeof(path));
	fake_init(&f, NULL, "");	/* not mounted, and we may not mount */
	run_tool(&r, &(struct opts){ .sfs = &f, .uid = -1 }, "why", path,
		 (char *)NULL);
	snprintf(want, sizeof(want),
		 "path:                 %s\n"
		 "denywrite:            unknown (the kernel's view is missing: "
		 "securityfs is not mounted, and cannot be here)\n"
		 "processes:\n"
		 "  pid %d, user %s, executing: sleeper 60\n", path, (int)pid,
		 my_name());
	ok = r.status == 0 && !strncmp(r.out, want, strlen(want)) &&
	     strstr(r.err, "cannot tell whether denywrite is active");
	snprintf(why, whylen, "exit %d: %s%s", r.status, r.out, r.err);
	run_free(&r);
	if (ok) {
		run_tool(&r, &(struct opts){ .sfs = &f, .uid = -1 }, "why",
			 "--json", path, (char *)NULL);
		ok = r.status == 0 && strstr(r.out, "\"active\":null,"
					     "\"mode\":null,\"protected\":null,");
		snprintf(why, whylen, "json: exit %d: %s", r.status, r.out);
		run_free(&r);
	}
	stop(pid);
	return ok ? TEST_PASS : TEST_FAIL;
}

TEST(why_q_and_pids_answer_as_fuser_does)
{
	char dir[PATH_MAX], path[PATH_MAX], idle[PATH_MAX + 8], pids[32];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	pid_t pid;
	int rc = TEST_PASS;

	make_target(dir, sizeof(dir));
	snprintf(idle, sizeof(idle), "%s/bin", dir);
	pid = start_sleeper(dir, path, sizeof(path));
	fake_answer(&f, "denywrite", path, ANSWER_RUNNING);
	snprintf(pids, sizeof(pids), "%d\n", (int)pid);
	if (expect(why, whylen, &o, 0, "", "", "why", "-q", path, (char *)NULL) ||
	    expect(why, whylen, &o, 0, pids, "", "why", "--pids", path,
		   (char *)NULL))
		rc = TEST_FAIL;
	stop(pid);
	if (rc)
		return rc;
	fake_answer(&f, "denywrite", idle, "protected 0\nholders 0\n"
		    "writers 0\nexec-rule exec /\nlib-rule -\n");
	EXPECT(&o, 1, "", "", "why", "--quiet", idle);
	EXPECT(&o, 1, "", "", "why", "--pids", idle);
	return 0;
}

TEST(why_quiet_is_silent_and_a_missing_file_exits_5)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };

	fake_default(&f);
	EXPECT(&o, 5, "", "", "why", "-q", "/nonexistent/x");
	EXPECT(&o, 5, "", "", "why", "--quiet", "--json", "/nonexistent/x");
	EXPECT(&o, 5, "", "denywritectl: why: /nonexistent/x: No such file or "
	       "directory\n", "why", "--pids", "/nonexistent/x");
	EXPECT(&o, 5, "", "denywritectl: why: /nonexistent/x: No such file or "
	       "directory\n", "why", "/nonexistent/x");
	return 0;
}

TEST(why_pids_json_gives_the_pids_as_json)
{
	char dir[PATH_MAX], path[PATH_MAX], idle[PATH_MAX + 8], want[64];
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	pid_t pid;
	int rc;

	make_target(dir, sizeof(dir));
	snprintf(idle, sizeof(idle), "%s/bin", dir);
	pid = start_sleeper(dir, path, sizeof(path));
	fake_answer(&f, "denywrite", path, ANSWER_RUNNING);
	snprintf(want, sizeof(want), "{\"pids\":[%d]}\n", (int)pid);
	rc = expect(why, whylen, &o, 0, want, "", "why", "--pids", "--json",
		    path, (char *)NULL);
	stop(pid);
	if (rc)
		return TEST_FAIL;
	fake_answer(&f, "denywrite", idle, "protected 0\nholders 0\n"
		    "writers 0\nexec-rule exec /\nlib-rule -\n");
	EXPECT(&o, 1, "{\"pids\":[]}\n", "", "why", "--pids", "-j", idle);
	return 0;
}

TEST(why_cuts_command_lines_to_the_width_unless_wide)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], argv0[301];
	struct fake f;
	struct run r;
	pid_t pid;
	const char *line;
	int ok;

	make_target(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/busy-long", dir);	/* not valgrind's */
	memset(argv0, 'a', 300);
	argv0[300] = '\0';
	pid = start_sleeper_at(path, argv0);
	fake_answer(&f, "denywrite", path, ANSWER_RUNNING);
	run_tool(&r, &(struct opts){ .sfs = &f, .uid = -1, .env = "COLUMNS=60" },
		 "why", path, (char *)NULL);
	line = strstr(r.out, "\n  pid ");
	ok = line && strchr(line + 1, '\n') - (line + 1) == 60 &&
	     !strncmp(strchr(line + 1, '\n') - 3, "...", 3);
	snprintf(why, whylen, "COLUMNS=60: %s", r.out);
	run_free(&r);
	if (ok) {
		run_tool(&r, &(struct opts){ .sfs = &f, .uid = -1,
					    .env = "COLUMNS=60" },
			 "why", "-w", path, (char *)NULL);
		ok = strstr(r.out, argv0) && strstr(r.out, " 60\n");
		snprintf(why, whylen, "--wide: %s", r.out);
		run_free(&r);
	}
	stop(pid);
	return ok ? TEST_PASS : TEST_FAIL;
}

const struct test why_tests[] = {
	T(why_names_the_process_executing_a_file),
	T(why_names_the_writer_that_makes_exec_fail),
	T(why_json_has_rules_as_objects_and_holders_with_how),
	T(why_on_an_uncovered_file_says_writes_are_not_refused),
	T(why_on_a_covered_idle_file_with_ignore_writers_does_not_warn),
	T(why_on_a_missing_file_fails_with_the_path_escaped),
	T(why_escapes_control_characters_in_paths_and_command_lines),
	T(why_json_gives_a_non_utf8_path_as_bytes),
	T(why_on_a_classic_kernel_lists_executor_and_writer),
	T(why_as_an_unprivileged_user_says_what_it_could_not_inspect),
	T(why_says_unknown_when_the_kernel_will_not_tell_this_user),
	T(why_without_securityfs_scans_proc_and_says_the_kernel_view_is_missing),
	T(why_q_and_pids_answer_as_fuser_does),
	T(why_quiet_is_silent_and_a_missing_file_exits_5),
	T(why_pids_json_gives_the_pids_as_json),
	T(why_cuts_command_lines_to_the_width_unless_wide),
	{ NULL, NULL },
};
