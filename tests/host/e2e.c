// SPDX-License-Identifier: GPL-2.0
/* Helpers of the end-to-end tests: see e2e.h. */
#include "e2e.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

void fake_file(const struct fake *f, const char *name, const char *s)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	write_file(path, s);
}

/* The contents of a file of the fake tree, malloc'd ("" if missing). */
char *fake_read(const struct fake *f, const char *name)
{
	char path[PATH_MAX + 32], *s;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	s = read_file(path);
	return s ? s : xstrdup("");
}

/* A fake securityfs with lsm listing `lsm` (NULL: no lsm file). */
void fake_init(struct fake *f, const char *lsm, const char *rules)
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

void fake_default(struct fake *f)
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
	unsetenv("COLUMNS");
	if (o->env)
		putenv((char *)o->env);
	if (o->stdout_path)
		outfd = open(o->stdout_path, O_WRONLY);
	if (outfd < 0 || dup2(fileno(in), 0) < 0 || dup2(outfd, 1) < 0 ||
	    dup2(fileno(err), 2) < 0)
		_exit(125);
	drop_to(o->uid);
	alarm(o->timeout);	/* kept across execv */
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
void run_tool_cmd(struct run *r, const struct opts *o,
			 const char *first, va_list ap)
{
	char *argv[32] = { "denywritectl", (char *)first };
	FILE *in = capture_file(o->input), *out = capture_file(NULL);
	FILE *err = capture_file(NULL);
	int argc = first ? 2 : 1, status;
	pid_t pid;

	while (first && argc < 31 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	argv[argc] = NULL;
	fflush(stdout);
	r->ms = now_ms();
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0)
		child(o, in, out, err, argv);
	if (waitpid(pid, &status, 0) != pid)
		abort();
	r->ms = now_ms() - r->ms;
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
void run_tool(struct run *r, const struct opts *o, ...)
{
	va_list ap;

	va_start(ap, o);
	run_tool_v(r, o, ap);
	va_end(ap);
}

void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* Whether this process has CAP_MAC_ADMIN (33) in its effective set. */
bool privileged(void)
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
int expect(char *why, size_t whylen, const struct opts *o, int code,
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




/*
 * Run a change "CMD ARGS..." (NULL-terminated) that must fail with
 * err_want (or the CAP_MAC_ADMIN message when we lack it) and leave the
 * fake tree's `file` empty.
 */
int refused(char *why, size_t whylen, const struct fake *f,
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

/* A directory under the scratch dir, canonical, with a file "bin" in it. */
void make_target(char *dir, size_t size)
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


static void copy_sleep(const char *path)
{
	int in = open("/bin/sleep", O_RDONLY), out;
	char *buf;
	size_t len;

	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0 || read_all(in, 1u << 26, &buf, &len) != 0 ||
	    write(out, buf, len) != (ssize_t)len || close(out) != 0)
		abort();
	free(buf);
	close(in);
}

/* Wait until pid's /proc/PID/LINK points to target (2 s at most). */
static void wait_link(pid_t pid, const char *link, const char *target)
{
	for (int i = 0; i < 200; i++) {
		char proc[64], got[PATH_MAX];
		ssize_t n;

		snprintf(proc, sizeof(proc), "/proc/%d/%s", (int)pid, link);
		n = readlink(proc, got, sizeof(got) - 1);
		if (n > 0 && (got[n] = '\0', strcmp(got, target) == 0))
			return;
		usleep(10000);
	}
}

pid_t start_sleeper_at(const char *path, const char *argv0)
{
	pid_t pid;

	copy_sleep(path);
	pid = fork();
	if (pid == 0) {
		execl(path, argv0, "60", (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		abort();
	wait_link(pid, "exe", path);
	return pid;
}

pid_t start_sleeper(const char *dir, char *path, size_t size)
{
	snprintf(path, size, "%s/sleeper", dir);
	return start_sleeper_at(path, "sleeper");
}

pid_t start_writer(const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_APPEND);

		if (fd < 0 || (fd != 3 && (dup2(fd, 3) != 3 || close(fd))))
			_exit(127);
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		abort();
	wait_link(pid, "fd/3", path);
	return pid;
}

void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Check a successful run whose stdout starts with want (all of it if
 * whole), and frees it. */
int check_success(char *why, size_t whylen, struct run *r, const char *want,
		  bool whole)
{
	int ok = r->status == 0 && !*r->err &&
		 strncmp(r->out, want, strlen(want)) == 0 &&
		 (!whole || strlen(r->out) == strlen(want));

	snprintf(why, whylen, "exit %d, stdout '%s' (want '%s'), stderr '%s'",
		 r->status, r->out, want, r->err);
	run_free(r);
	return ok ? 0 : 1;
}

const char *data_path(char *buf, size_t size, const char *env,
		      const char *dir, const char *name)
{
	const char *set = getenv(env);
	char *tooldir = xstrdup(test_tool);

	*strrchr(tooldir, '/') = '\0';
	if (set && *set)
		snprintf(buf, size, "%s/%s", set, name);
	else
		snprintf(buf, size, "%s/%s/%s", tooldir, dir, name);
	free(tooldir);
	return buf;
}

const char *dist_path(char *buf, size_t size, const char *name)
{
	return data_path(buf, size, "DENYWRITECTL_TEST_DIST", "dist", name);
}
