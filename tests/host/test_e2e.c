// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end runs of the denywritectl binary against a fake securityfs
 * tree (plain files) named by DENYWRITE_SECURITYFS.  Reads see what the
 * test wrote; for writes the test checks what the tool wrote.
 */
#include "test.h"

#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define FAKE_STATS "rules 2\nprotected 5\ndenied_write 3\ndenied_truncate 1\n" \
	"denied_exec 0\ndenied_mmap 4\naudited 7\n"
#define CAP_MSG "changing the policy needs CAP_MAC_ADMIN"
#define HINT "Try 'denywritectl --help'.\n"

struct fake {
	char root[PATH_MAX];
	char dir[PATH_MAX + 16];
};

struct opts {
	const struct fake *sfs;	/* NULL: leave DENYWRITE_SECURITYFS unset */
	const char *input;	/* stdin; NULL: /dev/null */
	const char *stdout_path;	/* NULL: captured */
	int uid;		/* run as this uid/gid; -1: as we are */
};

struct run {
	int status;		/* exit code, or 128 + signal */
	char *out;
	char *err;
};

static void fake_file(const struct fake *f, const char *name, const char *s)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	write_file(path, s);
}

/* The contents of a file of the fake tree, malloc'd ("" if missing). */
static char *fake_read(const struct fake *f, const char *name)
{
	char path[PATH_MAX + 32], *s;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	s = read_file(path);
	return s ? s : xstrdup("");
}

/* A fake securityfs with lsm listing `lsm` (NULL: no lsm file). */
static void fake_init(struct fake *f, const char *lsm, const char *rules)
{
	make_tmpdir(f->root, sizeof(f->root), "securityfs");
	if (lsm) {
		char path[PATH_MAX + 8];

		snprintf(path, sizeof(path), "%s/lsm", f->root);
		write_file(path, lsm);
	}
	snprintf(f->dir, sizeof(f->dir), "%s/denywrite", f->root);
	if (mkdir(f->dir, 0755) != 0)
		abort();
	fake_file(f, "mode", "enforce\n");
	fake_file(f, "rules", rules);
	fake_file(f, "stats", FAKE_STATS);
	fake_file(f, "query", "");
	fake_file(f, "add", "");
	fake_file(f, "del", "");
}

static void fake_default(struct fake *f)
{
	fake_init(f, "capability,landlock,denywrite", "exec /\n"
		  "lib,ignore-writers /usr/lib\n");
}

static FILE *capture_file(const char *content)
{
	FILE *f = tmpfile();

	if (!f || (content && fputs(content, f) == EOF) || fflush(f) != 0 ||
	    lseek(fileno(f), 0, SEEK_SET) != 0)
		abort();
	return f;
}

static void drop_to(int uid)
{
	if (uid < 0)
		return;
	if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 ||
	    setuid((uid_t)uid) != 0)
		_exit(126);
}

static void child(const struct opts *o, FILE *in, FILE *out, FILE *err,
		  char **argv)
{
	int outfd = fileno(out);

	if (o->sfs)
		setenv("DENYWRITE_SECURITYFS", o->sfs->root, 1);
	else
		unsetenv("DENYWRITE_SECURITYFS");
	setenv("LC_ALL", "C", 1);
	if (o->stdout_path)
		outfd = open(o->stdout_path, O_WRONLY);
	if (outfd < 0 || dup2(fileno(in), 0) < 0 || dup2(outfd, 1) < 0 ||
	    dup2(fileno(err), 2) < 0)
		_exit(125);
	drop_to(o->uid);
	execv(test_tool, argv);
	_exit(127);
}

static char *slurp(FILE *f)
{
	char *buf;
	size_t len;

	if (lseek(fileno(f), 0, SEEK_SET) != 0 ||
	    read_all(fileno(f), 1u << 20, &buf, &len) != 0)
		abort();
	fclose(f);
	return buf;
}

/* Run "denywritectl [FIRST] ARGS..."; ARGS are NULL-terminated. */
static void run_tool_cmd(struct run *r, const struct opts *o,
			 const char *first, va_list ap)
{
	char *argv[16] = { "denywritectl", (char *)first };
	FILE *in = capture_file(o->input), *out = capture_file(NULL);
	FILE *err = capture_file(NULL);
	int argc = first ? 2 : 1, status;
	pid_t pid;

	while (first && argc < 15 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0)
		child(o, in, out, err, argv);
	if (waitpid(pid, &status, 0) != pid)
		abort();
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) :
					128 + WTERMSIG(status);
	fclose(in);
	r->out = slurp(out);
	r->err = slurp(err);
}

static void run_tool_v(struct run *r, const struct opts *o, va_list ap)
{
	run_tool_cmd(r, o, va_arg(ap, const char *), ap);
}

/* Run "denywritectl ARGS..." (NULL-terminated); free with run_free. */
static void run_tool(struct run *r, const struct opts *o, ...)
{
	va_list ap;

	va_start(ap, o);
	run_tool_v(r, o, ap);
	va_end(ap);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* Whether this process has CAP_MAC_ADMIN (33) in its effective set. */
static bool privileged(void)
{
	char *s = read_file("/proc/self/status"), *p;
	unsigned long long eff = 0;

	p = s ? strstr(s, "\nCapEff:\t") : NULL;
	if (p)
		eff = strtoull(p + 9, NULL, 16);
	free(s);
	return eff & (1ULL << 33);
}

/* Run ARGS... (NULL-terminated), compare exit code, stdout and stderr. */
static int expect(char *why, size_t whylen, const struct opts *o, int code,
		  const char *out, const char *err, ...)
{
	struct run r;
	va_list ap;
	int ok;

	va_start(ap, err);
	run_tool_v(&r, o, ap);
	va_end(ap);
	ok = r.status == code && !strcmp(r.out, out) && !strcmp(r.err, err);
	snprintf(why, whylen, "exit %d (want %d), stdout '%s' (want '%s'), "
		 "stderr '%s' (want '%s')", r.status, code, r.out, out, r.err,
		 err);
	run_free(&r);
	return ok ? 0 : 1;
}

/* EXPECT(opts, code, stdout, stderr, ARGS...): the usual shape of a test. */
#define EXPECT(...)							\
	do {								\
		if (expect(why, whylen, __VA_ARGS__, (char *)NULL))	\
			return 1;					\
	} while (0)

/* Compare a file of the fake tree with what it should hold. */
#define CHECK_FAKE(f, name, want)					\
	do {								\
		char *got_ = fake_read((f), (name));			\
		int same_ = strcmp(got_, (want)) == 0;			\
									\
		snprintf(why, whylen, "%s holds '%s', want '%s'", (name), \
			 got_, (want));					\
		free(got_);						\
		if (!same_)						\
			return 1;					\
	} while (0)

/*
 * For a command that changes the policy: if we lack CAP_MAC_ADMIN, it
 * must say so (and the test ends there).
 */
#define NEEDS_CAP(o, cmd, ...)						\
	do {								\
		if (!privileged()) {					\
			EXPECT((o), 1, "", "denywritectl: " cmd ": " CAP_MSG "\n", \
			       cmd, __VA_ARGS__);			\
			return 0;					\
		}							\
	} while (0)

/*
 * Run a change "CMD ARGS..." (NULL-terminated) that must fail with
 * err_want (or the CAP_MAC_ADMIN message when we lack it) and leave the
 * fake tree's `file` empty.
 */
static int refused(char *why, size_t whylen, const struct fake *f,
		   const char *file, const char *err_want, const char *cmd, ...)
{
	struct opts o = { .sfs = f, .uid = -1 };
	char cap_want[128], *got;
	struct run r;
	va_list ap;
	int ok;

	snprintf(cap_want, sizeof(cap_want), "denywritectl: %s: " CAP_MSG "\n",
		 cmd);
	if (!privileged())
		err_want = cap_want;
	va_start(ap, cmd);
	run_tool_cmd(&r, &o, cmd, ap);
	va_end(ap);
	got = fake_read(f, file);
	ok = r.status == 1 && !*r.out && !strcmp(r.err, err_want) && !*got;
	snprintf(why, whylen, "exit %d, stdout '%s', stderr '%s' (want '%s'), "
		 "%s holds '%s'", r.status, r.out, r.err, err_want, file, got);
	free(got);
	run_free(&r);
	return ok ? 0 : 1;
}

TEST(version_and_help_print_to_stdout)
{
	struct run r;
	int ok;

	EXPECT(&(struct opts){ .uid = -1 }, 0, "denywritectl 0.1\n", "",
	       "--version");
	run_tool(&r, &(struct opts){ .uid = -1 }, "-h", (char *)NULL);
	ok = r.status == 0 && strncmp(r.out, "Usage:\n", 7) == 0 &&
	     strstr(r.out, "denywritectl(8)") && !*r.err;
	run_free(&r);
	CHECK(ok, "help output");
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

TEST(status_fails_when_denywrite_is_not_in_lsm)
{
	struct fake f;

	fake_init(&f, "capability,landlock,denywrite-not\n", "");
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "",
	       "denywritectl: denywrite is not active: boot with "
	       "lsm=...,denywrite\n", "status");
	return 0;
}

TEST(status_fails_when_denywrite_directory_is_missing)
{
	struct fake f;
	char path[PATH_MAX + 8];

	fake_init(&f, "denywrite", "");
	snprintf(path, sizeof(path), "%s/gone", f.root);
	CHECK(rename(f.dir, path) == 0, "rename");
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "",
	       "denywritectl: denywrite is not active: boot with "
	       "lsm=...,denywrite\n", "list");
	return 0;
}

TEST(status_fails_when_securityfs_is_not_mounted)
{
	struct fake f;
	char want[PATH_MAX + 128];

	fake_init(&f, NULL, "");
	snprintf(want, sizeof(want), "denywritectl: securityfs is not mounted: "
		 "mount -t securityfs securityfs %s\n", f.root);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "", want, "status");
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
	       "protected: 5 files\n"
	       "denied:    write 3, truncate 1, exec 0, mmap 4\n"
	       "audited:   7\n", "", "status");
	return 0;
}

TEST(status_json_is_one_object)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0,
	       "{\"active\":true,\"mode\":\"enforce\",\"rules\":2,"
	       "\"protected\":5,\"denied\":{\"write\":3,\"truncate\":1,"
	       "\"exec\":0,\"mmap\":4},\"audited\":7}\n", "", "--json",
	       "status");
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
	       "\"path\":\"/usr/lib\"}]}\n", "", "list", "--json");
	fake_file(&f, "rules", "");
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 0,
	       "{\"rules\":[]}\n", "", "-j", "list");
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
		return 0;
	}
	EXPECT(&o, 0, "", "", "load", "-");
	run_free(&r);
	CHECK_FAKE(&f, "rules", "exec /\nlib /tmp\n");
	return 0;
}

/* A directory under the scratch dir, canonical, with a file "bin" in it. */
static void make_target(char *dir, size_t size)
{
	char path[PATH_MAX + 8], *real;

	make_tmpdir(dir, size, "target");
	real = realpath(dir, NULL);
	if (!real)
		abort();
	snprintf(dir, size, "%s", real);
	free(real);
	snprintf(path, sizeof(path), "%s/bin", dir);
	write_file(path, "#!/bin/sh\n");
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
	EXPECT(&o, 0, "", "", "add", "--lib", "--ignore-writers", arg);
	snprintf(want, sizeof(want), "lib,ignore-writers %s/bin\n", dir);
	CHECK_FAKE(&f, "add", want);
	EXPECT(&o, 0, "", "", "add", dir);
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
	EXPECT(&o, 0, "", "", "del", arg);
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
	EXPECT(&o, 0, "", "", "del", "/gone/away");
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

TEST(load_writes_the_whole_policy_without_comments)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	char file[PATH_MAX];

	fake_default(&f);
	make_tmpdir(file, sizeof(file), "policy");
	strcat(file, "/p");
	write_file(file, "# my policy\r\n\n  exec   /  \nlib,ignore-writers\t/tmp\n"
		   "   # end\n");
	NEEDS_CAP(&o, "load", file);
	EXPECT(&o, 0, "", "", "load", file);
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /tmp\n");
	return 0;
}

TEST(load_of_an_empty_policy_clears)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = "# nothing\n" };

	fake_default(&f);
	NEEDS_CAP(&o, "load", "-");
	EXPECT(&o, 0, "", "", "load", "-");
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
	       "(exec, lib or all)\n", "load", "-");
	CHECK_FAKE(&f, "rules", "exec /\nlib,ignore-writers /usr/lib\n");
	return 0;
}

TEST(load_of_a_missing_file_fails)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "",
	       "denywritectl: load: /nonexistent/p: No such file or "
	       "directory\n", "load", "/nonexistent/p");
	return 0;
}

TEST(load_rejects_a_policy_over_65536_bytes)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	size_t n = 20, len = n * 4100 + 1;
	char *text = xmalloc(len), *p = text;
	char want[128];

	for (size_t i = 0; i < n; i++) {
		p += sprintf(p, "exec /%02zu", i);
		memset(p, 'x', 4000);
		p += 4000;
		*p++ = '\n';
	}
	*p = '\0';
	o.input = text;
	fake_default(&f);
	snprintf(want, sizeof(want), "denywritectl: load: <stdin>: the policy "
		 "is too large (%zu bytes, the kernel takes at most 65536)\n",
		 (size_t)(p - text));
	EXPECT(&o, 1, "", want, "load", "-");
	free(text);
	return 0;
}

/* Copy /bin/sleep to dir/sleeper and start it; returns its pid. */
static pid_t start_sleeper(const char *dir, char *path, size_t size)
{
	int in = open("/bin/sleep", O_RDONLY), out;
	char *buf;
	size_t len;
	pid_t pid;

	snprintf(path, size, "%s/sleeper", dir);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0 || read_all(in, 1u << 26, &buf, &len) != 0 ||
	    write(out, buf, len) != (ssize_t)len || close(out) != 0)
		abort();
	free(buf);
	close(in);
	pid = fork();
	if (pid == 0) {
		execl(path, "sleeper", "60", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {	/* until it has exec'd */
		char exe[64], target[PATH_MAX];
		ssize_t n;

		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
		n = readlink(exe, target, sizeof(target) - 1);
		if (n > 0 && (target[n] = '\0', strcmp(target, path) == 0))
			break;
		usleep(10000);
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * Run "why PATH [OPT]", the fake query file answering `answer`, on a copy
 * of sleep while it runs (returning its pid, gone by then) if `running`,
 * else on an idle file (returning 0).
 */
static pid_t why_on(struct run *r, const char *answer, const char *opt,
		    bool running, char *path, size_t size)
{
	char dir[PATH_MAX / 2], query[PATH_MAX + 256];
	struct fake f;
	pid_t pid = 0;

	fake_default(&f);
	make_target(dir, sizeof(dir));
	if (running)
		pid = start_sleeper(dir, path, size);
	else
		snprintf(path, size, "%s/bin", dir);
	/* The tool writes the path at offset 0, then reads from offset 0. */
	snprintf(query, sizeof(query), "%s\n%s", path, answer);
	fake_file(&f, "query", query);
	run_tool(r, &(struct opts){ .sfs = &f, .uid = -1 }, "why", path, opt,
		 (char *)NULL);
	if (pid)
		stop(pid);
	return pid;
}

/* Check a successful run whose stdout starts with want (all of it if
 * whole), and frees it. */
static int check_success(char *why, size_t whylen, struct run *r,
			 const char *want, bool whole)
{
	int ok = r->status == 0 && !*r->err &&
		 strncmp(r->out, want, strlen(want)) == 0 &&
		 (!whole || strlen(r->out) == strlen(want));

	snprintf(why, whylen, "exit %d, stdout '%s' (want '%s'), stderr '%s'",
		 r->status, r->out, want, r->err);
	run_free(r);
	return ok ? 0 : 1;
}

TEST(why_explains_a_running_executable)
{
	char path[PATH_MAX], want[2 * PATH_MAX + 1024];
	struct run r;
	pid_t pid;

	pid = why_on(&r, "protected 1\nholders 1\nwriters 0\n"
		     "exec-rule exec /\nlib-rule -\n", NULL, true, path,
		     sizeof(path));
	snprintf(want, sizeof(want),
		 "path:                 %s\n"
		 "mode:                 enforce\n"
		 "protected:            yes (1 holder)\n"
		 "writers:              0\n"
		 "if executed:          exec /\n"
		 "if mapped executable: no rule\n"
		 "processes:\n"
		 "  pid %d, exe: sleeper 60\n"
		 "advice: Writes and truncation are refused (ETXTBSY) while a "
		 "process executes or maps it. To replace it, write a new file "
		 "and rename(2) it over this one (as install(1) does); the "
		 "running processes keep the old copy.\n", path, (int)pid);
	return check_success(why, whylen, &r, want, true);
}

TEST(why_json_is_one_object_with_the_processes)
{
	char path[PATH_MAX], want[2 * PATH_MAX + 1024];
	struct run r;
	pid_t pid;

	pid = why_on(&r, "protected 1\nholders 2\nwriters 0\n"
		     "exec-rule all,ignore-writers /\n"
		     "lib-rule all,ignore-writers /\n", "-j", true, path,
		     sizeof(path));
	snprintf(want, sizeof(want),
		 "{\"path\":\"%s\",\"mode\":\"enforce\",\"protected\":true,"
		 "\"holders\":2,\"writers\":0,"
		 "\"exec_rule\":\"all,ignore-writers /\","
		 "\"lib_rule\":\"all,ignore-writers /\","
		 "\"processes\":[{\"pid\":%d,\"how\":\"exe\","
		 "\"cmdline\":\"sleeper 60\"}],\"advice\":\"Writes and "
		 "truncation are refused (ETXTBSY) while a process executes or "
		 "maps it. To replace it, write a new file and rename(2) it over "
		 "this one (as install(1) does); the running processes keep the "
		 "old copy.\"}\n", path, (int)pid);
	return check_success(why, whylen, &r, want, true);
}

/* why on an idle file (dir/bin, one writer) must print this advice. */
static int check_idle_advice(char *why, size_t whylen, const char *exec_rule,
			     const char *advice)
{
	char path[PATH_MAX], answer[128], want[PATH_MAX + 1024];
	struct run r;

	snprintf(answer, sizeof(answer), "protected 0\nholders 0\nwriters 1\n"
		 "exec-rule %s\nlib-rule -\n", exec_rule ? exec_rule : "-");
	why_on(&r, answer, NULL, false, path, sizeof(path));
	snprintf(want, sizeof(want),
		 "path:                 %s\n"
		 "mode:                 enforce\n"
		 "protected:            no (0 holders)\n"
		 "writers:              1\n"
		 "if executed:          %s\n"
		 "if mapped executable: no rule\n"
		 "processes:            none that you can see\n"
		 "advice: %s\n", path, exec_rule ? exec_rule : "no rule",
		 advice);
	return check_success(why, whylen, &r, want, true);
}

TEST(why_on_an_uncovered_file_says_writes_are_not_refused)
{
	return check_idle_advice(why, whylen, NULL, "Writes to this file are "
				 "not refused by denywrite.");
}

TEST(why_on_a_covered_idle_file_warns_about_open_writers)
{
	return check_idle_advice(why, whylen, "exec /", "Not protected now: "
		"writes are allowed. While a process executes it, writes will "
		"be refused (ETXTBSY). It is open for writing now, so executing "
		"or mapping it is refused (ETXTBSY) until the writers close it.");
}

TEST(why_on_a_covered_idle_file_with_ignore_writers_does_not_warn)
{
	return check_idle_advice(why, whylen, "exec,ignore-writers /",
		"Not protected now: writes are allowed. While a process "
		"executes it, writes will be refused (ETXTBSY).");
}

TEST(why_on_a_missing_file_fails)
{
	struct fake f;

	fake_default(&f);
	EXPECT(&(struct opts){ .sfs = &f, .uid = -1 }, 1, "",
	       "denywritectl: why: /nonexistent/x: No such file or "
	       "directory\n", "why", "/nonexistent/x");
	return 0;
}

TEST(unprivileged_user_can_read_but_not_change_the_policy)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1, .input = "exec /\n" };

	if (privileged()) {
		if (geteuid() != 0)
			return 0;	/* privileged but cannot drop */
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

const struct test e2e_tests[] = {
	T(version_and_help_print_to_stdout),
	T(usage_errors_exit_2_with_hint_line),
	T(status_fails_when_denywrite_is_not_in_lsm),
	T(status_fails_when_denywrite_directory_is_missing),
	T(status_fails_when_securityfs_is_not_mounted),
	T(status_reports_mode_rules_and_counters),
	T(status_json_is_one_object),
	T(status_fails_on_stats_without_a_counter),
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
	T(load_writes_the_whole_policy_without_comments),
	T(load_of_an_empty_policy_clears),
	T(load_rejects_unknown_scope_with_file_and_line),
	T(load_of_a_missing_file_fails),
	T(load_rejects_a_policy_over_65536_bytes),
	T(why_explains_a_running_executable),
	T(why_json_is_one_object_with_the_processes),
	T(why_on_an_uncovered_file_says_writes_are_not_refused),
	T(why_on_a_covered_idle_file_warns_about_open_writers),
	T(why_on_a_covered_idle_file_with_ignore_writers_does_not_warn),
	T(why_on_a_missing_file_fails),
	T(unprivileged_user_can_read_but_not_change_the_policy),
	T(a_write_error_on_stdout_fails),
	{ NULL, NULL },
};
