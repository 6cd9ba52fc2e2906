// SPDX-License-Identifier: GPL-2.0
/*
 * denywritectl log: denywrite's audit records, one line each, from the
 * audit log when auditd runs, else from the journal, else from the
 * kernel's log (/dev/kmsg); or from a file (--file).
 */
#include "commands.h"
#include "json.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AUDIT_LOG "/var/log/audit/audit.log"
#define AUDITD_PID "/run/auditd.pid"
#define JOURNAL_DIR "/run/systemd/journal"
#define KMSG "/dev/kmsg"
#define LINE_MAX_BYTES 65536

/* One denywrite record: its time (seconds, 0 if unknown), type, fields. */
struct record {
	double time;
	int type;		/* 1400 (AVC), 1403, 1404; 0 if not said */
	struct kvlist f;
};

static const struct {
	const char *name;
	int type;
} type_names[] = {
	{ "AVC", 1400 }, { "MAC_POLICY_LOAD", 1403 }, { "MAC_STATUS", 1404 },
};

/* Fields that the kernel logs as untrusted strings: quoted, or in hex. */
static bool untrusted(const char *key)
{
	static const char *const keys[] = { "comm", "path", "name", "rule",
					    "exe" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

/* An unquoted untrusted value is hex ("2F746D70" is "/tmp"). */
static char *unhex(const char *v, size_t n)
{
	char *out;

	if (n == 0 || n % 2 || strspn(v, "0123456789ABCDEFabcdef") < n)
		return xstrndup(v, n);
	out = xmalloc(n / 2 + 1);
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int b;

		sscanf(v + 2 * i, "%2x", &b);
		out[i] = (char)b;
	}
	out[n / 2] = '\0';
	if (strlen(out) != n / 2) {	/* a NUL: not a string */
		free(out);
		return xstrndup(v, n);
	}
	return out;
}

static void add_field(struct kvlist *l, char *key, char *value)
{
	l->kv = xrealloc(l->kv, (l->n + 1) * sizeof(*l->kv));
	l->kv[l->n].key = key;
	l->kv[l->n].value = value;
	l->n++;
}

/* The key=value fields of s into l. */
static void parse_fields(const char *s, struct kvlist *l)
{
	while (*s) {
		const char *eq, *v, *end;
		char *key;

		s += strspn(s, " ");
		eq = strchr(s, '=');
		if (!*s || !eq || memchr(s, ' ', (size_t)(eq - s)))
			break;
		key = xstrndup(s, (size_t)(eq - s));
		v = eq + 1;
		if (*v == '"') {
			end = strchr(v + 1, '"');
			end = end ? end : v + strlen(v);
			add_field(l, key, xstrndup(v + 1, (size_t)(end - v - 1)));
			s = *end ? end + 1 : end;
			continue;
		}
		end = v + strcspn(v, " ");
		add_field(l, key, untrusted(key) ? unhex(v, (size_t)(end - v)) :
			  xstrndup(v, (size_t)(end - v)));
		s = end;
	}
}

/* The type named by the LEN bytes at S ("AVC"), 0 if none. */
static int type_by_name(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (strlen(type_names[i].name) == len &&
		    strncmp(s, type_names[i].name, len) == 0)
			return type_names[i].type;
	return 0;
}

/* The record's type from "type=1400" or "type=AVC" before its fields,
 * else from the word just before them ("audit[194]: AVC lsm=...", as
 * journald's audit transport gives it); 0 if not said. */
static int record_type(const char *line, const char *fields)
{
	const char *t = strstr(line, "type=");
	const char *w = fields;

	if (t && t < fields) {
		int type = type_by_name(t + 5, strcspn(t + 5, " "));

		return type ? type : atoi(t + 5);
	}
	if (w == line || w[-1] != ' ')
		return 0;
	while (--w > line && w[-1] != ' ')
		;
	return type_by_name(w, (size_t)(fields - 1 - w));
}

/* "audit(1796304281.345:4)", else a leading number (journalctl -o
 * short-unix), else 0. */
static double record_time(const char *line, const char *fields)
{
	const char *a = strstr(line, "audit(");
	char *end;
	double t;

	if (a && a < fields)
		return strtod(a + 6, NULL);
	t = strtod(line, &end);
	return end != line && *end == ' ' && t > 1e8 ? t : 0;
}

/* Parse a log line; 1 and *r (free with kv_free) if it is denywrite's. */
static int parse_record(const char *line, struct record *r)
{
	static const char *const marks[] = {
		"lsm=denywrite ", "denywrite op=", "denywrite: op=",
	};
	const char *f = NULL;

	for (size_t i = 0; i < 3 && !f; i++) {
		f = strstr(line, marks[i]);
		if (f && i > 0)
			f = strstr(f, "op=");
	}
	if (!f || !strstr(f, "op="))
		return 0;
	memset(r, 0, sizeof(*r));
	r->time = record_time(line, f);
	r->type = record_type(line, f);
	parse_fields(f, &r->f);
	return 1;
}

/* "root", or the uid; "-" if none is logged. */
static const char *record_user(const struct record *r, char *buf,
			       size_t size)
{
	const char *uid = kv_get(&r->f, "uid");
	const struct passwd *pw;

	if (!uid || !*uid || strcmp(uid, "4294967295") == 0)
		uid = kv_get(&r->f, "auid");
	if (!uid || !*uid || strcmp(uid, "4294967295") == 0)
		return "-";
	pw = getpwuid((uid_t)strtoul(uid, NULL, 10));
	snprintf(buf, size, "%s", pw ? pw->pw_name : uid);
	return buf;
}

static const char *or_dash(const char *s)
{
	return s && *s ? esc(s) : "-";
}

static void print_text(const struct record *r)
{
	const char *v, *path = kv_get(&r->f, "path");
	char when[32] = "-", user[64];
	time_t t = (time_t)r->time;
	struct tm tm;

	if (r->time > 0 && localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%s %s %s %s %s %s", when, or_dash(kv_get(&r->f, "op")),
	       or_dash(kv_get(&r->f, "mode")),
	       esc(record_user(r, user, sizeof(user))),
	       or_dash(kv_get(&r->f, "comm")),
	       or_dash(path ? path : kv_get(&r->f, "name")));
	if ((v = kv_get(&r->f, "rule")) != NULL)
		printf(" %s %s", or_dash(kv_get(&r->f, "scope")), esc(v));
	else
		printf(" -");
	if ((v = kv_get(&r->f, "suppressed")) != NULL)
		printf(" (%s suppressed before)", esc(v));
	if ((v = kv_get(&r->f, "old_mode")) != NULL)
		printf(" old_mode=%s", esc(v));
	if ((v = kv_get(&r->f, "policy")) != NULL)
		printf(" policy=%s", esc(v));
	if ((v = kv_get(&r->f, "res")) != NULL && strcmp(v, "1") != 0)
		printf(" res=%s (failed)", esc(v));
	putchar('\n');
}

static void print_json(const struct record *r)
{
	char user[64];
	const char *u = record_user(r, user, sizeof(user));
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	if (r->time > 0)
		json_seconds(&j, "time", r->time);
	else
		json_string(&j, "time", NULL);
	if (r->type)
		json_uint(&j, "type", (unsigned long long)r->type);
	json_string(&j, "user", strcmp(u, "-") ? u : NULL);
	for (size_t i = 0; i < r->f.n; i++) {
		if (strcmp(r->f.kv[i].key, "lsm") == 0)
			continue;
		if (untrusted(r->f.kv[i].key) ||
		    !strcmp(r->f.kv[i].key, "policy"))
			json_string(&j, r->f.kv[i].key, r->f.kv[i].value);
		else
			json_number_text(&j, r->f.kv[i].key, r->f.kv[i].value);
	}
	json_end(&j, '}');
}

/* Print the line's record if it is denywrite's and not before since. */
static void show(const struct cli *c, char *line, double since)
{
	struct record r;

	line[strcspn(line, "\r\n")] = '\0';
	if (!parse_record(line, &r))
		return;
	if (!(since > 0 && r.time > 0 && r.time < since)) {
		if (c->json)
			print_json(&r);
		else
			print_text(&r);
		fflush(stdout);
	}
	kv_free(&r.f);
	esc_release();	/* no record's text is needed any more */
}

/* Lines of f until its end, or for ever when following. */
static int read_lines(const struct cli *c, FILE *f, double since,
		      bool follow)
{
	char *line = NULL;
	size_t cap = 0;

	for (;;) {
		ssize_t n = getline(&line, &cap, f);

		if (n > 0) {
			show(c, line, since);
			continue;
		}
		if (ferror(f) || !follow)
			break;
		clearerr(f);
		sleep(1);
	}
	free(line);
	return ferror(f) ? errno : 0;
}

/* The kernel's log: one record a read; stop at its end unless following. */
static int read_kmsg(const struct cli *c, double since)
{
	int fd = open(KMSG, O_RDONLY | O_CLOEXEC | (c->follow ? 0 : O_NONBLOCK));
	char *buf = xmalloc(LINE_MAX_BYTES + 1);
	int err = 0;

	if (fd < 0)
		err = errno;
	while (fd >= 0) {
		ssize_t n = read(fd, buf, LINE_MAX_BYTES);

		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n < 0 && errno != EAGAIN)
			err = errno;
		if (n <= 0)
			break;
		buf[n] = '\0';
		show(c, buf, since);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return err ? fail("log: %s: %s", KMSG, strerror(err)) : 0;
}

static int read_file_source(const struct cli *c, const char *path,
			    double since)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	int err;

	if (!f)
		return fail("log: %s: %s", esc(path), strerror(errno));
	err = read_lines(c, f, since, c->follow && f != stdin);
	if (f != stdin)
		fclose(f);
	return err ? fail("log: %s: %s", esc(path), strerror(err)) : 0;
}

/*
 * Whether journald collects the audit subsystem's records itself (its
 * audit socket): then each record is in the journal twice without auditd,
 * once from the audit socket and once as the kernel's printk of it, and
 * only the first is complete (the kernel's copies are rate-limited).
 */
static bool journal_has_audit(void)
{
	FILE *p = popen("journalctl -q --no-pager -b -n 1 -o cat "
			"_TRANSPORT=audit 2>/dev/null", "re");
	bool any;

	if (!p)
		return false;
	any = fgetc(p) != EOF;
	pclose(p);
	return any;
}

/* The journal's records of one transport, so that each is read once:
 * audit when journald collects it, else the kernel's log. */
static int read_journal(const struct cli *c, double since)
{
	char cmd[256];
	FILE *p;
	int rc;

	snprintf(cmd, sizeof(cmd), "journalctl -q --no-pager -o short-unix "
		 "_TRANSPORT=%s%s --since=@%.0f",
		 journal_has_audit() ? "audit" : "kernel",
		 c->follow ? " -f" : "", since);
	p = popen(cmd, "re");
	if (!p)
		return fail("log: journalctl: %s", strerror(errno));
	read_lines(c, p, since, false);
	rc = pclose(p);
	return rc == 0 ? 0 : fail("log: journalctl failed (exit %d)",
				  WEXITSTATUS(rc));
}

/* --since: "@SECONDS", "YYYY-MM-DD[ HH:MM[:SS]]" (local), "-N[smhd]". */
static int parse_since(const char *s, double *since)
{
	struct tm tm = { 0 };
	char *end;
	const char *rest;

	*since = 0;
	if (!s)
		return 0;
	if (*s == '@' || *s == '-') {
		double v = strtod(s + 1, &end);
		static const char units[] = "smhd";
		static const double secs[] = { 1, 60, 3600, 86400 };
		const char *u = *end ? strchr(units, *end) : units;

		if (end == s + 1 || !u || (*end && end[1]))
			return -1;
		*since = *s == '@' ? v : (double)time(NULL) - v * secs[u - units];
		return *s == '@' && *end ? -1 : 0;
	}
	rest = strptime(s, "%Y-%m-%d", &tm);
	if (rest && *rest)
		rest = strptime(rest, " %H:%M", &tm);
	if (rest && *rest)
		rest = strptime(rest, ":%S", &tm);
	if (!rest || *rest)
		return -1;
	tm.tm_isdst = -1;
	*since = (double)mktime(&tm);
	return 0;
}

int cmd_log(struct dw *dw, const struct cli *c)
{
	double since;

	(void)dw;
	if (parse_since(c->since, &since)) {
		fail("log: --since: '%s' is not @SECONDS, YYYY-MM-DD "
		     "[HH:MM[:SS]] or -N[smhd]", esc(c->since));
		return EXIT_USAGE;
	}
	if (c->file)
		return read_file_source(c, c->file, since);
	if (access(AUDITD_PID, F_OK) == 0 && access(AUDIT_LOG, R_OK) == 0)
		return read_file_source(c, AUDIT_LOG, since);
	if (access(JOURNAL_DIR, F_OK) == 0 &&
	    (access("/usr/bin/journalctl", X_OK) == 0 ||
	     access("/bin/journalctl", X_OK) == 0))
		return read_journal(c, since);
	return read_kmsg(c, since);
}
