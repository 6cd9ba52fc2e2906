// SPDX-License-Identifier: GPL-2.0
/*
 * denywritectl log: denywrite's audit records, one line each, from the
 * audit log when auditd runs, else from the journal, else from the
 * kernel's log (/dev/kmsg); or from a file (--file, --journal-file).
 *
 * Records framed by the audit subsystem (audit.log's "type=AVC
 * msg=audit(T:S): ", the kernel's printk of them, the journal's audit
 * transport) are parsed by libauparse, which reads auditd's RAW and
 * ENRICHED formats and groups the records of one event (one serial), so
 * that a refusal is joined with the SYSCALL record that says who made
 * it.  Other lines (printk without audit, "denywrite: ...", ausearch -i,
 * journalctl's short text) are parsed here.
 */
#include "json.h"
#include "log.h"
#include "util.h"

#include <auparse.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if HAVE_SD_JOURNAL
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>
#endif

#define AUDIT_LOG "/var/log/audit/audit.log"
#define AUDITD_PID "/run/auditd.pid"
#define JOURNAL_DIR "/run/systemd/journal"
#define KMSG "/dev/kmsg"
#define LINE_MAX_BYTES 65536
#define POLL_MS 250	/* how often a follower looks for more */
#define IDLE_POLLS 2	/* after that many idle looks, events are complete */

#define TYPE_SYSCALL 1300

/* One denywrite record: its time (seconds, 0 if unknown), type, fields. */
struct record {
	double time;
	int type;		/* 1400 (AVC), 1403, 1404; 0 if not said */
	struct kvlist f;
};

/* What --since, --op, --path and --uid keep. */
struct filter {
	double since;		/* 0: any time */
	const char *op;
	const char *path;	/* ending in '/': anything under it */
	bool by_uid;
	unsigned long uid;
};

struct reader {
	const struct cli *c;
	struct filter f;
	auparse_state_t *au;	/* fed audit records, grouped in events */
};

static const struct {
	const char *name;
	int type;
} type_names[] = {
	{ "AVC", 1400 }, { "MAC_POLICY_LOAD", 1403 }, { "MAC_STATUS", 1404 },
	{ "SYSCALL", TYPE_SYSCALL },
};

/* The name of an audit record type that log reads, NULL for another. */
static const char *type_name(int type)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (type_names[i].type == type)
			return type_names[i].name;
	return NULL;
}

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
	/* auditd's ENRICHED format: its interpretations after a 0x1d */
	const char *stop = strchr(s, '\x1d');
	char *own = stop ? xstrndup(s, (size_t)(stop - s)) : NULL;

	if (own)
		s = own;
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
	free(own);
}

/* The type named by the LEN bytes at S ("AVC"), 0 if none. */
static int type_by_name(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (type_names[i].type != TYPE_SYSCALL &&
		    strlen(type_names[i].name) == len &&
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

/* The record in a message (m, its origin known), parsed as text; 1 and
 * *r (free with kv_free) if it is denywrite's.  r->time may hold the
 * time of the line already. */
static int parse_record(const char *m, enum origin from, struct record *r)
{
	m = record_start(m, from, r);
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

/* --path: the record's path is path, or under it if it ends in '/'; a
 * record that names the file by its last component only (name=) matches
 * the last component of an exact path. */
static bool path_matches(const char *want, const struct kvlist *f)
{
	const char *p = kv_get(f, "path"), *name = kv_get(f, "name");
	size_t n = strlen(want);
	bool dir = want[n - 1] == '/';

	if (p)
		return dir ? strncmp(p, want, n) == 0 : strcmp(p, want) == 0;
	return name && !dir && strcmp(name, strrchr(want, '/') + 1) == 0;
}

static bool wanted(const struct filter *f, const struct record *r)
{
	const char *v;

	if (f->since > 0 && r->time > 0 && r->time < f->since)
		return false;
	if (f->op && (!(v = kv_get(&r->f, "op")) || strcmp(v, f->op) != 0))
		return false;
	if (f->path && !path_matches(f->path, &r->f))
		return false;
	if (f->by_uid && (!(v = kv_get(&r->f, "uid")) || !*v ||
			  v[strspn(v, DIGITS)] != '\0' ||
			  strtoul(v, NULL, 10) != f->uid))
		return false;
	return true;
}

/* Print a record if the filters keep it; free it. */
static void emit(const struct reader *rd, struct record *r)
{
	if (wanted(&rd->f, r)) {
		if (rd->c->json)
			print_json(r);
		else
			print_text(r);
		fflush(stdout);
	}
	kv_free(&r->f);
	esc_release();	/* no record's text is needed any more */
}

/* Events fed so far and complete, printed now: the next record may be
 * one that the parser does not group (or nothing may come for long). */
static void flush_events(struct reader *rd)
{
	auparse_flush_feed(rd->au);
}

/* The fields of the SYSCALL record that a denywrite record of the same
 * event lacks, and takes from it: who made the system call. */
static const char *const joined_fields[] = {
	"pid", "uid", "auid", "ses", "comm", "exe",
};

static bool is_joined(const char *key)
{
	for (size_t i = 0; i < sizeof(joined_fields) / sizeof(*joined_fields);
	     i++)
		if (strcmp(key, joined_fields[i]) == 0)
			return true;
	return false;
}

/* The fields of the parser's current record into l, but "type" and
 * "node"; only those of joined_fields if join.  Quoted values without
 * their quotes; untrusted strings logged in hex decoded.  auparse leaves
 * the interpretations of the ENRICHED format out of the fields. */
static void au_fields(auparse_state_t *au, struct kvlist *l, bool join)
{
	if (auparse_first_field(au) <= 0)
		return;
	do {
		const char *k = auparse_get_field_name(au);
		const char *v = auparse_get_field_str(au);
		size_t n;

		if (!k || !v || !strcmp(k, "type") || !strcmp(k, "node") ||
		    (join && !is_joined(k)))
			continue;
		n = strlen(v);
		if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
			add_field(l, xstrdup(k), xstrndup(v + 1, n - 2));
		else
			add_field(l, xstrdup(k), untrusted(k) ? unhex(v, n) :
							       xstrdup(v));
	} while (auparse_next_field(au) > 0);
}

/*
 * Whether the parser's current record is denywrite's: of type AVC,
 * MAC_POLICY_LOAD or MAC_STATUS, and its text after the audit stamp
 * "msg=audit(T:S): " starts with the kernel's prefix.  A record of
 * another LSM or program that has the words elsewhere is not.
 */
static bool au_denywrite(auparse_state_t *au)
{
	int type = auparse_get_type(au);
	const char *t = auparse_get_record_text(au), *a;

	if (type == TYPE_SYSCALL || !type_name(type) || !t)
		return false;
	a = strstr(t, "msg=audit(");
	a = a ? strchr(a, ')') : NULL;
	return a && after(a, "): ") && after(a + 3, RECORD_PREFIX);
}

/* libauparse's callback: an event is complete; print its records. */
static void on_event(auparse_state_t *au, auparse_cb_event_t what,
		     void *data)
{
	struct reader *rd = data;
	const au_event_t *e = auparse_get_timestamp(au);
	struct kvlist sys = { 0 };

	if (what != AUPARSE_CB_EVENT_READY || !e ||
	    auparse_first_record(au) <= 0)
		return;
	do {
		if (auparse_get_type(au) == TYPE_SYSCALL && !sys.n)
			au_fields(au, &sys, true);
	} while (auparse_next_record(au) > 0);
	auparse_first_record(au);
	do {
		struct record r = { .time = (double)e->sec + e->milli / 1000.0 };

		if (!au_denywrite(au))
			continue;
		r.type = auparse_get_type(au);
		au_fields(au, &r.f, false);
		for (size_t i = 0; i < sizeof(joined_fields) /
				       sizeof(*joined_fields); i++) {
			const char *k = joined_fields[i], *v = kv_get(&sys, k);

			if (v && !kv_get(&r.f, k))
				add_field(&r.f, xstrdup(k), xstrdup(v));
		}
		emit(rd, &r);
	} while (auparse_next_record(au) > 0);
	kv_free(&sys);
}

/* Feed one audit record line (without its newline) to the parser. */
static void feed(struct reader *rd, const char *s, size_t n)
{
	auparse_feed(rd->au, s, n);
	auparse_feed(rd->au, "\n", 1);
}

/* At "SECONDS.MILLI:SERIAL): " (audit's stamp, after "audit("): the text
 * after it; NULL if there is none. */
static const char *stamp_end(const char *a)
{
	size_t n = strspn(a, DIGITS);

	if (!n || a[n] != '.')
		return NULL;
	a += n + 1;
	n = strspn(a, DIGITS);
	if (!n || a[n] != ':')
		return NULL;
	a += n + 1;
	n = strspn(a, DIGITS);
	return n ? after(a + n, "): ") : NULL;
}

/* An audit log line, "[node=N ]type=NAME msg=audit(T.MS:S): ...": the
 * type's name (its length in *n); NULL if m is no such line. */
static const char *audit_log_type(const char *m, size_t *n)
{
	const char *t = m, *a;

	if (after(m, "node=")) {
		t = strchr(m, ' ');
		if (!t)
			return NULL;
		t++;
	}
	t = after(t, "type=");
	*n = t ? word_of(t, UPPER DIGITS "[]") : 0;
	if (!*n)
		return NULL;
	a = after(t + *n, " msg=audit(");
	return a && stamp_end(a) ? t : NULL;
}

/* The printk of an audit record, "audit: type=NUM audit(T.MS:S): ...",
 * as audit.log's "type=NAME msg=audit(T.MS:S): ..." (malloc'd) if it is
 * of a type that log reads; NULL otherwise, *framed set if it is one. */
static char *printk_as_audit_log(const char *m, bool *framed)
{
	const char *t = after(m, "audit: type="), *a, *name;
	size_t n = t ? strspn(t, DIGITS) : 0;
	char *line;

	*framed = false;
	a = n ? after(t + n, " audit(") : NULL;
	if (!a || !stamp_end(a))
		return NULL;
	*framed = true;
	name = type_name(atoi(t));
	if (!name)
		return NULL;
	line = xmalloc(strlen(name) + strlen(a) + 32);
	sprintf(line, "type=%s msg=audit(%s", name, a);
	return line;
}

/*
 * A message (its metadata, if any, taken off: from says whose it is;
 * time, the time of its line if known): audit records go to the parser,
 * which prints them when their event is complete; another record of
 * denywrite's is printed now, after the events before it.
 */
static void handle_message(struct reader *rd, const char *m,
			   enum origin from, double time)
{
	struct record r = { .time = time };
	size_t n;
	const char *t;
	char *line;
	bool framed = false;

	if (from == FROM_UNKNOWN && (t = audit_log_type(m, &n)) != NULL) {
		if (type_by_name(t, n) || (n == 7 && !strncmp(t, "SYSCALL", 7)))
			feed(rd, m, strlen(m));
		return;
	}
	if (from != FROM_AUDIT && (line = printk_as_audit_log(m, &framed))) {
		feed(rd, line, strlen(line));
		free(line);
		return;
	}
	if (framed && from != FROM_AUDIT)
		return;	/* an audit record of another type */
	if (!parse_record(m, from, &r))
		return;
	flush_events(rd);
	emit(rd, &r);
}

/* A line of a log file, dmesg's, /dev/kmsg's or the journal's text. */
static void handle_line(struct reader *rd, char *line)
{
	enum origin from;
	double time = 0;
	const char *m;

	line[strcspn(line, "\r\n")] = '\0';
	m = log_message(line, &time, &from);
	if (m)
		handle_message(rd, m, from, time);
	esc_release();	/* no record's text is needed any more */
}

static void nap(void)
{
	struct timespec ts = { 0, POLL_MS * 1000000L };

	nanosleep(&ts, NULL);
}

enum reopen { SAME, MORE, REOPENED };

/*
 * At the end of a followed file: whether its name now names another
 * file (auditd rotated the log: audit.log renamed, a new one created),
 * then, once the old one is read to its end, open that one (REOPENED);
 * or whether it was truncated (copytruncate), then read it from its
 * start (REOPENED); MORE if the old file grew meanwhile.  As tail -F.
 */
static enum reopen reopen(const char *path, FILE **f, struct stat *st)
{
	struct stat now, old;
	off_t pos = ftello(*f);
	FILE *nf;

	if (stat(path, &now) != 0)
		return SAME;	/* renamed, the new one not there yet */
	if (now.st_dev == st->st_dev && now.st_ino == st->st_ino) {
		if (now.st_size >= pos)
			return SAME;
		return fseeko(*f, 0, SEEK_SET) == 0 ? REOPENED : SAME;
	}
	if (fstat(fileno(*f), &old) == 0 && old.st_size > pos)
		return MORE;
	nf = fopen(path, "re");
	if (!nf)
		return SAME;
	fclose(*f);
	*f = nf;
	if (fstat(fileno(nf), st) != 0)
		memset(st, 0, sizeof(*st));
	return REOPENED;
}

/* Join a partial line (a follower read the end of a line being written)
 * with the rest. */
static char *join_line(char *part, const char *rest)
{
	size_t n = part ? strlen(part) : 0;

	part = xrealloc(part, n + strlen(rest) + 1);
	strcpy(part + n, rest);
	return part;
}

/* A file's lines (or stdin's) to their end; a follower waits for more,
 * by name: across rotations and truncations. */
static int read_file_source(struct reader *rd, const char *path)
{
	bool std = strcmp(path, "-") == 0, follow = rd->c->follow && !std;
	FILE *f = std ? stdin : fopen(path, "re");
	char *line = NULL, *part = NULL;
	unsigned int idle = 0;
	size_t cap = 0;
	struct stat st;
	int err = 0;

	if (!f)
		return fail("log: %s: %s", esc(path), strerror(errno));
	if (fstat(fileno(f), &st) != 0)
		memset(&st, 0, sizeof(st));
	for (;;) {
		ssize_t n = getline(&line, &cap, f);

		if (n > 0) {
			idle = 0;
			if (follow && line[n - 1] != '\n') {
				part = join_line(part, line);
				continue;
			}
			if (part) {
				part = join_line(part, line);
				handle_line(rd, part);
				free(part);
				part = NULL;
			} else {
				handle_line(rd, line);
			}
			continue;
		}
		if (ferror(f)) {
			err = errno;
			break;
		}
		if (!follow)
			break;
		clearerr(f);
		switch (reopen(path, &f, &st)) {
		case REOPENED:
			if (part)
				handle_line(rd, part);
			free(part);
			part = NULL;
			continue;
		case MORE:
			continue;
		case SAME:
			break;
		}
		if (++idle == IDLE_POLLS)
			flush_events(rd);
		nap();
	}
	free(line);
	free(part);
	if (!std)
		fclose(f);
	return err ? fail("log: %s: %s", esc(path), strerror(err)) : 0;
}

/* The kernel's log: one record a read; stop at its end unless following. */
static int read_kmsg(struct reader *rd)
{
	int fd = open(KMSG, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char *buf = xmalloc(LINE_MAX_BYTES + 1);
	int err = 0;

	if (fd < 0)
		err = errno;
	while (fd >= 0) {
		ssize_t n = read(fd, buf, LINE_MAX_BYTES);
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n < 0 && errno == EAGAIN && rd->c->follow) {
			if (poll(&p, 1, POLL_MS * IDLE_POLLS) == 0)
				flush_events(rd);
			continue;
		}
		if (n < 0 && errno != EAGAIN)
			err = errno;
		if (n <= 0)
			break;
		buf[n] = '\0';
		handle_line(rd, buf);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return err ? fail("log: %s: %s", KMSG, strerror(err)) : 0;
}

#if HAVE_SD_JOURNAL
/* The value of an entry's field, malloc'd; NULL if it has none. */
static char *entry_field(sd_journal *j, const char *field)
{
	size_t k = strlen(field), n;
	const void *d;

	if (sd_journal_get_data(j, field, &d, &n) < 0 || n <= k)
		return NULL;
	return xstrndup((const char *)d + k + 1, n - k - 1);
}

/*
 * An entry of journald's audit transport, its record as audit.log has
 * it, for the parser: the type from _AUDIT_TYPE, the stamp from
 * _SOURCE_REALTIME_TIMESTAMP (the record's own time) and _AUDIT_ID (its
 * serial), the fields from MESSAGE after the type's name ("AVC ...").
 */
static void handle_audit_entry(struct reader *rd, sd_journal *j)
{
	char *type = entry_field(j, "_AUDIT_TYPE");
	char *id = entry_field(j, "_AUDIT_ID");
	char *src = entry_field(j, "_SOURCE_REALTIME_TIMESTAMP");
	char *msg = entry_field(j, "MESSAGE");
	const char *name = type ? type_name(atoi(type)) : NULL;
	const char *body = msg ? strchr(msg, ' ') : NULL;
	uint64_t usec = src ? strtoull(src, NULL, 10) : 0;

	if (!usec)
		sd_journal_get_realtime_usec(j, &usec);
	if (name && body && id && *id && !id[strspn(id, DIGITS)]) {
		char *line = xmalloc(strlen(name) + strlen(id) +
				     strlen(body) + 64);
		int n = sprintf(line, "type=%s msg=audit(%llu.%03llu:%s):%s",
				name, (unsigned long long)(usec / 1000000),
				(unsigned long long)(usec / 1000 % 1000), id,
				body);

		feed(rd, line, (size_t)n);
		free(line);
	}
	free(type);
	free(id);
	free(src);
	free(msg);
}

/* An entry of the kernel transport: its message, as /dev/kmsg's. */
static void handle_kernel_entry(struct reader *rd, sd_journal *j)
{
	char *msg = entry_field(j, "MESSAGE");
	uint64_t usec = 0;

	sd_journal_get_realtime_usec(j, &usec);
	if (msg)
		handle_message(rd, msg, FROM_KERNEL, (double)usec / 1e6);
	free(msg);
	esc_release();
}

/*
 * Whether journald collects the audit subsystem's records itself (its
 * audit socket): then each record is in the journal twice without auditd,
 * once from the audit socket and once as the kernel's printk of it, and
 * only the first is complete (the kernel's copies are rate-limited).  For
 * the system's journal, in this boot.
 */
static bool journal_has_audit(sd_journal *j, bool this_boot)
{
	sd_id128_t id;
	bool any;

	sd_journal_flush_matches(j);
	sd_journal_add_match(j, "_TRANSPORT=audit", 0);
	if (this_boot && sd_id128_get_boot(&id) == 0) {
		char boot[sizeof("_BOOT_ID=") + 33];

		snprintf(boot, sizeof(boot), "_BOOT_ID=" SD_ID128_FORMAT_STR,
			 SD_ID128_FORMAT_VAL(id));
		sd_journal_add_match(j, boot, 0);
	}
	any = sd_journal_seek_tail(j) >= 0 && sd_journal_previous(j) > 0;
	sd_journal_flush_matches(j);
	return any;
}

/* The journal's records of one transport, so that each is read once:
 * audit when journald collects it, else the kernel's log.  The system's
 * journal, or a journal file (--journal-file). */
static int read_journal(struct reader *rd, const char *file)
{
	const char *files[] = { file, NULL };
	sd_journal *j;
	bool audit;
	int r;

	r = file ? sd_journal_open_files(&j, files, 0) :
		   sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
	if (r < 0)
		return fail("log: %s: %s", file ? esc(file) : "the journal",
			    strerror(-r));
	audit = journal_has_audit(j, !file);
	r = sd_journal_add_match(j, audit ? "_TRANSPORT=audit" :
					    "_TRANSPORT=kernel", 0);
	if (r >= 0)
		r = rd->f.since > 0 ?
			sd_journal_seek_realtime_usec(j,
				(uint64_t)(rd->f.since * 1e6)) :
			sd_journal_seek_head(j);
	while (r >= 0) {
		r = sd_journal_next(j);
		if (r > 0) {
			if (audit)
				handle_audit_entry(rd, j);
			else
				handle_kernel_entry(rd, j);
			continue;
		}
		if (r < 0 || !rd->c->follow)
			break;
		r = sd_journal_wait(j, POLL_MS * IDLE_POLLS * 1000);
		if (r == SD_JOURNAL_NOP)
			flush_events(rd);
	}
	sd_journal_close(j);
	return r < 0 ? fail("log: %s: %s", file ? esc(file) : "the journal",
			    strerror(-r)) : 0;
}
#else
static int read_journal(struct reader *rd, const char *file)
{
	(void)rd;
	return fail("log: %s: not built with libsystemd (sd-journal)%s",
		    file ? esc(file) : "the journal",
		    file ? "" : "; --file reads a saved log");
}
#endif

/* --since's words, as ausearch's: the time they say, or -1. */
static int since_word(const char *s, double *since)
{
	time_t now = time(NULL);
	struct tm tm;

	if (strcmp(s, "now") == 0 || strcmp(s, "recent") == 0) {
		*since = (double)now - (s[0] == 'r' ? 600 : 0);
		return 0;
	}
	if (!localtime_r(&now, &tm))
		return -1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	if (strcmp(s, "yesterday") == 0)
		tm.tm_mday--;
	else if (strcmp(s, "this-week") == 0)
		tm.tm_mday -= tm.tm_wday;	/* from Sunday */
	else if (strcmp(s, "this-month") == 0)
		tm.tm_mday = 1;
	else if (strcmp(s, "this-year") == 0)
		tm.tm_mday = 1, tm.tm_mon = 0;
	else if (strcmp(s, "today") != 0)
		return -1;
	tm.tm_isdst = -1;
	*since = (double)mktime(&tm);
	return 0;
}

/* --since: "@SECONDS", "YYYY-MM-DD[ HH:MM[:SS]]" (local), "-N[smhd]",
 * or a word. */
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
	if (*s >= 'a' && *s <= 'z')
		return since_word(s, since);
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

static const char *const ops[] = {
	"write", "truncate", "exec", "mmap",		/* refusals */
	"mode", "rules", "add", "del", "unmount",	/* changes */
};

/* The filters of the command line; EXIT_USAGE (said) if one is bad. */
static int parse_filters(const struct cli *c, struct filter *f)
{
	size_t i;

	if (parse_since(c->since, &f->since)) {
		fail("log: --since: '%s' is not @SECONDS, YYYY-MM-DD "
		     "[HH:MM[:SS]], -N[smhd], now, recent, today, yesterday, "
		     "this-week, this-month or this-year", esc(c->since));
		return EXIT_USAGE;
	}
	for (i = 0; c->log_op && i < sizeof(ops) / sizeof(*ops); i++)
		if (strcmp(c->log_op, ops[i]) == 0)
			break;
	if (c->log_op && i == sizeof(ops) / sizeof(*ops)) {
		fail("log: --op: '%s' is not write, truncate, exec, mmap, "
		     "mode, rules, add, del or unmount", esc(c->log_op));
		return EXIT_USAGE;
	}
	f->op = c->log_op;
	if (c->log_path && c->log_path[0] != '/') {
		fail("log: --path: '%s' is not an absolute path",
		     esc(c->log_path));
		return EXIT_USAGE;
	}
	f->path = c->log_path;
	if (c->log_uid) {
		const char *u = c->log_uid;
		const struct passwd *pw = getpwnam(u);
		char *end;

		f->by_uid = true;
		errno = 0;
		f->uid = strtoul(u, &end, 10);
		if (pw) {
			f->uid = pw->pw_uid;
		} else if (!*u || *end || errno || u[0] == '-' ||
			   f->uid > 4294967295UL) {
			fail("log: --uid: '%s' is no user name or number",
			     esc(u));
			return EXIT_USAGE;
		}
	}
	if (c->file && c->journal_file) {
		fail("log: --file and --journal-file conflict");
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_log(struct dw *dw, const struct cli *c)
{
	struct reader rd = { .c = c };
	int rc;

	(void)dw;
	rc = parse_filters(c, &rd.f);
	if (rc)
		return rc;
	rd.au = auparse_init(AUSOURCE_FEED, NULL);
	if (!rd.au)
		return fail("log: libauparse: %s", strerror(errno));
	auparse_add_callback(rd.au, on_event, &rd, NULL);
	if (c->journal_file)
		rc = read_journal(&rd, c->journal_file);
	else if (c->file)
		rc = read_file_source(&rd, c->file);
	else if (access(AUDITD_PID, F_OK) == 0 && access(AUDIT_LOG, R_OK) == 0)
		rc = read_file_source(&rd, AUDIT_LOG);
	else if (access(JOURNAL_DIR, F_OK) == 0)
		rc = read_journal(&rd, NULL);
	else
		rc = read_kmsg(&rd);
	flush_events(&rd);
	auparse_destroy_ext(rd.au, AUPARSE_DESTROY_ALL);
	return rc;
}
