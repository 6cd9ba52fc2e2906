/* sfsfuzz.c - the bounded fuzz loop of sfstest: random and mutated inputs
 * written to rules, add, del, mode and query (as root, one write(2) on a
 * fresh fd each).  Every write must either succeed and leave a valid policy
 * that matches what the write asked for, or fail with an errno documented
 * for that file and leave rules and mode exactly as they were.  The loop
 * runs for a bounded time (or number of inputs), from a printed seed, so a
 * failure replays with --seed N --fuzz-inputs M. */
#include "sfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define INPUT_MAX (80 * 1024)
#define RESET_EVERY 100 /* inputs between resets to the baseline */
#define MAX_RULES_KEPT 32
#define MIN_INPUTS 50   /* fewer means the loop did not really run */
#define ANSWER_MAX (2 * 4096 + 128) /* of a query */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r) /* splitmix64 */
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t below(struct rng *r, size_t n)
{
	return n ? (size_t)(rnd(r) % n) : 0;
}

#define PICK(r, a) ((a)[below(r, ARRAY_SIZE(a))])

static const char *const corpus_rules[] = {
	"exec /", "lib /", "all /", "lib " TD "/lib", "all " TD "/a",
	"exec,ignore-writers " TD "/b", "lib,ignore-writers " TD "/a",
	"exec " TD "/link", "all " TD "/file", "lib /usr/lib",
	"exec " TD "/a/../b", "lib //tmp//sfstest/lib/", "exec /tmp",
	"all " TD "/root", "exec " TD "/liblink", "lib " TD "/loop",
	"exec " TD "/missing", "exec " TD "/file/x", "all,ignore-writers /tmp",
};

static const char *const corpus_paths[] = {
	"/", TD "/lib", TD "/a", "/tmp", TD "/link", TD "/loop", TD "/file/x",
	TD "/missing", "/usr/lib", "relative", "", TD "/root", TD "/b",
};

static const char *const corpus_modes[] = { "off", "audit", "enforce" };

static const char *const fragments[] = {
	" ", "\t", "\n", "\r", "/", ",", ".", "..", "//", "\001", "\177",
	"\377", "ignore-writers", "exec", "lib", "all", "\n\n", " /",
};

enum tid { T_RULES, T_ADD, T_DEL, T_MODE, T_QUERY, T_COUNT };

/* The file, its share of inputs (percent) and its documented errnos. */
static const struct target {
	const char *file;
	int weight;
	int errs[8]; /* 0-terminated */
} targets[T_COUNT] = {
	[T_RULES] = { "rules", 35,
		      { EINVAL, ENOENT, E2BIG, ENAMETOOLONG, ENOTDIR, ELOOP } },
	[T_ADD] = { "add", 25,
		    { EINVAL, ENOENT, E2BIG, ENAMETOOLONG, ENOTDIR, ELOOP,
		      EEXIST } },
	[T_DEL] = { "del", 15, { EINVAL, ENOENT, E2BIG } },
	[T_MODE] = { "mode", 10, { EINVAL } },
	[T_QUERY] = { "query", 15,
		      { EINVAL, ENOENT, E2BIG, ENAMETOOLONG, ENOTDIR, ELOOP } },
};

struct buf {
	char p[INPUT_MAX];
	size_t len;
};

static void put_bytes(struct buf *b, size_t at, const void *s, size_t n)
{
	if (b->len + n > INPUT_MAX)
		n = INPUT_MAX - b->len;
	memmove(b->p + at + n, b->p + at, b->len - at);
	memcpy(b->p + at, s, n);
	b->len += n;
}

static void append(struct buf *b, const char *s)
{
	put_bytes(b, b->len, s, strlen(s));
}

/* The path of a random line of the rules text (for del), or NULL. */
static const char *rules_path(struct rng *r, const struct text *rules)
{
	static char path[4200];
	size_t lines = rule_count(rules), k;
	const char *p = rules->p;

	if (!lines)
		return NULL;
	for (k = below(r, lines); k; k--)
		p = strchr(p, '\n') + 1;
	p += strcspn(p, " ") + 1;
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(p, "\n"), p);
	return path;
}

/* A valid-looking input for the target. */
static void base_input(struct rng *r, enum tid t, const struct text *rules,
		       struct buf *b)
{
	const char *path;

	b->len = 0;
	switch (t) {
	case T_RULES:
		for (size_t n = below(r, 6); n; n--) {
			append(b, PICK(r, corpus_rules));
			append(b, below(r, 8) ? "\n" : "\n\n");
		}
		break;
	case T_ADD:
		append(b, PICK(r, corpus_rules));
		break;
	case T_DEL:
		path = below(r, 2) ? rules_path(r, rules) : NULL;
		append(b, path ? path : PICK(r, corpus_paths));
		break;
	case T_MODE:
		append(b, PICK(r, corpus_modes));
		break;
	default:
		append(b, PICK(r, corpus_paths));
		break;
	}
	if (t != T_RULES && !below(r, 3))
		append(b, "\n");
}

/* Repeat the content until it is around size bytes. */
static void grow_to(struct buf *b, size_t size)
{
	size_t unit = b->len ? b->len : 1;

	if (!b->len)
		append(b, "\n");
	while (b->len < size)
		put_bytes(b, b->len, b->p, b->len + unit > size ? size - b->len : unit);
}

static void mutate(struct rng *r, struct buf *b)
{
	/* Small edits are more common than whole replacements. */
	static const unsigned char kinds[] = { 0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7, 8 };
	size_t at = below(r, b->len + 1), n;
	const char *f;
	char c;

	switch (PICK(r, kinds)) {
	case 0: /* flip a bit */
		if (b->len)
			b->p[below(r, b->len)] ^= (char)(1 << below(r, 8));
		break;
	case 1: /* insert an interesting fragment */
		f = PICK(r, fragments);
		put_bytes(b, at, f, strlen(f));
		break;
	case 2: /* delete some bytes */
		n = below(r, 4) + 1;
		if (at + n <= b->len) {
			memmove(b->p + at, b->p + at + n, b->len - at - n);
			b->len -= n;
		}
		break;
	case 3: /* duplicate the line at a random place */
		while (at && b->p[at - 1] != '\n')
			at--;
		c = '\n';
		f = memchr(b->p + at, c, b->len - at);
		n = f ? (size_t)(f - b->p) - at + 1 : b->len - at;
		put_bytes(b, at, b->p + at, n);
		break;
	case 4: /* cut */
		b->len = at;
		break;
	case 5: /* a NUL or control byte */
		c = below(r, 2) ? '\0' : (char)below(r, 32);
		put_bytes(b, at, &c, 1);
		break;
	case 6: /* a long path component around PATH_MAX */
		n = 4000 + below(r, 200);
		for (size_t i = 0; i < n; i += 100)
			put_bytes(b, at, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/",
				  n - i < 100 ? n - i : 100);
		break;
	case 7: /* huge: around the 65536-byte and 1024-line limits */
		grow_to(b, below(r, 2) ? 65530 + below(r, 12) : 4096 + below(r, 8));
		break;
	default: /* random bytes */
		b->len = below(r, 65);
		for (size_t i = 0; i < b->len; i++)
			b->p[i] = (char)rnd(r);
		break;
	}
}

static void make_input(struct rng *r, enum tid t, const struct text *rules,
		       struct buf *b)
{
	base_input(r, t, rules, b);
	if (below(r, 10) < 6)
		for (size_t n = below(r, 4) + 1; n; n--)
			mutate(r, b);
}

static enum tid pick_target(struct rng *r)
{
	int w = (int)below(r, 100);
	enum tid t;

	for (t = 0; t < T_COUNT - 1 && w >= targets[t].weight; t++)
		w -= targets[t].weight;
	return t;
}

/* ---- oracles ----------------------------------------------------------- */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Why one rules line "SCOPE[,ignore-writers] PATH" is not a valid, live
 * rule, or NULL.  line has no newline. */
static const char *line_invalid(const char *line)
{
	static const char *const scopes[] = { "exec", "lib", "all" };
	static char buf[300];
	const char *path = strchr(line, ' ');
	size_t slen = path ? (size_t)(path - line) : 0, i;
	struct stat st;

	for (i = 0; i < ARRAY_SIZE(scopes); i++) {
		size_t n = strlen(scopes[i]);

		if (!strncmp(line, scopes[i], n) &&
		    (slen == n || (slen == n + 15 &&
				   !strncmp(line + n, ",ignore-writers", 15))))
			break;
	}
	if (i == ARRAY_SIZE(scopes))
		return "bad scope";
	path++;
	if (path[0] != '/' || blank(path[strlen(path) - 1]))
		return "path not absolute or ends in a blank";
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "control character in path";
	if (stat(path, &st)) {
		snprintf(buf, sizeof(buf), "path %s: %s", path, errname(errno));
		return buf;
	}
	return NULL;
}

/* Why the rules text is not a valid policy, or NULL. */
static const char *rules_invalid(const struct text *rules)
{
	static char buf[400];
	const char *bad;
	char *copy, *line, *next;

	if (rules->len && rules->p[rules->len - 1] != '\n')
		return "no final newline";
	if (strlen(rules->p) != rules->len)
		return "NUL byte in rules";
	copy = strndup(rules->p, rules->len);
	bad = NULL;
	for (line = copy; !bad && *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		bad = line_invalid(line);
		/* one object, one rule: no path twice */
		for (char *o = copy; !bad && o < line; o += strlen(o) + 1)
			if (!strcmp(strchr(o, ' '), strchr(line, ' ')))
				bad = "one path in two rules";
		if (bad) {
			snprintf(buf, sizeof(buf), "line '%s': %s",
				 escaped(line, strlen(line)), bad);
			bad = buf;
		}
	}
	free(copy);
	return bad;
}

/* Why the query answer is malformed, or NULL.  Each rule it names must
 * be a line of rules. */
static const char *answer_invalid(const struct text *a, const struct text *rules)
{
	static const char *const keys[] = { "protected ", "holders ",
					    "writers ", "exec-rule ",
					    "lib-rule " };
	const char *p = a->p;

	if (strlen(a->p) != a->len || !a->len || a->p[a->len - 1] != '\n')
		return "answer not newline-terminated text";
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		size_t k = strlen(keys[i]), n;
		const char *v = p + k;

		if (strncmp(p, keys[i], k))
			return "answer lines out of order";
		n = strcspn(v, "\n");
		if (i < 3 && (n == 0 || strspn(v, "0123456789") != n))
			return "answer count not a number";
		if (i >= 3 && !(n == 1 && *v == '-')) {
			char *line = strndup(v, n + 1);
			bool known = strstr(rules->p, line) &&
				     (strstr(rules->p, line) == rules->p ||
				      strstr(rules->p, line)[-1] == '\n');

			free(line);
			if (!known)
				return "answer names a rule not in rules";
		}
		p = v + n + 1;
	}
	return *p ? "answer has extra lines" : NULL;
}

/* @len bytes of an escaped rule path, unescaped (\ooo is a byte). */
static char *unescaped(const char *p, size_t len)
{
	char *s = malloc(len + 1), *o = s;

	for (size_t i = 0; s && i < len; i++) {
		if (p[i] == '\\' && i + 3 < len + 1 && p[i + 1] >= '0' &&
		    p[i + 1] <= '3') {
			*o++ = (char)((p[i + 1] - '0') << 6 | (p[i + 2] - '0') << 3 |
				      (p[i + 3] - '0'));
			i += 3;
		} else {
			*o++ = p[i];
		}
	}
	if (s)
		*o = '\0';
	return s;
}

/* Do the written path and the rule path name one object? */
static bool same_object(const char *written, size_t wlen, const char *rule,
			size_t rlen)
{
	char *a = unescaped(written, wlen), *b = unescaped(rule, rlen);
	struct stat sa, sb;
	bool same = a && b && a[0] == '/' && !stat(a, &sa) && !stat(b, &sb) &&
		    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;

	free(a);
	free(b);
	return same;
}

/* The input minus one trailing newline. */
static size_t trimmed(const struct buf *b)
{
	return b->len && b->p[b->len - 1] == '\n' ? b->len - 1 : b->len;
}

/* Why a successful write of b to t did not give what it asked, or NULL. */
static const char *success_invalid(enum tid t, const struct buf *b,
				   const struct policy *before,
				   const struct policy *after,
				   const struct text *answer)
{
	static char buf[300];
	const char *bad = rules_invalid(&after->rules);
	size_t lb = rule_count(&before->rules), la = rule_count(&after->rules);
	size_t n = trimmed(b);

	if (bad)
		return bad;
	if (!b->len) {	/* a write of nothing changes nothing */
		if (!text_is(&after->mode, before->mode.p, before->mode.len) ||
		    !text_is(&after->rules, before->rules.p, before->rules.len))
			return "an empty write changed the policy";
		return NULL;
	}
	if (t != T_MODE && !text_is(&after->mode, before->mode.p, before->mode.len))
		return "the mode changed";
	switch (t) {
	case T_MODE:
		snprintf(buf, sizeof(buf), "%.*s\n", (int)n, b->p);
		if (!text_is(&after->mode, buf, strlen(buf)))
			return "the mode is not the one written";
		__attribute__((fallthrough)); /* and the rules unchanged */
	case T_QUERY:
		if (!text_is(&after->rules, before->rules.p, before->rules.len))
			return "the rules changed";
		return t == T_QUERY ? answer_invalid(answer, &after->rules) : NULL;
	case T_ADD:
		if (la != lb + 1 || after->rules.len <= before->rules.len ||
		    memcmp(after->rules.p, before->rules.p, before->rules.len))
			return "add did not append exactly one rule";
		return NULL;
	case T_DEL:
		if (la + 1 != lb)
			return "del did not remove exactly one rule";
		/* The rule printed with the path written, or the rule on the
		 * object it resolves to. */
		for (const char *p = before->rules.p; *p; p = strchr(p, '\n') + 1) {
			const char *path = strchr(p, ' ') + 1;
			size_t len = strcspn(path, "\n");
			char *line = strndup(p, path + len + 1 - p);
			bool gone = line && !strstr(after->rules.p, line);

			free(line);
			if (gone && ((len == n && !memcmp(path, b->p, n)) ||
				     same_object(b->p, n, path, len)))
				return NULL;
		}
		return "del removed a rule that neither has the path written nor is on its object";
	default:
		return NULL;
	}
}

static bool documented(enum tid t, int err)
{
	for (const int *e = targets[t].errs; *e; e++)
		if (*e == err)
			return true;
	return false;
}

/* One write of b to t: 0, or an errno.  A query also reads its answer. */
static int fuzz_write(enum tid t, const struct buf *b, struct text *answer)
{
	int fd, err;
	ssize_t n;

	if (t != T_QUERY)
		return sfs_write(targets[t].file, b->p, b->len);
	fd = open(sfs_path("query"), O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, b->p, b->len);
	err = n < 0 ? errno : (size_t)n == b->len ? 0 : EIO;
	if (!err) {
		/* The answer is on this fd, from offset 0. */
		answer->len = 0;
		answer->p = malloc(ANSWER_MAX + 1);
		n = answer->p ? pread(fd, answer->p, ANSWER_MAX, 0) : -1;
		if (n < 0)
			err = answer->p ? errno : ENOMEM;
		else
			answer->p[answer->len = (size_t)n] = '\0';
	}
	close(fd);
	return err;
}

/* ---- the loop ------------------------------------------------------------ */

struct tally {
	long inputs, ok, per_target[T_COUNT], per_errno[256];
	size_t rules; /* rules after the last input */
};

static void print_tally(const struct fuzz_opts *o, const struct tally *s)
{
	stat_line("fuzz_seed", (long long)o->seed);
	stat_line("fuzz_inputs", s->inputs);
	stat_line("fuzz_ok", s->ok);
	for (int e = 1; e < 256; e++)
		if (s->per_errno[e]) {
			char key[40];

			snprintf(key, sizeof(key), "fuzz_errno_%s", errname(e));
			stat_line(key, s->per_errno[e]);
		}
	for (int t = 0; t < T_COUNT; t++) {
		char key[40];

		snprintf(key, sizeof(key), "fuzz_target_%s", targets[t].file);
		stat_line(key, s->per_target[t]);
	}
}

/* Check one input; why set and -1 on a violation. */
static int fuzz_one(struct rng *r, struct tally *s, char *why, size_t whylen)
{
	static struct buf b;
	struct policy before, after;
	struct text answer = { 0 };
	enum tid t = pick_target(r);
	const char *bad = NULL;
	int err;

	if (policy_read(&before, why, whylen))
		return -1;
	make_input(r, t, &before.rules, &b);
	err = fuzz_write(t, &b, &answer);
	s->inputs++;
	s->per_target[t]++;
	if (err)
		s->per_errno[err & 255]++;
	else
		s->ok++;
	if (policy_read(&after, why, whylen)) {
		policy_free(&before);
		text_free(&answer);
		return -1;
	}
	if (err && !documented(t, err))
		bad = "undocumented errno";
	else if (err && !policy_same(&before, &after))
		bad = policy_diff(&after, before.rules.p, before.rules.len,
				  before.mode.p);
	else if (!err)
		bad = success_invalid(t, &b, &before, &after, &answer);
	s->rules = rule_count(&after.rules);
	if (bad) {
		snprintf(why, whylen, "input %ld to %s '%s' gave %s: %s",
			 s->inputs, targets[t].file, escaped(b.p, b.len),
			 errname(err), bad);
		fprintf(stderr, "sfstest: fuzz input %ld (%zu bytes) to %s:\n",
			s->inputs, b.len, targets[t].file);
		for (size_t i = 0; i < b.len; i++)
			fprintf(stderr, "%02x%s", (unsigned char)b.p[i],
				i % 32 == 31 ? "\n" : "");
		fprintf(stderr, "\n");
	}
	policy_free(&before);
	policy_free(&after);
	text_free(&answer);
	return bad ? -1 : 0;
}

void fuzz_check(const struct fuzz_opts *o)
{
	static struct tally s;
	struct rng r = { o->seed };
	long long start = now_ms(), until = start + o->seconds * 1000;
	long min = o->max_inputs && o->max_inputs < MIN_INPUTS ? o->max_inputs
							       : MIN_INPUTS;
	char why[600] = "";
	int bad = 0;

	fprintf(stderr, "sfstest: fuzz seed %llu (replay: sfstest --only fuzz "
		"--seed %llu --fuzz-inputs N)\n", (unsigned long long)o->seed,
		(unsigned long long)o->seed);
	while (!bad && now_ms() < until &&
	       (!o->max_inputs || s.inputs < o->max_inputs)) {
		if ((s.inputs % RESET_EVERY == 0 || s.rules > MAX_RULES_KEPT) &&
		    policy_write(BASE_RULES, strlen(BASE_RULES),
				 PICK(&r, corpus_modes), why, sizeof(why))) {
			bad = -1;
			break;
		}
		bad = fuzz_one(&r, &s, why, sizeof(why));
	}
	print_tally(o, &s);
	stat_line("fuzz_ms", now_ms() - start);
	if (bad)
		fail(FUZZ_CHECK, "%s (seed %llu)", why, (unsigned long long)o->seed);
	else if (s.inputs < min)
		fail(FUZZ_CHECK, "only %ld inputs in %ld s", s.inputs, o->seconds);
	else if (!s.ok || s.ok == s.inputs)
		fail(FUZZ_CHECK, "%ld of %ld inputs accepted: the generator does "
		     "not reach both outcomes", s.ok, s.inputs);
	else
		pass(FUZZ_CHECK);
}
