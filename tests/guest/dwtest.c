/* dwtest - in-guest scenario driver for denywrite.
 *
 *   dwtest --kernel stock|removed|lsm [--only NAME[,NAME...]]
 *          [--bin DIR] [--cli PATH] [--sfs DIR] [--fs TYPE]
 *
 * stdout follows the suite's accounting (README "Tests"): first
 * "PLAN <group> <N>", N counted from the tables before anything runs, and
 * one "CELL <ruleset-or-> <mode> <scenario> <ETXTBSY|ok>" line for every
 * matrix cell the model expects; then exactly N "PASS <name>",
 * "FAIL <name>: <reason>" or "SKIP <name>: <reason>" lines, one
 * "MATRIX <ruleset-or-> <mode> <scenario> <ETXTBSY|ok|other:X>" line for
 * each CELL, and "STAT <group> <key> <value>" figures.  <group> is
 * $DWTEST_GROUP (set by dwrun), else "dwtest".  Diagnostics go to stderr.
 * Exit 0 if nothing failed, 1 otherwise, 2 on a usage error (before PLAN).
 *
 * "STAT <group> fs <path> <type>" names the filesystem of each file the
 * matrix works on.  With --fs TYPE only the matrix runs, its check names
 * end in "_on_TYPE" (before the rule set), and every cell fails if one of
 * those files is not on a TYPE filesystem: the suite runs the matrix again
 * with ext4 or overlayfs bound over /tmp and /usr/lib (group_dwtest_on in
 * qemu/guest-suites.sh).
 *
 * Each test unit (one scenario in one (rule set, mode) cell, or one extra
 * test) runs in its own forked process group with a timeout; the driver
 * kills the group and reaps everything after it, so one failure cannot
 * cascade into the next unit.
 */
#include "dwtest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_CLI "/usr/sbin/denywritectl"
#define DEFAULT_SFS "/sys/kernel/security/denywrite"
#define BIND_DIR "/mnt/dwbind"
#define UNIT_TIMEOUT_MS 30000

const char *const mode_names[M_COUNT] = { "off", "audit", "enforce" };
const char *const op_names[] = { "write", "truncate", "exec", "mmap" };
static const char *const kernel_names[] = { "stock", "removed", "lsm" };

const struct ruleset_def rulesets[RS_COUNT] = {
	[RS_EXEC_ROOT] = { "exec /", "--exec", "/" },
	[RS_LIB_USRLIB] = { "lib /usr/lib", "--lib", "/usr/lib" },
	[RS_ALL_ROOT] = { "all /", "--all", "/" },
	[RS_NONE] = { "none", NULL, NULL },
};

struct config cfg;

/* ---- the expected-outcome model ---------------------------------------- */

bool covered(enum ruleset rs, enum scope sc, enum loc loc)
{
	switch (rs) {
	case RS_EXEC_ROOT:
		return sc == SC_EXEC;
	case RS_LIB_USRLIB:
		return sc == SC_LIB && loc == LOC_USRLIB;
	case RS_ALL_ROOT:
		return sc == SC_EXEC || sc == SC_LIB;
	default:
		return false;
	}
}

bool expect_denied(enum kernel k, enum ruleset rs, enum mode m, enum scope sc,
		   enum loc loc)
{
	switch (k) {
	case K_LSM:
		return m == M_ENFORCE && covered(rs, sc, loc);
	default:
		/* classic: main executable and #! interpreter only, on the
		 * stock kernel and on the patched one without denywrite,
		 * where exec keeps its own denial */
		return sc == SC_EXEC;
	}
}

const char *bin(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int slot;

	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", cfg.bindir, name);
	return buf[slot];
}

/* ---- output ------------------------------------------------------------ */

#define MAX_CHECKS 8
static struct {
	int out_fd; /* pipe to the driver inside a unit, -1 in the driver */
	const char *const *names;
	bool emitted[MAX_CHECKS];
	int passes, fails, skips;
} out = { .out_fd = -1 };

static const char *group(void)
{
	const char *g = getenv("DWTEST_GROUP");

	return g && *g ? g : "dwtest";
}

/* The check name of a PASS/FAIL/SKIP line, or NULL. */
static const char *result_name(const char *line)
{
	static const char *const kinds[] = { "PASS ", "FAIL ", "SKIP " };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(line, kinds[i], 5))
			return line + 5;
	return NULL;
}

/* Mark a declared check name as reported if line is its PASS/FAIL line. */
static void note_line(const char *line)
{
	const char *rest = result_name(line);

	for (int i = 0; rest && out.names && i < MAX_CHECKS && out.names[i]; i++) {
		size_t n = strlen(out.names[i]);

		if (!strncmp(rest, out.names[i], n) &&
		    (rest[n] == '\n' || rest[n] == ':'))
			out.emitted[i] = true;
	}
}

/* In the driver: print a complete line and count it. */
static void driver_line(const char *line)
{
	fputs(line, stdout);
	fflush(stdout);
	if (!strncmp(line, "FAIL ", 5))
		out.fails++;
	else if (!strncmp(line, "PASS ", 5))
		out.passes++;
	else if (!strncmp(line, "SKIP ", 5))
		out.skips++;
	note_line(line);
}

static void put_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put_line(const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n] = '\0';
	one_line(line);
	strcat(line, "\n");
	if (out.out_fd < 0) {
		driver_line(line);
		return;
	}
	note_line(line);
	if (write(out.out_fd, line, strlen(line)) < 0)
		fprintf(stderr, "dwtest: lost line: %s", line);
}

/* put_line("<head><fmt...>"). */
static void put_vline(const char *head, const char *fmt, va_list ap)
{
	char text[1536];

	vsnprintf(text, sizeof(text), fmt, ap);
	put_line("%s%s", head, text);
}

/* "KIND name: <fmt...>" */
static void put_result(const char *kind, const char *name, const char *fmt,
		       va_list ap)
{
	char head[1024];

	snprintf(head, sizeof(head), "%s %s: ", kind, name);
	put_vline(head, fmt, ap);
}

void emit_check(const char *name, bool pass, const char *fmt, ...)
{
	va_list ap;

	if (pass) {
		put_line("PASS %s", name);
		return;
	}
	va_start(ap, fmt);
	put_result("FAIL", name, fmt, ap);
	va_end(ap);
}

void emit_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_result("SKIP", name, fmt, ap);
	va_end(ap);
}

void emit_stat(const char *key, const char *fmt, ...)
{
	char head[512];
	va_list ap;

	snprintf(head, sizeof(head), "STAT %s %s ", group(), key);
	va_start(ap, fmt);
	put_vline(head, fmt, ap);
	va_end(ap);
}

void emit_matrix(const char *rs_label, const char *mode, const char *scenario,
		 const char *result)
{
	put_line("MATRIX %s %s %s %s", rs_label, mode, scenario, result);
}

void fail_rest(const char *fmt, ...)
{
	char reason[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	for (int i = 0; out.names && i < MAX_CHECKS && out.names[i]; i++)
		if (!out.emitted[i])
			emit_check(out.names[i], false, "%s", reason);
}

/* "_on_TYPE" with --fs, else "": ends every check name, before the rule
 * set, so that the matrix on another filesystem names its own checks. */
static const char *on_fs(void)
{
	static char buf[80];

	if (!cfg.fs)
		return "";
	snprintf(buf, sizeof(buf), "_on_%s", cfg.fs);
	return buf;
}

void check_name(char *buf, size_t len, const char *scenario, bool denied,
		const char *mode, const char *rs_label)
{
	int n = snprintf(buf, len, "%s_%s_in_%s%s", scenario,
			 denied ? "denied" : "allowed", mode, on_fs());

	if (rs_label && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "[%s]", rs_label);
}

void setup_fail(struct probe *p, const char *fmt, ...)
{
	va_list ap;

	p->setup_failed = true;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
}

/* ---- running one unit in its own process group ------------------------- */

/* Forward complete lines from buf (len bytes); keep a partial tail. */
static size_t forward_lines(char *buf, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			char line[4096];
			size_t n = i + 1 - start;

			if (n >= sizeof(line))
				n = sizeof(line) - 1;
			memcpy(line, buf + start, n);
			line[n] = '\0';
			line[n - 1] = '\n';
			driver_line(line);
			start = i + 1;
		}
	}
	memmove(buf, buf + start, len - start);
	return len - start;
}

/* Run fn(arg) in a forked unit; names are the checks it must report.  On
 * a crash or timeout each unreported check is FAILed (plus crash_matrix,
 * "ruleset mode scenario", as a MATRIX line). */
static void run_unit(const char *const *names, void (*fn)(const void *),
		     const void *arg, int timeout_ms, const char *crash_matrix)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	char buf[8192], why[256] = "";
	size_t have = 0;
	int pp[2];
	pid_t pid;
	siginfo_t si;

	out.names = names;
	memset(out.emitted, 0, sizeof(out.emitted));
	if (pipe2(pp, O_CLOEXEC)) {
		snprintf(why, sizeof(why), "pipe: %s", errtxt(errno));
		goto missing;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, sizeof(why), "fork: %s", errtxt(errno));
		close(pp[0]);
		close(pp[1]);
		goto missing;
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		close(pp[0]);
		out.out_fd = pp[1];
		if (rm_rf(DW_DIR) || mkdir_p(DW_DIR, 0755))
			fail_rest("cannot reset %s: %s", DW_DIR, errtxt(errno));
		else
			fn(arg);
		_exit(0);
	}
	setpgid(pid, pid);
	close(pp[1]);
	for (;;) {
		struct pollfd pfd = { .fd = pp[0], .events = POLLIN };

		if (poll(&pfd, 1, 20) > 0) {
			ssize_t n = read(pp[0], buf + have, sizeof(buf) - 1 - have);

			if (n > 0)
				have = forward_lines(buf, have + (size_t)n);
		}
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == pid) {
			if (si.si_code == CLD_EXITED && si.si_status == 0)
				snprintf(why, sizeof(why), "test unit ended without reporting");
			else if (si.si_code == CLD_EXITED)
				snprintf(why, sizeof(why), "test unit exited with status %d",
					 si.si_status);
			else
				snprintf(why, sizeof(why), "test unit killed by signal %d (%s)",
					 si.si_status, strsignal(si.si_status));
			break;
		}
		if (now_us() >= deadline) {
			snprintf(why, sizeof(why), "test unit timed out after %d s",
				 timeout_ms / 1000);
			break;
		}
	}
	kill(-pid, SIGKILL); /* the unit and everything it started */
	fcntl(pp[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t n = read(pp[0], buf + have, sizeof(buf) - 1 - have);

		if (n <= 0)
			break;
		have = forward_lines(buf, have + (size_t)n);
	}
	close(pp[0]);
	reap_all(WAIT_MS);
missing:
	for (int i = 0; i < MAX_CHECKS && names[i]; i++) {
		if (out.emitted[i])
			continue;
		if (crash_matrix) {
			char line[1024];

			snprintf(line, sizeof(line), "MATRIX %s other:crash\n",
				 crash_matrix);
			driver_line(line);
		}
		emit_check(names[i], false, "%s", why);
	}
	out.names = NULL;
}

/* ---- the filesystems under test ---------------------------------------- */

/* The files the matrix works on: DW_TMP, where each unit makes its files,
 * and the /usr/lib files the lib scenarios run, load and map. */
static const char *const fs_paths[] = { DW_TMP, GUEST_LIB, GUEST_PLUGIN,
					GUEST_LDSO };

/* The type of the filesystem path is on, as /proc/self/mountinfo names it
 * for the mount statx() reports ("ext4", "overlay", "tmpfs", "rootfs"),
 * into buf.  On failure "?" and -1 with errno set. */
static int fs_type(const char *path, char *buf, size_t len)
{
	static char info[1 << 16];
	struct statx stx;
	char id[32];

	snprintf(buf, len, "?");
	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) ||
	    read_file("/proc/self/mountinfo", info, sizeof(info)))
		return -1;
	snprintf(id, sizeof(id), "%llu ", (unsigned long long)stx.stx_mnt_id);
	for (char *line = info; *line;) {
		char *end = strchrnul(line, '\n');
		char *type = strstr(line, " - ");

		if (!strncmp(line, id, strlen(id)) && type && type < end) {
			type += 3;
			snprintf(buf, len, "%.*s", (int)strcspn(type, " \n"), type);
			return 0;
		}
		line = *end ? end + 1 : end;
	}
	errno = ENOENT;
	return -1;
}

/* A STAT line for the filesystem of each of fs_paths.  With --fs, why
 * gets the first that is not on cfg.fs, else it is empty. */
static void check_filesystems(char *why, size_t whylen)
{
	char type[64];

	why[0] = '\0';
	for (size_t i = 0; i < sizeof(fs_paths) / sizeof(fs_paths[0]); i++) {
		int err = fs_type(fs_paths[i], type, sizeof(type)) ? errno : 0;

		if (err)
			fprintf(stderr, "dwtest: filesystem of %s: %s\n", fs_paths[i],
				errtxt(err));
		emit_stat("fs", "%s %s", fs_paths[i], type);
		if (!cfg.fs || why[0] || !strcmp(type, cfg.fs))
			continue;
		if (err)
			snprintf(why, whylen, "%s: %s", fs_paths[i], errtxt(err));
		else
			snprintf(why, whylen, "%s is on %s, not on %s", fs_paths[i],
				 type, cfg.fs);
	}
}

/* ---- the matrix -------------------------------------------------------- */

struct matrix_job {
	const struct scenario *sc;
	struct scenario_env env;
	const char *mode;     /* column label: lsm mode or kernel name */
	const char *rs_label; /* NULL unless lsm */
	char name[256];
};

/* The model's verdict for a cell. */
static bool job_denied(const struct matrix_job *j)
{
	return expect_denied(cfg.kernel, j->env.rs, j->env.mode, j->sc->scope,
			     j->sc->loc);
}

static void probe_result(const struct probe *p, char *buf, size_t len)
{
	if (p->setup_failed)
		snprintf(buf, len, "other:setup");
	else if (p->other[0])
		snprintf(buf, len, "other:%s", p->other);
	else if (p->err == 0)
		snprintf(buf, len, "ok");
	else if (p->err == ETXTBSY)
		snprintf(buf, len, "ETXTBSY");
	else
		snprintf(buf, len, "other:%s", errname(p->err));
}

/*
 * Audit records of a cell that enforce would refuse.  On overlayfs a size
 * change is two: overlayfs changes the upper file for the merged one, and
 * both are covered (as SELinux checks and audits both there); enforce
 * refuses the first, so it counts one denial.
 */
static int audits_expected(const struct scenario *s)
{
	int sizes = (s->op == OP_TRUNCATE) + s->also_truncates;
	bool overlay = cfg.fs && !strcmp(cfg.fs, "overlay");

	return (s->op != OP_TRUNCATE) + sizes * (overlay ? 2 : 1);
}

static void matrix_unit(const void *arg)
{
	const struct matrix_job *j = arg;
	const struct scenario *s = j->sc;
	bool lsm = cfg.kernel == K_LSM;
	bool denied = job_denied(j);
	bool would = lsm && j->env.mode == M_AUDIT &&
		     covered(j->env.rs, s->scope, s->loc);
	struct probe p = { 0 };
	struct stats s0, s1;
	struct klog kl = { -1 };
	struct deltas exp = { { 0 }, 0 };
	char why[512], res[64];
	const char *bad;

	if (lsm && read_stats(&s0, why, sizeof(why)))
		setup_fail(&p, "stats: %s", why);
	else if (would && klog_mark(&kl, why, sizeof(why)))
		setup_fail(&p, "%s", why);
	else
		run_scenario(s, &j->env, &p);

	probe_result(&p, res, sizeof(res));
	emit_matrix(lsm ? j->rs_label : "-", j->mode, s->name, res);
	if (p.why[0])
		fprintf(stderr, "dwtest: %s: %s\n", j->name, p.why);

	if (p.setup_failed) {
		emit_check(j->name, false, "setup: %s", p.why);
	} else if (p.other[0]) {
		emit_check(j->name, false, "%s", p.why);
	} else if (denied && p.err != ETXTBSY) {
		emit_check(j->name, false, "expected ETXTBSY, got %s", errtxt(p.err));
	} else if (!denied && p.err) {
		emit_check(j->name, false, "expected success, got %s%s%s",
			   errtxt(p.err), p.why[0] ? "; " : "", p.why);
	} else if (lsm && read_stats(&s1, why, sizeof(why))) {
		emit_check(j->name, false, "stats after: %s", why);
	} else {
		/*
		 * In enforce mode a hold is exec's denial of write access (no
		 * rule set of the matrix has ignore-writers): the VFS refuses
		 * the writer, and the hook it calls then counts the refusal
		 * by its kind, O_TRUNC of a read-only open and truncate(2) as
		 * truncations.
		 */
		if (denied)
			exp.denied[s->op] = 1;
		if (j->env.mode == M_ENFORCE)
			exp.denied[s->op] += p.extra_denials;
		if (would)
			exp.audited = audits_expected(s);
		if (lsm && (bad = check_deltas(&s0, &s1, &exp)))
			emit_check(j->name, false, "counters: %s", bad);
		else if (would && klog_wait(&kl, op_names[s->op], 3000, why,
					    sizeof(why)))
			emit_check(j->name, false, "audit log: %s", why);
		else
			emit_check(j->name, true, "%s", "");
	}
	klog_close(&kl);
}

static bool selected(char **only, const char *name)
{
	if (!only)
		return true;
	for (int i = 0; only[i]; i++)
		if (!strcmp(only[i], name))
			return true;
	return false;
}

/* After a unit: undo what a crashed unit could have left behind. */
static void after_unit(const struct matrix_job *j)
{
	char path[4200], mode[32], why[512];

	if (file_contains("/proc/self/mountinfo", " " BIND_DIR " ") == 1 &&
	    umount2(BIND_DIR, MNT_DETACH))
		fprintf(stderr, "dwtest: umount %s: %s\n", BIND_DIR, errtxt(errno));
	if (cfg.kernel != K_LSM || strcmp(j->sc->name, "mode_switch_to_off_write"))
		return;
	snprintf(path, sizeof(path), "%s/mode", cfg.sfs);
	if (read_file(path, mode, sizeof(mode)) == 0 &&
	    !strncmp(mode, j->mode, strlen(j->mode)) && mode[strlen(j->mode)] == '\n')
		return;
	fprintf(stderr, "dwtest: mode not restored after %s, setting %s\n",
		j->name, j->mode);
	if (cli(why, sizeof(why), "mode", j->mode, NULL, NULL))
		fprintf(stderr, "dwtest: %s\n", why);
}

static void init_job(struct matrix_job *j, const struct scenario *s,
		     enum ruleset rs, enum mode m)
{
	bool lsm = cfg.kernel == K_LSM;

	j->sc = s;
	j->env.rs = rs;
	j->env.mode = m;
	j->mode = lsm ? mode_names[m] : kernel_names[cfg.kernel];
	j->rs_label = lsm ? rulesets[rs].label : NULL;
	check_name(j->name, sizeof(j->name), s->name, job_denied(j), j->mode,
		   j->rs_label);
}

/* Every matrix cell of this run, in the order they run: rule set by rule
 * set, mode by mode (lsm; one cell otherwise), the scenarios in table
 * order.  Fills jobs unless it is NULL; returns how many. */
static size_t list_cells(char **only, struct matrix_job *jobs)
{
	bool lsm = cfg.kernel == K_LSM;
	size_t n = 0;

	for (int rs = lsm ? 0 : RS_NONE; rs < (lsm ? RS_COUNT : RS_NONE + 1); rs++) {
		for (int m = 0; m < (lsm ? M_COUNT : 1); m++) {
			for (size_t i = 0; i < n_scenarios; i++) {
				const struct scenario *s = &scenarios[i];

				if (!selected(only, s->name) || (s->lsm_only && !lsm))
					continue;
				if (jobs)
					init_job(&jobs[n], s, (enum ruleset)rs,
						 (enum mode)m);
				n++;
			}
		}
	}
	return n;
}

/* Whether extra test i runs: lsm only, never with --fs (the matrix on
 * another filesystem), and if --only names it. */
static bool extra_selected(char **only, size_t i)
{
	return cfg.kernel == K_LSM && !cfg.fs && selected(only, extras[i].name);
}

/* The checks the selected extra tests declare. */
static size_t count_extra_checks(char **only)
{
	size_t n = 0;

	for (size_t i = 0; i < n_extras; i++)
		for (size_t c = 0; extra_selected(only, i) && extras[i].checks[c]; c++)
			n++;
	return n;
}

/* Run every cell; a cell fails unrun with fs_err ("" if none) or when its
 * policy could not be applied. */
static void run_cells(const struct matrix_job *jobs, size_t n,
		      const char *fs_err)
{
	char policy_err[768] = "";

	for (size_t i = 0; i < n; i++) {
		struct matrix_job j = jobs[i];
		const char *names[2] = { j.name, NULL };
		const char *label = j.rs_label ? j.rs_label : "-";
		char crash[512];

		if (cfg.kernel == K_LSM && !fs_err[0] &&
		    (i == 0 || j.env.rs != jobs[i - 1].env.rs ||
		     j.env.mode != jobs[i - 1].env.mode)) {
			policy_err[0] = '\0';
			if (apply_ruleset(j.env.rs, j.env.mode, policy_err,
					  sizeof(policy_err)))
				fprintf(stderr, "dwtest: policy [%s] %s: %s\n", label,
					j.mode, policy_err);
		}
		if (fs_err[0] || policy_err[0]) {
			out.names = names;
			emit_matrix(label, j.mode, j.sc->name, "other:setup");
			emit_check(j.name, false, "%s: %s",
				   fs_err[0] ? "wrong filesystem" : "policy not applied",
				   fs_err[0] ? fs_err : policy_err);
			out.names = NULL;
			continue;
		}
		snprintf(crash, sizeof(crash), "%s %s %s", label, j.mode, j.sc->name);
		run_unit(names, matrix_unit, &j, UNIT_TIMEOUT_MS, crash);
		after_unit(&j);
	}
}

/* PLAN, then the expected outcome of every cell.  Returns the cells (or
 * NULL with *n 0 on allocation failure, which exits). */
static struct matrix_job *plan(char **only, size_t *n)
{
	size_t checks;
	struct matrix_job *jobs;

	*n = list_cells(only, NULL);
	jobs = calloc(*n ? *n : 1, sizeof(*jobs));
	if (!jobs) {
		fprintf(stderr, "dwtest: out of memory\n");
		exit(2);
	}
	list_cells(only, jobs);
	checks = *n + count_extra_checks(only) + (cfg.kernel == K_LSM);
	put_line("PLAN %s %zu", group(), checks);
	for (size_t i = 0; i < *n; i++)
		put_line("CELL %s %s %s %s", jobs[i].rs_label ? jobs[i].rs_label : "-",
			 jobs[i].mode, jobs[i].sc->name,
			 job_denied(&jobs[i]) ? "ETXTBSY" : "ok");
	return jobs;
}

static void extra_unit(const void *arg)
{
	((const struct extra *)arg)->run();
}

static void usage(void)
{
	fprintf(stderr,
		"usage: dwtest --kernel stock|removed|lsm [--only NAME[,NAME...]]\n"
		"              [--bin DIR] [--cli PATH] [--sfs DIR] [--fs TYPE]\n"
		"  --only    run only these scenarios / extra tests\n"
		"  --bin     directory of sleeper, forker, dynsleep, dlsleep\n"
		"            (default: the directory of dwtest itself)\n"
		"  --cli     denywritectl path (default " DEFAULT_CLI ")\n"
		"  --sfs     denywrite securityfs dir (default " DEFAULT_SFS ")\n"
		"  --fs      the matrix only, whose files must be on a TYPE\n"
		"            filesystem (as /proc/self/mountinfo names it);\n"
		"            check names end in _on_TYPE\n");
	exit(2);
}

static char **split_only(char *list)
{
	size_t n = 2;
	char **v;
	int i = 0;

	for (char *p = list; *p; p++)
		n += *p == ',';
	v = calloc(n, sizeof(*v));
	if (!v)
		exit(2);
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
		v[i++] = tok;
	return v;
}

static bool known_name(const char *name)
{
	for (size_t i = 0; i < n_scenarios; i++)
		if (!strcmp(scenarios[i].name, name))
			return true;
	for (size_t i = 0; i < n_extras; i++)
		if (!strcmp(extras[i].name, name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const char *kernel = NULL;
	char **only = NULL, fs_err[512];
	struct matrix_job *jobs;
	size_t n_jobs;
	ssize_t n;

	cfg.cli = DEFAULT_CLI;
	cfg.sfs = DEFAULT_SFS;
	n = readlink("/proc/self/exe", cfg.bindir, sizeof(cfg.bindir) - 1);
	cfg.bindir[n > 0 ? n : 0] = '\0';
	if (strrchr(cfg.bindir, '/'))
		*strrchr(cfg.bindir, '/') = '\0';
	else
		snprintf(cfg.bindir, sizeof(cfg.bindir), "/tests/bin");

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		if (!strcmp(a, "--kernel"))
			kernel = v;
		else if (!strcmp(a, "--only"))
			only = split_only(argv[i + 1]);
		else if (!strcmp(a, "--bin"))
			snprintf(cfg.bindir, sizeof(cfg.bindir), "%s", v);
		else if (!strcmp(a, "--cli"))
			cfg.cli = v;
		else if (!strcmp(a, "--sfs"))
			cfg.sfs = v;
		else if (!strcmp(a, "--fs"))
			cfg.fs = v;
		else
			usage();
		i++;
	}
	if (!kernel)
		usage();
	for (cfg.kernel = K_STOCK; cfg.kernel <= K_LSM; cfg.kernel++)
		if (!strcmp(kernel, kernel_names[cfg.kernel]))
			break;
	if (cfg.kernel > K_LSM)
		usage();
	for (int i = 0; only && only[i]; i++) {
		if (!known_name(only[i])) {
			fprintf(stderr, "dwtest: unknown test '%s'\n", only[i]);
			exit(2);
		}
	}

	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	setvbuf(stdout, NULL, _IOLBF, 0);

	jobs = plan(only, &n_jobs);
	check_filesystems(fs_err, sizeof(fs_err));
	if (cfg.kernel != K_LSM) {
		run_cells(jobs, n_jobs, fs_err);
	} else {
		printk_ratelimit_off();
		run_cells(jobs, n_jobs, fs_err);
		for (size_t i = 0; i < n_extras; i++)
			if (extra_selected(only, i))
				run_unit(extras[i].checks, extra_unit, &extras[i],
					 extras[i].timeout_ms, NULL);

		char name[128], why[768] = "";
		const char *names[] = { name, NULL };

		snprintf(name, sizeof(name), "restore_default_policy_in_enforce%s[exec /]",
			 on_fs());
		bool ok = restore_default_policy(why, sizeof(why)) == 0;

		out.names = names;
		emit_check(names[0], ok, "%s", why);
		out.names = NULL;
		printk_ratelimit_restore();
	}
	free(jobs);
	rm_rf(DW_DIR);
	fprintf(stderr, "dwtest: %d passed, %d failed, %d skipped\n", out.passes,
		out.fails, out.skips);
	return out.fails ? 1 : 0;
}
