// SPDX-License-Identifier: GPL-2.0
/*
 * denywritectl why PATH: why do writes to this file, or its execution,
 * fail with ETXTBSY, and who is responsible?  The kernel's query file says
 * whether the file is protected and how many open files hold it or write
 * it; /proc says which processes those are, as far as we may look.
 */
#include "json.h"
#include "proc.h"
#include "util.h"
#include "why.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPLACE_HINT "To replace it, write a new file and rename(2) it over " \
	"this one (as install(1) does); the running processes keep the old copy."

struct why {
	const char *path;	/* canonical */
	bool active;		/* denywrite is; else the classic kernel */
	const char *no_kernel;	/* why the kernel's view is missing, or NULL */
	char mode[32];
	int protected;		/* 0, 1, or -1: unknown */
	long holders;		/* open files, from the kernel; -1 unknown */
	long writers;
	struct rule exec_rule;	/* path NULL if no rule covers it */
	struct rule lib_rule;
	struct proc_scan procs;
	char advice[2048];
	size_t alen;
};

/* Append a sentence to the advice. */
static void say(struct why *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct why *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->alen >= sizeof(w->advice))
		return;
	va_start(ap, fmt);
	n = vsnprintf(w->advice + w->alen, sizeof(w->advice) - w->alen, fmt,
		      ap);
	va_end(ap);
	if (n > 0)
		w->alen += (size_t)n;
}

/* How many listed processes hold the file this way. */
static size_t count_how(const struct why *w, enum proc_how how)
{
	size_t n = 0;

	for (size_t i = 0; i < w->procs.n; i++)
		n += proc_holds(&w->procs.p[i], how);
	return n;
}

static bool ignores_writers(const struct why *w)
{
	return (w->exec_rule.path && w->exec_rule.ignore_writers) ||
	       (w->lib_rule.path && w->lib_rule.ignore_writers);
}

/* Whether a listed process uses the file in a way a rule covers. */
static bool runs_covered(const struct why *w)
{
	return (count_how(w, HOW_EXECUTING) &&
		(w->exec_rule.path || w->lib_rule.path)) ||
	       (count_how(w, HOW_MAPPED_EXEC) && w->lib_rule.path);
}

/* Who holds it open for writing, and what we could not see. */
static void say_writers(struct why *w, const char *refused)
{
	say(w, " It is open for writing now, so %s is refused (ETXTBSY) "
	    "until the writers close it", refused);
	if (count_how(w, HOW_OPEN_WRITE))
		say(w, ": the processes open for writing above.");
	else if (w->procs.unreadable)
		say(w, ". No process you may inspect has it open for writing; "
		    "%u could not be inspected%s.", w->procs.unreadable,
		    geteuid() ? " (run as root to see them)" : "");
	else
		say(w, ". No process has it open for writing: the kernel "
		    "holds it (a loop device, swap...), or a process of "
		    "another PID namespace does.");
}

static void advise_unprotected(struct why *w)
{
	bool enforce = strcmp(w->mode, "enforce") == 0;

	say(w, "Not protected now: writes are allowed. While a process %s%s%s, "
	    "writes %s.",
	    w->exec_rule.path ? "executes it" : "",
	    w->exec_rule.path && w->lib_rule.path ? " or " : "",
	    w->lib_rule.path ? "maps it executable" : "",
	    enforce ? "will be refused (ETXTBSY)" : "will be logged (audit mode)");
	if (runs_covered(w))
		say(w, " The processes above hold no protection: they probably "
		    "started before a rule covered it or while denywrite was "
		    "off.");
	if (enforce && w->writers > 0 && !ignores_writers(w))
		say_writers(w, "executing or mapping it");
}

static void advise_active(struct why *w)
{
	if (strcmp(w->mode, "off") == 0)
		say(w, "denywrite is off: writes to this file are not refused "
		    "by denywrite.");
	else if (w->protected > 0 && strcmp(w->mode, "enforce") == 0)
		say(w, "Writes and truncation are refused (ETXTBSY) while a "
		    "process executes or maps it. " REPLACE_HINT);
	else if (w->protected > 0)
		say(w, "In audit mode writes are allowed but logged. "
		    REPLACE_HINT);
	else if (w->protected < 0 && (w->exec_rule.path || w->lib_rule.path))
		say(w, "Whether it is protected now is unknown: you may not "
		    "inspect this file's users (run as root to see them). "
		    "While a process executes or maps it as its rules say, "
		    "writes are refused (ETXTBSY). " REPLACE_HINT);
	else if (w->exec_rule.path || w->lib_rule.path)
		advise_unprotected(w);
	else
		say(w, "Writes to this file are not refused by denywrite.");
}

/* Without the kernel's view (no securityfs here): /proc alone. */
static void advise_blind(struct why *w)
{
	say(w, "The kernel's view is missing (%s): whether denywrite is "
	    "active, and which rules cover this file, is unknown.",
	    w->no_kernel);
	if (count_how(w, HOW_EXECUTING) || count_how(w, HOW_MAPPED_EXEC))
		say(w, " The processes above execute or map it: while they "
		    "run, writes to it may be refused (ETXTBSY). " REPLACE_HINT);
	if (count_how(w, HOW_OPEN_WRITE))
		say(w, " It is open for writing, so executing it may be refused "
		    "until the processes open for writing above close it.");
}

/* A kernel without denywrite: its own ETXTBSY for running executables. */
static void advise_classic(struct why *w)
{
	say(w, "denywrite is not active: this kernel's built-in rule applies. "
	    "It refuses writes (ETXTBSY) to a file while a process executes "
	    "it, and executing a file while it is open for writing; it does "
	    "not protect shared libraries.");
	if (count_how(w, HOW_EXECUTING))
		say(w, " The processes executing it are listed above. "
		    REPLACE_HINT);
	else
		say(w, " No process you may inspect executes it now.");
	if (count_how(w, HOW_OPEN_WRITE))
		say(w, " It is open for writing, so executing it is refused "
		    "until the processes open for writing above close it.");
}

static void json_holder(struct json *j, const struct proc_holder *h)
{
	json_begin(j, NULL, '{');
	json_uint(j, "pid", (unsigned long long)h->pid);
	if (h->uid >= 0)
		json_uint(j, "uid", (unsigned long long)h->uid);
	else
		json_string(j, "uid", NULL);
	json_string(j, "user", h->user);
	json_begin(j, "argv", '[');
	for (size_t i = 0; h->argv[i]; i++)
		json_string(j, NULL, h->argv[i]);
	json_end(j, ']');
	json_string(j, "comm", h->comm);
	json_begin(j, "holds", '[');
	for (size_t i = 0; i < h->nhold; i++) {
		json_begin(j, NULL, '{');
		json_string(j, "how", proc_how_json(h->hold[i].how));
		if (h->hold[i].fd >= 0)
			json_uint(j, "fd", (unsigned long long)h->hold[i].fd);
		json_end(j, '}');
	}
	json_end(j, ']');
	json_end(j, '}');
}

static void json_count(struct json *j, const char *key, long n)
{
	if (n >= 0)
		json_uint(j, key, (unsigned long long)n);
	else
		json_string(j, key, NULL);
}

static void why_json(const struct why *w)
{
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_string(&j, "path", w->path);
	if (w->no_kernel)
		json_string(&j, "active", NULL);
	else
		json_bool(&j, "active", w->active);
	json_string(&j, "mode", w->active ? w->mode : NULL);
	if (w->protected < 0)
		json_string(&j, "protected", NULL);
	else
		json_bool(&j, "protected", w->protected);
	json_count(&j, "holders", w->holders);
	json_count(&j, "writers", w->writers);
	json_rule(&j, "exec_rule", w->exec_rule.path ? &w->exec_rule : NULL);
	json_rule(&j, "lib_rule", w->lib_rule.path ? &w->lib_rule : NULL);
	json_begin(&j, "processes", '[');
	for (size_t i = 0; i < w->procs.n; i++)
		json_holder(&j, &w->procs.p[i]);
	json_end(&j, ']');
	json_uint(&j, "uninspected_processes", w->procs.unreadable);
	json_string(&j, "advice", w->advice);
	json_end(&j, '}');
}

/* "executing, open for writing (fd 3, 5)"; the columns it took. */
static int print_holds(const struct proc_holder *h)
{
	int n = 0;

	for (size_t i = 0; i < h->nhold; i++) {
		enum proc_how how = h->hold[i].how;
		bool first_of_kind = i == 0 || h->hold[i - 1].how != how;
		bool last_of_kind = i + 1 == h->nhold ||
				    h->hold[i + 1].how != how;

		if (first_of_kind)
			n += printf("%s%s", i ? ", " : "", proc_how_text(how));
		if (h->hold[i].fd >= 0)
			n += printf("%s%d%s", first_of_kind ? " (fd " : ", ",
				    h->hold[i].fd, last_of_kind ? ")" : "");
	}
	return n;
}

/* Bytes of the escaped text s that fit in cols columns (an escape or a
 * character is never cut). */
static size_t fit(const char *s, size_t cols)
{
	size_t n = 0;

	while (s[n] && cols > 0) {
		size_t u = utf8_len((const unsigned char *)s + n);

		if (s[n] == '\\')
			u = 4;	/* a backslash and 3 octal digits */
		n += u ? u : 1;
		cols--;
	}
	return n;
}

/* The command line cut to what is left of width after used columns. */
static void print_cmdline(const char *cmd, size_t used, size_t width)
{
	const char *e = esc(cmd);
	size_t cols = 0;

	for (size_t i = 0; e[i]; i += fit(e + i, 1))
		cols++;
	if (!width || used + cols <= width || width < used + 4)
		printf("%s\n", e);
	else
		printf("%.*s...\n", (int)fit(e, width - used - 3), e);
}

static void print_processes(const struct why *w, size_t width)
{
	if (w->procs.n == 0)
		printf("processes:            none found\n");
	else
		printf("processes:\n");
	for (size_t i = 0; i < w->procs.n; i++) {
		const struct proc_holder *h = &w->procs.p[i];
		char *cmd = proc_cmdline_text(h);
		int used = printf("  pid %d, user %s, ", h->pid, esc(h->user));

		used += print_holds(h);
		used += printf(": ");
		print_cmdline(cmd, (size_t)used, width);
		free(cmd);
	}
	if (w->procs.unreadable)
		printf("not inspected:        %u process%s you may not inspect%s\n",
		       w->procs.unreadable, w->procs.unreadable == 1 ? "" : "es",
		       geteuid() ? " (run as root to see them)" : "");
}

static void print_rule(const char *label, const struct rule *r)
{
	char *s = r->path ? rule_format(r) : NULL;

	printf("%s%s\n", label, s ? s : "no rule");
	free(s);
}

#define NOT_YOURS "unknown (you may not inspect this file's users)"

static void why_print(const struct why *w, size_t width)
{
	printf("path:                 %s\n", esc(w->path));
	if (w->no_kernel) {
		printf("denywrite:            unknown (the kernel's view is "
		       "missing: %s)\n", w->no_kernel);
	} else if (!w->active) {
		printf("denywrite:            not active (the kernel's built-in "
		       "ETXTBSY applies)\n");
	} else {
		printf("mode:                 %s\n", esc(w->mode));
		if (w->protected < 0)
			printf("protected:            " NOT_YOURS "\n");
		else
			printf("protected:            %s (%ld holder%s)\n",
			       w->protected ? "yes" : "no", w->holders,
			       w->holders == 1 ? "" : "s");
		if (w->writers < 0)
			printf("writers:              " NOT_YOURS "\n");
		else
			printf("writers:              %ld\n", w->writers);
		print_rule("if executed:          ", &w->exec_rule);
		print_rule("if mapped executable: ", &w->lib_rule);
	}
	print_processes(w, width);
	printf("advice: %s\n", w->advice);
}

static long count_value(const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	return end == v || *end || n < 0 ? -1 : n;
}

/* "-" or a rule into r (path NULL for "-"); -1 if malformed. */
static int answer_rule(const char *v, struct rule *r)
{
	char err[256];

	memset(r, 0, sizeof(*r));
	if (strcmp(v, "-") == 0)
		return 0;
	return rule_parse_line(v, strlen(v), r, err, sizeof(err)) == 1 ? 0 : -1;
}

/* Fill w from the query answer; 1 (reported) if a line is bad. */
static int parse_answer(const struct dw *dw, const struct kvlist *l,
			struct why *w)
{
	static const char *const keys[] = {
		"protected", "holders", "writers", "exec-rule", "lib-rule",
	};
	const char *v[5];

	for (size_t i = 0; i < 5; i++) {
		v[i] = kv_get(l, keys[i]);
		if (!v[i])
			return fail("%s/query: no '%s' line in the answer",
				    esc(dw->dir), keys[i]);
	}
	/* "-": the caller may not learn it (not its file, no ptrace) */
	w->protected = strcmp(v[0], "-") == 0 ? -1 : strcmp(v[0], "0") != 0;
	w->holders = count_value(v[1]);
	w->writers = count_value(v[2]);
	if ((w->holders < 0 && strcmp(v[1], "-")) ||
	    (w->writers < 0 && strcmp(v[2], "-")) ||
	    answer_rule(v[3], &w->exec_rule) || answer_rule(v[4], &w->lib_rule))
		return fail("%s/query: unexpected answer", esc(dw->dir));
	return 0;
}

/* Ask the kernel about w->path; 0 or 1 (reported). */
static int ask_kernel(const struct dw *dw, const struct cli *c, struct why *w)
{
	struct kvlist answer;
	char *buf;
	size_t len;
	int err;

	if (dw_read_mode(dw, w->mode, sizeof(w->mode)))
		return 1;
	err = dw_query(dw, w->path, &buf, &len);
	if (err)
		return fail("why: %s: %s", esc(c->args[0]), strerror(err));
	kv_parse(buf, len, &answer);
	free(buf);
	err = parse_answer(dw, &answer, w);
	kv_free(&answer);
	return err;
}

/* Whether anything holds the file, as fuser -s tells. */
static bool held(const struct why *w)
{
	return w->procs.n > 0 || w->protected > 0 || w->holders > 0 ||
	       w->writers > 0;
}

/* The columns text output may take: the terminal's, or $COLUMNS. */
static size_t out_width(const struct cli *c)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");

	if (c->wide)
		return 0;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col > 0)
		return ws.ws_col;
	return env ? strtoul(env, NULL, 10) : 0;
}

/* --pids: one a line, or {"pids":[...]} with --json. */
static void print_pids(const struct cli *c, const struct why *w)
{
	struct json j;

	if (!c->json) {
		for (size_t i = 0; i < w->procs.n; i++)
			printf("%d\n", w->procs.p[i].pid);
		return;
	}
	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_begin(&j, "pids", '[');
	for (size_t i = 0; i < w->procs.n; i++)
		json_uint(&j, NULL, (unsigned long long)w->procs.p[i].pid);
	json_end(&j, ']');
	json_end(&j, '}');
}

static int report(const struct cli *c, const struct why *w)
{
	if (c->pids && !c->quiet)
		print_pids(c, w);
	if (c->quiet || c->pids)
		return held(w) ? 0 : 1;
	if (c->json)
		why_json(w);
	else
		why_print(w, out_width(c));
	return 0;
}

/* The kernel's view: 0, or 1 (reported) on an error that is no reason
 * to fall back to /proc alone. */
static int look_in_kernel(struct dw *dw, const struct cli *c, struct why *w)
{
	int err = dw_open(dw);

	w->active = dw->active;
	w->holders = w->writers = -1;
	if (err == EXIT_UNKNOWN) {
		w->no_kernel = "securityfs is not mounted, and cannot be here";
		return 0;
	}
	if (err && err != EXIT_INACTIVE)
		return err;
	if (w->active && ask_kernel(dw, c, w)) {
		w->active = false;
		w->no_kernel = "denywrite's files cannot be read";
	}
	return 0;
}

static int explain(struct dw *dw, const struct cli *c, struct why *w,
		   const struct stat *st)
{
	int err = look_in_kernel(dw, c, w);

	if (err)
		return err;
	err = proc_scan("/proc", st->st_dev, st->st_ino, &w->procs);
	if (err)
		return fail("why: /proc: %s", strerror(err));
	if (w->no_kernel) {
		w->protected = -1;
		advise_blind(w);
	} else if (w->active) {
		advise_active(w);
	} else {
		w->protected = count_how(w, HOW_EXECUTING) > 0 ? 1 :
			       w->procs.unreadable ? -1 : 0;
		advise_classic(w);
	}
	return report(c, w);
}

int cmd_why(struct dw *dw, const struct cli *c)
{
	struct why w = { 0 };
	char *path = realpath(c->args[0], NULL);
	struct stat st;
	int rc;

	if (c->quiet)
		messages_off();	/* as fuser -s: the exit status only */
	if (!path || stat(path, &st) != 0) {
		fail("why: %s: %s", esc(c->args[0]), strerror(errno));
		free(path);
		return EXIT_NO_FILE;
	}
	w.path = path;
	rc = explain(dw, c, &w, &st);
	proc_scan_free(&w.procs);
	free(w.exec_rule.path);
	free(w.lib_rule.path);
	free(path);
	return rc;
}
