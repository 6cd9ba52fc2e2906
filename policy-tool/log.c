// SPDX-License-Identifier: GPL-2.0
/*
 * denywritectl log: denywrite's audit records, one line each, from the
 * audit log when auditd runs, else from the journal, else from the
 * kernel's log (/dev/kmsg); or from a file (--file).
 */
#include "json.h"
#include "log.h"
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

/*
 * The kernel's refusal and change records all start with this, whether
 * the audit subsystem logs them or, without it, printk (with its pr_fmt,
 * "denywrite: "): see security/denywrite/log.c.
 */
#define RECORD_PREFIX "lsm=denywrite op="

#define DIGITS "0123456789"

/* Who logged a message, as its metadata tells. */
enum origin {
	FROM_UNKNOWN,	/* a line alone: the kernel's, or audit.log's */
	FROM_KERNEL,	/* /dev/kmsg, dmesg, the journal's "kernel:" */
	FROM_AUDIT,	/* the journal's audit transport, "audit[PID]:" */
};

/* If s starts with word, the text after it; else NULL. */
static const char *after(const char *s, const char *word)
{
	size_t n = strlen(word);

	return strncmp(s, word, n) == 0 ? s + n : NULL;
}

/* The text after the first n space-separated words of s (and the spaces
 * after them), or NULL if s has fewer. */
static const char *skip_words(const char *s, unsigned int n)
{
	while (n--) {
		const char *sp = strchr(s, ' ');

		if (!sp || sp == s)
			return NULL;
		s = sp + strspn(sp, " ");
	}
	return s;
}

static bool is_month(const char *s)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	for (size_t i = 0; i < sizeof(months) - 1; i += 3)
		if (strncmp(s, months + i, 3) == 0 && s[3] == ' ')
			return true;
	return false;
}

/* The syslog identifier at s, "kernel: ", "audit: " or "audit[PID]: ":
 * who it is, and *message the text after it; FROM_UNKNOWN if another. */
static enum origin ident(const char *s, const char **message)
{
	const char *a = after(s, "audit");

	if ((*message = after(s, "kernel: ")) != NULL)
		return FROM_KERNEL;
	if (a && (*message = after(a, ": ")) != NULL)
		return FROM_AUDIT;
	if (!a || *a != '[' || !strspn(a + 1, DIGITS))
		return FROM_UNKNOWN;
	*message = after(a + 1 + strspn(a + 1, DIGITS), "]: ");
	return *message ? FROM_AUDIT : FROM_UNKNOWN;
}

/*
 * A journal or syslog line, "TIME HOST IDENT: MESSAGE", TIME one word
 * (journalctl -o short-unix, short-iso) or three ("Dec 03 16:25:09",
 * short and short-precise): its message if IDENT is the kernel's or
 * audit's, and its time if it is a number of seconds; else NULL.
 */
static const char *journal_message(const char *line, double *time,
				   enum origin *from)
{
	const char *id = skip_words(line, is_month(line) ? 4 : 2), *m = NULL;
	char *end;
	double t;

	if (!id || (*from = ident(id, &m)) == FROM_UNKNOWN)
		return NULL;
	t = strtod(line, &end);
	if (end != line && *end == ' ')
		*time = t;
	return m;
}

/* /dev/kmsg's "PRIO,SEQ,USEC,FLAGS[,caller=T1];" at the start of line:
 * its length, 0 if there is none. */
static size_t kmsg_head(const char *line)
{
	const char *p = line, *semi;

	for (int i = 0; i < 3; i++) {
		size_t n = strspn(p, DIGITS);

		if (!n || p[n] != ',')
			return 0;
		p += n + 1;
	}
	semi = strchr(p, ';');
	if (!semi || memchr(p, ' ', (size_t)(semi - p)))
		return 0;
	return (size_t)(semi - line) + 1;
}

/*
 * The message of a log line without the metadata of where it was read:
 * /dev/kmsg's "PRIO,SEQ,USEC,FLAGS;", dmesg's "[   18.997152] " (after
 * "<6>" with dmesg -r), or a journal or syslog line's "TIME HOST kernel: ";
 * a line of neither (audit.log, a message alone) is its own message.
 * NULL for a journal line of another program.
 */
static const char *log_message(const char *line, double *time,
			       enum origin *from)
{
	size_t n = kmsg_head(line);

	*from = n ? FROM_KERNEL : FROM_UNKNOWN;
	if (n)
		return line + n;
	n = line[0] == '<' ? strspn(line + 1, DIGITS) : 0;
	if (n && line[1 + n] == '>')	/* dmesg -r's priority */
		line += 2 + n;
	if (line[0] == '[' && strchr(line, ']')) {
		const char *m = strchr(line, ']') + 1;

		*from = FROM_KERNEL;
		return m + strspn(m, " ");
	}
	if (strspn(line, DIGITS) || is_month(line))
		return journal_message(line, time, from);
	return line;
}

/*
 * The stamp "audit(1796304281.345:4): " at s (or ausearch -i's
 * "audit(12/03/2026 16:25:09.345:4) : "): the text after it, and its
 * time if it is in seconds; s if there is none.
 */
static const char *audit_stamp(const char *s, double *time)
{
	const char *a = after(s, "audit("), *end, *m;
	char *num;
	double t;

	if (!a || !(end = strchr(a, ')')))
		return s;
	m = after(end + 1, ": ");
	if (!m)
		m = after(end + 1, " : ");
	if (!m)
		return s;
	t = strtod(a, &num);
	if (num != a && *num == ':')
		*time = t;
	return m;
}

/* The length of the word at s, up to a space, if it is all of chars (and
 * a space follows it); else 0. */
static size_t word_of(const char *s, const char *chars)
{
	size_t n = strcspn(s, " ");

	return n && s[n] == ' ' && strspn(s, chars) >= n ? n : 0;
}

#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"

/* After "type=": the type (1400, or a name: "AVC") into r; the text after
 * it and an "audit(T:S): " stamp; NULL if there is no type. */
static const char *audit_type(const char *t, struct record *r)
{
	size_t n = word_of(t, UPPER DIGITS);
	const char *m = t + n + 1;

	if (!n)
		return NULL;
	r->type = type_by_name(t, n);
	if (!r->type)
		r->type = atoi(t);
	if (after(m, "msg="))
		m += strlen("msg=");
	return audit_stamp(m, &r->time);
}

/*
 * The record in a message, framed as the audit subsystem frames it
 * (printk's "audit: type=1400 audit(T:S): ", audit.log's "[node=N ]
 * type=AVC msg=audit(T:S): ", the journal's audit transport's "AVC "),
 * as printk without audit does ("denywrite: "), or alone: after its
 * frame it must start with RECORD_PREFIX.  Its type and time go to r.
 * NULL if it is no record: a message that holds the prefix anywhere
 * else, such as a segfault line of a program named "denywrite op=wr",
 * is not one.
 */
static const char *record_start(const char *m, enum origin from,
				struct record *r)
{
	const char *t = after(m, "audit: type=");
	size_t n;

	if (!t && from == FROM_UNKNOWN) {	/* audit.log's */
		const char *node = after(m, "node=") ? strchr(m, ' ') : NULL;

		t = after(node ? node + 1 : m, "type=");
	}
	if (t) {
		m = audit_type(t, r);
	} else if (from == FROM_AUDIT && (n = word_of(m, UPPER)) > 0) {
		r->type = type_by_name(m, n);
		m += n + 1;
	} else if (after(m, "denywrite: ")) {
		m += strlen("denywrite: ");
	}
	return m && after(m, RECORD_PREFIX) ? m : NULL;
}

/* Parse a log line; 1 and *r (free with kv_free) if it is denywrite's. */
static int parse_record(const char *line, struct record *r)
{
	enum origin from;
	const char *m;

	memset(r, 0, sizeof(*r));
	m = log_message(line, &r->time, &from);
	m = m ? record_start(m, from, r) : NULL;
	if (!m)
		return 0;
	parse_fields(m, &r->f);
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
	if ((v = kv_get(&r->f, "suppressed")) != NULL && strcmp(v, "0") != 0)
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
