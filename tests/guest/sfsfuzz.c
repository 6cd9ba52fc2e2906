/* sfsfuzz.c - the bounded fuzz loop of sfstest: random and mutated inputs
 * written to rules, add, del, mode and query (as root, one write(2) on a
 * fresh fd each), now and then a rename in the fuzzer's tree.  For every
 * input an independent model (sfsmodel.c, written from the interface's
 * documentation, never from the kernel's code) predicts the errno, or
 * success, and the exact rules and mode after it, and for a query its
 * answer; the kernel's must be the same, byte for byte.  The loop runs
 * for a bounded time (or number of inputs), from a printed seed, so a
 * failure replays with --seed N --fuzz-inputs M. */
#include "sfs.h"
#include "sfsmodel.h"

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
	/* one object, another name; renamed; symlinks up and absolute */
	"exec " TD "/hard", "lib " TD "/mv", "all " TD "/mv2", "exec " TD "/mv/sub",
	"lib " TD "/mv2/sub", "exec " TD "/abs", "all " TD "/up",
	"lib " TD "/up/sfstest/a", "exec //tmp/./sfstest/a/", "exec " TD "/file/",
	/* names that print escaped, and escapes that are not */
	"lib " TD "/t\\011b", "all,ignore-writers " TD "/t\\011b",
	"exec " TD "/b\\134s", "all " TD "/sp\\040", "lib " TD "/\\303\\251",
	"exec " TD "/\303\251", "lib " TD "/nl\\012x", "exec " TD "/\\141",
	"exec " TD "/a\\", "lib " TD "/\\400", "exec " TD "/\\12x",
	"lib " TD "/\\000", "exec " TD "/sp ", "exec " TD "/t\tb",
	/* blanks between scope and path */
	"lib  " TD "/a", "lib\t" TD "/b", "all \t " TD "/lib",
	"exec " TD "/many/0001", "lib " TD "/many/1024",
};

/* Paths for del (escaped, as rules prints them) and query (as written). */
static const char *const corpus_paths[] = {
	"/", TD "/lib", TD "/a", "/tmp", TD "/link", TD "/loop", TD "/file/x",
	TD "/missing", "/usr/lib", "relative", "", TD "/root", TD "/b",
	TD "/hard", TD "/file", TD "/mv", TD "/mv2", TD "/mv2/sub", TD "/mv/sub",
	TD "/t\\011b", TD "/t\tb", TD "/b\\134s", TD "/b\\s", TD "/sp\\040",
	TD "/sp ", TD "/nl\\012x", TD "/\303\251", TD "/up", TD "/abs",
	"tmp/sfstest/a", "//tmp/sfstest//a/.", TD "/a\\1", TD "/many/0007",
};

static const char *const corpus_modes[] = { "off", "audit", "enforce" };

static const char *const fragments[] = {
	" ", "\t", "\n", "\r", "/", ",", ".", "..", "//", "\001", "\177",
	"\377", "ignore-writers", "exec", "lib", "all", "\n\n", " /",
	"\\", "\\011", "\\040", "\\777", "/..", "/.", "mv2", "\n \t\n",
};

/* The file, its share of inputs (percent). */
static const struct target {
	const char *file;
	int weight;
} targets[T_COUNT] = {
	[T_RULES] = { "rules", 35 },
	[T_ADD] = { "add", 25 },
	[T_DEL] = { "del", 15 },
	[T_MODE] = { "mode", 10 },
	[T_QUERY] = { "query", 15 },
};
#define RENAME_PERMILLE 30 /* inputs preceded by a rename in the tree */
#define LIMITS_PERCENT 3   /* rules inputs around the 1024-rule limit */

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

/* 1023 to 1025 rules, one a directory of TD/many, between blank lines;
 * now and then one of them twice. */
static void limit_input(struct rng *r, struct buf *b)
{
	static const char *const blanks[] = { "\n", " \n", "\t \n", "" };
	size_t n = 1023 + below(r, 3);
	size_t twice = below(r, 4) ? n : below(r, n);
	char line[64];

	b->len = 0;
	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "exec " TD "/many/%04zu\n",
			 i == twice ? 0 : i);
		append(b, line);
		append(b, PICK(r, blanks));
	}
}

/* An input for t; true if it is one of the limit inputs. */
static bool make_input(struct rng *r, enum tid t, const struct text *rules,
		       struct buf *b)
{
	if (t == T_RULES && below(r, 100) < LIMITS_PERCENT) {
		limit_input(r, b);
		return true;
	}
	base_input(r, t, rules, b);
	if (below(r, 10) < 6)
		for (size_t n = below(r, 4) + 1; n; n--)
			mutate(r, b);
	return false;
}

static enum tid pick_target(struct rng *r)
{
	int w = (int)below(r, 100);
	enum tid t;

	for (t = 0; t < T_COUNT - 1 && w >= targets[t].weight; t++)
		w -= targets[t].weight;
	return t;
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
	long renames, limit_inputs, partial_answers;
	size_t rules; /* rules after the last input */
};

static void print_tally(const struct tally *s)
{
	stat_line("fuzz_inputs", s->inputs);
	stat_line("fuzz_ok", s->ok);
	stat_line("fuzz_renames", s->renames);
	stat_line("fuzz_limit_inputs", s->limit_inputs);
	stat_line("fuzz_answers_counts_not_predicted", s->partial_answers);
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

/* The first line where a and b differ, for a reason. */
static const char *first_diff(const char *what, const char *a, size_t alen,
			      const char *b, size_t blen)
{
	static char buf[400];
	size_t i = 0, line = 1, start = 0;

	while (i < alen && i < blen && a[i] == b[i]) {
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	snprintf(buf, sizeof(buf), "%s line %zu is '%s', the model's '%s'", what,
		 line, escaped(a + start, strcspn(a + start, "\n") + (start < alen)),
		 escaped(b + start, strcspn(b + start, "\n") + (start < blen)));
	return buf;
}

/* An answer whose protected, holders and writers the model cannot know
 * (a file outside the tree): their form, then the rest byte for byte. */
static const char *answer_differs(const struct text *a,
				  const struct prediction *p)
{
	const char *rest;
	size_t skip;

	if (p->counts_known)
		return text_is(a, p->answer, p->answer_len) ? NULL :
		       first_diff("the answer's", a->p, a->len, p->answer,
				  p->answer_len);
	rest = a->p;
	for (int i = 0; i < 3; i++) {
		static const char *const keys[] = { "protected ", "holders ", "writers " };
		size_t k = strlen(keys[i]), n;

		if (strncmp(rest, keys[i], k))
			return "the answer's first lines are not protected, holders, writers";
		n = strspn(rest + k, "0123456789");
		if (!n || rest[k + n] != '\n')
			return "the answer's counts are not numbers";
		rest += k + n + 1;
	}
	skip = (size_t)(strstr(p->answer, "exec-rule ") - p->answer);
	return strcmp(rest, p->answer + skip) ?
	       first_diff("the answer's rules", rest, strlen(rest),
			  p->answer + skip, p->answer_len - skip) : NULL;
}

/* Why the kernel's outcome is not the model's, or NULL. */
static const char *outcome_differs(enum tid t, int err, const struct policy *after,
				   const struct text *answer,
				   const struct prediction *p, struct tally *s)
{
	static char buf[200];

	if (err != p->err) {
		snprintf(buf, sizeof(buf), "the kernel answered %s, the model %s",
			 errname(err), errname(p->err));
		return buf;
	}
	if (!text_is(&after->rules, p->rules, p->rules_len))
		return first_diff("rules", after->rules.p, after->rules.len,
				  p->rules, p->rules_len);
	if (!text_is(&after->mode, p->mode, strlen(p->mode)))
		return first_diff("mode", after->mode.p, after->mode.len,
				  p->mode, strlen(p->mode));
	if (t == T_QUERY && !err) {
		s->partial_answers += !p->counts_known;
		return answer_differs(answer, p);
	}
	return NULL;
}

/* Check one input; why set and -1 on a violation. */
static int fuzz_one(struct rng *r, struct model *m, struct tally *s,
		    char *why, size_t whylen)
{
	static struct buf b;
	struct policy before, after;
	struct text answer = { 0 };
	struct prediction p;
	enum tid t = pick_target(r);
	const char *bad = NULL;
	size_t len;
	char *expect;
	int err;

	if (below(r, 1000) < RENAME_PERMILLE) {
		if (model_rename(why, whylen))
			return -1;
		s->renames++;
	}
	if (policy_read(&before, why, whylen))
		return -1;
	/* Kernel and model in step before the input (after a reset, too). */
	expect = model_rules_text(m, &len);
	if (!text_is(&before.rules, expect, len))
		bad = first_diff("before the input, rules", before.rules.p,
				 before.rules.len, expect, len);
	free(expect);
	s->limit_inputs += make_input(r, t, &before.rules, &b);
	model_write(m, t, b.p, b.len, &p);
	err = bad ? 0 : fuzz_write(t, &b, &answer);
	s->inputs++;
	s->per_target[t]++;
	if (err)
		s->per_errno[err & 255]++;
	else
		s->ok++;
	if (policy_read(&after, why, whylen)) {
		policy_free(&before);
		prediction_free(&p);
		text_free(&answer);
		return -1;
	}
	if (!bad)
		bad = outcome_differs(t, err, &after, &answer, &p, s);
	s->rules = rule_count(&after.rules);
	if (bad) {
		snprintf(why, whylen, "input %ld to %s '%s': %s", s->inputs,
			 targets[t].file, escaped(b.p, b.len), bad);
		fprintf(stderr, "sfstest: fuzz input %ld (%zu bytes) to %s:\n",
			s->inputs, b.len, targets[t].file);
		for (size_t i = 0; i < b.len; i++)
			fprintf(stderr, "%02x%s", (unsigned char)b.p[i],
				i % 32 == 31 ? "\n" : "");
		fprintf(stderr, "\nsfstest: the kernel's rules:\n%s\nsfstest: the "
			"model's:\n%s\n", after.rules.p, p.rules);
		if (t == T_QUERY)
			fprintf(stderr, "sfstest: the kernel's answer:\n%s\nsfstest: "
				"the model's:\n%s\n", answer.p ? answer.p : "",
				p.answer ? p.answer : "");
	}
	policy_free(&before);
	policy_free(&after);
	prediction_free(&p);
	text_free(&answer);
	return bad ? -1 : 0;
}

void fuzz_check(const struct fuzz_opts *o)
{
	static struct tally s;
	static struct model m;
	struct rng r = { o->seed };
	long long start = now_ms(), until = start + o->seconds * 1000;
	long min = o->max_inputs && o->max_inputs < MIN_INPUTS ? o->max_inputs
							       : MIN_INPUTS;
	char why[1000] = "", cwd[4096];
	int bad = 0;

	fprintf(stderr, "sfstest: fuzz seed %llu (replay: sfstest --only fuzz "
		"--seed %llu --fuzz-inputs N)\n", (unsigned long long)o->seed,
		(unsigned long long)o->seed);
	stat_line("fuzz_seed", (long long)o->seed);
	/* The model looks relative paths up from "/". */
	if (!getcwd(cwd, sizeof(cwd)) || chdir("/")) {
		fail(FUZZ_CHECK, "cannot change to /: %s", errname(errno));
		return;
	}
	if (model_tree_make(why, sizeof(why))) {
		fail(FUZZ_CHECK, "the fuzzer's tree: %s", why);
		model_tree_remove();
		return;
	}
	while (!bad && now_ms() < until &&
	       (!o->max_inputs || s.inputs < o->max_inputs)) {
		if (s.inputs % RESET_EVERY == 0 || s.rules > MAX_RULES_KEPT) {
			const char *mode = PICK(&r, corpus_modes);

			if (policy_write(BASE_RULES, strlen(BASE_RULES), mode,
					 why, sizeof(why)) ||
			    model_reset(&m, BASE_RULES, mode)) {
				bad = -1;
				break;
			}
		}
		bad = fuzz_one(&r, &m, &s, why, sizeof(why));
	}
	if (!bad && model_tree_check(why, sizeof(why)))
		bad = -1;
	model_tree_remove();
	if (chdir(cwd))
		fprintf(stderr, "sfstest: cannot change back to %s\n", cwd);
	print_tally(&s);
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
